// The program's entry point: plain host code, no device code (passes through the device link).
int run();
int main() { return run(); }

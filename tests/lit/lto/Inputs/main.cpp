// The program's main, plain C++.
int run_program();
int main() { return run_program(); }

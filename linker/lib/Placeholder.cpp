// Placeholder until the linker lands.

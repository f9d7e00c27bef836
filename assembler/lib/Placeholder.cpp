// Placeholder until the assembler lands.

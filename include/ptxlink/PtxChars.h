// The characters of a PTX identifier (PTX ISA "Identifiers"): one rule for every tool that tells a name
// from what surrounds it, the assembler's lexer and body scanner, the printer's matching of names in
// ptxas messages, and the linker.
#pragma once

namespace ptxlink {

/// A character that may begin an identifier (a register name begins with '%').
constexpr bool isIdentStart(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_' || C == '$' || C == '%';
}
/// A character that may continue one.
constexpr bool isIdentChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C == '_' || C == '$';
}

} // namespace ptxlink

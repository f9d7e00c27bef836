// Reading the plain lines of a debug section straight from the bytes.
//
// The problem: a -G module's debug sections are hundreds of thousands of one-item lines (`.b8 5`,
// `.b32 668648`, `.b64 $L__tmp12`, `.b32 .debug_loc+96`). Taking each through the lexer and the parser's
// general list reader (a token per item, a source location per token, an integer conversion, a byte at
// a time appended) made them a third of such a module's assembly time. These lines have a tiny grammar,
// so they are read here in one loop over the bytes, and anything outside that grammar (hex or octal
// numbers, negative numbers, label differences, labels, comments, lists continued on the next line,
// values that do not fit) is left to the parser, which reads and reports it exactly as before.
#pragma once

#include "PtxParser.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ptxlink {

/// Where a run of plain debug-data lines stopped: its last token (a number, a name, or the offset after a
/// name's `+`), which the parser takes as the token it has just read.
struct DwarfLinesEnd {
  size_t LastTokenBegin = 0, LastTokenEnd = 0;
  uint32_t Line = 0;    // line of the last token
  size_t LineStart = 0; // offset of that line's first byte
};

/// Reads the data list that starts at ListBegin (just after a `.bN` directive of Width bytes on line
/// Line, which starts at LineStart), then every following line of the same plain form, into S: the
/// bytes appended, a fixup per name. A list is plain when its items are decimal integers that fit in
/// the width, or (for .b32 and .b64) label or section names with an optional decimal `+offset`,
/// separated by commas on one line. Returns nothing, with S unchanged, if the first list is not plain;
/// otherwise the run ends before the first line that is not plain, with nothing of that line taken.
std::optional<DwarfLinesEnd> readPlainDwarfLines(llvm::StringRef Text, size_t ListBegin, unsigned Width,
                                                 uint32_t Line, size_t LineStart, PtxDebugSection &S);

} // namespace ptxlink

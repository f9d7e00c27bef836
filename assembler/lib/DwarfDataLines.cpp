// Plain debug-data lines read from the bytes (see DwarfDataLines.h). Every check here mirrors what the
// lexer and the parser's list reader would do with the same bytes, so that a line taken here produces the
// same bytes and fixups as the general path; a line with anything else is not taken.
#include "DwarfDataLines.h"
#include "ByteScan.h"

#include "llvm/Support/Endian.h"

using namespace llvm;

namespace ptxlink {

namespace {

/// The bytes and fixups of one run, appended to the section in place. Bytes are written 8 at a time
/// into a vector kept at least 8 bytes longer than what is used, and trimmed to size at the end.
class RunReader {
public:
  RunReader(StringRef Text, PtxDebugSection &S)
      : B(Text.data()), N(Text.size()), S(S), Used(S.Bytes.size()), CommittedBytes(Used),
        CommittedFixups(S.Fixups.size()) {}

  /// Reads a comma-separated list of items of width W starting at I (blanks first), on one line.
  /// On success I is just after the last token and LastToken set; on failure, state is unspecified
  /// until rollback().
  bool list(size_t &I, unsigned W, uint32_t Line, size_t LineStart) {
    while (true) {
      skipBlanks(I);
      if (I >= N)
        return false;
      char C = B[I];
      if (isDigit(C)) {
        uint64_t V = 0;
        if (!decimal(I, V) || (W < 8 && V >= (uint64_t(1) << (8 * W))))
          return false;
        put(V, W);
      } else if (!name(I, W, Line, LineStart)) {
        return false;
      }
      LastTokenEnd = I;
      skipBlanks(I);
      if (I < N && B[I] == ',') {
        ++I;
        continue;
      }
      return true;
    }
  }

  /// The commonest line of all, `.b8 N` at K with N of one to three digits and nothing after it: read
  /// with a few tests at fixed positions instead of the general list reader. False, with nothing taken,
  /// for any other line.
  bool byteLine(size_t K, size_t &LineEnd) {
    if (K + 8 > N || support::endian::read32le(B + K) != ('.' | 'b' << 8 | '8' << 16 | ' ' << 24))
      return false;
    const char *P = B + K + 4;
    unsigned D0 = static_cast<unsigned char>(P[0] - '0'), D1 = static_cast<unsigned char>(P[1] - '0'),
             D2 = static_cast<unsigned char>(P[2] - '0');
    unsigned V, Len;
    if (D0 > 9)
      return false;
    if (D1 > 9) {
      V = D0, Len = 1;
    } else if (D0 == 0) {
      return false; // octal
    } else if (D2 > 9) {
      V = D0 * 10 + D1, Len = 2;
    } else {
      V = D0 * 100 + D1 * 10 + D2, Len = 3;
      if (V > 255)
        return false;
    }
    if (P[Len] != '\n')
      return false;
    put(V, 1);
    LastTokenBegin = K + 4;
    LastTokenEnd = LineEnd = K + 4 + Len;
    return true;
  }

  void commit() {
    CommittedBytes = Used;
    CommittedFixups = S.Fixups.size();
  }
  void rollback() {
    Used = CommittedBytes;
    S.Fixups.resize(CommittedFixups);
  }
  void finish() { S.Bytes.resize(Used); }

  size_t LastTokenBegin = 0, LastTokenEnd = 0;

private:
  void skipBlanks(size_t &I) const {
    while (I < N && (B[I] == ' ' || B[I] == '\t'))
      ++I;
  }

  /// A decimal integer at I as the lexer reads one: up to 18 digits (no overflow), no leading 0 (octal),
  /// and ending where the lexer's integer token ends (not a fraction, exponent, U suffix or identifier).
  bool decimal(size_t &I, uint64_t &V) {
    size_t Begin = I;
    V = 0;
    while (I < N && isDigit(B[I]))
      V = V * 10 + uint64_t(B[I++] - '0');
    size_t Len = I - Begin;
    if (Len == 0 || Len > 18 || (Len > 1 && B[Begin] == '0') || I >= N)
      return false;
    char C = B[I];
    if (C != ' ' && C != '\t' && C != '\n' && C != '\r' && C != ',' && C != '/')
      return false;
    LastTokenBegin = Begin;
    return true;
  }

  /// A label or section name (an identifier or directive token), with an optional `+ decimal` offset.
  bool name(size_t &I, unsigned W, uint32_t Line, size_t LineStart) {
    // Names need .b32 or .b64: the parser reports the others.
    if (W != 4 && W != 8)
      return false;
    size_t Begin = I;
    I = B[I] == '.' ? directiveTokenEnd(B, I, N) : identifierTokenEnd(B, I, N);
    if (I == Begin || I >= N)
      return false;
    PtxDwarfFixup Fx;
    Fx.Offset = Used;
    Fx.Width = static_cast<uint8_t>(W);
    Fx.Name = StringRef(B + Begin, I - Begin);
    Fx.Loc = SourceLoc{Line, static_cast<uint32_t>(Begin - LineStart + 1)};
    Fx.TextOffset = Begin;
    LastTokenBegin = Begin;
    // What may follow a name here: the end of the item, or `+ offset`. A '-' (a label difference or a
    // negative offset) or a '.' (a dotted name) is for the parser.
    size_t J = I;
    skipBlanks(J);
    if (J < N && B[J] == '+') {
      ++J;
      skipBlanks(J);
      uint64_t Offset = 0;
      if (J >= N || !isDigit(B[J]) || !decimal(J, Offset))
        return false;
      Fx.Addend = static_cast<int64_t>(Offset);
      I = J;
    } else if (J < N && B[J] != ',' && B[J] != '\n' && B[J] != '\r' && B[J] != '/') {
      return false;
    } else if (J >= N) {
      return false;
    }
    S.Fixups.push_back(Fx);
    put(0, W);
    return true;
  }

  void put(uint64_t V, unsigned W) {
    // Grown in small steps (the vector's own growth is geometric), so that starting a run after the
    // vector was trimmed zero-fills a few bytes, not a copy of everything before.
    if (S.Bytes.size() < Used + 8)
      S.Bytes.resize(Used + 256);
    support::endian::write64le(S.Bytes.data() + Used, V); // the bytes past W are overwritten or trimmed
    Used += W;
  }

  const char *B;
  size_t N;
  PtxDebugSection &S;
  size_t Used, CommittedBytes, CommittedFixups;
};

/// The width of a `.b8`/`.b16`/`.b32`/`.b64` directive at K followed by a blank, and where it ends; 0 if
/// there is none.
unsigned dataDirective(const char *B, size_t K, size_t N, size_t &After) {
  if (K + 4 >= N || B[K] != '.' || B[K + 1] != 'b')
    return 0;
  unsigned W = 0;
  if (B[K + 2] == '8') {
    W = 1, After = K + 3;
  } else if (B[K + 2] == '1' && B[K + 3] == '6') {
    W = 2, After = K + 4;
  } else if (B[K + 2] == '3' && B[K + 3] == '2') {
    W = 4, After = K + 4;
  } else if (B[K + 2] == '6' && B[K + 3] == '4') {
    W = 8, After = K + 4;
  }
  if (!W || After >= N || (B[After] != ' ' && B[After] != '\t'))
    return 0;
  return W;
}

} // namespace

std::optional<DwarfLinesEnd> readPlainDwarfLines(StringRef Text, size_t ListBegin, unsigned Width,
                                                 uint32_t Line, size_t LineStart, PtxDebugSection &S) {
  const char *B = Text.data();
  size_t N = Text.size();
  RunReader R(Text, S);
  size_t I = ListBegin;
  if (!R.list(I, Width, Line, LineStart)) {
    R.rollback();
    R.finish();
    return std::nullopt;
  }
  R.commit();
  DwarfLinesEnd Last{R.LastTokenBegin, R.LastTokenEnd, Line, LineStart};
  // The lines that follow, while they are plain: a line break, blanks, a data directive and a list.
  while (true) {
    size_t J = I;
    if (J < N && B[J] == '\r')
      ++J;
    if (J >= N || B[J] != '\n')
      break;
    size_t NextLineStart = J + 1, K = NextLineStart;
    while (K < N && (B[K] == ' ' || B[K] == '\t'))
      ++K;
    size_t After = 0;
    bool Taken = R.byteLine(K, After);
    if (!Taken) {
      unsigned W = dataDirective(B, K, N, After);
      Taken = W && R.list(After, W, Line + 1, NextLineStart);
    }
    if (!Taken) {
      R.rollback(); // that line is left to the parser, which reports anything wrong with it
      break;
    }
    R.commit();
    I = After;
    ++Line;
    LineStart = NextLineStart;
    Last = DwarfLinesEnd{R.LastTokenBegin, R.LastTokenEnd, Line, LineStart};
  }
  R.finish();
  return Last;
}

} // namespace ptxlink

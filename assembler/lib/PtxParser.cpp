// Recursive-descent parser for the module-level PTX grammar: module directives, function and kernel
// headers (bodies are only delimited here), variables with initializers, aliases, files, pragmas and
// debug sections (both `.section` and legacy `@@DWARF`), producing a PtxModule of byte ranges and
// structured data. Every error is reported with its location and parsing resumes at the next top-level
// `;` or matching `}`.
#include "PtxParser.h"
#include "ByteScan.h"
#include "DwarfDataLines.h"

#include "ptxlink/LittleEndian.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cassert>
#include <cstring>

using namespace llvm;

namespace ptxlink {

// ---------------------------------------------------------------------------------------------------
// Diagnostics

StringRef SourceDiags::lineAt(size_t Offset) const {
  Offset = std::min(Offset, Text.size());
  size_t S = Text.rfind('\n', Offset);
  S = S == StringRef::npos ? 0 : S + 1;
  size_t E = Text.find('\n', Offset);
  if (E == StringRef::npos)
    E = Text.size();
  return Text.slice(S, E).rtrim("\r");
}

void SourceDiags::error(size_t Offset, SourceLoc Loc, const Twine &Message) {
  ++Errors;
  Engine.error(FileName, Loc, Message, lineAt(Offset));
}

void SourceDiags::warning(size_t Offset, SourceLoc Loc, const Twine &Message) {
  Engine.warning(FileName, Loc, Message, lineAt(Offset));
}

void SourceDiags::errorAt(size_t Offset, const Twine &Message) { error(Offset, locate(Text, Offset), Message); }

// ---------------------------------------------------------------------------------------------------
// Types and targets

static bool isTypeName(StringRef T) {
  return typeSizeBytes(T) != 0 || T == ".texref" || T == ".samplerref" || T == ".surfref";
}

std::string canonicalArch(StringRef E) {
  std::optional<Target> T = Target::parse(E);
  return T ? T->name() : std::string();
}

/// Orders canonical architectures: by number, then plain < f < a (a-targets include family features).
static std::pair<unsigned, unsigned> archRank(StringRef Arch) {
  Target T = Target::parse(Arch).value_or(Target{});
  return {T.Sm, T.isArchSpecific() ? 2 : T.isFamilySpecific() ? 1 : 0};
}

/// Directives that can only begin a new module-scope item (used to end old `;`-less prototypes).
static bool startsModuleItem(StringRef D) {
  return D == ".func" || D == ".entry" || D == ".visible" || D == ".weak" || D == ".extern" || D == ".common" ||
         D == ".global" || D == ".const" || D == ".shared" || D == ".local" || D == ".tex" || D == ".version" ||
         D == ".target" || D == ".address_size" || D == ".file" || D == ".section" || D == ".alias";
}

static bool isTypeName(StringRef T);

/// Directives that can continue a function header or variable declaration on a new line.
static bool continuesItem(StringRef D) {
  return D == ".noreturn" || D == ".abi_preserve" || D == ".abi_preserve_control" || D == ".maxnreg" ||
         D == ".maxntid" || D == ".reqntid" || D == ".minnctapersm" || D == ".maxnctapersm" ||
         D == ".reqnctapercluster" || D == ".explicitcluster" || D == ".maxclusterrank" ||
         D == ".blocksareclusters" || D == ".param" || D == ".reg" || D == ".align" || D == ".ptr" ||
         D == ".attribute" || D == ".v2" || D == ".v4" || D == ".v8" || isTypeName(D);
}

static StateSpace spaceOf(StringRef D) {
  return StringSwitch<StateSpace>(D)
      .Case(".reg", StateSpace::Reg)
      .Case(".param", StateSpace::Param)
      .Case(".global", StateSpace::Global)
      .Case(".const", StateSpace::Const)
      .Case(".shared", StateSpace::Shared)
      .Case(".local", StateSpace::Local)
      .Case(".tex", StateSpace::Tex)
      .Default(StateSpace::None);
}

// ---------------------------------------------------------------------------------------------------
// Parser

namespace {

class Parser {
public:
  Parser(StringRef Text, SourceDiags &D, PtxModule &M, LexPos Start = {})
      : Main(Text, Start), L(&Main), D(D), M(M) {}

  void parseModule();
  bool parseCallPrototype(PtxCallPrototype &P);

  Lexer Main;
  Lexer *L;
  Token Tok;
  size_t PrevEnd = 0; // end of the previously consumed token

  uint32_t PrevLine = 0;
  void advance() {
    PrevEnd = Tok.end();
    PrevLine = Tok.Loc.Line;
    Tok = L->next();
    while (Tok.is(TokKind::Error)) {
      D.error(Tok.Offset, Tok.Loc, L->errorMessage());
      Tok = L->next();
    }
  }

private:
  SourceDiags &D;
  PtxModule &M;
  uint64_t ExpandedVariables = 0; // declared so far by module-scope parameterized names (`v<N>`)
  bool SawItemBeforeVersion = false;
  bool LegacyOpen = false;
  size_t LegacySection = 0;

public:
  void finishLegacy() {
    if (LegacyOpen)
      finishDebugSection(M.DebugSections[LegacySection]);
    LegacyOpen = false;
  }

private:

  bool error(const Token &T, const Twine &Msg) {
    D.error(T.Offset, T.Loc, Msg);
    return false;
  }
  bool errorHere(const Twine &Msg) {
    if (Tok.is(TokKind::Eof) && PrevEnd > 0) {
      // Point just after the last token rather than at an empty line past the end.
      D.errorAt(PrevEnd, Msg);
      return false;
    }
    return error(Tok, Msg);
  }
  std::string describe(const Token &T) {
    if (T.is(TokKind::Eof))
      return "end of file";
    return ("'" + T.Text + "'").str();
  }
  /// For "expected X" errors when the next token is on a later line: point just past the previous token,
  /// where the missing piece belongs, instead of at the start of the next item.
  bool errorAfterPrev(const Twine &Msg) {
    if (!Tok.is(TokKind::Eof) && PrevLine != 0 && Tok.Loc.Line != PrevLine) {
      D.errorAt(PrevEnd, Msg);
      return false;
    }
    return errorHere(Msg);
  }
  bool expectPunct(char C, StringRef Context) {
    if (!Tok.isPunct(C))
      return errorAfterPrev("expected '" + Twine(C) + "' " + Context + ", found " + describe(Tok));
    advance();
    return true;
  }
  bool parseUInt(uint64_t &V, StringRef What) {
    if (!Tok.is(TokKind::Integer))
      return errorHere("expected " + What + ", found " + describe(Tok));
    if (!parseIntegerLiteral(Tok.Text, V))
      return errorHere("invalid integer '" + Tok.Text + "'");
    advance();
    return true;
  }
  bool parseU32(uint32_t &V, StringRef What) {
    uint64_t X = 0;
    Token T = Tok;
    if (!parseUInt(X, What))
      return false;
    if (X > UINT32_MAX)
      return error(T, What + " out of range");
    V = static_cast<uint32_t>(X);
    return true;
  }
  bool parseName(StringRef &Name, size_t &Offset, SourceLoc &Loc, StringRef What) {
    if (!Tok.is(TokKind::Identifier))
      return errorHere("expected " + What + ", found " + describe(Tok));
    Token T = Tok;
    if (L->extendDottedName(T))
      D.warning(T.Offset, T.Loc, "name '" + T.Text + "' contains '.', which ptxas rejects");
    Name = T.Text;
    Offset = T.Offset;
    Loc = T.Loc;
    Tok = T;
    advance();
    return true;
  }

  void recover(size_t ItemStart);
  bool parseTopLevel();
  bool parseVersion();
  bool parseTarget();
  bool parseAddressSize();
  bool parseFile();
  bool parsePragmaText();
  bool parseAlias();
  bool parseFunction(Linkage Link);
  bool parseVariable(Linkage Link);
  bool parseSection();
  bool parseLegacyDwarf();
  bool parseAttribute(StringList &Out);
  /// Appends the list's parameters to Out (a prototype's ParamList, or the module's table of function
  /// parameters, PtxModule::Params).
  template <typename List> bool parseParamList(List &Out, StringRef What);
  bool parseParam(ParamInfo &P);
  bool fastParam(ParamInfo &P);
  bool parseDims(SmallVectorImpl<uint64_t> &Dims, bool &Unsized);
  /// A parameter's dimensions (ParamInfo keeps them in one word).
  bool parseDims(DimList &Dims, bool &Unsized) {
    if (!Tok.isPunct('['))
      return true;
    SmallVector<uint64_t, 4> Parsed = Dims.copy();
    bool Ok = parseDims(Parsed, Unsized);
    Dims.assign(Parsed);
    return Ok;
  }
  bool parseTriple(std::optional<std::array<uint32_t, 3>> &Out, StringRef What);
  bool parseInitializer(PtxDeclarator &Decl);
  bool parseOpaqueInitializer(PtxDeclarator &Decl, llvm::StringRef Type);
  bool parseVariableCount(uint32_t &Count);
  void expandParameterized(const PtxDeclarator &Decl, uint32_t Count, std::vector<PtxDeclarator> &Out);
  bool parseDwarfList(PtxDebugSection &S, unsigned Width);
  bool fastDwarfList(PtxDebugSection &S, unsigned Width);
  void finishDebugSection(PtxDebugSection &S);
  void noteItem() {
    if (!M.HasVersion && !SawItemBeforeVersion) {
      SawItemBeforeVersion = true;
      errorHere("a PTX module must begin with a .version directive");
    }
  }
};

} // namespace

void Parser::recover(size_t ItemStart) {
  // Skip to the end of the broken item: a top-level ';', the '}' closing a body, or the next directive
  // that can only start a module-scope item. Always make progress.
  static const StringRef Resync[] = {".func",   ".entry",  ".visible", ".weak",  ".extern", ".common",
                                     ".version", ".target", ".section", ".alias", ".file",   ".address_size",
                                     ".pragma", ".global", ".const",   ".shared", ".local",  ".tex"};
  int Brace = 0, Paren = 0;
  bool First = Tok.Offset == ItemStart;
  while (!Tok.is(TokKind::Eof)) {
    if (!First && Brace == 0 && Paren == 0 && Tok.is(TokKind::Directive)) {
      for (StringRef R : Resync)
        if (Tok.Text == R)
          return;
      // An unknown directive starting a line is most likely the next (bad) item, not part of this one.
      if (Tok.Loc.Line != PrevLine && !continuesItem(Tok.Text))
        return;
    }
    First = false;
    if (Tok.isPunct('{')) {
      ++Brace;
    } else if (Tok.isPunct('}')) {
      if (--Brace <= 0) {
        advance();
        return;
      }
    } else if (Tok.isPunct('(')) {
      ++Paren;
    } else if (Tok.isPunct(')')) {
      Paren = std::max(0, Paren - 1);
    } else if (Tok.isPunct(';') && Brace == 0) {
      advance();
      return;
    }
    advance();
  }
}

void Parser::parseModule() {
  M.Text = Main.text();
  M.Target.AddressSize = 32; // the PTX default when .address_size is absent
  {
    // Size the function and item tables once: grown by doubling, they held up to twice their size at
    // the peak of a module of very many small functions. Every function starts with `.func` or
    // `.entry`, so counting those spellings (countFunctionDirectives) bounds the count from above.
    const size_t Directives = countFunctionDirectives(M.Text.data(), M.Text.size());
    M.Functions.reserve(Directives);
    M.FunctionAbis.reserve(Directives);
    M.Items.reserve(Directives);
  }
  advance();
  while (!Tok.is(TokKind::Eof)) {
    // At the error limit, parse on until one more error has been reported (the engine then announces
    // that it stops), so the user learns that the list is incomplete.
    unsigned Before = D.errors();
    bool AtLimit = D.stop();
    size_t Start = Tok.Offset;
    bool Ok = parseTopLevel();
    if (AtLimit && D.errors() != Before)
      return;
    if (!Ok)
      recover(Start);
  }
  if (!M.HasVersion && !SawItemBeforeVersion)
    D.error(0, SourceLoc{1, 1}, "a PTX module must begin with a .version directive");
}

bool Parser::parseTopLevel() {
  if (Tok.isPunct(';')) { // a stray empty statement is harmless
    advance();
    return true;
  }
  if (Tok.isPunct('@')) {
    return parseLegacyDwarf();
  }
  if (!Tok.is(TokKind::Directive))
    return errorHere("expected a directive at module scope, found " + describe(Tok));
  StringRef Dir = Tok.Text;
  if (Dir == ".version")
    return parseVersion();
  if (Dir == ".target")
    return parseTarget();
  if (Dir == ".address_size")
    return parseAddressSize();
  if (Dir == ".file")
    return parseFile();
  if (Dir == ".pragma")
    return parsePragmaText();
  if (Dir == ".alias")
    return parseAlias();
  if (Dir == ".section")
    return parseSection();
  Linkage Link = StringSwitch<Linkage>(Dir)
                     .Case(".visible", Linkage::Visible)
                     .Case(".weak", Linkage::Weak)
                     .Case(".extern", Linkage::Extern)
                     .Case(".common", Linkage::Common)
                     .Default(Linkage::None);
  Token LinkTok = Tok;
  if (Link != Linkage::None) {
    advance();
    if (!Tok.is(TokKind::Directive))
      return errorHere("expected .func, .entry or a state space after '" + LinkTok.Text + "', found " +
                       describe(Tok));
    Dir = Tok.Text;
  }
  if (Dir == ".func" || Dir == ".entry") {
    if (Link == Linkage::Common)
      return error(LinkTok, ".common can only be applied to .global variables");
    return parseFunction(Link);
  }
  StateSpace S = spaceOf(Dir);
  if (S != StateSpace::None && S != StateSpace::Reg && S != StateSpace::Param) {
    if (Link == Linkage::Common && S != StateSpace::Global)
      return error(LinkTok, ".common can only be applied to .global variables");
    return parseVariable(Link);
  }
  if (S == StateSpace::Reg || S == StateSpace::Param)
    return errorHere("'" + Dir + "' variables are not allowed at module scope");
  if (Dir == ".loc") {
    errorHere(".loc is only allowed inside a function body");
    L->restOfLine(); // .loc has no ';': the rest of its line belongs to it
    advance();
    return true;
  }
  if (Link != Linkage::None)
    return errorHere("expected .func, .entry or a state space after '" + LinkTok.Text + "', found " +
                     describe(Tok));
  return errorHere("unknown module-scope directive '" + Dir + "'");
}

bool Parser::parseVersion() {
  Token V = Tok;
  advance();
  bool Duplicate = M.HasVersion;
  M.HasVersion = true; // even if malformed: do not also report a missing .version
  if (!Tok.is(TokKind::Float) && !Tok.is(TokKind::Integer))
    return errorHere("expected a version number 'major.minor', found " + describe(Tok));
  StringRef Maj, Min;
  std::tie(Maj, Min) = Tok.Text.split('.');
  unsigned A = 0, B = 0;
  if (Min.empty() || Maj.getAsInteger(10, A) || Min.getAsInteger(10, B))
    return errorHere("expected a version number 'major.minor', found " + describe(Tok));
  advance();
  if (Duplicate) {
    error(V, "duplicate .version directive");
    return true;
  }
  // A .version after other items was already reported at the first item (noteItem).
  M.Target.VersionMajor = A;
  M.Target.VersionMinor = B;
  return true;
}

bool Parser::parseTarget() {
  noteItem();
  advance();
  M.HasTarget = true;
  while (true) {
    if (!Tok.is(TokKind::Identifier))
      return errorHere("expected a target architecture or option, found " + describe(Tok));
    StringRef E = Tok.Text;
    std::string Arch = canonicalArch(E);
    if (!Arch.empty()) {
      // With several .target lines the module needs the highest architecture named.
      if (M.ArchName.empty() || archRank(Arch) > archRank(M.ArchName)) {
        M.ArchName = Arch;
        M.ArchSpelling = E == Arch ? E : StringRef();
      }
    } else if (E == "texmode_unified" || E == "texmode_independent") {
      if (!M.Target.Texmode.empty() && M.Target.Texmode != E)
        return errorHere("conflicting texturing modes '" + M.Target.Texmode + "' and '" + E + "'");
      M.Target.Texmode = E;
      M.Target.Options.push_back(E);
    } else if (E == "debug") {
      M.Target.Debug = true;
      M.Target.Options.push_back(E);
    } else if (E == "map_f64_to_f32") {
      M.Target.MapF64ToF32 = true;
      M.Target.Options.push_back(E);
    } else {
      return errorHere("unknown target '" + E + "'");
    }
    advance();
    if (!Tok.isPunct(','))
      return true;
    advance();
  }
}

bool Parser::parseAddressSize() {
  noteItem();
  Token T = Tok;
  advance();
  uint32_t V = 0;
  Token NumTok = Tok;
  if (!parseU32(V, "an address size (32 or 64)"))
    return false;
  if (V != 32 && V != 64)
    return error(NumTok, "address size must be 32 or 64");
  if (M.Target.AddressSizeGiven) {
    error(T, "duplicate .address_size directive");
    return true;
  }
  M.Target.AddressSize = V;
  M.Target.AddressSizeGiven = true;
  return true;
}

bool Parser::parseFile() {
  noteItem();
  Token T = Tok;
  advance();
  FileEntry F;
  if (!parseU32(F.Index, "a file index"))
    return false;
  if (!Tok.is(TokKind::String))
    return errorHere("expected a file name string, found " + describe(Tok));
  F.Path = Tok.Text.drop_front().drop_back();
  advance();
  if (Tok.isPunct(',')) {
    advance();
    uint64_t V = 0;
    if (!parseUInt(V, "a timestamp"))
      return false;
    F.Timestamp = V;
    if (!expectPunct(',', "between timestamp and file size"))
      return false;
    if (!parseUInt(V, "a file size"))
      return false;
    F.Size = V;
  }
  for (const FileEntry &Old : M.Files)
    if (Old.Index == F.Index) {
      error(T, "duplicate .file index " + Twine(F.Index));
      return true;
    }
  M.Files.push_back(F);
  M.FileLocs.push_back(T.Loc);
  return true;
}

bool Parser::parsePragmaText() {
  noteItem();
  PtxModuleText P;
  P.Begin = Tok.Offset;
  P.Loc = Tok.Loc;
  advance();
  while (true) {
    if (!Tok.is(TokKind::String))
      return errorHere("expected a string after .pragma, found " + describe(Tok));
    advance();
    if (Tok.isPunct(',')) {
      advance();
      continue;
    }
    break;
  }
  if (!Tok.isPunct(';'))
    return errorAfterPrev("expected ';' after .pragma strings, found " + describe(Tok));
  P.End = Tok.end();
  advance();
  M.Items.push_back({PtxItem::Text, static_cast<uint32_t>(M.Texts.size())});
  M.Texts.push_back(P);
  return true;
}

bool Parser::parseAlias() {
  noteItem();
  PtxAlias A;
  A.Loc = Tok.Loc;
  advance();
  if (!parseName(A.Alias, A.AliasOffset, A.AliasLoc, "an alias name"))
    return false;
  if (!expectPunct(',', "between alias and aliasee"))
    return false;
  if (!parseName(A.Aliasee, A.AliaseeOffset, A.AliaseeLoc, "the aliased function name"))
    return false;
  if (!expectPunct(';', "after .alias"))
    return false;
  M.Items.push_back({PtxItem::Alias, static_cast<uint32_t>(M.Aliases.size())});
  M.Aliases.push_back(A);
  return true;
}

bool Parser::parseAttribute(StringList &Out) {
  // `.attribute(.managed)` / `.attribute(.unified(0x1, 0x2))`: keep the text inside the parentheses.
  advance();
  if (!Tok.isPunct('('))
    return errorHere("expected '(' after .attribute, found " + describe(Tok));
  size_t Begin = Tok.end();
  int Depth = 0;
  while (true) {
    if (Tok.is(TokKind::Eof) || Tok.isPunct(';') || Tok.isPunct('{'))
      return errorHere("unterminated .attribute(...)");
    if (Tok.isPunct('('))
      ++Depth;
    else if (Tok.isPunct(')') && --Depth == 0)
      break;
    advance();
  }
  Out.push_back(Main.text().slice(Begin, Tok.Offset).trim());
  advance();
  return true;
}

bool Parser::parseDims(SmallVectorImpl<uint64_t> &Dims, bool &Unsized) {
  while (Tok.isPunct('[')) {
    advance();
    if (Tok.isPunct(']')) {
      if (Unsized)
        return errorHere("only the last array dimension may be unsized");
      Unsized = true;
      advance();
      continue;
    }
    if (Unsized)
      return errorHere("only the last array dimension may be unsized");
    uint64_t N = 0;
    if (!parseUInt(N, "an array size"))
      return false;
    Dims.push_back(N);
    if (!expectPunct(']', "after array size"))
      return false;
  }
  return true;
}

/// The common parameter, `.param .u64 name` (state space, type and name on one line with only blanks
/// between them), taken by the lexer's lexTypedName instead of token by token: parameter lists are most
/// of a module's text outside function bodies. Anything else (.align, .ptr, vectors, a dotted name, a
/// comment or line break inside) returns false with nothing consumed, for the general loop in
/// parseParam. On success the current token is the one after the name, as after parseName.
bool Parser::fastParam(ParamInfo &P) {
  if (!Tok.is(TokKind::Directive))
    return false;
  StateSpace Space;
  if (Tok.Text == ".param")
    Space = StateSpace::Param;
  else if (Tok.Text == ".reg")
    Space = StateSpace::Reg;
  else
    return false;
  Token Type, Name;
  if (!L->lexTypedName(isTypeName, Type, Name))
    return false;
  P.Space = Space;
  [[maybe_unused]] bool Typed = P.setType(Type.Text);
  assert(Typed && "lexTypedName takes a type (isTypeName), and every type has an id");
  P.setName(Name.Text);
  Tok = Name;
  advance();
  return true;
}

bool Parser::parseParam(ParamInfo &P) {
  P.Where = Tok.Loc;
  P.Space = StateSpace::Param;
  if (fastParam(P))
    return parseDims(P.ArrayDims, P.UnsizedArray);
  bool SpaceGiven = false, AfterPtr = false;
  while (Tok.is(TokKind::Directive)) {
    StringRef Dir = Tok.Text;
    Token DirTok = Tok;
    StateSpace S = spaceOf(Dir);
    if (Dir == ".align") {
      advance();
      uint32_t A = 0;
      Token AT = Tok;
      if (!parseU32(A, "an alignment"))
        return false;
      if (A == 0 || (A & (A - 1)))
        return error(AT, "alignment must be a power of two");
      // ptxas: "Parameter 'p' has illegal alignment (must be aligned to 1, 2, 4, 8, 16, 32, 64, or 128 bytes)".
      if (!AfterPtr && A > 128)
        return error(AT, "parameter alignment " + Twine(A) + " is too large (at most 128)");
      (AfterPtr ? P.PtrAlign : P.Align) = A;
      continue;
    }
    if (Dir == ".ptr") {
      P.IsPtr = true;
      AfterPtr = true;
    } else if (AfterPtr && S != StateSpace::None && S != StateSpace::Reg && S != StateSpace::Param) {
      P.PtrSpace = S;
    } else if (S == StateSpace::Reg || S == StateSpace::Param) {
      if (SpaceGiven)
        return error(DirTok, "duplicate state space in parameter declaration");
      P.Space = S;
      SpaceGiven = true;
    } else if (Dir == ".v2" || Dir == ".v4" || Dir == ".v8") {
      P.VectorWidth = static_cast<uint8_t>(Dir[2] - '0');
    } else if (isTypeName(Dir)) {
      if (P.hasType())
        return error(DirTok, "duplicate type in parameter declaration");
      [[maybe_unused]] bool Typed = P.setType(Dir);
      assert(Typed && "isTypeName's spellings are PtxTypeNames'");
    } else if (Dir == ".hidden") {
      // Emitted by some Triton/LLVM versions on kernel parameters; it has no effect on the ABI.
    } else {
      return error(DirTok, "unexpected '" + Dir + "' in parameter declaration");
    }
    advance();
  }
  if (!P.hasType())
    return errorHere("expected a parameter type, found " + describe(Tok));
  if (Tok.is(TokKind::Identifier)) {
    size_t Off;
    SourceLoc Loc;
    StringRef Name;
    if (!parseName(Name, Off, Loc, "a parameter name"))
      return false;
    P.setName(Name);
  }
  if (!parseDims(P.ArrayDims, P.UnsizedArray))
    return false;
  return true;
}

template <typename List> bool Parser::parseParamList(List &Out, StringRef What) {
  // The message is built only on error: this runs twice per function, on the hot path.
  if (!Tok.isPunct('('))
    return errorAfterPrev("expected '(' to open the " + What + ", found " + describe(Tok));
  advance();
  if (Tok.isPunct(')')) {
    advance();
    return true;
  }
  const size_t First = Out.size();
  if constexpr (std::is_same_v<List, ParamList>)
    Out.reserve(4); // most lists are short: avoid the 1 -> 2 -> 4 regrowth (each moves every ParamInfo)
  while (true) {
    ParamInfo P;
    if (!parseParam(P))
      return false;
    Out.push_back(std::move(P));
    if (Tok.isPunct(',')) {
      advance();
      continue;
    }
    if (Tok.isPunct(')')) {
      advance();
      break;
    }
    return errorHere("expected ',' or ')' in " + What + ", found " + describe(Tok));
  }
  for (size_t I = First; I + 1 < Out.size(); ++I)
    if (Out[I].UnsizedArray)
      return error(Tok, "only the last parameter may be an unsized array");
  return true;
}

bool Parser::parseTriple(std::optional<std::array<uint32_t, 3>> &Out, StringRef What) {
  std::array<uint32_t, 3> V{1, 1, 1};
  for (unsigned I = 0; I < 3; ++I) {
    if (!parseU32(V[I], What))
      return false;
    if (!Tok.isPunct(','))
      break;
    if (I == 2)
      return errorHere(What + " takes at most three values");
    advance();
  }
  Out = V;
  return true;
}

bool Parser::parseFunction(Linkage Link) {
  noteItem();
  PtxFunction F;
  FunctionAbi A; // the signature (PtxModule::FunctionAbis; its place is F.Loc, its symbol's)
  // Its lists go straight into the module's table, its tuning directives (rare) into T; a function that
  // is not kept (a syntax error, an unterminated body) takes its parameters back out of the table.
  TuningInfo T;
  struct TakeBackParams {
    ModelTable<ParamInfo> &Table;
    size_t Size;
    bool Kept = false;
    ~TakeBackParams() {
      if (!Kept)
        Table.erase(Table.begin() + static_cast<ptrdiff_t>(Size), Table.end());
    }
  } ParamsOfThis{M.Params, M.Params.size()};
  A.ParamBegin = static_cast<uint32_t>(M.Params.size());
  F.Link = Link;
  F.IsKernel = A.IsKernel = Tok.Text == ".entry";
  F.Begin = static_cast<uint32_t>(Tok.Offset);
  F.Loc = Tok.Loc;
  advance();
  while (Tok.isDirective(".attribute"))
    if (!parseAttribute(T.Attributes))
      return false;
  if (Tok.isPunct('(')) {
    if (F.IsKernel)
      return errorHere("a kernel (.entry) cannot have return parameters");
    const Token ListTok = Tok;
    if (!parseParamList(M.Params, "return parameter list"))
      return false;
    if (M.Params.size() - A.ParamBegin > MaxFunctionReturns) // FunctionAbi's 8-bit count
      return error(ListTok, "too many return parameters (" + Twine(M.Params.size() - A.ParamBegin) + "; at most " +
                                Twine(MaxFunctionReturns) + " are supported)");
  }
  A.ReturnCount = static_cast<uint32_t>(M.Params.size() - A.ParamBegin);
  StringRef Name;
  size_t NameOffset = 0;
  SourceLoc NameLoc; // not kept: PtxFunction::nameLoc counts it again
  if (!parseName(Name, NameOffset, NameLoc, F.IsKernel ? "a kernel name" : "a function name"))
    return false;
  F.NameOffset = static_cast<uint32_t>(NameOffset);
  F.NameLength = static_cast<uint32_t>(Name.size());
  if (Tok.isPunct('(')) {
    const Token ListTok = Tok;
    if (!parseParamList(M.Params, "parameter list"))
      return false;
    const size_t Count = M.Params.size() - A.ParamBegin - A.ReturnCount;
    if (Count > MaxFunctionParams) // FunctionAbi's 21-bit count
      return error(ListTok, "too many parameters (" + Twine(Count) + "; at most " + Twine(MaxFunctionParams) +
                                " are supported)");
  }
  // A module's text is below 4 GiB (MaxPtxModuleBytes) and a parameter takes more than one byte of it,
  // so the table's positions fit the record's 32 bits.
  A.ParamCount = static_cast<uint32_t>(M.Params.size() - A.ParamBegin - A.ReturnCount);
  F.HeaderEnd = static_cast<uint32_t>(PrevEnd);
  bool EndedWithPragma = false;
  while (Tok.is(TokKind::Directive) && !startsModuleItem(Tok.Text)) {
    StringRef Dir = Tok.Text;
    Token DirTok = Tok;
    EndedWithPragma = false;
    auto KernelOnly = [&] {
      if (!F.IsKernel)
        return error(DirTok, "'" + Dir + "' can only be applied to a kernel (.entry)");
      return true;
    };
    auto FuncOnly = [&] {
      if (F.IsKernel)
        return error(DirTok, "'" + Dir + "' can only be applied to a device function (.func)");
      return true;
    };
    advance();
    uint32_t V = 0;
    if (Dir == ".noreturn") {
      if (!FuncOnly())
        return false;
      if (A.ReturnCount != 0)
        return error(DirTok, ".noreturn cannot be applied to a function with return parameters");
      A.NoReturn = true;
    } else if (Dir == ".abi_preserve" || Dir == ".abi_preserve_control") {
      if (!FuncOnly() || !parseU32(V, "a register count"))
        return false;
      (Dir == ".abi_preserve" ? T.AbiPreserve : T.AbiPreserveControl) = V;
    } else if (Dir == ".maxnreg") {
      if (!parseU32(V, "a register count"))
        return false;
      T.MaxNReg = V;
    } else if (Dir == ".maxntid") {
      if (!parseTriple(T.MaxNTid, "a thread count"))
        return false;
    } else if (Dir == ".reqntid") {
      if (!parseTriple(T.ReqNTid, "a thread count"))
        return false;
    } else if (Dir == ".minnctapersm" || Dir == ".maxnctapersm") {
      if (!parseU32(V, "a CTA count"))
        return false;
      (Dir == ".minnctapersm" ? T.MinNCtaPerSm : T.MaxNCtaPerSm) = V;
    } else if (Dir == ".reqnctapercluster") {
      if (!KernelOnly() || !parseTriple(T.ReqNCtaPerCluster, "a CTA count"))
        return false;
    } else if (Dir == ".explicitcluster") {
      if (!KernelOnly())
        return false;
      T.ExplicitCluster = true;
    } else if (Dir == ".maxclusterrank") {
      if (!KernelOnly() || !parseU32(V, "a CTA count"))
        return false;
      T.MaxClusterRank = V;
    } else if (Dir == ".blocksareclusters") {
      if (!KernelOnly())
        return false;
      T.BlocksAreClusters = true;
    } else if (Dir == ".pragma") {
      while (true) {
        if (!Tok.is(TokKind::String))
          return errorHere("expected a string after .pragma, found " + describe(Tok));
        T.Pragmas.push_back(Tok.Text.drop_front().drop_back());
        advance();
        if (!Tok.isPunct(','))
          break;
        advance();
      }
      F.HeaderEnd = static_cast<uint32_t>(PrevEnd);
      if (!Tok.isPunct(';'))
        return errorHere("expected ';' after .pragma strings, found " + describe(Tok));
      EndedWithPragma = true;
      advance();
      continue;
    } else if (Dir == ".attribute") {
      return error(DirTok, ".attribute must come before the function name");
    } else {
      return error(DirTok, "unexpected '" + Dir + "' in " + (F.IsKernel ? "kernel" : "function") + " header");
    }
    F.HeaderEnd = static_cast<uint32_t>(PrevEnd);
  }
  if (Tok.isPunct('{')) {
    F.HasBody = A.HasBody = true;
    F.BodyBegin = static_cast<uint32_t>(Tok.Offset); // its line is counted when needed: beginPos
    // Bodies are scanned by the lowering (BodyScanner) once the module is known; here only their end.
    Token Close = Main.skipFunctionBody(Tok);
    bool Closed = !Close.is(TokKind::Error);
    if (Closed)
      F.End = static_cast<uint32_t>(Close.end());
    else
      D.error(Close.Offset, Close.Loc, Main.errorMessage());
    advance(); // past the '}', or to the end of file if the body is unterminated
    if (!Closed)
      return true; // reported
  } else if (Tok.isPunct(';')) {
    F.End = static_cast<uint32_t>(Tok.end());
    advance();
  } else if (EndedWithPragma) {
    F.End = static_cast<uint32_t>(PrevEnd);
  } else if (Tok.is(TokKind::Eof) || (Tok.is(TokKind::Directive) && startsModuleItem(Tok.Text))) {
    // PTX 1.x/2.x prototypes (nvopencc, OptiX) end at the next module-scope directive, without ';'.
    F.End = F.HeaderEnd;
  } else {
    return errorAfterPrev("expected '{' or ';' after " + Twine(F.IsKernel ? "kernel" : "function") + " header, found " +
                     describe(Tok));
  }
  if (F.HasBody && Link == Linkage::Extern)
    D.error(F.Begin, F.Loc, "an .extern function cannot have a body");
  M.Items.push_back({PtxItem::Function, static_cast<uint32_t>(M.Functions.size())});
  M.Functions.push_back(std::move(F));
  if (!T.empty()) {
    A.Extra = static_cast<uint32_t>(M.FunctionExtras.size());
    M.FunctionExtras.push_back({std::move(T), std::nullopt});
  }
  ParamsOfThis.Kept = true;
  M.FunctionAbis.push_back(A);
  return true;
}

bool Parser::parseInitializer(PtxDeclarator &Decl) {
  // `= expr` or `= { ... }` with nested braces; identifiers other than the generic()/mask() operators are
  // symbol references. Stops before the ',' or ';' that ends the declarator.
  Decl.Initialized = true;
  int Brace = 0, Paren = 0;
  bool Any = false;
  uint64_t TopCommas = 0;
  bool TopBrace = Tok.isPunct('{');
  while (true) {
    if (Tok.is(TokKind::Eof))
      return errorHere("unterminated initializer: expected ';'");
    if (Brace == 0 && Paren == 0 && (Tok.isPunct(',') || Tok.isPunct(';')))
      break;
    if (Tok.isPunct('{')) {
      ++Brace;
    } else if (Tok.isPunct('}')) {
      if (--Brace < 0)
        return errorHere("unbalanced '}' in initializer");
    } else if (Tok.isPunct('(')) {
      ++Paren;
    } else if (Tok.isPunct(')')) {
      if (--Paren < 0)
        return errorHere("unbalanced ')' in initializer");
    } else if (Tok.isPunct(',') && Brace == 1 && Paren == 0) {
      ++TopCommas;
    } else if (Tok.isPunct(';')) {
      return errorHere("unbalanced braces in initializer");
    } else if (Tok.is(TokKind::Identifier)) {
      Token T = Tok;
      L->extendDottedName(T);
      Tok = T;
      if (!((T.Text == "generic" || T.Text == "mask") && L->peek().isPunct('(')))
        Decl.Uses.push_back({T.Text, T.Offset, T.Loc});
    } else if (Tok.is(TokKind::Directive)) {
      return errorHere("unexpected '" + Tok.Text + "' in initializer");
    }
    Any = true;
    advance();
  }
  if (!Any)
    return errorHere("expected an initializer after '='");
  Decl.InitElements = TopBrace ? TopCommas + 1 : 1;
  return true;
}

bool Parser::parseOpaqueInitializer(PtxDeclarator &Decl, StringRef Type) {
  // `.global .samplerref s = { filter_mode = nearest, addr_mode_0 = clamp_to_border };`: the names are
  // fields of the opaque type and the values are keywords or integers, never symbols. The fields each
  // type has and the values are what ptxas accepts (it does not match values to fields either).
  Decl.Initialized = true;
  Decl.InitElements = 1;
  static constexpr StringRef TexrefFields[] = {"width", "height", "depth", "channel_data_type", "channel_order",
                                               "normalized_coords", "filter_mode", "addr_mode_0", "addr_mode_1",
                                               "addr_mode_2"};
  static constexpr StringRef SamplerFields[] = {"filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2",
                                                "force_unnormalized_coords"};
  static constexpr StringRef SurfrefFields[] = {"width", "height", "depth", "channel_data_type", "channel_order"};
  static constexpr StringRef Values[] = {"nearest", "linear", "wrap", "mirror", "clamp_ogl", "clamp_to_edge",
                                         "clamp_to_border"};
  ArrayRef<StringRef> Fields = Type == ".samplerref" ? ArrayRef<StringRef>(SamplerFields)
                               : Type == ".surfref"  ? ArrayRef<StringRef>(SurfrefFields)
                                                     : ArrayRef<StringRef>(TexrefFields);
  if (!Tok.isPunct('{'))
    return errorHere("expected '{' to start a " + Type + " initializer, found " + describe(Tok));
  advance();
  while (!Tok.isPunct('}')) {
    if (!Tok.is(TokKind::Identifier))
      return errorHere("expected a " + Type + " field name, found " + describe(Tok));
    if (!llvm::is_contained(Fields, Tok.Text))
      return errorHere("'" + Tok.Text + "' is not a field of " + Type + " (its fields: " + join(Fields.begin(), Fields.end(), ", ") + ")");
    advance();
    if (!expectPunct('=', "after a field name"))
      return false;
    if (Tok.is(TokKind::Identifier)) {
      if (!llvm::is_contained(Values, Tok.Text))
        return errorHere("unknown " + Type + " field value '" + Tok.Text + "' (expected an integer or one of " +
                         join(std::begin(Values), std::end(Values), ", ") + ")");
    } else if (!Tok.is(TokKind::Integer)) {
      return errorHere("expected a " + Type + " field value, found " + describe(Tok));
    }
    advance();
    if (Tok.isPunct(','))
      advance();
    else if (!Tok.isPunct('}'))
      return errorHere("expected ',' or '}' in a " + Type + " initializer, found " + describe(Tok));
  }
  advance();
  return true;
}

bool Parser::parseVariableCount(uint32_t &Count) {
  // `<N>` after a module-scope variable name; Tok is the '<'. The ISA's count is a decimal integer, and
  // each variable becomes its own section (about 370 bytes of object and 450 of memory), so a count far
  // beyond any real module (compilers use `<N>` for registers) is refused rather than left to exhaust
  // memory: per declaration and, since a 182-byte input of four declarations of 959,556 took 1 GB
  // (fuzzing), for the module's declarations together. 65,536 of them cost about 30 MB.
  constexpr uint64_t MaxCount = uint64_t(1) << 16;
  advance();
  Token CountTok = Tok;
  uint64_t N = 0;
  if (!Tok.is(TokKind::Integer) || !llvm::all_of(Tok.Text, [](char C) { return isDigit(C); }))
    return errorHere("expected a decimal variable count after '<', found " + describe(Tok));
  if (Tok.Text.getAsInteger(10, N) || N > MaxCount)
    return error(CountTok, "parameterized variable count " + Tok.Text + " is too large (at most " +
                               Twine(MaxCount) + ")");
  if (N == 0)
    return error(CountTok, "parameterized variable count must be at least 1");
  if (ExpandedVariables + N > MaxCount)
    return error(CountTok, "parameterized variable count " + Tok.Text + " takes this module's parameterized " +
                               "variables past " + Twine(MaxCount) + " (" + Twine(ExpandedVariables) +
                               " declared before it)");
  ExpandedVariables += N;
  advance();
  if (!expectPunct('>', "after the variable count"))
    return false;
  Count = static_cast<uint32_t>(N);
  return true;
}

void Parser::expandParameterized(const PtxDeclarator &Decl, uint32_t Count, std::vector<PtxDeclarator> &Out) {
  // `v<N>` declares v0 .. v(N-1). Every copy keeps the source range of `v<N>` for diagnostics; the names
  // are written once into the module's arena (they must outlive this parse, and are short).
  Out.reserve(Out.size() + Count);
  SmallString<32> Buf(Decl.Name);
  for (uint32_t I = 0; I < Count; ++I) {
    Buf.resize(Decl.Name.size());
    Twine(I).toVector(Buf);
    char *Mem = M.SynthesizedNames.Allocate<char>(Buf.size());
    std::memcpy(Mem, Buf.data(), Buf.size());
    PtxDeclarator &E = Out.emplace_back(Decl);
    E.Name = StringRef(Mem, Buf.size());
    E.SynthesizedName = true;
  }
}

bool Parser::parseVariable(Linkage Link) {
  noteItem();
  PtxVariable V;
  V.Link = Link;
  V.Space = spaceOf(Tok.Text);
  V.Begin = Tok.Offset;
  V.Loc = Tok.Loc;
  advance();
  if (V.Space == StateSpace::Const && Tok.isPunct('[')) {
    // Legacy constant banks: `.const[2] .f32 x;`
    advance();
    uint64_t Bank;
    if (!parseUInt(Bank, "a constant bank") || !expectPunct(']', "after constant bank"))
      return false;
  }
  while (Tok.is(TokKind::Directive)) {
    StringRef Dir = Tok.Text;
    Token DirTok = Tok;
    if (Dir == ".align") {
      advance();
      Token AT = Tok;
      if (!parseU32(V.Align, "an alignment"))
        return false;
      if (V.Align == 0 || (V.Align & (V.Align - 1)))
        return error(AT, "alignment must be a power of two");
      continue;
    }
    if (Dir == ".attribute") {
      if (!parseAttribute(V.Attributes))
        return false;
      continue;
    }
    if (Dir == ".v2" || Dir == ".v4" || Dir == ".v8") {
      V.VectorWidth = static_cast<uint8_t>(Dir[2] - '0');
    } else if (isTypeName(Dir)) {
      if (!V.Type.empty())
        return error(DirTok, "duplicate type in variable declaration");
      V.Type = Dir;
    } else if (Dir == ".ptr") {
      // Pointer attributes on variables are accepted and ignored (they do not change the layout).
    } else if (spaceOf(Dir) != StateSpace::None) {
      return error(DirTok, "duplicate state space in variable declaration");
    } else {
      return error(DirTok, "unexpected '" + Dir + "' in variable declaration");
    }
    advance();
  }
  if (V.Type.empty())
    return errorHere("expected a variable type, found " + describe(Tok));
  V.PrefixEnd = Tok.Offset;
  while (true) {
    PtxDeclarator Decl;
    if (!parseName(Decl.Name, Decl.NameOffset, Decl.Loc, "a variable name"))
      return false;
    uint32_t Count = 0; // of a parameterized name `v<N>`, else 0
    if (Tok.isPunct('<')) {
      if (!parseVariableCount(Count))
        return false;
      // The ISA forbids both: each expanded variable is a scalar (or vector) declared without a value.
      if (Tok.isPunct('['))
        return errorHere("a parameterized variable name cannot be declared as an array");
      if (Tok.isPunct('='))
        return errorHere("a parameterized variable name cannot have an initializer");
    }
    if (!parseDims(Decl.ArrayDims, Decl.UnsizedArray))
      return false;
    if (Tok.isPunct('=')) {
      if (Link == Linkage::Extern)
        return errorHere("an .extern variable cannot have an initializer");
      if (V.Space == StateSpace::Shared || V.Space == StateSpace::Local)
        return errorHere("variables in " + Twine(V.Space == StateSpace::Shared ? ".shared" : ".local") + " cannot be initialized");
      advance();
      bool Opaque = V.Type == ".texref" || V.Type == ".samplerref" || V.Type == ".surfref";
      if (!(Opaque ? parseOpaqueInitializer(Decl, V.Type) : parseInitializer(Decl)))
        return false;
    }
    Decl.End = PrevEnd;
    if (Count != 0)
      expandParameterized(Decl, Count, V.Decls);
    else
      V.Decls.push_back(std::move(Decl));
    if (Tok.isPunct(',')) {
      advance();
      continue;
    }
    if (Tok.isPunct(';')) {
      V.End = Tok.end();
      advance();
      break;
    }
    return errorAfterPrev("expected ',' or ';' after variable declaration, found " + describe(Tok));
  }
  M.Items.push_back({PtxItem::Variable, static_cast<uint32_t>(M.Variables.size())});
  M.Variables.push_back(std::move(V));
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Debug sections

/// Plain debug-data lines (see DwarfDataLines.h), starting with the list after the current `.bN` token.
/// Returns false with nothing consumed if that list is not plain, for parseDwarfList to read and report.
/// On success the current token is the one after the run, as after parseDwarfList.
bool Parser::fastDwarfList(PtxDebugSection &S, unsigned Width) {
  std::optional<DwarfLinesEnd> End =
      readPlainDwarfLines(L->text(), Tok.end(), Width, Tok.Loc.Line, Tok.start().LineStart, S);
  if (!End)
    return false;
  // Continue with the run's last token as the one just read (PrevEnd and PrevLine included).
  Tok = L->continueAt(LexPos{End->LastTokenBegin, End->Line, End->LineStart});
  advance();
  return true;
}

bool Parser::parseDwarfList(PtxDebugSection &S, unsigned Width) {
  while (true) {
    Token ItemTok = Tok;
    uint64_t Off = S.Bytes.size();
    S.Bytes.resize(Off + Width, 0);
    bool Neg = false;
    if (Tok.isPunct('-')) {
      Neg = true;
      advance();
    }
    if (Tok.is(TokKind::Integer)) {
      uint64_t V = 0;
      if (!parseIntegerLiteral(Tok.Text, V))
        return errorHere("invalid integer '" + Tok.Text + "'");
      if (Width < 8) {
        uint64_t Limit = uint64_t(1) << (8 * Width);
        if (V >= Limit)
          return errorHere("value " + Tok.Text + " does not fit in .b" + Twine(Width * 8));
      } else if (Neg && V > (uint64_t(1) << 63)) {
        return errorHere("value -" + Tok.Text + " does not fit in .b64");
      }
      writeLE(&S.Bytes[Off], Neg ? uint64_t(0) - V : V, Width);
      advance();
    } else if (!Neg && (Tok.is(TokKind::Identifier) || Tok.is(TokKind::Directive))) {
      PtxDwarfFixup Fx;
      Fx.Offset = Off;
      Fx.Width = static_cast<uint8_t>(Width);
      Fx.Name = Tok.Text;
      Fx.Loc = Tok.Loc;
      Fx.TextOffset = Tok.Offset;
      advance();
      if (Tok.isPunct('+') || Tok.isPunct('-')) {
        bool Minus = Tok.isPunct('-');
        advance();
        if (Tok.is(TokKind::Integer)) {
          uint64_t V = 0;
          if (!parseIntegerLiteral(Tok.Text, V) || V > uint64_t(INT64_MAX))
            return errorHere("invalid offset '" + Tok.Text + "'");
          Fx.Addend = Minus ? -int64_t(V) : int64_t(V);
          advance();
        } else if (Minus && (Tok.is(TokKind::Identifier) || Tok.is(TokKind::Directive))) {
          Fx.MinusName = Tok.Text;
          advance();
        } else {
          return errorAfterPrev("expected an integer offset or a label after '" + Twine(Minus ? '-' : '+') +
                           "', found " + describe(Tok));
        }
      }
      if (Fx.MinusName.empty() && Width != 4 && Width != 8)
        return error(ItemTok, "a label or section reference needs .b32 or .b64, not .b" + Twine(Width * 8));
      S.Fixups.push_back(Fx);
    } else {
      return errorHere("expected an integer, label or section name in debug data, found " + describe(Tok));
    }
    if (!Tok.isPunct(','))
      return true;
    advance();
  }
}

void Parser::finishDebugSection(PtxDebugSection &S) {
  // Resolve label differences within this section; everything else stays a relocation. The kept fixups
  // are compacted in place (a -G module has tens of thousands, and a second vector of them was 15% of
  // the assembler's peak heap).
  size_t Kept = 0;
  for (size_t I = 0; I < S.Fixups.size(); ++I) {
    PtxDwarfFixup &F = S.Fixups[I];
    if (F.MinusName.empty()) {
      if (Kept != I)
        S.Fixups[Kept] = F;
      ++Kept;
      continue;
    }
    const PtxDwarfLabel *A = nullptr, *B = nullptr;
    for (const PtxDwarfLabel &Lb : S.Labels) {
      if (Lb.Name == F.Name)
        A = &Lb;
      if (Lb.Name == F.MinusName)
        B = &Lb;
    }
    if (!A || !B) {
      D.error(F.TextOffset, F.Loc,
              "label difference '" + F.Name + "-" + F.MinusName + "' needs both labels defined in section " +
                  S.Name);
      continue;
    }
    int64_t V = int64_t(A->Offset) - int64_t(B->Offset) + F.Addend;
    writeLE(&S.Bytes[F.Offset], uint64_t(V), F.Width);
  }
  S.Fixups.resize(Kept);
}

static bool isDwarfWidth(const Token &T) {
  return T.is(TokKind::Directive) && (T.Text == ".b8" || T.Text == ".b16" || T.Text == ".b32" || T.Text == ".b64");
}

bool Parser::parseSection() {
  noteItem();
  PtxDebugSection S;
  S.Loc = Tok.Loc;
  advance();
  if (!Tok.is(TokKind::Directive) && !Tok.is(TokKind::Identifier))
    return errorHere("expected a section name, found " + describe(Tok));
  S.Name = Tok.Text;
  advance();
  if (!expectPunct('{', "to open the section"))
    return false;
  // Room for the section's bytes up to its first '}', which the data cannot exceed by much (`.b64 0` is
  // the densest line: 7 bytes of text for 8 of data); reserved pages that are never written cost nothing,
  // while regrowing a megabyte-sized vector copies it and faults in fresh pages each time.
  {
    StringRef Rest = L->text().substr(Tok.Offset);
    S.Bytes.reserve(Rest.find('}') == StringRef::npos ? Rest.size() : Rest.find('}'));
  }
  while (!Tok.isPunct('}')) {
    if (Tok.is(TokKind::Eof))
      return errorHere("unterminated section: expected '}'");
    if (Tok.is(TokKind::Identifier) && L->peek().isPunct(':')) {
      bool Dup = false;
      for (const PtxDwarfLabel &Old : S.Labels)
        if (Old.Name == Tok.Text)
          Dup = true;
      if (Dup)
        errorHere("duplicate label '" + Tok.Text + "' in section " + S.Name);
      else
        S.Labels.push_back({Tok.Text, S.Bytes.size(), Tok.Loc, Tok.Offset});
      advance();
      advance();
      continue;
    }
    unsigned W = 0;
    if (Tok.is(TokKind::Directive))
      W = StringSwitch<unsigned>(Tok.Text).Case(".b8", 1).Case(".b16", 2).Case(".b32", 4).Case(".b64", 8).Default(0);
    bool LineOk;
    if (!W) {
      LineOk = errorHere("expected .b8, .b16, .b32, .b64 or a label in debug section, found " + describe(Tok));
    } else if (fastDwarfList(S, W)) {
      LineOk = true;
    } else {
      advance();
      LineOk = parseDwarfList(S, W);
    }
    if (!LineOk) {
      // Resume at the next dwarf line of this section.
      if (!Tok.isPunct('}') && !(isDwarfWidth(Tok) && Tok.Loc.Line != PrevLine))
        advance();
      while (!Tok.is(TokKind::Eof) && !Tok.isPunct('}') && !isDwarfWidth(Tok) &&
             !(Tok.is(TokKind::Identifier) && L->peek().isPunct(':')) && !startsModuleItem(Tok.Text))
        advance();
      if (Tok.is(TokKind::Directive) && startsModuleItem(Tok.Text))
        return errorHere("unterminated section: expected '}'");
    }
  }
  advance();
  finishDebugSection(S);
  M.Items.push_back({PtxItem::Debug, static_cast<uint32_t>(M.DebugSections.size())});
  M.DebugSections.push_back(std::move(S));
  return true;
}

bool Parser::parseLegacyDwarf() {
  // `@@DWARF .section name, "", @progbits` opens a section; `@@DWARF .byte/.4byte/.quad list` appends.
  noteItem();
  SourceLoc At = Tok.Loc;
  // Tok is the first '@'.
  if (!Main.consume("@DWARF")) {
    errorHere("expected a directive at module scope, found '@'");
    L->restOfLine();
    advance();
    return true;
  }
  // The line is one statement: it gets a lexer of its own, cut at the line end (offsets stay valid), and
  // the module's lexer goes on at the next line. Its directive is not a lexer directive (`.4byte` would
  // lex as a number).
  Lexer LineLex = Main.splitLine();
  Lexer *Saved = L;
  L = &LineLex;
  Tok = LineLex.lexDotWord();
  bool Ok = true;
  auto Finish = [&] {
    // The whole line is consumed whether or not it was valid: errors are reported, no recovery needed.
    L = Saved;
    advance();
    (void)Ok;
    return true;
  };
  if (Tok.Text.size() < 2) {
    Ok = errorHere("expected a directive after @@DWARF");
    return Finish();
  }
  StringRef Dir = Tok.Text;
  advance();
  if (Dir == ".section") {
    if (!Tok.is(TokKind::Directive) && !Tok.is(TokKind::Identifier)) {
      Ok = errorHere("expected a section name, found " + describe(Tok));
      return Finish();
    }
    if (LegacyOpen)
      finishDebugSection(M.DebugSections[LegacySection]);
    PtxDebugSection S;
    S.Name = Tok.Text;
    S.Loc = At;
    LegacySection = M.DebugSections.size();
    LegacyOpen = true;
    M.Items.push_back({PtxItem::Debug, static_cast<uint32_t>(M.DebugSections.size())});
    M.DebugSections.push_back(std::move(S));
    return Finish(); // the flags and section type that follow are irrelevant here
  }
  unsigned W = StringSwitch<unsigned>(Dir)
                   .Cases(".byte", ".b8", 1)
                   .Cases(".2byte", ".short", ".b16", 2)
                   .Cases(".4byte", ".b32", 4)
                   .Cases(".quad", ".8byte", ".b64", 8)
                   .Default(0);
  if (!W) {
    Ok = errorHere("unknown @@DWARF directive '" + Dir + "'");
    return Finish();
  }
  if (!LegacyOpen) {
    Ok = errorHere("@@DWARF data before any @@DWARF .section");
    return Finish();
  }
  Ok = parseDwarfList(M.DebugSections[LegacySection], W);
  if (Ok && !Tok.is(TokKind::Eof))
    Ok = errorHere("unexpected " + describe(Tok) + " after @@DWARF data");
  return Finish();
}

bool Parser::parseCallPrototype(PtxCallPrototype &P) {
  // Tok is `.callprototype`.
  advance();
  if (Tok.isPunct('(')) {
    if (!parseParamList(P.Returns, "return parameter list"))
      return false;
  }
  // The name is normally the sink `_`; PTX 2.x code (gpuocelot) repeats the label there instead.
  if (!Tok.is(TokKind::Identifier))
    return errorHere("expected '_' in .callprototype, found " + describe(Tok));
  advance();
  if (Tok.isPunct('(') && !parseParamList(P.Params, "parameter list"))
    return false;
  while (Tok.is(TokKind::Directive)) {
    StringRef Dir = Tok.Text;
    Token DirTok = Tok;
    advance();
    uint32_t V = 0;
    if (Dir == ".noreturn") {
      if (!P.Returns.empty())
        return error(DirTok, ".noreturn cannot be applied to a prototype with return parameters");
      P.NoReturn = true;
    } else if (Dir == ".abi_preserve" || Dir == ".abi_preserve_control") {
      if (!parseU32(V, "a register count"))
        return false;
      (Dir == ".abi_preserve" ? P.AbiPreserve : P.AbiPreserveControl) = V;
    } else {
      return error(DirTok, "unexpected '" + Dir + "' in .callprototype");
    }
  }
  if (!Tok.isPunct(';'))
    return errorHere("expected ';' after .callprototype, found " + describe(Tok));
  return true;
}

bool parsePtxModule(StringRef Text, StringRef FileName, SourceDiags &Diags, PtxModule &Module) {
  unsigned Before = Diags.errors();
  Module.FileName = FileName;
  if (Text.size() > MaxPtxModuleBytes) {
    Diags.error(0, SourceLoc{1, 1},
                "PTX module of " + Twine(Text.size()) + " bytes: at most " + Twine(MaxPtxModuleBytes) +
                    " bytes (4 GiB) can be assembled");
    return false;
  }
  Parser P(Text, Diags, Module);
  P.parseModule();
  P.finishLegacy();
  return Diags.errors() == Before;
}

bool parseCallPrototypeAt(StringRef Text, LexPos Start, SourceDiags &Diags, PtxCallPrototype &Out, LexPos &End) {
  PtxModule Dummy;
  Parser P(Text, Diags, Dummy, Start);
  P.Tok = P.Main.next();
  if (!P.Tok.isDirective(".callprototype"))
    return false;
  if (!P.parseCallPrototype(Out))
    return false;
  // Tok is the ';': the lexer position is just past it.
  End = P.Main.position();
  return true;
}

} // namespace ptxlink

// Response files and "did you mean" for every tool (CommandLine.h).
#include "ptxlink/CommandLine.h"
#include "ptxlink/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringSaver.h"

#include <optional>

using namespace llvm;

namespace ptxlink {

ExpandedArguments::ExpandedArguments() : Arena(std::make_unique<BumpPtrAllocator>()) {}
ExpandedArguments::~ExpandedArguments() = default;
ExpandedArguments::ExpandedArguments(ExpandedArguments &&) = default;
ExpandedArguments &ExpandedArguments::operator=(ExpandedArguments &&) = default;

Expected<ExpandedArguments> expandResponseFiles(ArrayRef<std::string> Args) {
  ExpandedArguments Result;
  StringSaver Saver(*Result.Arena);
  // LLVM's expander reads each file and saves every argument in the arena (the text and its NUL, no
  // per-string header) with a pointer to it in the list.
  Result.Argv.reserve(Args.size());
  for (const std::string &A : Args)
    Result.Argv.push_back(Saver.save(A).data());
  cl::ExpansionContext Expander(*Result.Arena, cl::TokenizeGNUCommandLine);
  if (Error E = Expander.expandResponseFiles(Result.Argv))
    return E;
  return Result;
}

int finishStandardOutput(StringRef Tool, int Status) {
  raw_fd_ostream &Out = outs();
  Out.flush();
  if (!Out.has_error())
    return Status;
  std::error_code EC = Out.error();
  Out.clear_error(); // else its destructor reports a fatal error
  errs() << Tool << ": error: cannot write to standard output: " << EC.message() << "\n";
  return 1;
}

std::vector<std::string> tokenizeOptionsText(StringRef Text) {
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  SmallVector<const char *, 32> Tokens;
  cl::TokenizeGNUCommandLine(Text, Saver, Tokens, /*MarkEOLs=*/false);
  return std::vector<std::string>(Tokens.begin(), Tokens.end());
}

std::string closestOption(StringRef Unknown, ArrayRef<StringRef> Known) {
  // Compare bare names: `-sas`, `--sas` and `--sas=1` are all the same typo of `--sass`.
  auto Bare = [](StringRef S) { return S.ltrim('-').split('=').first; };
  StringRef Wanted = Bare(Unknown);
  // Option names are short: a long word is nobody's typo, and its edit distance to each name would cost
  // its length times the name's (a 200 MB argument took minutes).
  if (Wanted.empty() || Wanted.size() > 64)
    return "";
  StringRef Best;
  unsigned BestDistance = ~0u;
  for (StringRef K : Known) {
    unsigned D = Wanted.edit_distance(Bare(K), /*AllowReplacements=*/true, BestDistance);
    if (D < BestDistance) {
      BestDistance = D;
      Best = K;
    }
  }
  // One edit in a short name, up to a third of a longer one: beyond that the "suggestion" is noise.
  unsigned Limit = std::max<unsigned>(1, Wanted.size() / 3);
  if (Best.empty() || BestDistance > Limit || Best == Unknown)
    return "";
  return Best.str();
}

std::string unknownOptionMessage(StringRef Unknown, ArrayRef<StringRef> Known) {
  std::string Message = "unknown option '" + Unknown.str() + "'";
  std::string Suggestion = closestOption(Unknown, Known);
  if (!Suggestion.empty())
    Message += "; did you mean '" + Suggestion + "'?";
  return capLongLines(Message);
}

} // namespace ptxlink

// ---- The option tables: parsing, --help and man pages --------------------------------------------------

#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"

namespace ptxlink {

namespace {

/// The options a user can see: not the table's <input>/<unknown> entries, not hidden ones, not aliases
/// (those are listed with the option they stand for).
bool isDocumented(const opt::Option &O) {
  return O.getKind() != opt::Option::InputClass && O.getKind() != opt::Option::UnknownClass &&
         !O.hasFlag(opt::HelpHidden) && !O.getAlias().isValid();
}

/// One spelling with its value as a user writes it: "-o <file>", "-arch=<sm>", "--verbose".
std::string spellingWithValue(const opt::OptTable &Table, const opt::Option &O) {
  // A one-letter option is shown with one dash (-v, not --v), as every Unix tool spells it.
  std::string Text = O.getName().size() == 1 ? ("-" + O.getName()).str() : O.getPrefixedName().str();
  const char *Meta = Table.getOptionMetaVar(O.getID());
  if (!Meta && O.getAlias().isValid()) // another spelling of an option: the same value
    Meta = Table.getOptionMetaVar(O.getAlias().getID());
  std::string Value = Meta ? Meta : "<value>";
  switch (O.getKind()) {
  case opt::Option::JoinedClass:
  case opt::Option::CommaJoinedClass:
    return Text + Value;
  case opt::Option::SeparateClass:
  case opt::Option::JoinedOrSeparateClass:
  case opt::Option::JoinedAndSeparateClass:
  case opt::Option::MultiArgClass:
  case opt::Option::RemainingArgsClass:
  case opt::Option::RemainingArgsJoinedClass:
    return Text + " " + Value;
  default:
    return Text;
  }
}

/// roff text: a backslash is an escape, '-' must be "\-" to stay a minus (and be searchable), and a
/// line starting with '.' or '\'' would be a request.
std::string roff(StringRef Text) {
  std::string Out;
  bool LineStart = true;
  for (char C : Text) {
    if (LineStart && (C == '.' || C == '\''))
      Out += "\\&";
    if (C == '\\')
      Out += "\\e";
    else if (C == '-')
      Out += "\\-";
    else
      Out += C;
    LineStart = C == '\n';
  }
  return Out;
}

} // namespace

std::vector<std::string> optionSpellings(const opt::OptTable &Table) {
  std::vector<std::string> Spellings;
  for (unsigned ID = 1; ID <= Table.getNumOptions(); ++ID) {
    const opt::Option O = Table.getOption(ID);
    if (O.getKind() == opt::Option::InputClass || O.getKind() == opt::Option::UnknownClass ||
        O.getKind() == opt::Option::GroupClass)
      continue;
    // "--arch=" is "--arch" with its value glued: one spelling to suggest.
    Spellings.push_back(O.getPrefixedName().rtrim('=').str());
  }
  return Spellings;
}

std::string unknownOptionMessage(const opt::OptTable &Table, const ToolDescription &Tool, StringRef Unknown) {
  std::vector<std::string> Spellings = optionSpellings(Table);
  std::vector<StringRef> Known(Spellings.begin(), Spellings.end());
  return unknownOptionMessage(Unknown, Known) + " (see " + Tool.Name.str() + " --help)";
}

std::vector<const char *> collapseRepeatedFlags(const opt::OptTable &Table, ArrayRef<const char *> Argv) {
  std::vector<const char *> Kept;
  // A run of flags (no input or option with a value between them): each distinct flag with the place of
  // its last occurrence in the run, which is where it is kept. A run holds few distinct flags however
  // long it is.
  StringMap<std::pair<size_t, const char *>> LastInRun;
  size_t Place = 0;
  auto EndRun = [&] {
    std::vector<std::pair<size_t, const char *>> Order;
    for (const auto &Entry : LastInRun)
      Order.push_back(Entry.second);
    llvm::sort(Order);
    for (const auto &[Where, Flag] : Order)
      Kept.push_back(Flag);
    LastInRun.clear();
  };
  // The parser reads the arguments through an InputArgList, which keeps a string for every alias it
  // resolves (-v for --verbose: about 70 bytes each, for the list's life): a window of them at a time
  // is parsed here, each argument on its own and dropped, so this costs no Arg and no string per
  // argument, and no copy of the list.
  constexpr unsigned Window = 4096;
  std::optional<opt::InputArgList> Scratch;
  unsigned ScratchStart = 0, ScratchEnd = 0;
  auto Open = [&](unsigned From, unsigned Size) {
    ScratchStart = From;
    ScratchEnd = std::min<size_t>(Argv.size(), size_t(From) + Size);
    Scratch.emplace(Argv.begin() + From, Argv.begin() + ScratchEnd);
  };
  unsigned Index = 0, End = Argv.size();
  while (Index < End) {
    StringRef Text = Argv[Index] ? StringRef(Argv[Index]) : StringRef();
    if (Text.empty()) { // the parser skips it, so it does not end a run
      ++Index;
      continue;
    }
    if (Text == "--") // after it, options may be names (ptxlink-as): the rest is kept as given
      break;
    if (!Scratch || (Index + 64 > ScratchEnd && ScratchEnd < End))
      Open(Index, Window);
    unsigned Start = Index, Local = Index - ScratchStart;
    std::unique_ptr<opt::Arg> A = Table.ParseOneArg(*Scratch, Local);
    if (!A && ScratchEnd < End) { // its values run past the window: parse it again in a larger one
      Open(Start, End - Start);
      Local = 0;
      A = Table.ParseOneArg(*Scratch, Local);
    }
    Index = ScratchStart + Local;
    if (!A || Index <= Start) { // a missing value, which the parser reports: the rest is kept as given
      Index = Start;
      break;
    }
    // Unknown options are errors, the first one reported whatever follows: their repeats go too.
    opt::Option::OptionClass Kind = A->getOption().getKind();
    if (Index == Start + 1 && (Kind == opt::Option::FlagClass || Kind == opt::Option::UnknownClass)) {
      LastInRun[Text] = {Place++, Argv[Start]};
      continue;
    }
    EndRun();
    Kept.insert(Kept.end(), Argv.begin() + Start, Argv.begin() + Index);
  }
  EndRun();
  Kept.insert(Kept.end(), Argv.begin() + std::min(Index, End), Argv.end());
  return Kept;
}

Expected<opt::InputArgList> parseToolArguments(const opt::OptTable &Table, const ToolDescription &Tool,
                                               ArrayRef<const char *> Argv) {
  unsigned MissingIndex = 0, MissingCount = 0;
  opt::InputArgList Args = Table.ParseArgs(Argv, MissingIndex, MissingCount);
  if (MissingCount)
    return createStringError(inconvertibleErrorCode(),
                             "option '" + Twine(Args.getArgString(MissingIndex)) + "' needs a value");
  for (const opt::Arg *A : Args)
    if (A->getOption().getKind() == opt::Option::UnknownClass)
      return createStringError(inconvertibleErrorCode(),
                               unknownOptionMessage(Table, Tool, Args.getArgString(A->getIndex())));
  return Args;
}

void printToolHelp(const opt::OptTable &Table, const ToolDescription &Tool, raw_ostream &OS) {
  std::string Usage = (Tool.Name + " " + Tool.Usage).str();
  std::string Title = (Tool.Name + ": " + Tool.Overview).str();
  Table.printHelp(OS, Usage.c_str(), Title.c_str(), /*ShowHidden=*/false, /*ShowAllAliases=*/true);
  if (!Tool.Details.empty())
    OS << "\n" << Tool.Details.rtrim() << "\n";
}

void printManPage(const opt::OptTable &Table, const ToolDescription &Tool, raw_ostream &OS) {
  std::string Upper = Tool.Name.upper();
  OS << ".\\\" Generated by `" << Tool.Name << " --help-man` from the tool's option table; do not edit.\n";
  OS << ".TH " << roff(Upper) << " 1 \"\" \"ptxlink " << PTXLINK_VERSION << "\" \"ptxlink Manual\"\n";
  OS << ".SH NAME\n" << roff(Tool.Name) << " \\- " << roff(Tool.Overview) << "\n";
  OS << ".SH SYNOPSIS\n.B " << roff(Tool.Name) << "\n" << roff(Tool.Usage) << "\n";
  if (!Tool.Details.empty())
    OS << ".SH DESCRIPTION\n.nf\n" << roff(Tool.Details.rtrim()) << "\n.fi\n";
  OS << ".SH OPTIONS\n";
  // Aliases are listed under the option they stand for, so a reader finds every accepted spelling.
  std::vector<std::vector<std::string>> Aliases(Table.getNumOptions() + 1);
  for (unsigned ID = 1; ID <= Table.getNumOptions(); ++ID) {
    const opt::Option O = Table.getOption(ID);
    if (O.getAlias().isValid() && !O.hasFlag(opt::HelpHidden))
      Aliases[O.getAlias().getID()].push_back(spellingWithValue(Table, O));
  }
  for (unsigned ID = 1; ID <= Table.getNumOptions(); ++ID) {
    const opt::Option O = Table.getOption(ID);
    if (!isDocumented(O) || O.getKind() == opt::Option::GroupClass)
      continue;
    OS << ".TP\n.B " << roff(spellingWithValue(Table, O));
    for (const std::string &Alias : Aliases[ID])
      OS << ", " << roff(Alias);
    OS << "\n";
    const char *Help = Table.getOptionHelpText(ID);
    OS << roff(Help ? Help : "") << "\n";
  }
  OS << ".SH SEE ALSO\n";
  static constexpr StringRef Tools[] = {"ptxlink", "ptxlink-as", "ptxlink-ar", "ptxlink-dump"};
  std::string SeeAlso;
  for (StringRef Other : Tools)
    if (Other != Tool.Name)
      SeeAlso += (SeeAlso.empty() ? "" : ", ") + ("\\fB" + roff(Other) + "\\fR(1)");
  OS << SeeAlso << "\n";
}

} // namespace ptxlink

namespace ptxlink {

std::optional<int> answerInformationalOptions(const opt::OptTable &Table, const ToolDescription &Tool,
                                              const opt::InputArgList &Args, opt::OptSpecifier HelpID,
                                              opt::OptSpecifier HelpManID, opt::OptSpecifier VersionID,
                                              const Twine &VersionLine, raw_ostream &OS) {
  if (Args.hasArg(HelpID))
    printToolHelp(Table, Tool, OS);
  else if (Args.hasArg(HelpManID))
    printManPage(Table, Tool, OS);
  else if (Args.hasArg(VersionID))
    OS << VersionLine << "\n";
  else
    return std::nullopt;
  return 0;
}

std::optional<uint64_t> parseByteSize(StringRef Text) {
  Text = Text.trim();
  uint64_t Mult = 1;
  if (!Text.empty()) {
    char Last = toLower(Text.back());
    if (Last == 'k' || Last == 'm' || Last == 'g') {
      Mult = Last == 'k' ? 1ull << 10 : Last == 'm' ? 1ull << 20 : 1ull << 30;
      Text = Text.drop_back();
    }
  }
  uint64_t N;
  if (Text.empty() || Text.getAsInteger(10, N) || N > (~0ull / Mult))
    return std::nullopt;
  return N * Mult;
}

} // namespace ptxlink

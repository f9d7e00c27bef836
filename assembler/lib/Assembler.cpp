// The assembler's entry points: one PTX text into one object variant, several PTX files into one (fat)
// object, and the ptxlink-as command line as a library call.
#include "ptxlink/Assembler.h"
#include "ptxlink/CommandLine.h"
#include "ptxlink/InputFiles.h"
#include "ptxlink/ObjectFormat.h"
#include "PtxParser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"


#include <cerrno>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace ptxlink {

/// Whether Text is CUDA or C++ source given by mistake (a `.cu` file on the link line) rather than PTX: a
/// PTX module's first statement is a directive (`.version`), never `#include` or `__global__`. Only the
/// start is looked at, so this costs nothing on real PTX.
static bool looksLikeCudaSource(StringRef Text, StringRef FileName) {
  StringRef Rest = Text;
  while (true) {
    Rest = Rest.ltrim(" \t\r\n\f\v");
    if (Rest.consume_front("//"))
      Rest = Rest.drop_until([](char C) { return C == '\n'; });
    else if (Rest.starts_with("/*") && Rest.find("*/") != StringRef::npos)
      Rest = Rest.drop_front(Rest.find("*/") + 2);
    else
      break;
  }
  if (Rest.empty() || Rest.front() == '.')
    return false;
  StringRef Ext = sys::path::extension(FileName);
  if (Ext == ".cu" || Ext == ".cuh")
    return true;
  if (Rest.front() == '#')
    return true; // #include, #pragma, #define: the preprocessor's, not PTX
  StringRef Head = Text.take_front(1 << 16);
  return Head.contains("__global__") || Head.contains("__device__") || Head.contains("__host__");
}

bool assembleInto(ObjectFile &Object, StringRef Text, StringRef FileName, DiagnosticEngine &Diags,
                  bool TextOutlivesObject, const MemoryBuffer *Source) {
  if (looksLikeCudaSource(Text, FileName)) {
    Diags.error(FileName, SourceLoc{},
                "CUDA source, not PTX: compile it with `nvcc -rdc=true -ptx " + sys::path::filename(FileName) +
                    "` first and give the .ptx file");
    return false;
  }
  unsigned EngineErrors = Diags.errorCount();
  SourceDiags D(Diags, Text, FileName);
  PtxModule M;
  bool Ok = parsePtxModule(Text, FileName, D, M);
  if (Diags.limitReached())
    return false;
  ModuleVariant V;
  // Lowering also runs after parse errors so that its own errors (undefined names, bad aliases) are
  // reported in the same run; the variant is dropped either way.
  Ok = lowerPtxModule(M, Object, V, D, TextOutlivesObject, Source) && Ok;
  if (!Ok || Diags.errorCount() != EngineErrors)
    return false;
  Object.Variants.push_back(std::move(V));
  return true;
}

/// The external symbols a variant defines (what other modules can link against).
static StringSet<> externalDefinitions(const ModuleVariant &V) {
  StringSet<> R;
  for (const Symbol &S : V.Symbols)
    if ((S.Bind == Binding::Global || S.Bind == Binding::Weak || S.Bind == Binding::Common) &&
        S.Kind != SymbolKind::Label && S.Kind != SymbolKind::Section)
      R.insert(S.name());
  return R;
}

std::unique_ptr<ObjectFile> assembleFiles(ArrayRef<std::string> Paths, DiagnosticEngine &Diags) {
  auto Object = std::make_unique<ObjectFile>();
  bool Ok = true;
  for (const std::string &Path : Paths) {
    auto Buf = readInputFile(Path); // a regular file or standard input: never a device or a FIFO
    if (!Buf) {
      Diags.error("cannot open '" + Path + "': " + Buf.getError().message(), std::vector<DiagSite>{}, "input-open");
      Ok = false;
      continue;
    }
    std::unique_ptr<MemoryBuffer> B = std::move(*Buf);
    StringRef Text = B->getBuffer();
    const MemoryBuffer *Source = B.get();
    // The mapped buffer lives as long as the object, so sections can point into it (and the writer can
    // give a large one's pages back: ObjectFile::releaseSourcePages).
    Object->adopt(std::move(B));
    if (!assembleInto(*Object, Text, Path, Diags, /*TextOutlivesObject=*/true, Source))
      Ok = false;
    if (Diags.limitReached())
      return nullptr;
  }
  if (!Ok)
    return nullptr;
  // A fat object holds one module for several targets: every variant must offer the same interface.
  if (Object->Variants.size() > 1) {
    const ModuleVariant &First = Object->Variants.front();
    StringSet<> Ref = externalDefinitions(First);
    for (size_t I = 1; I < Object->Variants.size(); ++I) {
      const ModuleVariant &Var = Object->Variants[I];
      StringSet<> Mine = externalDefinitions(Var);
      std::vector<std::string> Missing, Extra;
      for (const auto &E : Ref)
        if (!Mine.contains(E.getKey()))
          Missing.push_back(E.getKey().str());
      for (const auto &E : Mine)
        if (!Ref.contains(E.getKey()))
          Extra.push_back(E.getKey().str());
      std::sort(Missing.begin(), Missing.end());
      std::sort(Extra.begin(), Extra.end());
      for (const std::string &N : Missing) {
        Diags.error(Var.SourceName + ": fat object variants differ: '" + N + "' is defined in " + First.SourceName +
                        " but not in " + Var.SourceName,
                    std::vector<DiagSite>{}, "fat-variant-mismatch");
        Ok = false;
      }
      for (const std::string &N : Extra) {
        Diags.error(Var.SourceName + ": fat object variants differ: '" + N + "' is defined in " + Var.SourceName +
                        " but not in " + First.SourceName,
                    std::vector<DiagSite>{}, "fat-variant-mismatch");
        Ok = false;
      }
    }
  }
  if (!Ok)
    return nullptr;
  return Object;
}

/// Reads the file at Path (or standard input for "-") into Buffer, reusing its storage. Reports a file
/// that cannot be read as assembleFiles does.
static std::optional<StringRef> readInto(const std::string &Path, std::vector<char> &Buffer,
                                         DiagnosticEngine &Diags) {
  auto Fail = [&](std::error_code EC) -> std::optional<StringRef> {
    Diags.error("cannot open '" + Path + "': " + EC.message(), std::vector<DiagSite>{}, "input-open");
    return std::nullopt;
  };
  // A regular file or standard input: a device or FIFO is refused without blocking (InputFiles.h).
  uint64_t FileSize;
  ErrorOr<int> Opened = openInputFile(Path, FileSize);
  if (!Opened)
    return Fail(Opened.getError());
  int FD = *Opened;
  size_t Size = static_cast<size_t>(FileSize);
  // One byte more than the size, so that a file that grew is noticed and read to its end.
  if (Buffer.size() < Size + 1)
    Buffer.resize(Size + 1);
  size_t Have = 0;
  std::error_code EC;
  while (true) {
    if (Have == Buffer.size())
      Buffer.resize(Buffer.size() * 2 + 4096);
    ssize_t N = ::read(FD, Buffer.data() + Have, Buffer.size() - Have);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      EC = std::error_code(errno, std::generic_category());
      break;
    }
    if (N == 0)
      break;
    Have += static_cast<size_t>(N);
    if (FD == 0 && Have > MaxStandardInputBytes) {
      EC = inputTooLargeError();
      break;
    }
    // A regular file that still had its fstat size gave it all in the first read (which asked for one
    // byte more): no second read() just to see the end.
    if (Size && Have == Size)
      break;
  }
  if (FD != 0)
    ::close(FD);
  if (EC)
    return Fail(EC);
  return StringRef(Buffer.data(), Have);
}

/// The message of a failed write of Path: the writer's own messages name the file already ("cannot write
/// 'x.o': No space left on device"), the object writer's do not.
static std::string writeFailure(StringRef Path, Error E) {
  std::string Msg = toString(std::move(E));
  if (StringRef(Msg).contains(("'" + Path + "'").str()))
    return Msg;
  return "cannot write '" + Path.str() + "': " + Msg;
}

/// Batch mode (`--output-dir`): each input is its own module, written to Dir/<stem>.o, as `cc -c a.c b.c`
/// does. One process for a whole program's modules saves the start-up cost per module, which dominates
/// for the small modules separate compilation makes. A failed input gets no object; the others do.
static int assembleEach(ArrayRef<std::string> Inputs, StringRef Dir, DiagnosticEngine &Diags) {
  StringMap<StringRef> InputOfObject;
  for (const std::string &In : Inputs) {
    auto [It, Inserted] = InputOfObject.try_emplace(sys::path::stem(In), In);
    if (!Inserted)
      Diags.error("'" + In + "' and '" + It->second + "' would both be written to " +
                  sys::path::stem(In) + ".o in '" + Dir + "'");
  }
  // Every object is claimed before any is written: none may replace an input (one stat each, not one
  // per input and object).
  OutputFiles Written(Inputs);
  std::vector<std::string> Paths;
  Paths.reserve(Inputs.size());
  for (const std::string &In : Inputs) {
    SmallString<256> Path(Dir);
    sys::path::append(Path, sys::path::stem(In) + ".o");
    if (Error E = Written.claim(Path))
      Diags.error(toString(std::move(E)));
    Paths.push_back(std::string(Path));
  }
  if (Diags.hasErrors())
    return 1;
  if (std::error_code EC = sys::fs::create_directories(Dir)) {
    Diags.error("cannot create output directory '" + Dir + "': " + EC.message());
    return 1;
  }
  // A killed earlier run's temporaries of these objects go in one listing of the folder, not one per object.
  StringSet<> Names;
  for (const std::string &Path : Paths)
    Names.insert(sys::path::filename(Path));
  sweepStaleTemporaries(Dir, Names);
  // One input buffer for all modules: each object is written and dropped before the next input is
  // read, so its sections may point into the buffer. Reading into memory that is already mapped costs
  // less than mapping every file and unmapping it again (page faults, TLB shootdowns), and a module is
  // small next to the buffer's reuse.
  std::vector<char> Buffer;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    const std::string &In = Inputs[I], &Path = Paths[I];
    std::optional<StringRef> Text = readInto(In, Buffer, Diags);
    if (!Text)
      continue;
    auto Object = std::make_unique<ObjectFile>();
    if (!assembleInto(*Object, *Text, In, Diags, /*TextOutlivesObject=*/true))
      continue;
    // An earlier object is regenerated from its source: removing it saves waiting for ext4 to write the
    // new one to disk inside the rename (about 6% of reassembling a program into its object directory).
    if (Error E = writeFileAtomically(Path, [&](raw_ostream &OS) { return writeObject(*Object, OS); },
                                      EarlierFile::RemovedFirst, StaleTemporaries::SweptByCaller))
      Diags.error(writeFailure(Path, std::move(E)));
  }
  return Diags.hasErrors() ? 1 : 0;
}

namespace {

// ptxlink-as's option table: AssemblerOptions.td, turned into AssemblerOptions.inc by llvm-tblgen.
#define PTXLINK_OPTION_TABLE "AssemblerOptions.inc"
#include "ptxlink/OptionTableDefinitions.inc"

class AssemblerOptTable : public GenericOptTable {
public:
  AssemblerOptTable() : GenericOptTable(ToolOptionInfos) { setDashDashParsing(true); }
};

constexpr ToolDescription AssemblerDescription = {
    "ptxlink-as", "assemble PTX modules into ptxlink relocatable objects", "[options] <inputs...>",
    R"(Inputs are PTX files ('-' for standard input); several files make a fat object, one variant per
target, whose interfaces must agree. With --output-dir each input becomes its own object instead.
A value may follow its option, be glued to -o (-oout.o) or follow '=' (--error-limit=3).)"};

} // namespace

int runAssemblerTool(ArrayRef<std::string> RawArgs, raw_ostream &Out, raw_ostream &Err) {
  auto Expanded = expandResponseFiles(RawArgs);
  if (!Expanded) {
    Err << "ptxlink-as: error: cannot read a response file: " << toString(Expanded.takeError()) << "\n";
    return 1;
  }
  AssemblerOptTable Table;
  Expanded->assign(collapseRepeatedFlags(Table, Expanded->argv()));
  auto Parsed = parseToolArguments(Table, AssemblerDescription, Expanded->argv());
  if (!Parsed) {
    Err << "ptxlink-as: error: " << capLongLines(toString(Parsed.takeError())) << "\n";
    return 1;
  }
  const opt::InputArgList &Args = *Parsed;
  if (auto RC = answerInformationalOptions(Table, AssemblerDescription, Args, OPT_help, OPT_help_man, OPT_version,
                                           Twine("ptxlink-as " PTXLINK_VERSION " (object format ") +
                                               Twine(ObjectFormatVersion) + ")",
                                           Out))
    return *RC;
  // One output: a second -o is a mistake in the command, not a choice between two files.
  for (unsigned ID : {OPT_o, OPT_output_dir, OPT_error_limit})
    if (Args.filtered(ID).begin() != Args.filtered(ID).end() &&
        std::next(Args.filtered(ID).begin()) != Args.filtered(ID).end()) {
      Err << "ptxlink-as: error: option '" << Table.getOption(ID).getPrefixedName()
          << "' given more than once\n";
      return 1;
    }
  std::vector<std::string> Inputs = Args.getAllArgValues(OPT_INPUT);
  std::string Output = Args.getLastArgValue(OPT_o).str();
  std::string OutputDir = Args.getLastArgValue(OPT_output_dir).str();
  bool PrintPtx = Args.hasArg(OPT_print_ptx), Werror = Args.hasArg(OPT_Werror), NoWarn = Args.hasArg(OPT_w);
  unsigned ErrorLimit = 20;
  if (const opt::Arg *Limit = Args.getLastArg(OPT_error_limit)) {
    if (StringRef(Limit->getValue()).getAsInteger(10, ErrorLimit)) {
      Err << "ptxlink-as: error: "
          << capLongLines("invalid value '" + std::string(Limit->getValue()) +
                          "' for --error-limit: expected a non-negative integer")
          << "\n";
      return 1;
    }
  }
  DiagnosticEngine Diags(Err, "ptxlink-as");
  Diags.setErrorLimit(ErrorLimit);
  Diags.setWarningsAsErrors(Werror);
  Diags.setSuppressWarnings(NoWarn);
  Diags.setJson(Args.hasArg(OPT_json));
  if (Inputs.empty()) {
    Diags.error("no input files");
    return 1;
  }
  if (!OutputDir.empty()) {
    if (!Output.empty() || PrintPtx) {
      Diags.error("--output-dir cannot be combined with -o or --print-ptx");
      return 1;
    }
    return assembleEach(Inputs, OutputDir, Diags);
  }
  if (Output.empty() && !PrintPtx) {
    // As `cc -c a.c` and `nvcc -c a.cu` do: a.ptx gives a.o in the current directory (the first input
    // names a fat object's file). Standard input, or an input that would be its own output, has no
    // such name.
    StringRef First = Inputs.front();
    if (First == "-" || sys::path::extension(First) == ".o") {
      Diags.error("no output file for '" + First + "': use -o <file> (or -o - for standard output)");
      return 1;
    }
    Output = (sys::path::stem(First) + ".o").str();
  }
  if (Error E = checkOutputIsNotInput(Output, Inputs)) {
    Diags.error(toString(std::move(E)));
    return 1;
  }
  std::unique_ptr<ObjectFile> Object = assembleFiles(Inputs, Diags);
  if (!Object || Diags.hasErrors())
    return 1;
  auto Write = [&](raw_ostream &OS) -> Error {
    if (PrintPtx) {
      for (const ModuleVariant &V : Object->Variants)
        printModule(V, OS);
      return Error::success();
    }
    return writeObject(*Object, OS);
  };
  Error E = Error::success();
  if (Output.empty() || Output == "-") {
    E = Write(Out);
  } else {
    // As in batch mode (8 ms of waiting for the disk saved on a 7 MB object).
    E = writeFileAtomically(Output, Write, EarlierFile::RemovedFirst);
  }
  if (E) {
    Diags.error(writeFailure(Output.empty() ? std::string("-") : Output, std::move(E)));
    return 1;
  }
  return 0;
}

} // namespace ptxlink

// ptxlink-dump's command line and driver: parse options, read each input, detect its format by content,
// build the JSON description of the requested views and print it (as JSON, or rendered as text).
#include "AbiDiff.h"
#include "DumpInternal.h"

#include "ptxlink/InputFiles.h"
#include "ptxlink/Archive.h"
#include "ptxlink/CommandLine.h"
#include "ptxlink/Cubin.h"
#include "ptxlink/HostEmbed.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace ptxlink {
namespace dump {

void Context::warn(const Origin &O, uint64_t Offset, const Twine &Message) {
  HadError = true;
  std::string Msg = Message.str();
  std::string Where = O.InFile ? formatv("offset {0}", hex(O.Base + Offset)).str()
                               : formatv("offset {0} in the decompressed image", hex(Offset)).str();
  Err << "ptxlink-dump: warning: " << O.Name << ": " << Where << ": " << Msg << "\n";
  if (!Opts.Json) // only the JSON document lists them again: text output keeps nothing per warning
    return;
  json::Object D{{"severity", "warning"}, {"input", O.Name}, {"message", Msg}};
  if (O.InFile)
    D["fileOffset"] = O.Base + Offset;
  else
    D["imageOffset"] = Offset;
  Diagnostics.push_back(std::move(D));
}

ReaderProblem readerProblem(const Origin &O, Error E) {
  std::string Msg = toString(std::move(E));
  StringRef Rest = Msg;
  if (O.Name.empty() || !Rest.consume_front(O.Name + ": "))
    return {0, Msg};
  ReaderProblem P{0, Rest.str()};
  // "offset 0x28: ..." -> Offset 0x28, Message "...".
  StringRef Hex = Rest;
  uint64_t Offset = 0;
  if (Hex.consume_front("offset 0x") && !Hex.consumeInteger(16, Offset) && Hex.consume_front(": "))
    P = {Offset, Hex.str()};
  return P;
}

void Context::error(StringRef Name, const Twine &Message) {
  HadError = true;
  std::string Msg = Message.str();
  // Messages that already name the file ("cannot write 'x': ...") do not get it in front again.
  bool Named = Name.empty() || StringRef(Msg).starts_with((Name + ": ").str()) ||
               StringRef(Msg).contains(("'" + Name + "'").str());
  Err << "ptxlink-dump: error: " << (Named ? "" : Name.str() + ": ") << Msg << "\n";
  if (Opts.Json)
    Diagnostics.push_back(json::Object{{"severity", "error"}, {"input", Name.str()}, {"message", Msg}});
}

std::string hex(uint64_t V) { return "0x" + utohexstr(V, /*LowerCase=*/true); }

std::string demangled(StringRef Name) {
  if (!Name.starts_with("_Z") && !Name.starts_with("_R"))
    return "";
  std::string D = llvm::demangle(Name);
  return D == Name ? "" : D;
}

json::Value bytesAsJson(StringRef Bytes) {
  if (llvm::all_of(Bytes, [](char C) { return (C >= 0x20 && C < 0x7f) || C == '\n' || C == '\t'; }))
    return Bytes.str();
  return json::Object{{"hex", toHex(Bytes, /*LowerCase=*/true)}};
}

std::string sanitizeFileName(StringRef Name) {
  std::string S;
  for (char C : Name)
    S += (isAlnum(C) || C == '.' || C == '_' || C == '-') ? C : '_';
  return S;
}

json::Object describe(Context &C, const Origin &O, StringRef Bytes, unsigned Depth) {
  json::Object Node{{"name", O.Name}, {"size", Bytes.size()}};
  if (!O.InFile)
    Node["decompressed"] = true;
  else
    Node["fileOffset"] = O.Base;
  // Archives inside fatbinaries inside archives...: bounded, so a crafted file cannot recurse forever.
  if (Depth > 8) {
    C.warn(O, 0, "inputs nested too deeply; not descending further");
    Node["kind"] = "unknown";
    return Node;
  }
  if (isFatbin(Bytes)) {
    Node["kind"] = "fatbin";
    describeFatbin(C, O, Bytes, Node, Depth);
  } else if (isArchive(Bytes)) {
    Node["kind"] = "archive";
    describeArchive(C, O, Bytes, Node, Depth);
  } else if (isPtxlinkObject(Bytes)) {
    Node["kind"] = "ptxlink-object";
    describePtxlinkObject(C, O, Bytes, Node);
  } else if (isCubin(Bytes)) {
    Node["kind"] = "cubin";
    describeCubin(C, O, Bytes, Node);
  } else if (isHostElf(Bytes)) {
    Node["kind"] = "host-elf";
    describeHostElf(C, O, Bytes, Node, Depth);
  } else if (Bytes.starts_with("\x7f" "ELF")) {
    Node["kind"] = "unknown";
    C.warn(O, 0, "unsupported ELF file (not 64-bit little-endian, or an unknown device ELF)");
  } else {
    StringRef Text = Bytes.take_until([](char Ch) { return Ch == '\0'; });
    bool Printable = llvm::all_of(Text.take_front(4096), [](char Ch) {
      return isPrint(Ch) || isSpace(Ch);
    });
    if (Printable && (Text.contains(".version") || Text.contains(".target"))) {
      Node["kind"] = "ptx";
      describePtxText(C, O, Text, Node);
    } else {
      Node["kind"] = "unknown";
      C.warn(O, 0, "unrecognised input: not a fatbinary, archive, ELF file or PTX text");
    }
  }
  return Node;
}

void describeArchive(Context &C, const Origin &O, StringRef Bytes, json::Object &Node, unsigned Depth) {
  auto Lib = StaticLibrary::open(MemoryBuffer::getMemBuffer(Bytes, O.Name, false));
  if (!Lib) {
    ReaderProblem P = readerProblem(O, Lib.takeError());
    C.warn(O, P.Offset, P.Message);
    return;
  }
  json::Array Children;
  json::Array Index;
  size_t N = (*Lib)->memberCount();
  if (C.Opts.Headers || C.Opts.Symbols) {
    for (auto &[Sym, Member] : (*Lib)->symbolIndex())
      Index.push_back(json::Object{{"symbol", Sym.str()}, {"member", (*Lib)->memberName(Member).str()}});
    Node["headers"] = json::Object{{"members", N}, {"symbolIndex", std::move(Index)}};
  }
  // Text output of an archive named on the command line is streamed: its own lines now, then each
  // member as soon as it is described (100,000 empty members took 839 MB as one tree).
  bool Stream = C.TextOut && Depth == 0;
  if (Stream) {
    renderText(Node, C.Opts, *C.TextOut);
    Node["streamed"] = true;
  }
  for (size_t I = 0; I < N; ++I) {
    auto Member = (*Lib)->memberBuffer(I);
    std::string Name = O.Name + "(" + (*Lib)->memberName(I).str() + ")";
    if (!Member) {
      C.warn(O, 0, formatv("member {0}: {1}", I, toString(Member.takeError())));
      continue;
    }
    Origin MO{Name, O.File, O.Base, O.InFile};
    if (Member->getBufferStart() >= Bytes.begin() && Member->getBufferStart() <= Bytes.end())
      MO.Base = O.Base + uint64_t(Member->getBufferStart() - Bytes.data());
    json::Object Child = describe(C, MO, Member->getBuffer(), Depth + 1);
    if (Stream)
      renderText(Child, C.Opts, *C.TextOut, 2);
    else
      Children.push_back(std::move(Child));
  }
  if (!Stream)
    Node["children"] = std::move(Children);
}

namespace {

bool parseArch(StringRef Arch, Options &Opts) {
  StringRef A = Arch;
  if (!A.consume_front("sm_") && !A.consume_front("compute_"))
    return false;
  if (A.consume_back("a"))
    Opts.SelectArchSpecific = true;
  else if (A.consume_back("f"))
    Opts.SelectFamily = true;
  return !A.getAsInteger(10, Opts.SelectSm) && Opts.SelectSm >= 10;
}

// `--create-fatbin OUT` / `--embed-source OUT.c`: the inverse of --extract, wrapping cubins and PTX
// files (detected by content) into one fatbinary with writeFatbin, in command-line order.
int createFatbin(ArrayRef<std::string> Files, StringRef Out, StringRef EmbedSource, FatbinCompression Compress,
                 bool Relocatable, raw_ostream &Err) {
  std::vector<FatbinImage> Images;
  for (StringRef Written : {Out, EmbedSource})
    if (Error E = checkOutputIsNotInput(Written, Files)) {
      Err << "ptxlink-dump: error: " << toString(std::move(E)) << "\n";
      return 1;
    }
  for (const std::string &File : Files) {
    auto Buffer = readInputFile(File);
    if (!Buffer) {
      Err << "ptxlink-dump: error: " << File << ": " << Buffer.getError().message() << "\n";
      return 1;
    }
    StringRef Bytes = (*Buffer)->getBuffer();
    auto Image = isCubin(Bytes) ? makeCubinImage(Bytes) : makePtxImage(Bytes);
    if (!Image) {
      Err << "ptxlink-dump: error: " << File << ": " << toString(Image.takeError()) << "\n";
      return 1;
    }
    Images.push_back(std::move(*Image));
  }
  FatbinWriteOptions WO;
  WO.Compression = Compress;
  std::string Fatbin;
  raw_string_ostream FS(Fatbin);
  if (Error E = writeFatbin(Images, WO, FS)) {
    Err << "ptxlink-dump: error: " << toString(std::move(E)) << "\n";
    return 1;
  }
  if (!Out.empty())
    if (Error E = writeFileAtomically(Out, [&](raw_ostream &OS) {
          OS << Fatbin;
          return Error::success();
        })) {
      Err << "ptxlink-dump: error: " << toString(std::move(E)) << "\n"; // names the file
      return 1;
    }
  if (!EmbedSource.empty())
    if (Error E = writeFileAtomically(EmbedSource, [&](raw_ostream &OS) {
          writeEmbeddedFatbinSource(Fatbin, OS, Relocatable, "ptxlink");
          return Error::success();
        })) {
      Err << "ptxlink-dump: error: " << toString(std::move(E)) << "\n"; // names the file
      return 1;
    }
  return 0;
}

void usage(raw_ostream &OS) {
  OS << "usage: ptxlink-dump [views] [--json] [--extract DIR] [--select sm_XX] FILE...\n"
        "       ptxlink-dump --abi-diff OLD NEW [--json]\n"
        "       ptxlink-dump --create-fatbin OUT [--compress none|lz4|zstd] [--embed-source OUT.c [--relocatable]]\n"
        "                    CUBIN-OR-PTX...\n"
        "views: --headers --sections --symbols --relocs --abi --ptx --list --callgraph --debug --nv-info --all\n"
        "       --callgraph --format dot: the call graph as Graphviz (--format text|json|dot)\n"
        "       (default: --headers)\n"
        "cuobjdump's spellings: -lelf/--list-elf, -lptx/--list-ptx (--list of cubin / PTX images only),\n"
        "       -xelf/--extract-elf NAME, -xptx/--extract-ptx NAME (write the cubin / PTX images whose file\n"
        "       name contains NAME, or all, to the current directory), -ptx/--dump-ptx (--ptx),\n"
        "       -elf/--dump-elf (--headers --sections --symbols --relocs)\n"
        "also: @FILE (more arguments, GNU quoting), --version, --help\n";
}

/// Every option spelling, for "did you mean".
constexpr StringRef KnownOptions[] = {
    "--headers", "--sections", "--symbols", "--relocs", "--abi", "--ptx", "--list", "--callgraph", "--debug",
    "--nv-info", "--all", "--json", "--extract", "--select", "--abi-diff", "--create-fatbin", "--compress",
    "--embed-source", "--relocatable", "--help", "--version", "-lelf", "--list-elf", "-lptx", "--list-ptx",
    "-xelf", "--extract-elf", "-xptx", "--extract-ptx", "-ptx", "--dump-ptx", "-elf", "--dump-elf", "--format"};

} // namespace
} // namespace dump

int runDumpTool(ArrayRef<std::string> RawArgs, raw_ostream &Out, raw_ostream &Err) {
  using namespace dump;
  auto Expanded = expandResponseFiles(RawArgs);
  if (!Expanded) {
    Err << "ptxlink-dump: error: cannot read a response file: " << toString(Expanded.takeError()) << "\n";
    return 1;
  }
  ArrayRef<std::string> Args = *Expanded;
  Options Opts;
  std::vector<std::string> Files;
  bool AnyView = false;
  std::string CreateFatbin, EmbedSource;
  FatbinCompression Compress = FatbinCompression::None;
  bool Relocatable = false;
  bool Dot = false; // --format dot: the call graph as Graphviz
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    auto Value = [&](StringRef Flag) -> std::optional<std::string> {
      if (A.consume_front((Flag + "=").str()))
        return A.str();
      if (A == Flag && I + 1 < Args.size())
        return Args[++I];
      return std::nullopt;
    };
    if (A == "--help" || A == "-h") {
      usage(Out);
      return 0;
    }
    if (A == "--version") {
      Out << "ptxlink-dump " << PTXLINK_VERSION << "\n";
      return 0;
    }
    if (A == "--abi-diff") {
      std::vector<std::string> Rest(Args.begin() + I + 1, Args.end());
      for (size_t J = 0; J < I; ++J)
        Rest.push_back(Args[J]); // flags given before --abi-diff (e.g. --json)
      return runAbiDiff(Rest, Out, Err);
    }
    bool *Flag = StringSwitch<bool *>(A)
                     .Case("--headers", &Opts.Headers)
                     .Case("--sections", &Opts.Sections)
                     .Case("--symbols", &Opts.Symbols)
                     .Case("--relocs", &Opts.Relocs)
                     .Case("--abi", &Opts.Abi)
                     .Cases("--ptx", "-ptx", "--dump-ptx", &Opts.Ptx)
                     .Case("--list", &Opts.List)
                     .Case("--callgraph", &Opts.Callgraph)
                     .Case("--debug", &Opts.Debug)
                     .Case("--nv-info", &Opts.NvInfo)
                     .Case("--json", &Opts.Json)
                     .Default(nullptr);
    if (Flag) {
      *Flag = true;
      AnyView |= Flag != &Opts.Json;
      continue;
    }
    if (A == "-elf" || A == "--dump-elf") {
      // cuobjdump -elf prints an ELF's sections with their symbols and relocations: our nearest views.
      Opts.Headers = Opts.Sections = Opts.Symbols = Opts.Relocs = AnyView = true;
      continue;
    }
    if (A == "-lelf" || A == "--list-elf" || A == "-lptx" || A == "--list-ptx") {
      Opts.OnlyKind = A.contains("elf") ? FatbinKind::Elf : FatbinKind::Ptx;
      Opts.List = AnyView = true;
      continue;
    }
    std::optional<std::string> ExtractElf = Value("-xelf"), ExtractPtx;
    if (!ExtractElf)
      ExtractElf = Value("--extract-elf");
    if (!ExtractElf && !(ExtractPtx = Value("-xptx")))
      ExtractPtx = Value("--extract-ptx");
    if (ExtractElf || ExtractPtx) {
      // As cuobjdump: the images of that kind whose file name contains NAME ("all": every one), written
      // to the current directory under --extract's names.
      Opts.OnlyKind = ExtractElf ? FatbinKind::Elf : FatbinKind::Ptx;
      std::string Match = ExtractElf ? *ExtractElf : *ExtractPtx;
      Opts.ExtractMatch = Match == "all" ? "" : Match;
      if (Opts.ExtractDir.empty())
        Opts.ExtractDir = ".";
      AnyView = true;
      continue;
    }
    if (A == "--all") {
      Opts.Headers = Opts.Sections = Opts.Symbols = Opts.Relocs = Opts.Abi = Opts.List = Opts.Callgraph =
          Opts.Debug = Opts.NvInfo = AnyView = true;
      continue;
    }
    if (auto V = Value("--extract")) {
      Opts.ExtractDir = *V;
      AnyView = true;
      continue;
    }
    if (auto V = Value("--create-fatbin")) {
      CreateFatbin = *V;
      continue;
    }
    if (auto V = Value("--embed-source")) {
      EmbedSource = *V;
      continue;
    }
    if (A == "--relocatable") {
      Relocatable = true;
      continue;
    }
    if (auto V = Value("--compress")) {
      Compress = StringSwitch<FatbinCompression>(*V)
                     .Case("none", FatbinCompression::None)
                     .Case("lz4", FatbinCompression::Lz4)
                     .Case("zstd", FatbinCompression::Zstd)
                     .Default(FatbinCompression::Unknown);
      if (Compress == FatbinCompression::Unknown) {
        Err << "ptxlink-dump: error: --compress expects none, lz4 or zstd, got '" << *V << "'\n";
        return 1;
      }
      continue;
    }
    if (auto V = Value("--format")) {
      if (*V == "dot")
        Dot = true;
      else if (*V == "json")
        Opts.Json = true;
      else if (*V != "text") {
        Err << "ptxlink-dump: error: --format expects text, json or dot, got '" << *V << "'\n";
        return 1;
      }
      continue;
    }
    if (auto V = Value("--select")) {
      Opts.SelectArch = *V;
      if (!parseArch(*V, Opts)) {
        Err << "ptxlink-dump: error: --select expects an architecture like sm_90, got '" << *V << "'\n";
        return 1;
      }
      AnyView = true;
      continue;
    }
    if (A.starts_with("-") && A != "-") {
      Err << "ptxlink-dump: error: " << unknownOptionMessage(A, KnownOptions) << " (see ptxlink-dump --help)\n";
      return 1;
    }
    Files.push_back(A.str());
  }
  if (!CreateFatbin.empty() || !EmbedSource.empty())
    return createFatbin(Files, CreateFatbin, EmbedSource, Compress, Relocatable, Err);
  if (Files.empty()) {
    Err << "ptxlink-dump: error: no input files\n";
    usage(Err);
    return 1;
  }
  if (Dot) {
    if (!Opts.Callgraph || Opts.Json) {
      Err << "ptxlink-dump: error: --format dot draws the call graph: use it with --callgraph (and without --json)\n";
      return 1;
    }
    // The picture needs the functions' kinds and the prototypes' call targets, and nothing else.
    Opts = Options{};
    Opts.Callgraph = Opts.Abi = AnyView = true;
  }
  if (!AnyView)
    Opts.Headers = true;

  Context C(Opts, Err);
  if (!Opts.Json && !Dot)
    C.TextOut = &Out;
  json::Array Inputs;
  for (const std::string &File : Files) {
    auto Buffer = readInputFile(File);
    if (!Buffer) {
      C.error(File, Buffer.getError().message());
      continue;
    }
    C.Budget.addInput((*Buffer)->getBufferSize());
    Origin O{File, File, 0, true};
    C.ExtractCounter = 0; // image numbers restart with each input, as cuobjdump's do
    json::Object Node = describe(C, O, (*Buffer)->getBuffer());
    if (Opts.Json || Dot)
      Inputs.push_back(std::move(Node)); // printed whole at the end: the document, or the graph
    else if (!Node.getBoolean("streamed"))
      renderText(Node, Opts, Out);
  }
  if (Dot)
    renderCallgraphDot(Inputs, Out, "call graph: " + join(Files, " "));
  if (Opts.Json) {
    json::Object Doc{{"schema", "ptxlink-dump"},
                     {"schemaVersion", DumpJsonSchemaVersion},
                     {"inputs", std::move(Inputs)},
                     {"diagnostics", std::move(C.Diagnostics)}};
    Out << formatv("{0:2}", json::Value(std::move(Doc))) << "\n";
  }
  return C.HadError ? 1 : 0;
}

} // namespace ptxlink

// ptxlink-dump's command line and driver: parse options, read each input, detect its format by content,
// build the JSON description of the requested views and print it (as JSON, or rendered as text).
#include "AbiDiff.h"
#include "DumpInternal.h"

#include "ptxlink/InputFiles.h"
#include "ptxlink/Archive.h"
#include "ptxlink/CommandLine.h"
#include "ptxlink/Cubin.h"
#include "ptxlink/Executor.h"
#include "ptxlink/HostEmbed.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
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
  if (!Document) // only the JSON document lists them again: text output keeps nothing per warning
    return;
  json::Object D{{"severity", "warning"}, {"input", O.Name}, {"message", Msg}};
  if (O.InFile)
    D["fileOffset"] = O.Base + Offset;
  else
    D["imageOffset"] = Offset;
  Document->addDiagnostic(std::move(D));
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
  if (Document)
    Document->addDiagnostic(json::Object{{"severity", "error"}, {"input", Name.str()}, {"message", Msg}});
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

Node describe(Context &C, const Origin &O, StringRef Bytes, unsigned Depth) {
  Node N;
  json::Object &Node = N.Fields;
  Node["name"] = O.Name;
  Node["size"] = Bytes.size();
  if (!O.InFile)
    Node["decompressed"] = true;
  else
    Node["fileOffset"] = O.Base;
  // Archives inside fatbinaries inside archives...: bounded, so a crafted file cannot recurse forever.
  if (Depth > 8) {
    C.warn(O, 0, "inputs nested too deeply; not descending further");
    Node["kind"] = "unknown";
    return N;
  }
  if (isFatbin(Bytes)) {
    Node["kind"] = "fatbin";
    describeFatbin(C, O, Bytes, N, Depth);
  } else if (isArchive(Bytes)) {
    Node["kind"] = "archive";
    describeArchive(C, O, Bytes, N, Depth);
  } else if (isPtxlinkObject(Bytes)) {
    Node["kind"] = "ptxlink-object";
    describePtxlinkObject(C, O, Bytes, N);
  } else if (isCubin(Bytes)) {
    Node["kind"] = "cubin";
    describeCubin(C, O, Bytes, N);
  } else if (isHostElf(Bytes)) {
    Node["kind"] = "host-elf";
    describeHostElf(C, O, Bytes, N, Depth);
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
      describePtxText(C, O, Text, N);
    } else {
      Node["kind"] = "unknown";
      C.warn(O, 0, "unrecognised input: not a fatbinary, archive, ELF file or PTX text");
    }
  }
  return N;
}

void describeArchive(Context &C, const Origin &O, StringRef Bytes, Node &N, unsigned Depth) {
  auto Opened = StaticLibrary::open(MemoryBuffer::getMemBuffer(Bytes, O.Name, false));
  if (!Opened) {
    ReaderProblem P = readerProblem(O, Opened.takeError());
    C.warn(O, P.Offset, P.Message);
    return;
  }
  std::shared_ptr<StaticLibrary> Lib = std::move(*Opened);
  size_t Count = Lib->memberCount();
  if (C.Opts.Headers || C.Opts.Symbols) {
    // The index is streamed too, one {symbol, member} record at a time from the library's own table: as
    // one JSON array, a million names took 4.3 GB.
    Node Headers;
    Headers.Fields["members"] = Count;
    Headers.Streams.emplace_back("symbolIndex", [Lib](Node::Emit Emit) {
      for (auto &[Sym, Member] : Lib->symbolIndex()) {
        Node Entry;
        Entry.Fields["symbol"] = Sym.str();
        Entry.Fields["member"] = Lib->memberName(Member).str();
        Emit(Entry);
      }
    });
    N.Objects.emplace_back("headers", std::move(Headers));
  }
  // The members are described one at a time as the output reaches them, each written out before the
  // next is read (100,000 empty members took 839 MB as one tree).
  N.Streams.emplace_back("children", [&C, O, Bytes, Lib, Count, Depth](Node::Emit Emit) {
    for (size_t I = 0; I < Count; ++I) {
      auto Member = Lib->memberBuffer(I);
      std::string Name = O.Name + "(" + Lib->memberName(I).str() + ")";
      if (!Member) {
        C.warn(O, 0, formatv("member {0}: {1}", I, toString(Member.takeError())));
        continue;
      }
      Origin MO{Name, O.File, O.Base, O.InFile};
      if (Member->getBufferStart() >= Bytes.begin() && Member->getBufferStart() <= Bytes.end())
        MO.Base = O.Base + uint64_t(Member->getBufferStart() - Bytes.data());
      Node Child = describe(C, MO, Member->getBuffer(), Depth + 1);
      Emit(Child);
    }
  });
}

namespace {

bool parseArch(StringRef Arch, Options &Opts) {
  std::optional<Target> Device = Target::parse(Arch);
  if (!Device || Device->Sm < 10)
    return false;
  Opts.SelectSm = Device->Sm; // a device runs its own `a` and `f` code: the number is what selects
  return true;
}

// `--create-fatbin OUT` / `--embed-source OUT.c`: the inverse of --extract, wrapping cubins and PTX
// files (detected by content) into one fatbinary with writeFatbin, in command-line order.
int createFatbin(ArrayRef<std::string> Files, StringRef Out, StringRef EmbedSource, const FatbinWriteOptions &WO,
                 bool Relocatable, raw_ostream &Err) {
  std::vector<FatbinImage> Images;
  OutputFiles Written(Files);
  for (auto [Path, What] : {std::pair(Out, "--create-fatbin file"), std::pair(EmbedSource, "--embed-source file")})
    if (Error E = Written.claim(Path, What)) {
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
  std::string Fatbin;
  raw_string_ostream FS(Fatbin);
  Executor Pool; // the images are compressed in parallel
  FatbinWriteOptions Write = WO;
  Write.Exec = &Pool;
  if (Error E = writeFatbin(Images, Write, FS)) {
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

// ptxlink-dump's option table: DumpOptions.td, turned into DumpOptions.inc by llvm-tblgen.
#define PTXLINK_OPTION_TABLE "DumpOptions.inc"
#include "ptxlink/OptionTableDefinitions.inc"

class DumpOptTable : public GenericOptTable {
public:
  DumpOptTable() : GenericOptTable(ToolOptionInfos) {}
};

constexpr ToolDescription DumpDescription = {
    "ptxlink-dump", "look inside ptxlink objects and libraries, NVIDIA fatbinaries and cubins",
    "[views] [--json] [--extract DIR] [--select sm_XX] FILE...",
    R"(Other forms:
  ptxlink-dump --abi-diff OLD NEW [--json]
  ptxlink-dump --create-fatbin OUT [--compress none|lz4|zstd[:LEVEL]] [--compress-all]
               [--embed-source OUT.c [--relocatable]] CUBIN-OR-PTX...

The format of each input is detected from its content (fatbinaries also inside host objects'
.nv_fatbin). A damaged part of a file is a warning with its byte offset, and the dump goes on.
A value may follow its option or '=' (--select=sm_90, -xelf=all). @FILE reads more arguments from
FILE (GNU quoting). cuobjdump's -sass has no counterpart: ptxlink has no
SASS disassembler.)"};

} // namespace
} // namespace dump

int runDumpTool(ArrayRef<std::string> RawArgs, raw_ostream &Out, raw_ostream &ErrTarget) {
  using namespace dump;
  // Its messages echo arguments and names as given: none is printed whole past a line's cap.
  LineCappingStream Err(ErrTarget);
  auto Expanded = expandResponseFiles(RawArgs);
  if (!Expanded) {
    Err << "ptxlink-dump: error: cannot read a response file: " << toString(Expanded.takeError()) << "\n";
    return 1;
  }
  DumpOptTable Table;
  Expanded->assign(collapseRepeatedFlags(Table, Expanded->argv()));
  auto Parsed = parseToolArguments(Table, DumpDescription, Expanded->argv());
  if (!Parsed) {
    Err << "ptxlink-dump: error: " << toString(Parsed.takeError()) << "\n";
    return 1;
  }
  const opt::InputArgList &Args = *Parsed;
  if (auto RC = answerInformationalOptions(Table, DumpDescription, Args, OPT_help, OPT_help_man, OPT_version,
                                           "ptxlink-dump " PTXLINK_VERSION, Out))
    return *RC;
  if (const opt::Arg *AbiDiff = Args.getLastArg(OPT_abi_diff)) {
    // Every argument after --abi-diff is its own; flags given before it (e.g. --json) go along.
    unsigned Index = AbiDiff->getIndex();
    ArrayRef<const char *> All = Expanded->argv();
    std::vector<std::string> Rest(All.begin() + Index + 1, All.end());
    Rest.insert(Rest.end(), All.begin(), All.begin() + Index);
    return runAbiDiff(Rest, Out, Err);
  }
  Options Opts;
  std::vector<std::string> Files;
  bool AnyView = false;
  std::string CreateFatbin, EmbedSource;
  std::optional<FatbinCompressionSetting> Compress; // --compress
  bool CompressAll = false;                          // --compress-all
  bool Relocatable = false;
  bool Dot = false; // --format dot: the call graph as Graphviz
  // In command-line order: a later view selector (-lelf after -lptx, --format) overrides an earlier one.
  for (const opt::Arg *A : Args) {
    unsigned ID = A->getOption().getID();
    std::string Value = A->getNumValues() ? A->getValue() : "";
    switch (ID) {
    case OPT_INPUT:
      Files.push_back(Value);
      break;
    case OPT_headers:
      Opts.Headers = AnyView = true;
      break;
    case OPT_sections:
      Opts.Sections = AnyView = true;
      break;
    case OPT_symbols:
      Opts.Symbols = AnyView = true;
      break;
    case OPT_relocs:
      Opts.Relocs = AnyView = true;
      break;
    case OPT_abi:
      Opts.Abi = AnyView = true;
      break;
    case OPT_ptx:
      Opts.Ptx = AnyView = true;
      break;
    case OPT_list_images:
      Opts.List = AnyView = true;
      break;
    case OPT_callgraph:
      Opts.Callgraph = AnyView = true;
      break;
    case OPT_labels:
      Opts.Labels = AnyView = true;
      break;
    case OPT_debug:
      Opts.Debug = AnyView = true;
      break;
    case OPT_nv_info:
      Opts.NvInfo = AnyView = true;
      break;
    case OPT_json:
      Opts.Json = true;
      break;
    case OPT_dump_elf:
      // cuobjdump -elf prints an ELF's sections with their symbols and relocations: our nearest views.
      Opts.Headers = Opts.Sections = Opts.Symbols = Opts.Relocs = AnyView = true;
      break;
    case OPT_list_elf:
    case OPT_list_ptx:
      Opts.OnlyKind = ID == OPT_list_elf ? FatbinKind::Elf : FatbinKind::Ptx;
      Opts.List = AnyView = true;
      break;
    case OPT_extract_elf:
    case OPT_extract_ptx:
      // As cuobjdump: the images of that kind whose file name contains NAME ("all": every one), written
      // to the current directory under --extract's names.
      Opts.OnlyKind = ID == OPT_extract_elf ? FatbinKind::Elf : FatbinKind::Ptx;
      Opts.ExtractMatch = Value == "all" ? "" : Value;
      if (Opts.ExtractDir.empty())
        Opts.ExtractDir = ".";
      AnyView = true;
      break;
    case OPT_all:
      Opts.Headers = Opts.Sections = Opts.Symbols = Opts.Relocs = Opts.Abi = Opts.List = Opts.Callgraph =
          Opts.Labels = Opts.Debug = Opts.NvInfo = AnyView = true;
      break;
    case OPT_extract:
      Opts.ExtractDir = Value;
      AnyView = true;
      break;
    case OPT_create_fatbin:
      CreateFatbin = Value;
      break;
    case OPT_embed_source:
      EmbedSource = Value;
      break;
    case OPT_relocatable:
      Relocatable = true;
      break;
    case OPT_compress: {
      auto Setting = parseFatbinCompression(Value);
      if (!Setting) {
        Err << "ptxlink-dump: error: " << toString(Setting.takeError()) << "\n";
        return 1;
      }
      Compress = *Setting;
      break;
    }
    case OPT_compress_all:
      CompressAll = true;
      break;
    case OPT_format:
      if (Value == "dot")
        Dot = true;
      else if (Value == "json")
        Opts.Json = true;
      else if (Value != "text") {
        Err << "ptxlink-dump: error: --format expects text, json or dot, got '" << Value << "'\n";
        return 1;
      }
      break;
    case OPT_max_decompressed:
      Opts.MaxDecompressed = parseByteSize(Value);
      if (!Opts.MaxDecompressed) {
        Err << "ptxlink-dump: error: --max-decompressed needs a size such as 500M or 2G, got '" << Value << "'\n";
        return 1;
      }
      break;
    case OPT_select:
      Opts.SelectArch = Value;
      if (!parseArch(Value, Opts)) {
        Err << "ptxlink-dump: error: --select expects an architecture like sm_90, got '" << Value << "'\n";
        return 1;
      }
      AnyView = true;
      break;
    }
  }
  if (!CreateFatbin.empty() || !EmbedSource.empty()) {
    // As fatbinary: --compress-all without a scheme compresses with the default one, zstd. zstd without
    // a level is 19 here (the smallest images for a tool that writes test inputs; ptxlink's links use 3).
    FatbinWriteOptions WO;
    WO.Compression = Compress ? Compress->Scheme : CompressAll ? FatbinCompression::Zstd : FatbinCompression::None;
    WO.CompressElf = CompressAll;
    int Level = Compress ? Compress->Level : 0;
    if (Level)
      WO.ZstdLevel = Level;
    WO.Lz4Level = Level;
    return createFatbin(Files, CreateFatbin, EmbedSource, WO, Relocatable, Err);
  }
  if (Files.empty()) {
    Err << "ptxlink-dump: error: no input files\n";
    printToolHelp(Table, DumpDescription, Err);
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
  std::optional<ExtractionStage> Extracted;
  if (!Opts.ExtractDir.empty())
    C.Extracted = &Extracted.emplace(Opts.ExtractDir, Files);
  // Each input is written out as soon as it is described (its streams as they run), then released.
  std::optional<JsonDocumentWriter> Document;
  if (Opts.Json) {
    Document.emplace();
    C.Document = &*Document;
  }
  CallGraphDot DotGraph; // --format dot draws every input in one picture: each is added, then dropped
  for (const std::string &File : Files) {
    auto Buffer = readInputFile(File);
    if (!Buffer) {
      C.error(File, Buffer.getError().message());
      continue;
    }
    if (!Opts.MaxDecompressed)
      C.Budget.addInput((*Buffer)->getBufferSize());
    Origin O{File, File, 0, true};
    C.ExtractCounter = 0; // image numbers restart with each input, as cuobjdump's do
    Node N = describe(C, O, (*Buffer)->getBuffer());
    if (Dot)
      addToCallgraphDot(N, DotGraph);
    else if (Document)
      Document->addInput(N);
    else
      renderText(N, Opts, Out);
  }
  if (Extracted)
    if (Error E = Extracted->finish())
      C.error("", toString(std::move(E)));
  if (Dot)
    DotGraph.write(Out, "call graph: " + join(Files, " "));
  if (Document)
    if (Error E = Document->finish(Out)) {
      Err << "ptxlink-dump: error: " << toString(std::move(E)) << "\n";
      return 1;
    }
  return C.HadError ? 1 : 0;
}

} // namespace ptxlink

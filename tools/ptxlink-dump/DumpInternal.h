// Shared state of ptxlink-dump's pieces. Every view is first built as JSON (the documented, versioned
// document of docs/dump.md) and the text output is rendered from that same JSON, so the two can never
// disagree about a value. Parts whose length grows with the input (an archive's members and symbol index,
// a fatbinary's images and their list, an object's symbols, relocations, sections, ABI records and call
// edges) are not held as JSON: they are streams, produced element by element when the output (JSON, text
// or the --format dot graph) reaches them, so the dump's memory does not grow with the number of entries.
#pragma once

#include "Dump.h"
#include "ptxlink/CallGraphDot.h"
#include "ptxlink/Diagnostics.h"
#include "ptxlink/Fatbin.h"
#include "ptxlink/InputFiles.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink::dump {

struct Options {
  bool Headers = false, Sections = false, Symbols = false, Relocs = false, Abi = false, Ptx = false,
       List = false, Callgraph = false, Labels = false, Debug = false, NvInfo = false, Json = false;
  std::string ExtractDir;
  /// cuobjdump's -lelf/-lptx/-xelf/-xptx: only the fatbinary images of this kind are listed, extracted
  /// and described; ExtractMatch (-xelf NAME) keeps those whose extracted file name contains it.
  std::optional<FatbinKind> OnlyKind;
  std::string ExtractMatch;
  std::string SelectArch; // "sm_90" etc; empty = no --select
  uint32_t SelectSm = 0;
  /// --max-decompressed: the run's decompression budget, replacing 100 MB plus twice the inputs.
  std::optional<uint64_t> MaxDecompressed;
};

/// Where a node's bytes are: its display name (path, then "(member)" / "[image N]" parts) and, when
/// the bytes are stored verbatim in the input file, their offset in that file (for messages).
struct Origin {
  std::string Name;
  std::string File;      // the input file on the command line
  uint64_t Base = 0;     // offset of the node's first byte in File
  bool InFile = true;    // false for decompressed images: offsets are relative to the image
};

/// A described input, archive member or image. Fields holds its small values; Objects its nested
/// objects that have streamed parts (a fatbinary's select view); Streams the arrays too long to hold,
/// each a function that produces the elements one by one and hands each to Emit, which writes it out at
/// once. A stream may be run more than once (the text output measures a table's columns first) and only
/// while the bytes it describes are alive: a node is written out before its input is released.
struct NamedNode;
struct Node {
  using Emit = llvm::function_ref<void(Node &)>;
  using Stream = std::function<void(Emit)>;
  llvm::json::Object Fields;
  // Not std::pair<std::string, Node>: a pair needs Node complete where it is named, and clang with
  // libstdc++ 12 rejects it here (the sanitizer build of the fuzz pass); a vector of a declared struct
  // is fine (C++17).
  std::vector<NamedNode> Objects;
  std::vector<std::pair<std::string, Stream>> Streams;
};

/// A nested object of a Node and its key (first/second, as the std::pair it replaces).
struct NamedNode {
  NamedNode(std::string Key, Node Value) : first(std::move(Key)), second(std::move(Value)) {}
  std::string first;
  Node second;
};

class JsonDocumentWriter;

/// --extract's files, all or none (DumpExtract.cpp): each image is claimed against the inputs and the
/// other images and written into a private folder in the destination; finish() moves them all to their
/// names if every one was staged, else removes them.
class ExtractionStage {
public:
  ExtractionStage(llvm::StringRef Dir, llvm::ArrayRef<std::string> Inputs);
  ~ExtractionStage();
  ExtractionStage(const ExtractionStage &) = delete;
  ExtractionStage &operator=(const ExtractionStage &) = delete;

  /// Stages Data as the file Path (in Dir); an Error when Path is refused or cannot be written, after
  /// which nothing will be moved (later images are still claimed, to report every refusal).
  llvm::Error stage(llvm::StringRef Path, llvm::StringRef Data);
  /// Moves every staged file to its name, or removes them all if any stage() failed (the Error says
  /// that nothing was written).
  llvm::Error finish();

private:
  void discard();

  std::string Dir;
  OutputFiles Claims;
  std::string Folder;              // the private folder, once the first image is staged
  std::vector<std::string> Names;  // the staged files' names, in Folder and then in Dir
  bool Failed = false;
  bool CreatedDir = false;         // Dir did not exist before this run
};

class Context {
public:
  Context(const Options &Opts, llvm::raw_ostream &Err)
      : Opts(Opts), Err(Err), Budget(Opts.MaxDecompressed.value_or(DecompressionBudget::Base)) {}

  const Options &Opts;
  llvm::raw_ostream &Err;
  bool HadError = false;
  /// --json: the document being written, which takes each diagnostic as it happens.
  JsonDocumentWriter *Document = nullptr;
  unsigned ExtractCounter = 0;
  /// --extract: the images staged so far, claimed against the inputs and each other.
  ExtractionStage *Extracted = nullptr;
  DecompressionBudget Budget; // one for the whole run, grown by each input read (unless --max-decompressed)

  /// A problem with the input at `Offset` (relative to the node): printed at once, kept for --json,
  /// and makes the exit status 1.
  void warn(const Origin &O, uint64_t Offset, const llvm::Twine &Message);
  /// A problem without a location (unreadable file, bad option).
  void error(llvm::StringRef Name, const llvm::Twine &Message);
};

/// An error from a reader that was handed the node's bytes under the name O.Name, split the way warn()
/// wants it: the readers start their messages with that name and often an "offset 0x..:" (relative to the
/// bytes they were given), which warn() prints itself; left in, both would appear twice.
struct ReaderProblem {
  uint64_t Offset = 0; // relative to the node
  std::string Message;
};
ReaderProblem readerProblem(const Origin &O, llvm::Error E);

/// Describes Bytes (detected by content) as a node with the requested views and its children.
Node describe(Context &C, const Origin &O, llvm::StringRef Bytes, unsigned Depth = 0);

// Per-format builders (each adds its views to Node).
void describePtxlinkObject(Context &C, const Origin &O, llvm::StringRef Bytes, Node &N);
void describePtxText(Context &C, const Origin &O, llvm::StringRef Text, Node &N);
/// The symbols, relocs, abi and callgraph views are streams over Object (which they keep alive); the
/// bytes Object was read from must outlive the node's output, as for every stream.
void describeObjectModel(Context &C, const Origin &O, std::shared_ptr<const ObjectFile> Object, Node &N);
/// A cubin's sections, symbols, relocs, nv-info, abi functions and callgraph views are streams over the
/// parsed cubin (which they keep alive); headers and debug are held.
void describeCubin(Context &C, const Origin &O, llvm::StringRef Bytes, Node &N);
void describeFatbin(Context &C, const Origin &O, llvm::StringRef Bytes, Node &N, unsigned Depth);
void describeHostElf(Context &C, const Origin &O, llvm::StringRef Bytes, Node &N, unsigned Depth);
void describeArchive(Context &C, const Origin &O, llvm::StringRef Bytes, Node &N, unsigned Depth);

/// DWARF units of an ELF file (cubin) or of in-memory debug sections (our objects).
llvm::json::Object describeDwarfOfElf(Context &C, const Origin &O, llvm::StringRef Bytes);
llvm::json::Object describeDwarfOfSections(Context &C, const Origin &O,
                                           const std::vector<std::pair<std::string, std::string>> &Sections,
                                           uint8_t AddressSize);

/// Renders one node (and its children) as text.
void renderText(const llvm::json::Object &Node, const Options &Opts, llvm::raw_ostream &OS, unsigned Indent = 0);
/// The same for a node with streams: each stream's elements are written as they are produced.
void renderText(Node &N, const Options &Opts, llvm::raw_ostream &OS, unsigned Indent = 0);
/// Writes a node as JSON (keys sorted, as llvm::json prints an object), its streams as they are produced.
void writeJson(llvm::json::OStream &J, Node &N);
/// The whole node as JSON, its streams run into arrays (one record of a stream whose records are no table).
llvm::json::Object toJson(Node &N);

/// `--json`: the document of docs/dump.md, written while the inputs are described. Its "diagnostics"
/// come before "inputs" (keys are sorted) yet are complete only at the end, so both arrays are written
/// into spill buffers (in memory up to a few megabytes, then in an unnamed temporary file) and put
/// together at the end.
class JsonDocumentWriter {
public:
  JsonDocumentWriter();
  ~JsonDocumentWriter();
  /// Writes one input's node into the "inputs" array.
  void addInput(Node &N);
  /// Writes one diagnostic into the "diagnostics" array.
  void addDiagnostic(llvm::json::Object Diagnostic);
  /// Writes the whole document to OS.
  llvm::Error finish(llvm::raw_ostream &OS);

private:
  class Spill;
  std::unique_ptr<Spill> Inputs, Diagnostics;
  std::unique_ptr<llvm::json::OStream> InputWriter, DiagnosticWriter;
};
/// `--callgraph --format dot`: adds one input's call graph (built with the callgraph and abi views) to the
/// Graphviz picture of every input, one cluster per object, member or image (DumpDot.cpp). The node's
/// children streams are run here, each child added and released before the next is described.
void addToCallgraphDot(Node &N, CallGraphDot &G);

// Small helpers.
std::string hex(uint64_t V);
std::string demangled(llvm::StringRef Name); // "" when Name is not mangled
llvm::json::Value bytesAsJson(llvm::StringRef Bytes); // printable text, or hex
std::string sanitizeFileName(llvm::StringRef Name);

} // namespace ptxlink::dump

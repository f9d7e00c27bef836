// Shared state of ptxlink-dump's pieces. Every view is first built as JSON (the documented, versioned
// document of docs/dump.md) and the text output is rendered from that same JSON, so the two can never
// disagree about a value.
#pragma once

#include "Dump.h"
#include "ptxlink/Diagnostics.h"
#include "ptxlink/Fatbin.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxlink::dump {

struct Options {
  bool Headers = false, Sections = false, Symbols = false, Relocs = false, Abi = false, Ptx = false,
       List = false, Callgraph = false, Debug = false, NvInfo = false, Json = false;
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

class Context {
public:
  Context(const Options &Opts, llvm::raw_ostream &Err)
      : Opts(Opts), Err(Err), Budget(Opts.MaxDecompressed.value_or(DecompressionBudget::Base)) {}

  const Options &Opts;
  llvm::raw_ostream &Err;
  bool HadError = false;
  llvm::json::Array Diagnostics;
  unsigned ExtractCounter = 0;
  DecompressionBudget Budget; // one for the whole run, grown by each input read (unless --max-decompressed)
  /// Text output, when the tree is not wanted whole (no --json): a top-level archive renders each
  /// member here as soon as it is described, so memory does not grow with the member count.
  llvm::raw_ostream *TextOut = nullptr;

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

/// Describes Bytes (detected by content) as a JSON node with the requested views and its children.
llvm::json::Object describe(Context &C, const Origin &O, llvm::StringRef Bytes, unsigned Depth = 0);

// Per-format builders (each adds its views to Node).
void describePtxlinkObject(Context &C, const Origin &O, llvm::StringRef Bytes, llvm::json::Object &Node);
void describePtxText(Context &C, const Origin &O, llvm::StringRef Text, llvm::json::Object &Node);
void describeObjectModel(Context &C, const Origin &O, const ObjectFile &Object, llvm::json::Object &Node);
void describeCubin(Context &C, const Origin &O, llvm::StringRef Bytes, llvm::json::Object &Node);
void describeFatbin(Context &C, const Origin &O, llvm::StringRef Bytes, llvm::json::Object &Node, unsigned Depth);
void describeHostElf(Context &C, const Origin &O, llvm::StringRef Bytes, llvm::json::Object &Node, unsigned Depth);
void describeArchive(Context &C, const Origin &O, llvm::StringRef Bytes, llvm::json::Object &Node, unsigned Depth);

/// DWARF units of an ELF file (cubin) or of in-memory debug sections (our objects).
llvm::json::Object describeDwarfOfElf(Context &C, const Origin &O, llvm::StringRef Bytes);
llvm::json::Object describeDwarfOfSections(Context &C, const Origin &O,
                                           const std::vector<std::pair<std::string, std::string>> &Sections,
                                           uint8_t AddressSize);

/// Which image the CUDA driver would load on device Opts.SelectSm (see docs/dump.md).
llvm::json::Object selectImage(const Options &Opts, const std::vector<FatbinImage> &Images);

/// Renders one node (and its children) as text.
void renderText(const llvm::json::Object &Node, const Options &Opts, llvm::raw_ostream &OS, unsigned Indent = 0);
/// `--callgraph --format dot`: the call graphs of every input (built with the callgraph and abi views) as
/// one Graphviz digraph, one cluster per object, member or image (DumpDot.cpp).
void renderCallgraphDot(const llvm::json::Array &Inputs, llvm::raw_ostream &OS, llvm::StringRef Title);

// Small helpers.
std::string hex(uint64_t V);
std::string demangled(llvm::StringRef Name); // "" when Name is not mangled
llvm::json::Value bytesAsJson(llvm::StringRef Bytes); // printable text, or hex
std::string sanitizeFileName(llvm::StringRef Name);

} // namespace ptxlink::dump

// ptxlink-dump's JSON output, written while the inputs are described instead of built whole first.
//
// The problem: a fatbinary of a million images, or an archive of a million members, made the dump hold a
// JSON tree of every entry (8-13 KB each) until the end, to print it in one go. Here a node's streams are
// written as they produce their elements, in the order llvm::json prints an object's keys (sorted), so the
// document is byte for byte what printing the whole tree gave. The "inputs" and "diagnostics" arrays wait
// in spill buffers, because "diagnostics" sorts first yet is complete only at the end.
#include "DumpInternal.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cerrno>
#include <unistd.h>

using namespace llvm;

namespace ptxlink::dump {
namespace {

// A node's keys in the order llvm::json::OStream prints an object's (StringRef comparison), each with
// where its value is: 0 a field, 1 a nested object, 2 a stream; and its position in that list.
struct KeyRef {
  StringRef Key;
  int Where;
  size_t Index;
};

std::vector<KeyRef> sortedNodeKeys(const Node &N) {
  std::vector<KeyRef> Keys;
  for (const auto &KV : N.Fields)
    Keys.push_back({KV.first, 0, 0});
  for (size_t I = 0; I < N.Objects.size(); ++I)
    Keys.push_back({N.Objects[I].first, 1, I});
  for (size_t I = 0; I < N.Streams.size(); ++I)
    Keys.push_back({N.Streams[I].first, 2, I});
  std::sort(Keys.begin(), Keys.end(), [](const KeyRef &A, const KeyRef &B) { return A.Key < B.Key; });
  return Keys;
}

} // namespace

void writeJson(json::OStream &J, Node &N) {
  J.objectBegin();
  for (const KeyRef &K : sortedNodeKeys(N)) {
    if (K.Where == 0) {
      J.attribute(K.Key, *N.Fields.get(K.Key));
    } else if (K.Where == 1) {
      J.attributeBegin(K.Key);
      writeJson(J, N.Objects[K.Index].second);
      J.attributeEnd();
    } else {
      J.attributeArray(K.Key, [&] { N.Streams[K.Index].second([&](Node &E) { writeJson(J, E); }); });
    }
  }
  J.objectEnd();
}

json::Object toJson(Node &N) {
  json::Object O = N.Fields;
  for (auto &[Key, Sub] : N.Objects)
    O[Key] = toJson(Sub);
  for (auto &[Key, Stream] : N.Streams) {
    json::Array A;
    Stream([&](Node &E) { A.push_back(toJson(E)); });
    O[Key] = std::move(A);
  }
  return O;
}

/// Bytes kept in memory up to a limit, then in a temporary file that is unlinked at once (nothing is
/// left behind, whatever ends the process). If no temporary file can be made, everything stays in memory,
/// as before streaming.
class JsonDocumentWriter::Spill : public raw_ostream {
public:
  static constexpr size_t MemoryLimit = size_t(8) << 20;

  ~Spill() override {
    flush();
    if (FD >= 0)
      ::close(FD);
  }

  /// Copies everything written to OS, with Indent after each newline (JSON text has no newline inside a
  /// string, so this nests the spilled JSON one level deeper).
  Error copyTo(raw_ostream &OS, StringRef Indent) {
    flush();
    if (!Problem.empty())
      return createStringError(inconvertibleErrorCode(), Problem);
    auto Emit = [&](StringRef Chunk) {
      for (size_t NL; (NL = Chunk.find('\n')) != StringRef::npos; Chunk = Chunk.drop_front(NL + 1))
        OS << Chunk.take_front(NL + 1) << Indent;
      OS << Chunk;
    };
    if (FD < 0) {
      Emit(Memory);
      return Error::success();
    }
    if (::lseek(FD, 0, SEEK_SET) < 0)
      return createStringError(std::error_code(errno, std::generic_category()), "cannot read back the spilled JSON output");
    std::string Chunk(1 << 20, '\0');
    for (;;) {
      ssize_t N = ::read(FD, Chunk.data(), Chunk.size());
      if (N < 0 && errno == EINTR)
        continue;
      if (N < 0)
        return createStringError(std::error_code(errno, std::generic_category()),
                                 "cannot read back the spilled JSON output");
      if (N == 0)
        return Error::success();
      Emit(StringRef(Chunk.data(), size_t(N)));
    }
  }

private:
  void write_impl(const char *Ptr, size_t Size) override {
    Pos += Size;
    if (FD < 0) {
      Memory.append(Ptr, Size);
      if (Memory.size() > MemoryLimit && !TriedFile)
        moveToFile();
      return;
    }
    writeToFile(Ptr, Size);
  }
  uint64_t current_pos() const override { return Pos; }

  void moveToFile() {
    TriedFile = true;
    SmallString<128> Path;
    int NewFD;
    if (sys::fs::createTemporaryFile("ptxlink-dump", "json", NewFD, Path))
      return; // stays in memory
    sys::fs::remove(Path); // unlinked: the descriptor keeps it while this run needs it
    FD = NewFD;
    writeToFile(Memory.data(), Memory.size());
    std::string().swap(Memory);
  }

  void writeToFile(const char *Ptr, size_t Size) {
    while (Size && Problem.empty()) {
      ssize_t N = ::write(FD, Ptr, Size);
      if (N < 0 && errno == EINTR)
        continue;
      if (N <= 0) {
        Problem = "cannot spill the JSON output to a temporary file: " +
                  std::error_code(errno, std::generic_category()).message();
        return;
      }
      Ptr += N;
      Size -= size_t(N);
    }
  }

  std::string Memory;
  int FD = -1;
  bool TriedFile = false;
  uint64_t Pos = 0;
  std::string Problem;
};

JsonDocumentWriter::JsonDocumentWriter()
    : Inputs(std::make_unique<Spill>()), Diagnostics(std::make_unique<Spill>()),
      InputWriter(std::make_unique<json::OStream>(*Inputs, 2)),
      DiagnosticWriter(std::make_unique<json::OStream>(*Diagnostics, 2)) {
  InputWriter->arrayBegin();
  DiagnosticWriter->arrayBegin();
}

JsonDocumentWriter::~JsonDocumentWriter() {
  // Keeps json::OStream's nesting balanced when finish() was never reached.
  if (InputWriter)
    InputWriter->arrayEnd();
  if (DiagnosticWriter)
    DiagnosticWriter->arrayEnd();
}

void JsonDocumentWriter::addInput(Node &N) { writeJson(*InputWriter, N); }

void JsonDocumentWriter::addDiagnostic(json::Object Diagnostic) {
  DiagnosticWriter->value(json::Value(std::move(Diagnostic)));
}

Error JsonDocumentWriter::finish(raw_ostream &OS) {
  InputWriter->arrayEnd();
  InputWriter.reset();
  DiagnosticWriter->arrayEnd();
  DiagnosticWriter.reset();
  // The document without its arrays, printed by llvm::json as before; each array goes where its
  // placeholder string stands (their control characters cannot appear unescaped in any other value).
  json::Object Doc{{"schema", "ptxlink-dump"},
                   {"schemaVersion", DumpJsonSchemaVersion},
                   {"inputs", "\x01" "inputs" "\x01"},
                   {"diagnostics", "\x01" "diagnostics" "\x01"}};
  std::string Text = formatv("{0:2}", json::Value(std::move(Doc))).str();
  StringRef Rest = Text;
  for (auto [Key, Array] : {std::pair{StringRef("diagnostics"), Diagnostics.get()}, {"inputs", Inputs.get()}}) {
    std::string Marker = ("\n  \"" + Key + "\": \"\\u0001" + Key + "\\u0001\"").str();
    size_t At = Rest.find(Marker);
    if (At == StringRef::npos)
      return createStringError(inconvertibleErrorCode(), "internal error: no place for the %s in the JSON document",
                               Key.str().c_str());
    OS << Rest.take_front(At) << "\n  \"" << Key << "\": ";
    if (Error E = Array->copyTo(OS, "  "))
      return E;
    Rest = Rest.drop_front(At + Marker.size());
  }
  OS << Rest << "\n";
  return Error::success();
}

} // namespace ptxlink::dump

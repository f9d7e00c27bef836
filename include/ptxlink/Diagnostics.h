// Diagnostics shared by every ptxlink tool.
//
// The problem: each tool must report *every* error it finds (not just the first), each with a precise
// location, in one of two established styles, cap the number it prints, honour -Werror / -w, and let
// tests run tools in-process. So diagnostics flow into an engine object owned by the caller (no globals),
// which renders them as they arrive and remembers whether anything went wrong.
//
// Styles:
//   assembler:  file:line:col: error: message          (then the source line and a caret)
//   linker:     ptxlink: error: message                (then ">>> " lines naming every site, like lld)
// A site's place is spelled one way everywhere: "a.ptx:5:10 (a.o)" (SiteLocation::str).
#pragma once

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// A position in a PTX source text. Line and column are 1-based; 0 means unknown.
struct SourceLoc {
  uint32_t Line = 0;
  uint32_t Column = 0;
  bool isValid() const { return Line != 0; }
};

enum class Severity : uint8_t { Note, Warning, Error };

/// A place in the inputs: the source file, the line and column in it (0 when unknown), and the object
/// file or archive member the code was read from when that is another file than the source (`a.o`,
/// `libx.a(a.o)`).
struct SiteLocation {
  std::string File;
  SourceLoc Loc;
  std::string Object;
  /// The one spelling of a place in text diagnostics, reports and maps: "a.ptx:5:10", followed by
  /// " (a.o)" when the code came from another file than its source.
  std::string str() const;
};

/// One additional site attached to a diagnostic, printed as ">>> " + text(): the words that say what it is
/// ("defined at"), the place (when it names one) and what follows the place (" in kmain", ": <signature>").
/// `--json` prints the parts as an object, not the joined line.
struct DiagSite {
  std::string Text;                  // the words before the place, or the whole site when it names none
  std::optional<SiteLocation> Where; // the place
  std::string After;                 // printed right after the place, separator included (": ...", " (used)")

  /// "defined at a.ptx:5:10 (a.o)": Words, a space, the place, then After.
  static DiagSite at(llvm::StringRef Words, SiteLocation Where, std::string After = "") {
    return DiagSite{Words.str(), std::move(Where), std::move(After)};
  }
  std::string text() const;
};

/// A fully formed diagnostic. `File` + `Loc` locate it in a source; `SourceLine` (optional) is the text
/// of that line, used to print a caret. `Sites` are printed after the message, lld style.
struct Diagnostic {
  Severity Level = Severity::Error;
  std::string File;
  SourceLoc Loc;
  std::string Message;
  std::string SourceLine;
  std::vector<DiagSite> Sites;
  std::string Code; // stable machine-readable identifier (e.g. "duplicate-symbol"), used by --json
};

/// Collects and prints diagnostics. Not thread-safe: parallel passes collect locally and report in
/// input order afterwards, which also keeps the output deterministic.
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::raw_ostream &OS, std::string ToolName = "ptxlink")
      : OS(OS), ToolName(std::move(ToolName)) {}

  void setErrorLimit(unsigned Limit) { ErrorLimit = Limit; }
  void setWarningsAsErrors(bool Value) { WarningsAsErrors = Value; }
  void setSuppressWarnings(bool Value) { SuppressWarnings = Value; }
  /// Emit diagnostics as JSON lines instead of text (schema in docs/diagnostics-json.md).
  void setJson(bool Value) { Json = Value; }
  /// Keep a copy of each reported diagnostic (tests and --json consumers read them back).
  void setRecord(bool Value) { Record = Value; }

  void report(Diagnostic D);

  /// Convenience for source-located diagnostics (assembler style).
  void error(llvm::StringRef File, SourceLoc Loc, const llvm::Twine &Message, llvm::StringRef SourceLine = "");
  void warning(llvm::StringRef File, SourceLoc Loc, const llvm::Twine &Message, llvm::StringRef SourceLine = "");
  /// Convenience for tool-level diagnostics (linker style), with lld-like sites.
  void error(const llvm::Twine &Message, std::vector<DiagSite> Sites = {}, llvm::StringRef Code = "");
  void warning(const llvm::Twine &Message, std::vector<DiagSite> Sites = {}, llvm::StringRef Code = "");
  void note(const llvm::Twine &Message, std::vector<DiagSite> Sites = {}, llvm::StringRef Code = "");

  unsigned errorCount() const { return Errors; }
  unsigned warningCount() const { return Warnings; }
  bool hasErrors() const { return Errors != 0; }
  /// True once the error limit has been reached: callers should stop at their next checkpoint.
  bool limitReached() const { return ErrorLimit != 0 && Errors >= ErrorLimit; }
  const std::vector<Diagnostic> &recorded() const { return Recorded; }
  llvm::raw_ostream &stream() { return OS; }

private:
  void render(const Diagnostic &D);

  llvm::raw_ostream &OS;
  std::string ToolName;
  unsigned ErrorLimit = 20;
  unsigned Errors = 0;
  unsigned Warnings = 0;
  bool WarningsAsErrors = false;
  bool SuppressWarnings = false;
  bool Json = false;
  bool Record = false;
  bool LimitAnnounced = false;
  std::vector<Diagnostic> Recorded;
};

/// A diagnostic line of at most this many bytes is printed whole; a longer one (a 200 MB argument echoed
/// in "unknown option '...'", a file name of megabytes) keeps its first 768 and last 192 bytes around
/// " [... N bytes ...] ", as a source line keeps a window around its column.
constexpr size_t MaxDiagnosticLineBytes = 1024;

/// Text with each line longer than MaxDiagnosticLineBytes cut as described there.
std::string capLongLines(llvm::StringRef Text);

/// An output stream that passes its text on to Target with each line cut as capLongLines does, for tools
/// that print diagnostics straight to a stream (ptxlink-dump). Holds at most one line's head and tail.
class LineCappingStream final : public llvm::raw_ostream {
public:
  explicit LineCappingStream(llvm::raw_ostream &Target) : Target(Target) { SetUnbuffered(); }
  ~LineCappingStream() override;

private:
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Written; }
  void endLine(bool Newline);

  llvm::raw_ostream &Target;
  uint64_t Written = 0;
  size_t LineBytes = 0;   // bytes of the current line seen
  std::string Tail;       // its last bytes, once it is longer than the head
};

/// Returns the 1-based line and column of byte `Offset` in `Text`, and the text of that line.
/// Linear in Offset; call it only when producing a diagnostic.
SourceLoc locate(llvm::StringRef Text, size_t Offset, llvm::StringRef *LineText = nullptr);

} // namespace ptxlink

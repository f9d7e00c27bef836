// Serialising the object model as a relocatable device ELF file (docs/object-format.md) and reading it
// back, plus printing a module variant as PTX text (used for round trips and by the linker's output).
#pragma once

#include "ptxlink/GatherStream.h"
#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

namespace ptxlink {

/// Version of the object format written (stored in the .note.ptxlink note).
/// 2: EF_CUDA_* machine bits in e_flags, fat flag in bit 31. 3: facts recorded at assembly (call
/// relocations, the ODR hashes of weak definitions); older objects are refused with a request to
/// re-assemble them, since a link reads no PTX text to recover those facts. 4: the labels each function
/// defines (`.ptxlink.labels`), for the same reason.
constexpr uint32_t ObjectFormatVersion = 4;
/// The oldest version read.
constexpr uint32_t OldestObjectFormatVersion = 4;

/// Writes `Object` as ELF. Deterministic: the same model gives the same bytes.
llvm::Error writeObject(const ObjectFile &Object, llvm::raw_ostream &OS);

/// True if `Bytes` starts like a ptxlink object (ELF64, EM_CUDA, our OSABI).
bool isPtxlinkObject(llvm::StringRef Bytes);

/// Reads an object, checking every bound. Contents point into `Buffer`, which the object adopts.
/// Errors name the buffer identifier and the byte offset of the problem.
llvm::Expected<std::unique_ptr<ObjectFile>> readObject(std::unique_ptr<llvm::MemoryBuffer> Buffer);

/// Maps an input file ("-": standard input) for reading, with all its pages mapped at once unless it is
/// an archive (whose members are read only if extracted). Errors as MemoryBuffer::getFileOrSTDIN.
llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> mapInputFile(llvm::StringRef Path);

/// Prints one variant as a PTX module that ptxas accepts: header, prototypes, variables, functions,
/// aliases, files and debug sections. Names come from Variant.Symbols (so a caller that renamed
/// symbols there gets the renamed text).
void printModule(const ModuleVariant &Variant, llvm::raw_ostream &OS);
/// The same module with another `.version`/`.target`/`.address_size` header (the linker prints one
/// linked module for several arches when their inputs are the same).
void printModule(const ModuleVariant &Variant, const TargetInfo &Target, llvm::raw_ostream &OS);

/// Gives back the pages of input text behind a pass that reads many sections' text in order (a
/// link that keeps 10^6 functions faulted all their text back in to print it, 87 MB of an
/// object's file mapping; a link of 3000 objects held all 261 MB of them at once). Sections passed one
/// after another whose text is contiguous (gaps under RunGap bytes: an object's relocation tables lie
/// between its functions) make one run; a run goes to Release when the next section lies elsewhere (the
/// next input), when it reaches RunBytes (one large input: 10^5 kept functions are 4 MB of text), and at the
/// end of the pass. Release may give
/// back the whole pages of the run where it lies in a read-only file mapping of an input
/// (ObjectFile::releaseSourcePages: a page read again is read back from the file, unchanged) and leaves
/// anything else alone. One without Release (a link that gives nothing back) costs a test per section.
class TextReleaser {
public:
  static constexpr size_t RunGap = 4096;
  static constexpr size_t RunBytes = size_t(256) << 10;
  TextReleaser() = default;
  /// Release must outlive the TextReleaser (a function_ref: pass a named callable, not a temporary).
  explicit TextReleaser(llvm::function_ref<void(llvm::StringRef)> Release) : Release(Release) {}
  /// Text (a section's contents, or a part of them) has been read and will not be read again by this pass.
  void passed(llvm::StringRef Text) {
    if (Release) [[unlikely]]
      record(Text);
  }
  /// The end of a pass: the run it was in goes too.
  void finish() {
    if (Release) [[unlikely]]
      releaseRun();
  }

private:
  // Out of line: the printer's loops stay as small as they were where nothing is released.
  void record(llvm::StringRef Text);
  void releaseRun();
  llvm::function_ref<void(llvm::StringRef)> Release;
  const char *Lo = nullptr, *Hi = nullptr;
};

/// What a link tells the printer about its inputs' text, which it may have given back to the kernel after
/// reading it (the linker's InputTextPages): Release gives back a range of text the printer has passed
/// (TextReleaser); Header gives a function section's declaration part (its first HeaderLength bytes) from
/// a copy kept for it, or an empty result where there is none, and the printer reads the contents. Hint is
/// the printer's own cursor into the copies (0 to start): the printer asks in the order the link kept them,
/// so the next one is nearly always where the last one left it. Either may be null.
struct InputTextAccess {
  llvm::function_ref<void(llvm::StringRef)> Release;
  llvm::function_ref<llvm::StringRef(const Section &, uint32_t &Hint)> Header;
};

/// printModule with the link's access to its inputs' text (InputTextAccess): for a linked module, whose
/// sections' contents are views of the inputs.
void printModule(const ModuleVariant &Variant, const TargetInfo &Target, llvm::raw_ostream &OS,
                 const InputTextAccess &Inputs);

/// printModule into a stream that may keep references to the inputs' text instead of copying it
/// (GatherStream::writeBorrowed): the text must stay until OS is flushed; text given back goes only once
/// it is written (GatherStream::releaseWhenWritten).
void printModule(const ModuleVariant &Variant, const TargetInfo &Target, GatherStream &OS,
                 const InputTextAccess &Inputs);

/// Where the printer put each section's text, so that a line of the printed module (in a ptxas message)
/// can be traced back to the input it came from. Spans are in print order (increasing Offset); text the
/// printer made up (the header, extern declarations, aliases) has a span with Section == NoSection.
struct PrintedLayout {
  struct Span {
    uint64_t Offset = 0;        // byte offset in the printed text where the section's text starts
    uint32_t Section = NoSection;
  };
  std::vector<Span> Spans;
};
/// printModule with the layout of what it printed. OS must report its position (tell()).
void printModule(const ModuleVariant &Variant, const TargetInfo &Target, llvm::raw_ostream &OS,
                 PrintedLayout &Layout);

/// Where line Line (1-based) of a printed module came from.
struct PrintedLineOrigin {
  llvm::StringRef File;     // the input (ModuleVariant::sectionSource, else SourceName)
  uint32_t Line = 0;        // the input's line
  llvm::StringRef LineText; // the input's text of that line, from column FirstColumn on
  uint32_t FirstColumn = 1; // the column of LineText[0] (a section's first line may start mid-line)
  llvm::StringRef Section;  // the section's name (function or variable)
};
/// Maps a line of Printed (printed from Variant with Layout) back to its input; std::nullopt for lines
/// the printer made up or past the end. ptxas messages name only lines, so the caller picks a column
/// (see columnOfQuotedToken).
std::optional<PrintedLineOrigin> locatePrintedLine(const ModuleVariant &Variant, const PrintedLayout &Layout,
                                                   llvm::StringRef Printed, unsigned Line);
/// The 0-based index in LineText of the first 'quoted' token of Message (ptxas quotes the symbol or
/// instruction it complains about: "Unknown symbol '%r9'"), or of the line's first non-blank character
/// if there is no such token or it is not on the line.
size_t indexOfQuotedToken(llvm::StringRef Message, llvm::StringRef LineText);

/// One parameter as PTX declares it (`.param .align 8 .b8 s[16]`, `.reg .b32 x`): the spelling shared by the
/// printer, the ABI diagnostics and ptxlink-dump.
void printParamPtx(llvm::raw_ostream &OS, const ParamInfo &Param);
std::string formatParamPtx(const ParamInfo &Param);

/// The linking directive a binding is spelled with, followed by a space (".visible ", ".extern ", ...);
/// "" for module-local symbols. Inline: the printer writes one before every definition, and a call that
/// returns a length unknown to the caller made each write a library memcpy.
inline llvm::StringRef linkageDirective(Binding Bind) {
  switch (Bind) {
  case Binding::Global:
    return ".visible ";
  case Binding::Weak:
    return ".weak ";
  case Binding::Common:
    return ".common ";
  case Binding::Undefined:
    return ".extern ";
  case Binding::Local:
    return "";
  }
  return "";
}
/// A variable's declaration without linkage and without the final ';' (`.global .align 4 .b32 x[4]`).
void printVariableDeclPtx(llvm::raw_ostream &OS, const VariableAbi &Variable, llvm::StringRef Name);
/// A function's declaration without the final ';', the one spelling of a signature that the printer (the
/// linked module's `.extern` declarations), the ABI diagnostics and ptxlink-dump share:
/// `<Linkage>.func .attribute(.unified(...)) (.reg .b32 r) f (.param .b32 a) .noreturn .abi_preserve 4`.
/// Linkage is a linkageDirective() (or ""); the parameter list is left out of `.func f` without any.
/// (Function: V.signature(F) of the record's variant V.)
void printFunctionDeclPtx(llvm::raw_ostream &OS, const FunctionSignature &Function, llvm::StringRef Name,
                          llvm::StringRef Linkage);
/// A `.callprototype` as PTX, without the final ';': `proto: .callprototype (.param .b32 _) _ (.param .b64 _)`.
void printCallPrototypePtx(llvm::raw_ostream &OS, const PrototypeAbi &Prototype);

/// What becomes of an earlier regular file at the destination once the new contents are written.
enum class EarlierFile {
  /// Renamed over: the old file exists until the new one replaces it, even across a crash (an archive
  /// being updated). On ext4 the rename then waits for the new data to reach the disk.
  RenamedOver,
  /// Removed just before the rename: nothing waits for the disk (7 ms for a 13 MB fatbinary), at the
  /// price of an instant in which neither file exists. For outputs rebuilt from their inputs anyway.
  RemovedFirst,
};

/// Writes a file atomically: Write streams into a temporary file beside Path, which becomes Path only if
/// Write succeeds; otherwise the temporary is removed and Path is untouched. The stream Write receives is
/// always a GatheringFdStream (GatherStream.h; on the temporary file; on the file itself for a device or
/// FIFO; on standard output for "-").
/// After a successful write, the temporaries a killed process left beside Path (Path.tmp<pid>-<n> of a
/// process that no longer exists) are removed: one listing of Path's folder (Swept), unless the caller
/// swept the folder once for all of its outputs (SweptByCaller: ptxlink-as --output-dir, where a listing
/// per object made 10,000 objects quadratic).
enum class StaleTemporaries { Swept, SweptByCaller };

llvm::Error writeFileAtomically(llvm::StringRef Path, const std::function<llvm::Error(llvm::raw_ostream &)> &Write,
                                EarlierFile Earlier = EarlierFile::RenamedOver,
                                StaleTemporaries Stale = StaleTemporaries::Swept);

/// Removes from Folder the stale temporaries (as above) of every file named in Names, in one listing.
void sweepStaleTemporaries(llvm::StringRef Folder, const llvm::StringSet<> &Names);

} // namespace ptxlink

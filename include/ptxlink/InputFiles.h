// Reading inputs and replacing outputs without losing data or hanging on hostile paths.
//
// The problem: a path on the command line may name anything. `/dev/zero` read whole fills memory until
// LLVM aborts; a FIFO with no writer blocks open(2) forever; `-o in.o` with in.o among the inputs would
// replace an input, and the cleanup of a failed run would delete it; the same cleanup must not remove a
// directory or a device that happens to be named by -o. These helpers are the one place where the tools
// decide what they read and what they may remove.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorOr.h"
#include "llvm/Support/FileSystem/UniqueID.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

namespace ptxlink {

/// Standard input ("-") is read up to this many bytes: `ptxlink-as - < /dev/zero` must end in an error,
/// not in "LLVM ERROR: out of memory". Files need no such bound: their size is known before reading.
constexpr uint64_t MaxStandardInputBytes = uint64_t(4) << 30;

/// Opens an input for reading: "-" is standard input (descriptor 0); anything else must be a regular
/// file. A directory, device, FIFO or socket is refused without blocking. Returns the descriptor (the
/// caller closes it unless it is 0) and, for a regular file, its size in `Size` (0 for standard input).
llvm::ErrorOr<int> openInputFile(llvm::StringRef Path, uint64_t &Size);

/// Reads an input whole with openInputFile's rules (standard input up to MaxStandardInputBytes).
llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> readInputFile(llvm::StringRef Path);

/// A ptxlink object at least this large is not mapped up front (mapInputFile) and its reader gives back
/// the pages of each table once it has read it (releaseMappedPages): a module of 10^6 small functions is
/// a 430 MB object, of which a link needs only the names again (and the text of what it keeps).
constexpr uint64_t LargeObjectBytes = uint64_t(32) << 20;

/// A PTX text at least this large, mapped from a file, is given back to the kernel behind its lowering,
/// its symbols' names being copied (assembleInto's Source): 10^6 small functions are 31 MB of text that
/// the model needs again only for the contents of what a link keeps or an object writes, whose writer
/// gives the pages back again behind itself (ObjectFile::releaseSourcePages). Below this size the text
/// stays resident and the names point into it, which costs no copy.
constexpr uint64_t LargeTextBytes = uint64_t(16) << 20;

/// If Buffer is a read-only file mapping (mapInputFile's, or LLVM's), tells the kernel it may drop the
/// pages that lie wholly inside Range (a part of Buffer): they leave the process's resident memory and are
/// read back from the file, unchanged, if touched again. Any other buffer is left alone.
void releaseMappedPages(const llvm::MemoryBuffer &Buffer, llvm::StringRef Range);

/// The errors openInputFile returns for an input that is not a regular file, and for standard input
/// beyond MaxStandardInputBytes; their message() says so.
std::error_code notRegularFileError();
std::error_code inputTooLargeError();

/// The files one run writes, each claimed before anything is written: an output that is one of the
/// inputs (the same file through any name, symbolic or hard link) would replace that input, and a failed
/// run's cleanup would then remove it; two outputs that are the same file would leave only the one written
/// last (`-o x --map x`). lld refuses both. A file that exists is identified by its device and inode
/// (llvm::sys::fs::UniqueID), one that does not yet by the real path of its folder and its name. Inputs
/// that cannot be examined are skipped (they are reported when read); "-" is neither an input nor an
/// output here, and an existing output that is not a regular file (/dev/null, a FIFO, a terminal) is not
/// replaced by the tools' writer, so it is never refused. Claims cost one stat(2) each: a tool that writes
/// thousands of files (ptxlink-as --output-dir) checks them all in linear time.
class OutputFiles {
public:
  explicit OutputFiles(llvm::ArrayRef<std::string> Inputs);
  explicit OutputFiles(llvm::ArrayRef<const char *> Inputs);

  /// Claims Path, which the tool writes as What ("output file", "--map file"). Returns an error naming
  /// both paths if Path is one of the inputs or a file claimed before; nothing is recorded then.
  llvm::Error claim(llvm::StringRef Path, llvm::StringRef What = "output file");

private:
  struct Claim {
    std::string Path, What;
  };
  std::string nameKey(llvm::StringRef Path);
  void addInput(llvm::StringRef In);

  llvm::DenseMap<llvm::sys::fs::UniqueID, std::string> InputIds;  // -> the input's path as given
  llvm::DenseMap<llvm::sys::fs::UniqueID, Claim> ClaimedIds;      // existing outputs
  llvm::StringMap<Claim> ClaimedNames;                             // every output: real folder + name
  llvm::StringMap<std::string> RealFolders;                        // folder as given -> its real path
};

/// Refuses an output that is one of the inputs: OutputFiles(Inputs).claim(Output), for a tool that
/// writes one file.
llvm::Error checkOutputIsNotInput(llvm::StringRef Output, llvm::ArrayRef<std::string> Inputs);

/// After a failed run, removes what an earlier run left at Output so that nothing stale remains - but
/// only a regular file, the only kind of file writeFileAtomically would have replaced: never a
/// directory, a device, a FIFO, or a symbolic link (nor what it points to).
void removeFailedOutput(llvm::StringRef Output);

} // namespace ptxlink

// Output streams that take long runs of text by reference, so that it is copied once, by the kernel.
//
// The problem: a linked module's printed PTX is mostly its inputs' text, which lies in their file
// mappings for the whole link. Written through a raw_ostream, each byte is copied twice: into the
// stream's buffer, then by write(2) into the page cache; for a 3000-module link that is 146 MB and the
// first copy alone was 9% of the link's CPU. Text that stays put until the stream is flushed can instead
// be handed to writev(2) as it lies (`writeBorrowed`). The stream's own small writes (names, punctuation,
// declarations) are buffered as usual and go out in the same writev, in order.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <sys/uio.h>

namespace ptxlink {

/// A raw_ostream that can also take text by reference. What ends up written is the same as write().
class GatherStream : public llvm::raw_ostream {
public:
  using llvm::raw_ostream::raw_ostream;
  /// Writes Text, which must stay valid and unchanged until this stream (or, for a stream that forwards,
  /// the stream at the end) is next flushed, closed or destroyed. The base class copies it.
  virtual void writeBorrowed(llvm::StringRef Text) { write(Text.data(), Text.size()); }
  /// Calls Release(Range) once no text this stream (or the stream it forwards to) holds by reference lies
  /// in Range: a printer gives input text back to the kernel behind itself (TextReleaser), and text given
  /// back while writev still has to read it would be faulted back in. Here, where lent text is copied, at
  /// once. Release must stay valid until the stream is next flushed, closed or destroyed.
  virtual void releaseWhenWritten(llvm::StringRef Range, llvm::function_ref<void(llvm::StringRef)> Release) {
    Release(Range);
  }
};

/// A GatherStream appending to a string, as raw_string_ostream does (unbuffered); lent text is copied.
class StringGatherStream final : public GatherStream {
public:
  explicit StringGatherStream(std::string &Out) : Out(Out) { SetUnbuffered(); }

private:
  void write_impl(const char *Ptr, size_t Size) override { Out.append(Ptr, Size); }
  uint64_t current_pos() const override { return Out.size(); }
  std::string &Out;
};

/// A raw_fd_ostream whose writeBorrowed keeps a reference: borrowed text and the buffered bytes before it
/// wait in a list of I/O vectors, written by one writev(2) when about a megabyte waits, when the list is
/// full, when the buffer is next written out, before a pwrite, by writeWaiting() and at destruction. Its
/// position (tell) and error state are raw_fd_ostream's, waiting bytes counted as written. raw_fd_ostream's
/// flush(), seek() and close() are not virtual and write only the buffer: call writeWaiting() before them
/// or before checking for errors.
class GatheringFdStream final : public llvm::raw_fd_ostream {
public:
  GatheringFdStream(int FD, bool ShouldClose) : llvm::raw_fd_ostream(FD, ShouldClose) {}
  ~GatheringFdStream() override;
  void writeBorrowed(llvm::StringRef Text);
  /// Release(Range) runs after the next writev that empties the waiting list.
  void releaseWhenWritten(llvm::StringRef Range, llvm::function_ref<void(llvm::StringRef)> Release);
  /// write() for a forwarding stream's own buffer: copied once, into the waiting list (not into the
  /// buffer and then again).
  void writeCopied(const char *Ptr, size_t Size);
  /// Writes everything waiting; borrowed text may then go away.
  void writeWaiting();

private:
  void write_impl(const char *Ptr, size_t Size) override;
  void pwrite_impl(const char *Ptr, size_t Size, uint64_t Offset) override;
  /// Copies bytes that will not stay (the buffer's) into Kept and adds them to the waiting list.
  void keep(const char *Ptr, size_t Size);
  void wait(const char *Ptr, size_t Size);
  static constexpr size_t KeptBytes = 512 * 1024; // Kept's fixed capacity: its bytes never move
  static constexpr size_t WriteAtBytes = 1024 * 1024;
  llvm::SmallVector<iovec, 0> Waiting;
  /// Ranges of lent text to give back once what waits is written (releaseWhenWritten).
  llvm::SmallVector<std::pair<llvm::StringRef, llvm::function_ref<void(llvm::StringRef)>>, 0> ToRelease;
  size_t WaitingBytes = 0;
  std::unique_ptr<char[]> Kept;
  size_t KeptUsed = 0;
  bool Deferring = false; // write_impl is moving the buffer into Kept, not writing it
};

} // namespace ptxlink

// Writing output files so that a failed run never leaves a partial or stale file behind: the contents go
// to a uniquely named temporary file in the destination's directory (so the final rename stays on one
// file system and is atomic), which replaces the destination only once everything was written. A signal
// while writing removes the temporary; one left by a killed process (SIGKILL) is swept by the next
// write of the same output.
//
// By default the temporary is renamed over an existing destination: on ext4 that rename waits for the new
// data to reach the disk (7 ms for a 13 MB fatbinary), but removing the destination first would open a
// window in which a crash loses the old file (an archive being updated, say) with no new one in its
// place. Outputs rebuilt from their inputs anyway (objects, linked programs) ask for the removal
// (EarlierFile::RemovedFirst), made only once the new contents are complete.

#include "ptxlink/GatherStream.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace ptxlink {

/// Creates a new file beside Path for writing, named Path.tmp<pid>-<n>: the process id keeps concurrent
/// writers apart and O_EXCL guarantees the file is ours, so no random name is needed (createUniqueFile
/// draws one getrandom() per character, eight system calls per output). A stale name left by a crashed
/// process with the same id only moves us on to the next n. Returns the descriptor, or -1 with errno set.
static int createTemporary(llvm::StringRef Path, llvm::SmallString<256> &TempPath) {
  const long Pid = static_cast<long>(::getpid());
  for (unsigned N = 0;; ++N) {
    TempPath.assign(Path);
    TempPath += ".tmp";
    TempPath += std::to_string(Pid);
    TempPath += '-';
    TempPath += std::to_string(N);
    int FD;
    do
      FD = ::open(TempPath.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    while (FD < 0 && errno == EINTR);
    if (FD >= 0 || errno != EEXIST || N == 1000)
      return FD;
  }
}

/// Removes temporaries of this tool left in Folder by a process that no longer exists (SIGKILL, a power
/// cut: no handler ran), for the outputs Wanted accepts. Only names of our own pattern, NAME.tmp<pid>-<n>,
/// whose process is gone, and only regular files. A writer on another host sharing the directory over
/// NFS has a process id this host cannot check: its temporary may be removed and its rename then fails
/// (it reports it, nothing is lost). One directory listing.
static void sweepFolder(llvm::StringRef Folder, llvm::function_ref<bool(llvm::StringRef)> Wanted) {
  std::string DirPath = Folder.empty() ? std::string(".") : Folder.str();
  DIR *D = ::opendir(DirPath.c_str());
  if (!D)
    return;
  while (struct dirent *E = ::readdir(D)) {
    llvm::StringRef Name(E->d_name);
    size_t At = Name.rfind(".tmp");
    if (At == llvm::StringRef::npos || !Wanted(Name.take_front(At)))
      continue;
    auto [PidText, Counter] = Name.drop_front(At + 4).split('-');
    long Pid;
    unsigned N;
    if (PidText.getAsInteger(10, Pid) || Counter.getAsInteger(10, N) || Pid <= 0 || Pid == long(::getpid()))
      continue;
    if (::kill(pid_t(Pid), 0) == 0 || errno != ESRCH) // alive, or not ours to ask about: leave it
      continue;
    std::string Stale = DirPath + "/" + E->d_name;
    struct stat St;
    if (::lstat(Stale.c_str(), &St) == 0 && S_ISREG(St.st_mode))
      (void)::unlink(Stale.c_str());
  }
  ::closedir(D);
}

void sweepStaleTemporaries(llvm::StringRef Folder, const llvm::StringSet<> &Names) {
  sweepFolder(Folder, [&](llvm::StringRef Output) { return Names.contains(Output); });
}

llvm::Error writeFileAtomically(llvm::StringRef Path,
                                const std::function<llvm::Error(llvm::raw_ostream &)> &Write,
                                EarlierFile Earlier, StaleTemporaries Stale) {
  if (Path == "-") {
    // Standard output cannot be replaced atomically; stream straight into it.
    GatheringFdStream Out(1, /*shouldClose=*/false);
    llvm::Error E = Write(Out);
    Out.flush();
    Out.writeWaiting();
    if (Out.has_error()) { // else its destructor ends the process with "LLVM ERROR: IO failure"
      std::error_code EC = Out.error();
      Out.clear_error();
      if (!E)
        return llvm::createStringError(EC, "cannot write to standard output: %s", EC.message().c_str());
    }
    return E;
  }
  // A device or FIFO (`-o /dev/null`, a pipe) cannot be replaced - and must not be: renaming over
  // /dev/null would turn it into a regular file. Stream straight into it, as for standard output.
  llvm::sys::fs::file_status Dest;
  if (!llvm::sys::fs::status(Path, Dest) &&
      (Dest.type() == llvm::sys::fs::file_type::character_file ||
       Dest.type() == llvm::sys::fs::file_type::block_file || Dest.type() == llvm::sys::fs::file_type::fifo_file)) {
    int DeviceFD = -1;
    if (std::error_code EC = llvm::sys::fs::openFileForWrite(Path, DeviceFD))
      return llvm::createStringError(EC, "cannot open '%s': %s", Path.str().c_str(), EC.message().c_str());
    GatheringFdStream Out(DeviceFD, /*shouldClose=*/true);
    llvm::Error E = Write(Out);
    Out.flush();
    Out.writeWaiting();
    Out.close();
    if (Out.has_error()) { // cleared either way, else the stream's destructor ends the process
      std::error_code EC = Out.error();
      Out.clear_error();
      if (!E)
        return llvm::createStringError(EC, "cannot write '%s': %s", Path.str().c_str(), EC.message().c_str());
    }
    return E;
  }
  llvm::SmallString<256> TempPath;
  // Signals are held while the temporary is created and registered for removal: a SIGTERM between the
  // two would leave it behind (the lit test caught exactly that under load).
  sigset_t AllSignals, Previous;
  sigfillset(&AllSignals);
  pthread_sigmask(SIG_BLOCK, &AllSignals, &Previous);
  int FD = createTemporary(Path, TempPath);
  int CreateErrno = errno;
  // SIGINT, SIGTERM or a crash while writing removes the temporary (LLVM's signal handlers); only
  // SIGKILL leaves it, for sweepStaleTemporaries to find on the next write of this output.
  if (FD >= 0)
    llvm::sys::RemoveFileOnSignal(TempPath);
  pthread_sigmask(SIG_SETMASK, &Previous, nullptr);
  errno = CreateErrno;
  if (FD < 0) {
    std::error_code EC(errno, std::generic_category());
    return llvm::createStringError(EC, "cannot create temporary file for '%s': %s", Path.str().c_str(),
                                   EC.message().c_str());
  }
  llvm::Error Result = llvm::Error::success();
  std::error_code WriteEC;
  {
    // The descriptor is closed below rather than by the stream: raw_fd_ostream::close() blocks all
    // signals around close(2), two more system calls per file for a descriptor nobody else knows.
    GatheringFdStream Out(FD, /*shouldClose=*/false);
    // Fewer, larger write() calls than the file system's 4 KB preferred size.
    Out.SetBufferSize(256 * 1024);
    Result = Write(Out);
    Out.flush();
    Out.writeWaiting();
    if (Out.has_error()) {
      WriteEC = Out.error();
      Out.clear_error();
    }
  }
  if (::close(FD) != 0 && errno != EINTR && !WriteEC) // after EINTR the descriptor is closed anyway
    WriteEC = std::error_code(errno, std::generic_category());
  if (!Result && WriteEC)
    Result = llvm::createStringError(WriteEC, "cannot write '%s': %s", Path.str().c_str(),
                                     WriteEC.message().c_str());
  if (!Result) {
    // A symbolic link at Path is left for the rename to replace, as before.
    llvm::sys::fs::file_status Old;
    if (Earlier == EarlierFile::RemovedFirst && !llvm::sys::fs::status(Path, Old, /*Follow=*/false) &&
        Old.type() == llvm::sys::fs::file_type::regular_file)
      llvm::sys::fs::remove(Path);
    if (std::error_code EC = llvm::sys::fs::rename(TempPath, Path))
      Result = llvm::createStringError(EC, "cannot rename temporary file to '%s': %s", Path.str().c_str(),
                                       EC.message().c_str());
    else {
      llvm::sys::DontRemoveFileOnSignal(TempPath);
      if (Stale == StaleTemporaries::Swept) {
        llvm::StringRef Name = llvm::sys::path::filename(Path);
        sweepFolder(llvm::sys::path::parent_path(Path), [&](llvm::StringRef Output) { return Output == Name; });
      }
      return llvm::Error::success();
    }
  }
  llvm::sys::fs::remove(TempPath);
  llvm::sys::DontRemoveFileOnSignal(TempPath);
  return Result;
}

} // namespace ptxlink

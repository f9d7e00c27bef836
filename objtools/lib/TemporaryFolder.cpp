// Removal of registered temporary folders on SIGINT, SIGTERM and SIGHUP (TemporaryFolder.h).
//
// A signal handler can reach no state but globals, and may call only async-signal-safe functions: the
// folders live in fixed slots (claimed and released with atomics, never allocated), and the handler
// empties each with open/getdents64/unlinkat and removes it with rmdir, then hands the signal to the
// handler installed before it (LLVM's, which removes the files registered with RemoveFileOnSignal and
// re-raises the signal with its default action, so that the process still ends by it). LLVM installs its
// handlers once, lazily; they are made to install first, so that a later RemoveFileOnSignal does not
// put them in front of this one (as InputFaults.cpp does for SIGBUS).
#include "ptxlink/TemporaryFolder.h"

#include "llvm/Support/Signals.h"

#include <atomic>
#include <cstring>
#include <mutex>

#if defined(__linux__)
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#define PTXLINK_FOLDER_SIGNALS 1
#endif

namespace ptxlink {

#ifdef PTXLINK_FOLDER_SIGNALS
namespace {

constexpr int Slots = 32;
constexpr size_t MaxPath = 1024;
enum : int { Free = 0, Writing = 1, Ready = 2 };
// Globals, as a signal handler needs: each slot's state, then its path (written only while Writing).
std::atomic<int> SlotState[Slots];
char SlotPath[Slots][MaxPath];
constexpr int Signals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction Previous[3];

void emptyAndRemove(const char *Folder) {
  int FD = ::open(Folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (FD < 0)
    return;
  alignas(8) char Buffer[4096];
  // Entries are read again from the start after each batch is removed, until none is left.
  for (bool Removed = true; Removed;) {
    Removed = false;
    ::lseek(FD, 0, SEEK_SET);
    long N;
    while ((N = ::syscall(SYS_getdents64, FD, Buffer, sizeof(Buffer))) > 0) {
      for (long Off = 0; Off < N;) {
        auto *D = reinterpret_cast<struct dirent64 *>(Buffer + Off);
        Off += D->d_reclen;
        const char *Name = D->d_name;
        if (std::strcmp(Name, ".") == 0 || std::strcmp(Name, "..") == 0 || D->d_type == DT_DIR)
          continue;
        if (::unlinkat(FD, Name, 0) == 0)
          Removed = true;
      }
    }
  }
  ::close(FD);
  ::rmdir(Folder);
}

void onInterrupt(int Sig, siginfo_t *Info, void *Context) {
  for (int I = 0; I < Slots; ++I)
    if (SlotState[I].load() == Ready)
      emptyAndRemove(SlotPath[I]);
  int K = Sig == SIGINT ? 0 : Sig == SIGTERM ? 1 : 2;
  const struct sigaction &P = Previous[K];
  if (P.sa_flags & SA_SIGINFO) {
    if (P.sa_sigaction)
      return P.sa_sigaction(Sig, Info, Context);
  } else if (P.sa_handler != SIG_DFL && P.sa_handler != SIG_IGN) {
    return P.sa_handler(Sig);
  }
  // No handler before this one: end by the signal (it is blocked until this handler returns).
  ::signal(Sig, SIG_DFL);
  ::raise(Sig);
}

void installOnce() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::sys::AddSignalHandler([](void *) {}, nullptr); // LLVM's handlers first (see the header)
    struct sigaction Action;
    std::memset(&Action, 0, sizeof(Action));
    Action.sa_sigaction = onInterrupt;
    Action.sa_flags = SA_SIGINFO;
    sigemptyset(&Action.sa_mask);
    for (int Sig : Signals)
      sigaddset(&Action.sa_mask, Sig); // one cleanup at a time
    for (int K = 0; K < 3; ++K) {
      ::sigaction(Signals[K], &Action, &Previous[K]);
      // An ignored signal (nohup's SIGHUP) stays ignored: the run goes on, and needs its folder.
      if (!(Previous[K].sa_flags & SA_SIGINFO) && Previous[K].sa_handler == SIG_IGN)
        ::sigaction(Signals[K], &Previous[K], nullptr);
    }
  });
}

} // namespace

void removeFolderOnSignal(llvm::StringRef Folder) {
  if (Folder.empty() || Folder.size() >= MaxPath)
    return;
  installOnce();
  for (int I = 0; I < Slots; ++I) {
    int Expected = Free;
    if (!SlotState[I].compare_exchange_strong(Expected, Writing))
      continue;
    std::memcpy(SlotPath[I], Folder.data(), Folder.size());
    SlotPath[I][Folder.size()] = 0;
    SlotState[I].store(Ready);
    return;
  }
}

void dontRemoveFolderOnSignal(llvm::StringRef Folder) {
  for (int I = 0; I < Slots; ++I) {
    if (SlotState[I].load() != Ready || Folder != llvm::StringRef(SlotPath[I]))
      continue;
    int Expected = Ready;
    if (SlotState[I].compare_exchange_strong(Expected, Free))
      return;
  }
}

#else
void removeFolderOnSignal(llvm::StringRef) {}
void dontRemoveFolderOnSignal(llvm::StringRef) {}
#endif

} // namespace ptxlink

// SIGBUS from a truncated input mapping: a message and status 1 instead of a crash (InputFaults.h).
//
// LLVM installs its own fault handlers lazily (the first RemoveFileOnSignal, AddSignalHandler or
// PrintStackTraceOnErrorSignal) and never again once installed. So this first makes LLVM install them
// (with a handler callback that does nothing), and only then puts its own SIGBUS handler in front, keeping
// LLVM's to pass any other bus error on: a later RemoveFileOnSignal from the atomic writer does not
// replace it.
#include "ptxlink/InputFaults.h"

#include "llvm/Support/Signals.h"

#include <cstring>

#if defined(__unix__) || defined(__APPLE__)
#include <csignal>
#include <unistd.h>
#define PTXLINK_HAS_SIGACTION 1
#endif

namespace ptxlink {

#ifdef PTXLINK_HAS_SIGACTION
namespace {

// A signal handler has no other way to reach its state: set once in reportTruncatedInputs, before the
// handler is installed, and only read afterwards.
const char *FaultingTool = "ptxlink";
struct sigaction PreviousBusHandler;

void writeAll(const char *Text) {
  size_t Left = std::strlen(Text);
  while (Left) {
    ssize_t N = ::write(STDERR_FILENO, Text, Left);
    if (N <= 0)
      return;
    Text += N;
    Left -= static_cast<size_t>(N);
  }
}

void onBusError(int Sig, siginfo_t *Info, void *Context) {
  if (Info && Info->si_code == BUS_ADRERR) {
    // Only async-signal-safe calls: write(2), LLVM's removal of the registered temporaries (written to
    // run in its own signal handler), _exit.
    writeAll(FaultingTool);
    writeAll(": error: an input file was truncated or replaced while ");
    writeAll(FaultingTool);
    writeAll(" was reading it; stopped (no output written)\n");
    llvm::sys::RunInterruptHandlers();
    ::_exit(1);
  }
  // Not ours: what was installed before handles it (LLVM prints its report and re-raises).
  if (PreviousBusHandler.sa_flags & SA_SIGINFO) {
    if (PreviousBusHandler.sa_sigaction)
      return PreviousBusHandler.sa_sigaction(Sig, Info, Context);
  } else if (PreviousBusHandler.sa_handler != SIG_DFL && PreviousBusHandler.sa_handler != SIG_IGN) {
    return PreviousBusHandler.sa_handler(Sig);
  }
  // Default action: die by the signal once this handler returns and the access faults again.
  ::signal(SIGBUS, SIG_DFL);
}

} // namespace
#endif

void reportTruncatedInputs(const char *Tool) {
#ifdef PTXLINK_HAS_SIGACTION
  FaultingTool = Tool;
  // Makes LLVM install its handlers now (it does so once), so that the atomic writer's
  // RemoveFileOnSignal does not install them over this one later.
  llvm::sys::AddSignalHandler([](void *) {}, nullptr);
  struct sigaction Action;
  std::memset(&Action, 0, sizeof(Action));
  Action.sa_sigaction = onBusError;
  Action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&Action.sa_mask);
  ::sigaction(SIGBUS, &Action, &PreviousBusHandler);
#else
  (void)Tool;
#endif
}

} // namespace ptxlink

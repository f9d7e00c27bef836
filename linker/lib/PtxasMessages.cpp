// Running ptxas over a printed module and mapping its messages back to the inputs (PtxasMessages.h).
#include "PtxasMessages.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace ptxlink {

std::optional<std::string> findPtxas() {
  if (auto P = sys::findProgramByName("ptxas"))
    return *P;
  if (auto Home = sys::Process::GetEnv("CUDA_HOME")) {
    SmallString<256> P(*Home);
    sys::path::append(P, "bin", "ptxas");
    if (sys::fs::can_execute(P))
      return std::string(P);
  }
  return std::nullopt;
}

Expected<PtxasResult> runPtxas(StringRef Ptxas, StringRef Ptx, ArrayRef<std::string> Args) {
  SmallString<128> In, OutPath, ErrPath;
  if (auto EC = sys::fs::createTemporaryFile("ptxlink", "ptx", In))
    return createStringError(EC, "cannot create a temporary file");
  auto RemoveIn = make_scope_exit([&] { sys::fs::remove(In); });
  if (auto EC = sys::fs::createTemporaryFile("ptxlink", "cubin", OutPath))
    return createStringError(EC, "cannot create a temporary file");
  auto RemoveOut = make_scope_exit([&] { sys::fs::remove(OutPath); });
  if (auto EC = sys::fs::createTemporaryFile("ptxlink", "err", ErrPath))
    return createStringError(EC, "cannot create a temporary file");
  auto RemoveErr = make_scope_exit([&] { sys::fs::remove(ErrPath); });
  {
    std::error_code EC;
    raw_fd_ostream OS(In, EC);
    if (EC)
      return createStringError(EC, "cannot write " + In);
    OS << Ptx;
  }
  SmallVector<StringRef, 12> Argv{Ptxas};
  for (const std::string &A : Args)
    Argv.push_back(A);
  Argv.append({"-o", OutPath, In});
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(ErrPath), StringRef(ErrPath)};
  std::string ErrMsg;
  PtxasResult R;
  R.ExitCode = sys::ExecuteAndWait(Ptxas, Argv, std::nullopt, Redirects, 0, 0, &ErrMsg);
  if (R.ExitCode < 0)
    return createStringError(inconvertibleErrorCode(), "cannot run " + Ptxas + ": " + ErrMsg);
  if (auto B = MemoryBuffer::getFile(ErrPath))
    R.Messages = (*B)->getBuffer().str();
  // Messages name the temporary file: say "<linked module>" instead of a path that is about to vanish.
  for (size_t At; (At = R.Messages.find(In.str())) != std::string::npos;)
    R.Messages.replace(At, In.size(), "<linked module>");
  return R;
}

std::vector<Diagnostic> mapPtxasMessages(StringRef Messages, StringRef Printed, const ModuleVariant &Module,
                                         const PrintedLayout &Layout, StringRef Arch) {
  std::vector<Diagnostic> Out;
  SmallVector<StringRef, 16> Lines;
  Messages.split(Lines, '\n', -1, false);
  for (StringRef L : Lines) {
    L = L.trim();
    if (L.empty())
      continue;
    // "ptxas <file>, line 12; error   : Unknown symbol '%r9'" or "ptxas fatal   : ..." / "ptxas info ..."
    Diagnostic D;
    D.Code = "ptxas";
    StringRef Rest = L;
    Rest.consume_front("ptxas ");
    unsigned Line = 0;
    if (size_t At = Rest.find(", line "); At != StringRef::npos) {
      StringRef After = Rest.drop_front(At + 7);
      size_t Semi = After.find(';');
      if (Semi != StringRef::npos && !After.take_front(Semi).getAsInteger(10, Line))
        Rest = After.drop_front(Semi + 1).ltrim();
      else
        Line = 0;
    }
    size_t Colon = Rest.find(':');
    StringRef Kind = Colon == StringRef::npos ? StringRef() : Rest.take_front(Colon).trim();
    StringRef Text = Colon == StringRef::npos ? Rest : Rest.drop_front(Colon + 1).trim();
    if (Kind == "error" || Kind == "fatal")
      D.Level = Severity::Error;
    else if (Kind == "warning")
      D.Level = Severity::Warning;
    else if (Kind == "info")
      continue; // -v chatter
    else {
      D.Level = Severity::Error;
      Text = L;
    }
    if (Kind == "fatal" && Text.contains("aborted due to errors") &&
        llvm::any_of(Out, [](const Diagnostic &E) { return E.Level == Severity::Error; }))
      continue;
    D.Message = (Arch.empty() ? "ptxas: " + Text : "ptxas " + Arch + ": " + Text).str();
    if (Line) {
      if (auto O = locatePrintedLine(Module, Layout, Printed, Line)) {
        D.File = O->File.str();
        D.Loc = SourceLoc{O->Line, static_cast<uint32_t>(O->FirstColumn + indexOfQuotedToken(Text, O->LineText))};
        // The caret is placed by counting characters of SourceLine: pad a line that starts mid-line.
        D.SourceLine = std::string(O->FirstColumn - 1, ' ') + O->LineText.str();
        if (!O->Section.empty())
          D.Sites.push_back({"in " + O->Section.str()});
      } else {
        // A line the printer wrote (a declaration it made up): show it as printed.
        size_t Start = 0;
        for (unsigned K = 1; K < Line && Start != StringRef::npos; ++K) {
          Start = Printed.find('\n', Start);
          if (Start != StringRef::npos)
            ++Start;
        }
        StringRef PrintedLine = Start == StringRef::npos ? StringRef() : Printed.substr(Start, Printed.find('\n', Start) - Start);
        D.Sites.push_back({"at line " + std::to_string(Line) + " of the linked module: " + PrintedLine.trim().str()});
      }
    }
    Out.push_back(std::move(D));
  }
  return Out;
}

} // namespace ptxlink

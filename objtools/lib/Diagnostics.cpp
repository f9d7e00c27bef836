// Rendering of diagnostics in the assembler's (file:line:col + caret) and the linker's (lld-like) styles,
// or as JSON lines; counting them against the error limit and the -Werror / -w settings.
#include "ptxlink/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace ptxlink {

static StringRef severityName(Severity S) {
  switch (S) {
  case Severity::Note:
    return "note";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "error";
}

void DiagnosticEngine::report(Diagnostic D) {
  if (D.Level == Severity::Warning) {
    if (SuppressWarnings)
      return;
    if (WarningsAsErrors)
      D.Level = Severity::Error;
  }
  if (D.Level == Severity::Error) {
    if (limitReached()) {
      ++Errors;
      if (!LimitAnnounced && !Json) {
        OS << ToolName << ": error: too many errors emitted, stopping now\n";
        LimitAnnounced = true;
      }
      return;
    }
    ++Errors;
  } else if (D.Level == Severity::Warning) {
    ++Warnings;
  }
  render(D);
  if (Record)
    Recorded.push_back(std::move(D));
}

void DiagnosticEngine::render(const Diagnostic &D) {
  if (Json) {
    json::Object Obj{{"severity", severityName(D.Level)}, {"message", D.Message}};
    if (!D.Code.empty())
      Obj["code"] = D.Code;
    if (!D.File.empty())
      Obj["file"] = D.File;
    if (D.Loc.isValid()) {
      Obj["line"] = D.Loc.Line;
      Obj["column"] = D.Loc.Column;
    }
    json::Array Sites;
    for (const DiagSite &S : D.Sites)
      Sites.push_back(S.Text);
    if (!Sites.empty())
      Obj["sites"] = std::move(Sites);
    OS << formatv("{0}", json::Value(std::move(Obj))) << "\n";
    return;
  }
  if (!D.File.empty()) {
    OS << D.File;
    if (D.Loc.isValid()) {
      OS << ":" << D.Loc.Line;
      if (D.Loc.Column) // 0: only the line is known (ptxas reports lines)
        OS << ":" << D.Loc.Column;
    }
    OS << ": ";
  } else {
    OS << ToolName << ": ";
  }
  OS << severityName(D.Level) << ": " << D.Message << "\n";
  if (!D.SourceLine.empty()) {
    OS << D.SourceLine << "\n";
    if (D.Loc.Column > 0) {
      // Keep tabs so the caret lines up under the offending character in a terminal.
      std::string Pad;
      for (uint32_t I = 0; I + 1 < D.Loc.Column && I < D.SourceLine.size(); ++I)
        Pad += D.SourceLine[I] == '\t' ? '\t' : ' ';
      OS << Pad << "^\n";
    }
  }
  for (const DiagSite &S : D.Sites)
    OS << ">>> " << S.Text << "\n";
}

void DiagnosticEngine::error(StringRef File, SourceLoc Loc, const Twine &Message, StringRef SourceLine) {
  report(Diagnostic{Severity::Error, File.str(), Loc, Message.str(), SourceLine.str(), {}, ""});
}

void DiagnosticEngine::warning(StringRef File, SourceLoc Loc, const Twine &Message, StringRef SourceLine) {
  report(Diagnostic{Severity::Warning, File.str(), Loc, Message.str(), SourceLine.str(), {}, ""});
}

void DiagnosticEngine::error(const Twine &Message, std::vector<DiagSite> Sites, StringRef Code) {
  report(Diagnostic{Severity::Error, "", {}, Message.str(), "", std::move(Sites), Code.str()});
}

void DiagnosticEngine::warning(const Twine &Message, std::vector<DiagSite> Sites, StringRef Code) {
  report(Diagnostic{Severity::Warning, "", {}, Message.str(), "", std::move(Sites), Code.str()});
}

void DiagnosticEngine::note(const Twine &Message, std::vector<DiagSite> Sites, StringRef Code) {
  report(Diagnostic{Severity::Note, "", {}, Message.str(), "", std::move(Sites), Code.str()});
}

SourceLoc locate(StringRef Text, size_t Offset, StringRef *LineText) {
  Offset = std::min(Offset, Text.size());
  uint32_t Line = 1;
  size_t LineStart = 0;
  for (size_t I = 0; I < Offset; ++I)
    if (Text[I] == '\n') {
      ++Line;
      LineStart = I + 1;
    }
  if (LineText) {
    size_t End = Text.find('\n', LineStart);
    StringRef L = Text.slice(LineStart, End == StringRef::npos ? Text.size() : End);
    *LineText = L.rtrim("\r");
  }
  return SourceLoc{Line, static_cast<uint32_t>(Offset - LineStart + 1)};
}

} // namespace ptxlink

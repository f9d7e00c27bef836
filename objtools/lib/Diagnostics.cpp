// Rendering of diagnostics in the assembler's (file:line:col + caret) and the linker's (lld-like) styles,
// or as JSON lines; counting them against the error limit and the -Werror / -w settings.
#include "ptxlink/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace ptxlink {

/// Characters of the source line shown on each side of a diagnostic's column.
constexpr size_t SourceWindow = 80;

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

std::string SiteLocation::str() const {
  std::string Out = File;
  if (Loc.isValid()) {
    Out += ":" + std::to_string(Loc.Line);
    if (Loc.Column) // 0: only the line is known
      Out += ":" + std::to_string(Loc.Column);
  }
  if (!Object.empty() && Object != File)
    Out += " (" + Object + ")";
  return Out;
}

std::string DiagSite::text() const {
  if (!Where)
    return Text + After;
  return Text + (Text.empty() ? "" : " ") + Where->str() + After;
}

/// A site as JSON: its parts, not the joined line (schema in docs/diagnostics-json.md).
static json::Object siteJson(const DiagSite &S) {
  json::Object J;
  if (!S.Text.empty())
    J["message"] = S.Text;
  if (S.Where) {
    J["file"] = S.Where->File;
    if (S.Where->Loc.isValid()) {
      J["line"] = S.Where->Loc.Line;
      if (S.Where->Loc.Column)
        J["column"] = S.Where->Loc.Column;
    }
    if (!S.Where->Object.empty() && S.Where->Object != S.Where->File)
      J["object"] = S.Where->Object;
  }
  // After is written to follow the place in a line (": .func f(...)", " in kmain"); alone it needs no
  // separator.
  StringRef After = S.After;
  if (!After.consume_front(": "))
    After = After.ltrim(' ');
  if (!After.empty())
    J["detail"] = After.str();
  return J;
}

namespace {
constexpr size_t HeadBytes = 768, TailBytes = 192;

void appendCut(std::string &Out, size_t Cut) { Out += " [... " + std::to_string(Cut) + " bytes ...] "; }
} // namespace

std::string capLongLines(StringRef Text) {
  if (Text.size() <= MaxDiagnosticLineBytes)
    return Text.str();
  std::string Out;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    bool Newline = Line.size() < Text.size();
    if (Line.size() <= MaxDiagnosticLineBytes) {
      Out += Line;
    } else {
      Out += Line.take_front(HeadBytes);
      appendCut(Out, Line.size() - HeadBytes - TailBytes);
      Out += Line.take_back(TailBytes);
    }
    if (Newline)
      Out += '\n';
    Text = Rest;
  }
  return Out;
}

LineCappingStream::~LineCappingStream() {
  flush();
  if (LineBytes)
    endLine(/*Newline=*/false);
}

void LineCappingStream::endLine(bool Newline) {
  if (LineBytes > MaxDiagnosticLineBytes) {
    std::string Out;
    appendCut(Out, LineBytes - HeadBytes - TailBytes);
    Target << Out << StringRef(Tail).take_back(TailBytes);
  } else if (LineBytes > HeadBytes) {
    Target << StringRef(Tail).take_back(LineBytes - HeadBytes);
  }
  if (Newline)
    Target << '\n';
  LineBytes = 0;
  Tail.clear();
}

void LineCappingStream::write_impl(const char *Ptr, size_t Size) {
  Written += Size;
  StringRef Text(Ptr, Size);
  while (!Text.empty()) {
    size_t NL = Text.find('\n');
    StringRef Part = Text.take_front(NL == StringRef::npos ? Text.size() : NL);
    // The head goes out as it comes; the rest is kept until the line ends (only its last bytes).
    if (LineBytes < HeadBytes) {
      size_t Take = std::min(Part.size(), HeadBytes - LineBytes);
      Target << Part.take_front(Take);
      LineBytes += Take;
      Part = Part.drop_front(Take);
    }
    LineBytes += Part.size();
    Tail += Part;
    if (Tail.size() > 4 * TailBytes + MaxDiagnosticLineBytes)
      Tail.erase(0, Tail.size() - (MaxDiagnosticLineBytes - HeadBytes));
    if (NL == StringRef::npos)
      break;
    endLine(/*Newline=*/true);
    Text = Text.drop_front(NL + 1);
  }
}

void DiagnosticEngine::report(Diagnostic D) {
  // No argument or name of megabytes is echoed whole (MaxDiagnosticLineBytes).
  D.Message = capLongLines(D.Message);
  if (D.File.size() > MaxDiagnosticLineBytes)
    D.File = capLongLines(D.File);
  for (DiagSite &S : D.Sites)
    if (S.Text.size() + S.After.size() > MaxDiagnosticLineBytes) {
      S.Text = capLongLines(S.Text);
      S.After = capLongLines(S.After);
    }
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
      Sites.push_back(siteJson(S));
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
    // A window of the line around the column: echoing a whole 10 MB one-line module with every
    // diagnostic turned 100 bad bytes into 419 MB of output.
    StringRef Line = D.SourceLine;
    size_t Column = D.Loc.Column ? D.Loc.Column - 1 : 0;
    size_t Start = Column > SourceWindow ? Column - SourceWindow : 0;
    StringRef Shown = Line.substr(Start, Column - Start + SourceWindow);
    StringRef Before = Start ? "..." : "", After = Start + Shown.size() < Line.size() ? "..." : "";
    OS << Before << Shown << After << "\n";
    if (D.Loc.Column > 0) {
      // Keep tabs so the caret lines up under the offending character in a terminal.
      std::string Pad(Before.size(), ' ');
      for (size_t I = Start; I < Column && I < Line.size(); ++I)
        Pad += Line[I] == '\t' ? '\t' : ' ';
      OS << Pad << "^\n";
    }
  }
  for (const DiagSite &S : D.Sites)
    OS << ">>> " << S.text() << "\n";
}

/// The part of a source line a diagnostic keeps: up to the end of render()'s window (a copy of a whole
/// 10 MB line per diagnostic is memory churn for nothing).
static std::string keptSourceLine(StringRef Line, SourceLoc Loc) {
  size_t Column = Loc.Column ? Loc.Column - 1 : 0;
  return Line.take_front(Column + SourceWindow + 1).str(); // +1: render() sees that more followed
}

void DiagnosticEngine::error(StringRef File, SourceLoc Loc, const Twine &Message, StringRef SourceLine) {
  if (limitReached()) { // counted, not rendered: build nothing
    report(Diagnostic{Severity::Error, "", {}, "", "", {}, ""});
    return;
  }
  report(Diagnostic{Severity::Error, File.str(), Loc, Message.str(), keptSourceLine(SourceLine, Loc), {}, ""});
}

void DiagnosticEngine::warning(StringRef File, SourceLoc Loc, const Twine &Message, StringRef SourceLine) {
  report(Diagnostic{Severity::Warning, File.str(), Loc, Message.str(), keptSourceLine(SourceLine, Loc), {}, ""});
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

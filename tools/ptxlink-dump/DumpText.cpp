// Text rendering of ptxlink-dump's JSON nodes. Generic on purpose: objects become `key: value` lines,
// arrays of flat records become aligned tables, so every value in the JSON appears in the text and a new
// field needs no printer change. Column order is fixed (a priority list, then alphabetical) so output
// is deterministic.
#include "DumpInternal.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace ptxlink::dump {
namespace {

constexpr const char *KeyOrder[] = {
    "index",   "variant", "ordinal",  "name",      "section",  "offset",      "kind",     "binding",
    "type",    "space",   "arch",     "sm",        "size",     "align",       "value",    "symbol",
    "addend",  "length",  "target",   "caller",    "callee",   "attribute",   "id",       "format",
    "compatible", "why",  "compression", "headerSize", "storedSize", "compressedSize", "uncompressedSize",
    "payloadSize", "ptxVersion", "version", "flags", "flagNames", "identifier", "options", "extracted",
    "demangled",
};

unsigned keyRank(StringRef K) {
  for (unsigned I = 0; I < std::size(KeyOrder); ++I)
    if (K == KeyOrder[I])
      return I;
  return std::size(KeyOrder);
}

std::vector<std::string> sortedKeys(const json::Object &O) {
  std::vector<std::string> Keys;
  for (const auto &KV : O)
    Keys.push_back(KV.first.str());
  std::sort(Keys.begin(), Keys.end(), [](const std::string &A, const std::string &B) {
    unsigned RA = keyRank(A), RB = keyRank(B);
    return RA != RB ? RA < RB : A < B;
  });
  return Keys;
}

bool isScalar(const json::Value &V) {
  return V.kind() != json::Value::Object && V.kind() != json::Value::Array;
}

bool isScalarArray(const json::Value &V) {
  const json::Array *A = V.getAsArray();
  return A && llvm::all_of(*A, isScalar);
}

std::string scalarText(const json::Value &V) {
  if (auto S = V.getAsString())
    return S->empty() ? "-" : S->str();
  if (V.kind() == json::Value::Null)
    return "-";
  if (const json::Array *A = V.getAsArray()) {
    std::string Out;
    for (const json::Value &E : *A) {
      if (!Out.empty()) // appended, not `"," + std::string`: g++ 12 warns (-Wrestrict) on that falsely
        Out += ',';
      Out += scalarText(E);
    }
    return Out.empty() ? "-" : Out;
  }
  if (const json::Object *O = V.getAsObject()) // e.g. {"hex": ...} for binary option data
    if (auto H = O->getString("hex"))
      return ("hex:" + *H).str();
  std::string S;
  raw_string_ostream OS(S);
  OS << V;
  return S;
}

bool isFlatRecord(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return false;
  for (const auto &KV : *O)
    if (!isScalar(KV.second) && !isScalarArray(KV.second) &&
        !(KV.second.getAsObject() && KV.second.getAsObject()->getString("hex")))
      return false;
  return true;
}

void indent(raw_ostream &OS, unsigned N) { OS.indent(N); }

void renderTable(const json::Array &Rows, raw_ostream &OS, unsigned Ind) {
  std::vector<std::string> Cols;
  for (const json::Value &R : Rows)
    for (const std::string &K : sortedKeys(*R.getAsObject()))
      if (!llvm::is_contained(Cols, K))
        Cols.push_back(K);
  std::stable_sort(Cols.begin(), Cols.end(), [](const std::string &A, const std::string &B) {
    unsigned RA = keyRank(A), RB = keyRank(B);
    return RA != RB ? RA < RB : A < B;
  });
  std::vector<std::vector<std::string>> Cells;
  std::vector<size_t> Width(Cols.size());
  for (size_t C = 0; C < Cols.size(); ++C)
    Width[C] = Cols[C].size();
  for (const json::Value &R : Rows) {
    const json::Object &O = *R.getAsObject();
    std::vector<std::string> Line;
    for (size_t C = 0; C < Cols.size(); ++C) {
      const json::Value *V = O.get(Cols[C]);
      Line.push_back(V ? scalarText(*V) : "-");
      Width[C] = std::max(Width[C], Line.back().size());
    }
    Cells.push_back(std::move(Line));
  }
  auto Emit = [&](const std::vector<std::string> &Line) {
    indent(OS, Ind);
    for (size_t C = 0; C < Line.size(); ++C) {
      OS << Line[C];
      if (C + 1 < Line.size())
        OS.indent(Width[C] - Line[C].size() + 2);
    }
    OS << "\n";
  };
  Emit(Cols);
  for (const auto &Line : Cells)
    Emit(Line);
}

void renderValue(StringRef Key, const json::Value &V, raw_ostream &OS, unsigned Ind);
void renderRecord(const json::Value &E, raw_ostream &OS, unsigned Ind);

void renderObject(const json::Object &O, raw_ostream &OS, unsigned Ind) {
  for (const std::string &K : sortedKeys(O))
    renderValue(K, *O.get(K), OS, Ind);
}

void renderValue(StringRef Key, const json::Value &V, raw_ostream &OS, unsigned Ind) {
  if (isScalar(V) || isScalarArray(V)) {
    indent(OS, Ind);
    OS << Key << ": " << scalarText(V) << "\n";
    return;
  }
  if (const json::Object *O = V.getAsObject()) {
    if (O->getString("hex")) {
      indent(OS, Ind);
      OS << Key << ": " << scalarText(V) << "\n";
      return;
    }
    indent(OS, Ind);
    OS << Key << ":\n";
    renderObject(*O, OS, Ind + 2);
    return;
  }
  const json::Array &A = *V.getAsArray();
  indent(OS, Ind);
  OS << Key << ":";
  if (A.empty()) {
    OS << " (none)\n";
    return;
  }
  OS << "\n";
  if (llvm::all_of(A, isFlatRecord)) {
    renderTable(A, OS, Ind + 2);
    return;
  }
  for (const json::Value &E : A)
    renderRecord(E, OS, Ind);
}

// One element of an array that is not a table, at Ind + 2.
void renderRecord(const json::Value &E, raw_ostream &OS, unsigned Ind) {
  if (const json::Object *O = E.getAsObject()) {
    // A record with nested parts: its scalar fields on one line, the nested parts below.
    indent(OS, Ind + 2);
    OS << "-";
    std::vector<std::string> Nested;
    for (const std::string &K : sortedKeys(*O)) {
      const json::Value &X = *O->get(K);
      if (isScalar(X) || isScalarArray(X))
        OS << " " << K << "=" << scalarText(X);
      else
        Nested.push_back(K);
    }
    OS << "\n";
    for (const std::string &K : Nested)
      renderValue(K, *O->get(K), OS, Ind + 4);
  } else {
    renderValue("-", E, OS, Ind + 2);
  }
}

// A stream rendered as renderValue renders an array, without holding it: a first run of the stream
// finds the columns and their widths (or that its elements are no flat records), a second one prints.
void renderStream(StringRef Key, const Node::Stream &S, raw_ostream &OS, unsigned Ind) {
  size_t Count = 0;
  bool AllFlat = true;
  std::vector<std::string> Cols;
  std::map<std::string, size_t> Width;
  S([&](Node &E) {
    ++Count;
    json::Value V(json::Object(E.Fields));
    if (!E.Objects.empty() || !E.Streams.empty() || !isFlatRecord(V)) {
      AllFlat = false;
      return;
    }
    for (const auto &KV : E.Fields) {
      std::string K = KV.first.str();
      size_t &W = Width[K];
      if (!W) {
        Cols.push_back(K);
        W = K.size();
      }
      W = std::max(W, scalarText(KV.second).size());
    }
  });
  indent(OS, Ind);
  if (!Count) {
    OS << Key << ": -\n"; // an empty array reads as an empty scalar list, as renderValue prints it
    return;
  }
  OS << Key << ":\n";
  if (!AllFlat) {
    S([&](Node &E) { renderRecord(json::Value(toJson(E)), OS, Ind); });
    return;
  }
  std::stable_sort(Cols.begin(), Cols.end(), [](const std::string &A, const std::string &B) {
    unsigned RA = keyRank(A), RB = keyRank(B);
    return RA != RB ? RA < RB : A < B;
  });
  auto EmitLine = [&](const std::vector<std::string> &Line) {
    indent(OS, Ind + 2);
    for (size_t C = 0; C < Line.size(); ++C) {
      OS << Line[C];
      if (C + 1 < Line.size())
        OS.indent(Width[Cols[C]] - Line[C].size() + 2);
    }
    OS << "\n";
  };
  EmitLine(Cols);
  S([&](Node &E) {
    std::vector<std::string> Line;
    for (const std::string &K : Cols) {
      const json::Value *V = E.Fields.get(K);
      Line.push_back(V ? scalarText(*V) : "-");
    }
    EmitLine(Line);
  });
}

// A nested object with streamed parts (a fatbinary's select view), as renderValue prints an object.
void renderNodeObject(StringRef Key, Node &N, raw_ostream &OS, unsigned Ind) {
  indent(OS, Ind);
  OS << Key << ":\n";
  std::vector<std::string> Keys = sortedKeys(N.Fields);
  for (auto &KV : N.Streams)
    Keys.push_back(KV.first);
  std::stable_sort(Keys.begin(), Keys.end(), [](const std::string &A, const std::string &B) {
    unsigned RA = keyRank(A), RB = keyRank(B);
    return RA != RB ? RA < RB : A < B;
  });
  for (const std::string &K : Keys) {
    if (const json::Value *V = N.Fields.get(K)) {
      renderValue(K, *V, OS, Ind + 2);
      continue;
    }
    for (auto &KV : N.Streams)
      if (KV.first == K)
        renderStream(K, KV.second, OS, Ind + 2);
  }
}

void renderFirstLine(const json::Object &Node, raw_ostream &OS, unsigned Ind) {
  indent(OS, Ind);
  OS << scalarText(*Node.get("name")) << ": " << (Node.getString("kind") ? *Node.getString("kind") : "?");
  if (auto Size = Node.getInteger("size"))
    OS << ", " << *Size << " bytes";
  if (auto Off = Node.getInteger("fileOffset"); Off && Ind > 0)
    OS << " at " << hex(uint64_t(*Off));
  if (Node.getBoolean("decompressed").value_or(false))
    OS << " (decompressed)";
  OS << "\n";
}

// The views a node's text shows, in this order, before its PTX and its children.
constexpr const char *TextViews[] = {"ptxHeader", "headers",   "sections", "symbols", "relocs", "nvinfo",
                                     "abi",       "callgraph", "labels",   "debug",   "list",    "select"};

void renderPtx(const json::Object &Node, raw_ostream &OS, unsigned Ind) {
  if (const json::Array *Ptx = Node.getArray("ptx"))
    for (const json::Value &P : *Ptx) {
      const json::Object *PO = P.getAsObject();
      if (!PO)
        continue;
      if (auto T = PO->getString("target")) {
        indent(OS, Ind + 2);
        OS << "// ptx of variant " << PO->getInteger("variant").value_or(0) << " (" << *T << ")\n";
      }
      if (auto Text = PO->getString("text")) {
        OS << *Text;
        if (!Text->ends_with("\n"))
          OS << "\n";
      }
    }
}
} // namespace

void renderText(const json::Object &Node, const Options &Opts, raw_ostream &OS, unsigned Ind) {
  renderFirstLine(Node, OS, Ind);
  for (const char *View : TextViews)
    if (const json::Value *V = Node.get(View))
      renderValue(View, *V, OS, Ind + 2);
  renderPtx(Node, OS, Ind);
  if (const json::Array *Children = Node.getArray("children"))
    for (const json::Value &Child : *Children)
      if (const json::Object *CO = Child.getAsObject())
        renderText(*CO, Opts, OS, Ind + 2);
}

void renderText(Node &N, const Options &Opts, raw_ostream &OS, unsigned Ind) {
  if (N.Objects.empty() && N.Streams.empty()) {
    renderText(N.Fields, Opts, OS, Ind);
    return;
  }
  renderFirstLine(N.Fields, OS, Ind);
  for (const char *View : TextViews) {
    if (const json::Value *V = N.Fields.get(View))
      renderValue(View, *V, OS, Ind + 2);
    for (auto &[Key, Sub] : N.Objects)
      if (Key == View)
        renderNodeObject(Key, Sub, OS, Ind + 2);
    for (auto &[Key, S] : N.Streams)
      if (Key == View)
        renderStream(Key, S, OS, Ind + 2);
  }
  renderPtx(N.Fields, OS, Ind);
  if (const json::Array *Children = N.Fields.getArray("children"))
    for (const json::Value &Child : *Children)
      if (const json::Object *CO = Child.getAsObject())
        renderText(*CO, Opts, OS, Ind + 2);
  for (auto &[Key, S] : N.Streams)
    if (Key == "children")
      S([&](Node &Child) { renderText(Child, Opts, OS, Ind + 2); });
}


} // namespace ptxlink::dump

// `ptxlink-dump --callgraph --format dot`: the dump's callgraph and abi views turned into the same kind
// of picture `ptxlink --callgraph-dot` draws (CallGraphDot.h). Built from the JSON document, like the text
// output, so the picture shows exactly what `--callgraph --json` says: each input, archive member or
// fatbinary image is a cluster; kernels and device functions from the abi view; calls, addresses taken
// and function-pointer tables (a variable's initializer) from the callgraph view; `.calltargets` sets of
// indirect calls from the prototypes. (An object or a cubin has no liveness: nothing is greyed here.)
// Each input, member and image is added to the graph as its description is produced and then dropped:
// only the graph itself is held until the picture is written (an archive of 20,000 small objects took
// 1.4 GB when every input's JSON tree was kept for the end; 64 MB now).
#include "DumpInternal.h"

#include "ptxlink/CallGraphDot.h"

using namespace llvm;

namespace ptxlink::dump {

namespace {

// One input, member or image's part of the graph: its cluster, and where its records go.
class ClusterBuilder {
public:
  ClusterBuilder(StringRef Name, CallGraphDot &G) : Cluster(Name.str()), G(G) {}

  void function(const json::Object &F) {
    StringRef Name = F.getString("name").value_or("");
    bool Defined = F.getBoolean("defined").value_or(true);
    NK Kind = !Defined ? NK::External : F.getString("kind").value_or("") == "kernel" ? NK::Kernel : NK::Function;
    if (Defined)
      G.node(idOf(F, Name), Name, Kind, "", clusterOf(F));
  }

  void edge(const json::Object &E) {
    StringRef Caller = E.getString("caller").value_or(""), Callee = E.getString("callee").value_or("");
    StringRef Kind = E.getString("kind").value_or("");
    if (Caller.empty() || Callee.empty())
      return;
    if (Kind == "initializer") { // a variable whose initializer holds the function: a table
      size_t Table = G.node(idOf(E, Caller), Caller, NK::Table, "", clusterOf(E));
      G.edge(Table, target(E, Callee), EK::TableEntry);
      return;
    }
    G.edge(target(E, Caller), target(E, Callee), Kind == "call" ? EK::Call : EK::AddressOf);
  }

  void prototype(const json::Object &P) {
    const json::Array *Targets = P.getArray("callTargets");
    StringRef Function = P.getString("function").value_or("");
    if (!Targets || Function.empty())
      return;
    for (const json::Value &T : *Targets)
      if (auto Name = T.getAsString())
        G.edge(target(P, Function), target(P, *Name), EK::Indirect);
  }

private:
  using NK = CallGraphDot::NodeKind;
  using EK = CallGraphDot::EdgeKind;

  // Ours carry a variant number (a fat object's module for each target): one cluster per variant.
  std::string clusterOf(const json::Object &O) const {
    int64_t V = O.getInteger("variant").value_or(0);
    return V ? Cluster + " (variant " + std::to_string(V) + ")" : Cluster;
  }
  std::string idOf(const json::Object &O, StringRef Name) const { return clusterOf(O) + "/" + Name.str(); }
  // A name the node does not define: an external function (declared here, defined elsewhere).
  size_t target(const json::Object &O, StringRef Name) {
    long Found = G.find(idOf(O, Name));
    return Found >= 0 ? static_cast<size_t>(Found) : G.node("extern:" + Name.str(), Name, NK::External, "", "");
  }

  std::string Cluster;
  CallGraphDot &G;
};

// The records of a view held as JSON (a cubin's), or produced by a stream (our objects').
void forEachRecord(const json::Array *Held, const Node::Stream *Streamed, function_ref<void(const json::Object &)> F) {
  if (Held)
    for (const json::Value &V : *Held)
      if (const json::Object *O = V.getAsObject())
        F(*O);
  if (Streamed)
    (*Streamed)([&](Node &Record) { F(Record.Fields); });
}

const Node::Stream *streamNamed(Node &N, StringRef Key) {
  for (auto &[Name, S] : N.Streams)
    if (Name == Key)
      return &S;
  return nullptr;
}

Node *objectNamed(Node &N, StringRef Key) {
  for (auto &[Name, Sub] : N.Objects)
    if (Name == Key)
      return &Sub;
  return nullptr;
}

// A JSON node (children held as JSON): the same, without streams.
void addJsonNode(const json::Object &Fields, CallGraphDot &G) {
  ClusterBuilder B(Fields.getString("name").value_or(""), G);
  const json::Object *Abi = Fields.getObject("abi");
  forEachRecord(Abi ? Abi->getArray("functions") : nullptr, nullptr, [&](const json::Object &F) { B.function(F); });
  forEachRecord(Fields.getArray("callgraph"), nullptr, [&](const json::Object &E) { B.edge(E); });
  forEachRecord(Abi ? Abi->getArray("prototypes") : nullptr, nullptr, [&](const json::Object &P) { B.prototype(P); });
  if (const json::Array *Children = Fields.getArray("children"))
    for (const json::Value &C : *Children)
      if (const json::Object *Child = C.getAsObject())
        addJsonNode(*Child, G);
}

} // namespace

void addToCallgraphDot(Node &N, CallGraphDot &G) {
  // Functions first (they name the nodes), then the call graph's edges, then the prototypes' call
  // targets; then the children, each described, added and dropped in turn.
  ClusterBuilder B(N.Fields.getString("name").value_or(""), G);
  const json::Object *HeldAbi = N.Fields.getObject("abi");
  Node *StreamedAbi = objectNamed(N, "abi");
  forEachRecord(HeldAbi ? HeldAbi->getArray("functions") : nullptr,
                StreamedAbi ? streamNamed(*StreamedAbi, "functions") : nullptr,
                [&](const json::Object &F) { B.function(F); });
  forEachRecord(N.Fields.getArray("callgraph"), streamNamed(N, "callgraph"), [&](const json::Object &E) { B.edge(E); });
  forEachRecord(HeldAbi ? HeldAbi->getArray("prototypes") : nullptr,
                StreamedAbi ? streamNamed(*StreamedAbi, "prototypes") : nullptr,
                [&](const json::Object &P) { B.prototype(P); });
  if (const json::Array *Children = N.Fields.getArray("children"))
    for (const json::Value &C : *Children)
      if (const json::Object *Child = C.getAsObject())
        addJsonNode(*Child, G);
  if (const Node::Stream *Children = streamNamed(N, "children"))
    (*Children)([&](Node &Child) { addToCallgraphDot(Child, G); });
}

} // namespace ptxlink::dump

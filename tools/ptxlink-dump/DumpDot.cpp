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

void addNode(const json::Object &Node, CallGraphDot &G) {
  using NK = CallGraphDot::NodeKind;
  using EK = CallGraphDot::EdgeKind;
  std::string Cluster = Node.getString("name").value_or("").str();
  // Ours carry a variant number (a fat object's module for each target): one cluster per variant.
  auto ClusterOf = [&](const json::Object &O) {
    int64_t V = O.getInteger("variant").value_or(0);
    return V ? Cluster + " (variant " + std::to_string(V) + ")" : Cluster;
  };
  auto IdOf = [&](const json::Object &O, StringRef Name) { return ClusterOf(O) + "/" + Name.str(); };
  if (const json::Object *Abi = Node.getObject("abi")) {
    if (const json::Array *Functions = Abi->getArray("functions"))
      for (const json::Value &V : *Functions) {
        const json::Object *F = V.getAsObject();
        if (!F)
          continue;
        StringRef Name = F->getString("name").value_or("");
        bool Defined = F->getBoolean("defined").value_or(true);
        NK Kind = !Defined ? NK::External : F->getString("kind").value_or("") == "kernel" ? NK::Kernel : NK::Function;
        if (Defined)
          G.node(IdOf(*F, Name), Name, Kind, "", ClusterOf(*F));
      }
  }
  // A name the node does not define: an external function (declared here, defined elsewhere).
  auto Target = [&](const json::Object &O, StringRef Name) -> size_t {
    long Found = G.find(IdOf(O, Name));
    return Found >= 0 ? static_cast<size_t>(Found) : G.node("extern:" + Name.str(), Name, NK::External, "", "");
  };
  if (const json::Array *Edges = Node.getArray("callgraph"))
    for (const json::Value &V : *Edges) {
      const json::Object *E = V.getAsObject();
      if (!E)
        continue;
      StringRef Caller = E->getString("caller").value_or(""), Callee = E->getString("callee").value_or("");
      StringRef Kind = E->getString("kind").value_or("");
      if (Caller.empty() || Callee.empty())
        continue;
      if (Kind == "initializer") { // a variable whose initializer holds the function: a table
        size_t Table = G.node(IdOf(*E, Caller), Caller, NK::Table, "", ClusterOf(*E));
        G.edge(Table, Target(*E, Callee), EK::TableEntry);
        continue;
      }
      G.edge(Target(*E, Caller), Target(*E, Callee), Kind == "call" ? EK::Call : EK::AddressOf);
    }
  if (const json::Object *Abi = Node.getObject("abi"))
    if (const json::Array *Prototypes = Abi->getArray("prototypes"))
      for (const json::Value &V : *Prototypes) {
        const json::Object *P = V.getAsObject();
        const json::Array *Targets = P ? P->getArray("callTargets") : nullptr;
        StringRef Function = P ? P->getString("function").value_or("") : "";
        if (!Targets || Function.empty())
          continue;
        for (const json::Value &T : *Targets)
          if (auto Name = T.getAsString())
            G.edge(Target(*P, Function), Target(*P, *Name), EK::Indirect);
      }
  if (const json::Array *Children = Node.getArray("children"))
    for (const json::Value &C : *Children)
      if (const json::Object *Child = C.getAsObject())
        addNode(*Child, G);
}

} // namespace

void addToCallgraphDot(Node &N, CallGraphDot &G) {
  addNode(N.Fields, G); // its own views (and any children held as JSON)
  for (auto &[Key, Stream] : N.Streams)
    if (Key == "children") // members and images, each described, added and dropped in turn
      Stream([&](Node &Child) { addToCallgraphDot(Child, G); });
}

} // namespace ptxlink::dump

// Writing the call graph model as Graphviz DOT (CallGraphDot.h).
#include "ptxlink/CallGraphDot.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Demangle/Demangle.h"

using namespace llvm;

namespace ptxlink {

size_t CallGraphDot::node(StringRef Id, StringRef Name, NodeKind Kind, StringRef Group, StringRef Cluster, bool Removed) {
  auto [It, New] = ById.try_emplace(Id, Nodes.size());
  if (New)
    Nodes.push_back({Id.str(), Name.str(), Kind, Group.str(), Cluster.str(), Removed});
  return It->second;
}

long CallGraphDot::find(StringRef Id) const {
  auto It = ById.find(Id);
  return It == ById.end() ? -1 : static_cast<long>(It->second);
}

void CallGraphDot::edge(size_t From, size_t To, EdgeKind Kind) {
  std::string Key = std::to_string(From) + ">" + std::to_string(To) + ":" + std::to_string(static_cast<int>(Kind));
  if (EdgeSeen.try_emplace(Key, 1).second)
    Edges.push_back({From, To, Kind});
}

namespace {

/// A DOT string literal.
std::string quoted(StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

/// What a node is labelled with: the demangled name without its parameter list when that is short
/// enough to read, else the name as it is.
std::string label(StringRef Name) {
  // nvcc names a static function `__nv_static_<n>__<hash>_<file>__Z4fillPff`: the mangled name follows.
  if (Name.starts_with("__nv_static_")) {
    size_t At = Name.find("__Z");
    if (At != StringRef::npos) {
      std::string D = demangle(Name.drop_front(At + 1).str());
      if (D != Name.drop_front(At + 1))
        return label(Name.drop_front(At + 1)) + " [static]";
    }
  }
  std::string D = demangle(Name.str());
  if (D == Name)
    return D;
  // "apply_op(int, float)" reads well; a 200-character template instance does not.
  if (D.size() > 60) {
    size_t Paren = D.find('(');
    if (Paren != std::string::npos && Paren > 0)
      D = D.substr(0, Paren) + "(...)";
  }
  return D;
}

} // namespace

void CallGraphDot::write(raw_ostream &OS, StringRef Title) const {
  OS << "digraph " << quoted(Title) << " {\n";
  OS << "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11, labeljust=l, label=" << quoted(Title)
     << ", labelloc=t];\n";
  OS << "  node [fontname=\"Helvetica\", fontsize=10];\n";
  OS << "  edge [fontname=\"Helvetica\", fontsize=9];\n";

  auto nodeLine = [&](const Node &N, StringRef Indent) {
    OS << Indent << quoted(N.Id) << " [label=" << quoted(label(N.Name)) << ", tooltip=" << quoted(N.Name);
    StringRef Shape = N.Kind == NodeKind::Kernel ? "box" : N.Kind == NodeKind::Table ? "folder" : "ellipse";
    StringRef Fill = N.Kind == NodeKind::Kernel ? "#cfe2ff" : N.Kind == NodeKind::Table ? "#fff3cd" : "#ffffff";
    StringRef Style = N.Kind == NodeKind::Kernel ? "filled,bold" : N.Kind == NodeKind::External ? "dashed" : "filled";
    OS << ", shape=" << Shape;
    if (N.Removed)
      OS << ", style=\"filled,dashed\", color=\"#9e9e9e\", fontcolor=\"#9e9e9e\", fillcolor=\"#eeeeee\"";
    else
      OS << ", style=" << quoted(Style) << ", fillcolor=" << quoted(Fill);
    OS << "];\n";
  };

  // Groups, and the clusters of each, in order of first appearance, with their nodes in node order: one
  // pass over the nodes, not one per cluster (a dump of an archive of 20,000 members has as many
  // clusters).
  struct ClusterNodes {
    std::string Name;
    std::vector<size_t> Members;
  };
  struct GroupClusters {
    std::string Name;
    std::vector<ClusterNodes> Clusters;
    StringMap<size_t> ClusterIndex;
  };
  std::vector<GroupClusters> Groups;
  StringMap<size_t> GroupIndex;
  for (size_t I = 0; I < Nodes.size(); ++I) {
    const Node &N = Nodes[I];
    auto [GroupIt, NewGroup] = GroupIndex.try_emplace(N.Group, Groups.size());
    if (NewGroup)
      Groups.push_back({N.Group, {}, {}});
    GroupClusters &G = Groups[GroupIt->second];
    auto [ClusterIt, NewCluster] = G.ClusterIndex.try_emplace(N.Cluster, G.Clusters.size());
    if (NewCluster)
      G.Clusters.push_back({N.Cluster, {}});
    G.Clusters[ClusterIt->second].Members.push_back(I);
  }
  unsigned ClusterNumber = 0;
  for (const GroupClusters &G : Groups) {
    std::string Indent = "  ";
    if (!G.Name.empty()) {
      OS << "  subgraph \"cluster_" << ClusterNumber++ << "\" {\n    label=" << quoted(G.Name)
         << "; style=rounded; color=\"#444444\";\n";
      Indent = "    ";
    }
    for (const ClusterNodes &C : G.Clusters) {
      std::string Inner = Indent;
      if (!C.Name.empty()) {
        OS << Indent << "subgraph \"cluster_" << ClusterNumber++ << "\" {\n"
           << Indent << "  label=" << quoted(C.Name) << "; style=\"rounded,filled\"; fillcolor=\"#f7f7f7\"; color=\"#bbbbbb\";\n";
        Inner += "  ";
      }
      for (size_t I : C.Members)
        nodeLine(Nodes[I], Inner);
      if (!C.Name.empty())
        OS << Indent << "}\n";
    }
    if (!G.Name.empty())
      OS << "  }\n";
  }

  for (const Edge &E : Edges) {
    OS << "  " << quoted(Nodes[E.From].Id) << " -> " << quoted(Nodes[E.To].Id);
    switch (E.Kind) {
    case EdgeKind::Call:
      OS << " [color=\"#000000\"";
      break;
    case EdgeKind::AddressOf: // of a function; of a table: the code loads from it
      OS << " [style=dashed, color=\"#555555\", label=" << (Nodes[E.To].Kind == NodeKind::Table ? "\"loads\"" : "\"&\"");
      break;
    case EdgeKind::TableEntry:
      OS << " [style=dotted, color=\"#b8860b\", arrowhead=odot";
      break;
    case EdgeKind::Indirect:
      OS << " [style=dashed, color=\"#d9534f\", label=\"indirect\", fontcolor=\"#d9534f\"";
      break;
    }
    if (Nodes[E.From].Removed || Nodes[E.To].Removed)
      OS << ", color=\"#bdbdbd\"";
    OS << "];\n";
  }

  // A legend, so the picture explains itself.
  OS << "  subgraph \"cluster_legend\" {\n    label=\"legend\"; style=dashed; color=\"#bbbbbb\"; fontsize=9;\n"
     << "    node [fontsize=8, height=0.2];\n"
     << "    \"legend kernel\" [label=\"kernel\", shape=box, style=\"filled,bold\", fillcolor=\"#cfe2ff\"];\n"
     << "    \"legend function\" [label=\"device function\", shape=ellipse];\n"
     << "    \"legend table\" [label=\"function-pointer table\", shape=folder, style=filled, fillcolor=\"#fff3cd\"];\n"
     << "    \"legend removed\" [label=\"removed (dead code)\", style=\"filled,dashed\", color=\"#9e9e9e\", "
        "fontcolor=\"#9e9e9e\", fillcolor=\"#eeeeee\"];\n"
     << "    \"legend kernel\" -> \"legend function\" [label=\"call\", fontsize=8];\n"
     << "    \"legend function\" -> \"legend table\" [style=dashed, color=\"#555555\", label=\"loads\", fontsize=8];\n"
     << "    \"legend table\" -> \"legend removed\" [style=dotted, color=\"#b8860b\", arrowhead=odot, label=\"holds\", "
        "fontsize=8];\n"
     << "  }\n";
  OS << "}\n";
}

} // namespace ptxlink

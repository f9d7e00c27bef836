// The call graph of a program as a Graphviz picture, shared by `ptxlink --callgraph-dot` (a linked
// program, with what dead-code removal dropped) and `ptxlink-dump --callgraph --format dot` (objects,
// PTX, cubins, archives, fatbinaries).
//
// The problem: `--dump-callgraph` prints numbered text that is hard to read past a dozen functions, and
// the interesting parts of a GPU program's graph are what text hides: which device functions each
// kernel reaches, which functions are reached only through a table of function pointers or a
// `.calltargets` set (indirect calls), which module each lives in, and what was removed. Both tools build
// this small model and one writer turns it into DOT, so the two pictures look alike.
#pragma once

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace ptxlink {

class CallGraphDot {
public:
  enum class NodeKind { Kernel, Function, Table, External };
  enum class EdgeKind {
    Call,       // a direct `call`
    AddressOf,  // a function's address taken in code (`mov.u64 %rd1, f`), or a table used by code
    TableEntry, // a table of function pointers (a variable's initializer) holds the function
    Indirect,   // an indirect call may reach the function (`.calltargets`, or a table the caller loads)
  };
  struct Node {
    std::string Id;      // unique within the graph
    std::string Name;    // the symbol (mangled)
    NodeKind Kind = NodeKind::Function;
    std::string Group;   // outer cluster (the architecture of a multi-arch link), "" for none
    std::string Cluster; // inner cluster (the input module), "" for none
    bool Removed = false; // dropped by dead-code removal: drawn grey
  };
  struct Edge {
    size_t From, To;
    EdgeKind Kind;
  };

  /// Adds a node (or returns the one with that Id).
  size_t node(llvm::StringRef Id, llvm::StringRef Name, NodeKind Kind, llvm::StringRef Group, llvm::StringRef Cluster,
              bool Removed = false);
  /// Index of the node with Id, or -1.
  long find(llvm::StringRef Id) const;
  /// Adds an edge once (the same pair and kind again is ignored).
  void edge(size_t From, size_t To, EdgeKind Kind);

  const std::vector<Node> &nodes() const { return Nodes; }
  const std::vector<Edge> &edges() const { return Edges; }

  /// Writes the graph as one DOT `digraph` named Title: clusters in order of first appearance, demangled
  /// labels (the mangled name as tooltip), a legend. Deterministic.
  void write(llvm::raw_ostream &OS, llvm::StringRef Title) const;

private:
  std::vector<Node> Nodes;
  std::vector<Edge> Edges;
  llvm::StringMap<size_t> ById;
  llvm::StringMap<char> EdgeSeen;
};

} // namespace ptxlink

// Re-encoding the compile units of a link so that one PTX module can carry them all.
//
// The problem: nvcc -G writes one compile unit per module with its own abbreviation table, and its
// DW_AT_decl_file / DW_AT_call_file values index that module's `.file` list. Concatenating the modules'
// .debug_info and .debug_abbrev (each CU pointing at its own table) is what an ELF linker does, but the
// consumer of a linked PTX module is ptxas, which
//   - reads every compile unit with the abbreviation table at offset 0 when it rewrites
//     `DW_OP_addr __local_depotN` (a CU whose table starts elsewhere is misparsed: "ptxas fatal: Attempted
//     to Dereference Out of Bounds"), and
//   - writes one line table for the whole module (from the merged, renumbered `.file` list), which every
//     CU's DW_AT_stmt_list then names.
// So every CU is re-encoded against one shared abbreviation table (the union of the inputs' declarations,
// deduplicated), and its file attributes are renumbered to the merged `.file` list, widening the form
// when a number no longer fits (data1 -> data2 -> data4). DIE offsets move when an abbreviation code
// changes length, so CU-relative references and the section's relocations follow.
#pragma once

#include "ptxlink/ObjectModel.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// One abbreviation declaration: the tag, whether DIEs using it have children, and their attributes.
struct AbbrevDecl {
  uint64_t Tag = 0;
  bool HasChildren = false;
  std::vector<std::pair<uint64_t, uint64_t>> Attributes; // (DW_AT_*, DW_FORM_*)
  auto operator<=>(const AbbrevDecl &) const = default;
};

/// The abbreviation table every compile unit of the linked module shares: each distinct declaration
/// once, numbered from 1 in order of first use.
class SharedAbbrevTable {
public:
  uint64_t codeFor(const AbbrevDecl &Decl);
  /// The table as DWARF bytes (declarations, then the terminating 0).
  std::string encode() const;
  size_t size() const { return InOrder.size(); }

private:
  std::map<AbbrevDecl, uint64_t> Codes;
  std::vector<const AbbrevDecl *> InOrder;
};

/// One module's .debug_info, re-encoded: new bytes and its relocations at their new offsets (the CU
/// headers' references to .debug_abbrev now have addend 0: the shared table starts the section).
struct RewrittenDebugInfo {
  std::string Contents;
  std::vector<Relocation> Relocs; // sorted by offset (the section's range of the output's table)
  /// Where each unit went, and each of its DIEs: (old, new) unit-relative offsets in increasing order
  /// (a sorted array, not a hash map: filled in order, and probing a large hash map per DIE cost more
  /// than the rest of the walk).
  struct Unit {
    uint64_t OldStart = 0, OldEnd = 0, NewStart = 0, NewEnd = 0;
    std::vector<std::pair<uint64_t, uint64_t>> Dies;
    /// The new unit-relative offset of the DIE that started at Old, if one did.
    std::optional<uint64_t> newDieOffset(uint64_t Old) const;
  };
  std::vector<Unit> Units;
  /// Whether any unit or DIE changed offset (only then do other sections' offsets into .debug_info
  /// need rewriting).
  bool Moved = false;

  /// The new offset of what started at Old in the input .debug_info: a unit header or a DIE.
  std::optional<uint64_t> newOffset(uint64_t Old) const;
};

/// Re-encodes the compile units in Info (a .debug_info section of Module) whose abbreviations are in
/// Abbrev (the same module's .debug_abbrev), against Shared. MapFile gives the output `.file` number of
/// an input one (0 stays 0). Fails, saying why and at which offset, on DWARF it cannot walk (DWARF64,
/// version 5, an unknown form or abbreviation code, a truncated unit, a relocation inside a rewritten
/// field); the caller then keeps the sections as they were.
llvm::Expected<RewrittenDebugInfo> rewriteDebugInfo(const ModuleVariant &Module, const Section &Info,
                                                    const Section &Abbrev,
                                                    llvm::function_ref<uint64_t(uint64_t)> MapFile,
                                                    SharedAbbrevTable &Shared);

/// The bytes of a .debug_pubnames or .debug_pubtypes section (Pub, of Module) after its module's
/// .debug_info was rewritten as Info says: each set's unit length and every DIE offset follow the DIEs.
/// (The set's unit offset is a relocation against .debug_info: the caller moves it with newOffset.)
llvm::Expected<std::string> rewriteNameTable(const ModuleVariant &Module, const Section &Pub,
                                             const RewrittenDebugInfo &Info);

} // namespace ptxlink

// The C types behind PTX parameters, read from the modules' DWARF, for the one question PTX types cannot
// answer: an int and a float are both `.b32` to some producers.
//
// The problem: debug sections live in the object model as binary DWARF whose label relocations only
// ptxas can resolve. Type references inside .debug_info are unit-relative and names are inline strings
// or `.debug_str` offsets (relocations against a section symbol, whose value is just the addend), so
// applying those and leaving label addresses at 0 gives LLVM's DWARF parser everything a type name needs.
// Only called when the PTX comparison found no error (a size mismatch needs no C types to explain it).

#include "AbiCheckDwarf.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDie.h"
#include "llvm/DebugInfo/DWARF/DWARFUnit.h"
#include "llvm/Support/Endian.h"

using namespace llvm;

namespace ptxlink {

namespace {

/// The module's debug sections with section-relative relocations applied; empty if it has no
/// .debug_info.
StringMap<std::unique_ptr<MemoryBuffer>> debugSections(const ModuleVariant &M) {
  StringMap<std::unique_ptr<MemoryBuffer>> Out;
  bool HasInfo = false;
  for (const Section &S : M.Sections) {
    if (S.Kind != SectionKind::Debug)
      continue;
    std::string Bytes = S.contents().str();
    for (const Relocation &R : M.relocs(S)) {
      unsigned Width = R.Kind == RelocKind::Data32 ? 4 : R.Kind == RelocKind::Data64 ? 8 : 0;
      if (!Width || R.Offset > Bytes.size() || Bytes.size() - R.Offset < Width)
        continue;
      // Only a section symbol has a value known before ptxas: its offset within the section, 0.
      uint64_t Value = 0;
      if (R.Symbol < M.Symbols.size() && M.Symbols[R.Symbol].Kind == SymbolKind::Section)
        Value = static_cast<uint64_t>(R.Addend);
      if (Width == 4)
        support::endian::write32le(Bytes.data() + R.Offset, static_cast<uint32_t>(Value));
      else
        support::endian::write64le(Bytes.data() + R.Offset, Value);
    }
    StringRef Name = M.sectionName(S);
    Name.consume_front(".");
    HasInfo |= Name == "debug_info";
    Out[Name] = MemoryBuffer::getMemBufferCopy(Bytes, Name);
  }
  if (!HasInfo)
    Out.clear();
  return Out;
}

/// "const int *"-style name of a DW_AT_type reference; depth-limited against malformed cycles.
std::string typeName(DWARFDie Die, unsigned Depth = 0) {
  if (!Die || Depth > 16)
    return "void";
  DWARFDie Inner = Die.getAttributeValueAsReferencedDie(dwarf::DW_AT_type);
  switch (Die.getTag()) {
  case dwarf::DW_TAG_pointer_type:
    return typeName(Inner, Depth + 1) + " *";
  case dwarf::DW_TAG_reference_type:
    return typeName(Inner, Depth + 1) + " &";
  case dwarf::DW_TAG_rvalue_reference_type:
    return typeName(Inner, Depth + 1) + " &&";
  case dwarf::DW_TAG_const_type:
    return "const " + typeName(Inner, Depth + 1);
  case dwarf::DW_TAG_volatile_type:
    return "volatile " + typeName(Inner, Depth + 1);
  case dwarf::DW_TAG_restrict_type:
    return typeName(Inner, Depth + 1) + " __restrict__";
  case dwarf::DW_TAG_array_type:
    return typeName(Inner, Depth + 1) + "[]";
  default:
    break;
  }
  const char *Name = Die.getShortName();
  std::string Prefix;
  if (Die.getTag() == dwarf::DW_TAG_structure_type)
    Prefix = "struct ";
  else if (Die.getTag() == dwarf::DW_TAG_union_type)
    Prefix = "union ";
  else if (Die.getTag() == dwarf::DW_TAG_enumeration_type)
    Prefix = "enum ";
  return Prefix + (Name ? Name : "<anonymous>");
}

struct CSignature {
  std::string Return;
  std::vector<std::string> Params;
};

std::optional<CSignature> findSignature(const ModuleVariant &M, StringRef Name) {
  StringMap<std::unique_ptr<MemoryBuffer>> Sections = debugSections(M);
  if (Sections.empty())
    return std::nullopt;
  auto Ignore = [](Error E) { consumeError(std::move(E)); };
  std::unique_ptr<DWARFContext> Ctx =
      DWARFContext::create(Sections, M.Target.AddressSize == 32 ? 4 : 8, true, Ignore, Ignore);
  if (!Ctx)
    return std::nullopt;
  for (const std::unique_ptr<DWARFUnit> &Unit : Ctx->info_section_units()) {
    for (const DWARFDebugInfoEntry &Entry : Unit->dies()) {
      DWARFDie Die(Unit.get(), &Entry);
      if (Die.getTag() != dwarf::DW_TAG_subprogram)
        continue;
      const char *Linkage = Die.getLinkageName();
      const char *Short = Die.getShortName();
      if (!(Linkage && Name == Linkage) && !(Short && Name == Short))
        continue;
      CSignature Sig;
      Sig.Return = typeName(Die.getAttributeValueAsReferencedDie(dwarf::DW_AT_type));
      for (DWARFDie Child : Die.children())
        if (Child.getTag() == dwarf::DW_TAG_formal_parameter)
          Sig.Params.push_back(typeName(Child.getAttributeValueAsReferencedDie(dwarf::DW_AT_type)));
      return Sig;
    }
  }
  return std::nullopt;
}

} // namespace

DwarfSignatureComparison compareDwarfSignatures(const ModuleVariant &A, StringRef NameA, const ModuleVariant &B,
                                                StringRef NameB, StringRef RoleA, StringRef RoleB) {
  DwarfSignatureComparison Result;
  // Cheap test first: most links have no debug information at all, and a module whose debug sections do
  // not even spell the name cannot describe the function (nvcc describes no .extern declaration), so
  // parsing its DWARF would be wasted once per declaration.
  auto Mentions = [](const ModuleVariant &M, StringRef Name) {
    bool HasInfo = false, Spelled = false;
    for (const Section &S : M.Sections) {
      if (S.Kind != SectionKind::Debug)
        continue;
      const StringRef SectionName = M.sectionName(S);
      HasInfo |= SectionName == ".debug_info";
      Spelled |= (SectionName == ".debug_info" || SectionName == ".debug_str") && S.contents().contains(Name);
    }
    return HasInfo && Spelled;
  };
  if (!Mentions(A, NameA) || !Mentions(B, NameB))
    return Result;
  std::optional<CSignature> SA = findSignature(A, NameA), SB = findSignature(B, NameB);
  if (!SA || !SB)
    return Result;
  Result.Compared = true;
  auto Add = [&](std::string What, const std::string &TA, const std::string &TB) {
    Result.Findings.push_back({Severity::Warning, "abi-c-type",
                               What + ": " + TA + " in " + RoleA.str() + ", " + TB + " in " + RoleB.str() +
                                   " (from debug information)"});
  };
  if (SA->Return != SB->Return)
    Add("C return type", SA->Return, SB->Return);
  size_t N = std::min(SA->Params.size(), SB->Params.size());
  for (size_t I = 0; I < N; ++I)
    if (SA->Params[I] != SB->Params[I])
      Add("C type of param " + std::to_string(I + 1), SA->Params[I], SB->Params[I]);
  return Result;
}

} // namespace ptxlink

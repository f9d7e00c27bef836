// `ptxlink-dump --debug`: compile units, their files and whether they have a line table, read with
// LLVM's DWARF library. Cubins are ELF files LLVM can open directly (their R_CUDA relocations are not
// applied: relocatable cubins keep addresses zero, which does not matter for this summary); our objects
// carry the DWARF bytes in their debug sections, handed to DWARFContext from memory.
#include "DumpInternal.h"

#include "llvm/DebugInfo/DWARF/DWARFCompileUnit.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugLine.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace ptxlink::dump {
namespace {

json::Object describeContext(Context &C, const Origin &O, DWARFContext &Ctx, json::Array SectionList) {
  json::Array Units;
  for (const auto &U : Ctx.compile_units()) {
    json::Object J{{"offset", U->getOffset()}, {"version", U->getVersion()}, {"addressSize", U->getAddressByteSize()}};
    DWARFDie Die = U->getUnitDIE(/*ExtractUnitDIEOnly=*/true);
    if (Die.isValid()) {
      if (const char *Name = Die.getShortName())
        J["name"] = std::string(Name);
      if (auto P = dwarf::toString(Die.find(dwarf::DW_AT_producer)))
        J["producer"] = std::string(*P);
      if (auto D = dwarf::toString(Die.find(dwarf::DW_AT_comp_dir)))
        J["compDir"] = std::string(*D);
      if (auto L = dwarf::toUnsigned(Die.find(dwarf::DW_AT_language)))
        J["language"] = dwarf::LanguageString(unsigned(*L)).str();
    }
    const DWARFDebugLine::LineTable *LT = Ctx.getLineTableForUnit(U.get());
    J["hasLineTable"] = LT != nullptr;
    if (LT) {
      json::Array Files;
      for (size_t I = 0; I < LT->Prologue.FileNames.size(); ++I) {
        std::string Path;
        if (LT->getFileNameByIndex(LT->Prologue.getVersion() >= 5 ? I : I + 1, U->getCompilationDir(),
                                   DILineInfoSpecifier::FileLineInfoKind::RawValue, Path))
          Files.push_back(std::move(Path));
      }
      J["files"] = std::move(Files);
      J["lineRows"] = int64_t(LT->Rows.size());
    }
    Units.push_back(std::move(J));
  }
  // Line tables straight from .debug_line: cubins have them without any .debug_info unit.
  json::Array Tables;
  const DWARFObject &DObj = Ctx.getDWARFObj();
  const DWARFSection &LineSection = DObj.getLineSection();
  if (!LineSection.Data.empty()) {
    DWARFDataExtractor Data(DObj, LineSection, DObj.isLittleEndian(), /*AddressSize=*/8);
    DWARFDebugLine::SectionParser Parser(Data, Ctx, Ctx.normal_units());
    auto Handler = [&](Error E) { C.warn(O, 0, "DWARF line table: " + toString(std::move(E))); };
    for (unsigned N = 0; !Parser.done() && N < 10000; ++N) {
      uint64_t Offset = Parser.getOffset();
      DWARFDebugLine::LineTable LT = Parser.parseNext(Handler, Handler);
      json::Array Files;
      for (const auto &F : LT.Prologue.FileNames)
        if (auto Name = dwarf::toString(F.Name))
          Files.push_back(std::string(*Name));
      Tables.push_back(json::Object{{"offset", Offset},
                                    {"version", LT.Prologue.getVersion()},
                                    {"files", std::move(Files)},
                                    {"rows", int64_t(LT.Rows.size())}});
      if (Parser.getOffset() <= Offset)
        break;
    }
  }
  return json::Object{{"sections", std::move(SectionList)}, {"units", std::move(Units)},
                      {"lineTables", std::move(Tables)}};
}

} // namespace

json::Object describeDwarfOfElf(Context &C, const Origin &O, StringRef Bytes) {
  auto Obj = object::ObjectFile::createObjectFile(MemoryBufferRef(Bytes, O.Name));
  if (!Obj) {
    C.warn(O, 0, "cannot read debug information: " + toString(Obj.takeError()));
    return json::Object{};
  }
  json::Array SectionList;
  for (const object::SectionRef &S : (*Obj)->sections()) {
    Expected<StringRef> Name = S.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (Name->starts_with(".debug_") || Name->starts_with(".nv_debug"))
      SectionList.push_back(json::Object{{"name", Name->str()}, {"size", S.getSize()}});
  }
  auto Handler = [&](Error E) { C.warn(O, 0, "DWARF: " + toString(std::move(E))); };
  auto Ctx = DWARFContext::create(**Obj, DWARFContext::ProcessDebugRelocations::Ignore, nullptr, "", Handler,
                                  Handler);
  return describeContext(C, O, *Ctx, std::move(SectionList));
}

json::Object describeDwarfOfSections(Context &C, const Origin &O,
                                     const std::vector<std::pair<std::string, std::string>> &Sections,
                                     uint8_t AddressSize) {
  StringMap<std::unique_ptr<MemoryBuffer>> Map;
  json::Array SectionList;
  for (const auto &[Name, Data] : Sections) {
    SectionList.push_back(json::Object{{"name", Name}, {"size", Data.size()}});
    StringRef Key = StringRef(Name).drop_front(Name.starts_with(".") ? 1 : 0);
    Map[Key] = MemoryBuffer::getMemBufferCopy(Data, Name);
  }
  auto Handler = [&](Error E) { C.warn(O, 0, "DWARF: " + toString(std::move(E))); };
  auto Ctx = DWARFContext::create(Map, AddressSize, /*isLittleEndian=*/true, Handler, Handler);
  return describeContext(C, O, *Ctx, std::move(SectionList));
}

} // namespace ptxlink::dump

// Re-encoding compile units against one shared abbreviation table, with file numbers renumbered to the
// linked module's `.file` list (why: DwarfMerge.h). The walk reads DWARF 2-4 (32-bit) units, which is
// what nvcc -G, clang and ptxlink itself write; anything else is reported so the caller can keep the
// sections as they were.
#include "DwarfMerge.h"

#include "ptxlink/LittleEndian.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/LEB128.h"

#include <algorithm>

using namespace llvm;

namespace ptxlink {

namespace {

// The DWARF constants the walk needs (llvm/BinaryFormat/Dwarf.h would pull in LLVM's BinaryFormat library
// for a dozen numbers).
enum : uint64_t {
  FormAddr = 0x01, FormBlock2 = 0x03, FormBlock4 = 0x04, FormData2 = 0x05, FormData4 = 0x06,
  FormData8 = 0x07, FormString = 0x08, FormBlock = 0x09, FormBlock1 = 0x0a, FormData1 = 0x0b,
  FormFlag = 0x0c, FormSdata = 0x0d, FormStrp = 0x0e, FormUdata = 0x0f, FormRefAddr = 0x10,
  FormRef1 = 0x11, FormRef2 = 0x12, FormRef4 = 0x13, FormRef8 = 0x14, FormRefUdata = 0x15,
  FormIndirect = 0x16, FormSecOffset = 0x17, FormExprloc = 0x18, FormFlagPresent = 0x19,
  FormRefSig8 = 0x20,
  AtDeclFile = 0x3a, AtCallFile = 0x58,
};

Error failure(const Twine &Message) { return createStringError(inconvertibleErrorCode(), Message); }

/// A cursor over a byte string that reports running off its end instead of reading past it.
struct Reader {
  StringRef Bytes;
  uint64_t Pos = 0;
  bool Overrun = false;

  uint64_t fixed(unsigned Width) {
    if (Pos + Width > Bytes.size()) {
      Overrun = true;
      Pos = Bytes.size();
      return 0;
    }
    uint64_t V = 0;
    for (unsigned I = 0; I < Width; ++I)
      V |= uint64_t(uint8_t(Bytes[Pos + I])) << (8 * I);
    Pos += Width;
    return V;
  }
  uint64_t uleb() { return leb(decodeULEB128); }
  int64_t sleb() { return leb(decodeSLEB128); }
  /// One LEB128 number read with LLVM's decoder; a truncated one ends the walk (Overrun) and reads 0.
  template <typename Decoder> auto leb(Decoder Decode) -> decltype(Decode(nullptr, nullptr, nullptr, nullptr)) {
    const char *Err = nullptr;
    unsigned N = 0;
    auto V = Decode(reinterpret_cast<const uint8_t *>(Bytes.data()) + Pos, &N,
                    reinterpret_cast<const uint8_t *>(Bytes.data()) + Bytes.size(), &Err);
    if (Err) {
      Overrun = true;
      Pos = Bytes.size();
      return 0;
    }
    Pos += N;
    return V;
  }
  void skip(uint64_t N) {
    if (N > Bytes.size() - Pos) {
      Overrun = true;
      Pos = Bytes.size();
      return;
    }
    Pos += N;
  }
};

void putUleb(std::string &Out, uint64_t V) {
  uint8_t Buf[16];
  unsigned N = encodeULEB128(V, Buf);
  Out.append(reinterpret_cast<const char *>(Buf), N);
}
void putSleb(std::string &Out, int64_t V) {
  uint8_t Buf[16];
  unsigned N = encodeSLEB128(V, Buf);
  Out.append(reinterpret_cast<const char *>(Buf), N);
}

using AbbrevTable = DenseMap<uint64_t, AbbrevDecl>;

/// The abbreviation table that starts at Offset in Abbrev.
Expected<AbbrevTable> readAbbrevTable(StringRef Abbrev, uint64_t Offset) {
  if (Offset >= Abbrev.size())
    return failure("abbreviation table offset " + Twine(Offset) + " is past the end of .debug_abbrev (" +
                   Twine(Abbrev.size()) + " bytes)");
  Reader R{Abbrev, Offset};
  AbbrevTable Table;
  while (true) {
    uint64_t Code = R.uleb();
    if (R.Overrun)
      break;
    if (Code == 0)
      return Table;
    if (Code >= DenseMapInfo<uint64_t>::getTombstoneKey()) // the table's reserved keys: no real producer's
      return failure("abbreviation code " + Twine(Code) + " in the table at offset " + Twine(Offset) +
                     " of .debug_abbrev is out of range");
    AbbrevDecl D;
    D.Tag = R.uleb();
    D.HasChildren = R.fixed(1) != 0;
    while (!R.Overrun) {
      uint64_t Attr = R.uleb(), Form = R.uleb();
      if (Attr == 0 && Form == 0)
        break;
      D.Attributes.push_back({Attr, Form});
    }
    if (!Table.try_emplace(Code, std::move(D)).second)
      return failure("abbreviation code " + Twine(Code) + " declared twice in the table at offset " +
                     Twine(Offset) + " of .debug_abbrev");
  }
  return failure("the abbreviation table at offset " + Twine(Offset) + " of .debug_abbrev is truncated");
}

/// Bytes a value of Form occupies at R (which is left after it); false for forms the walk cannot size.
bool skipValue(Reader &R, uint64_t Form, unsigned AddressSize, unsigned Version) {
  switch (Form) {
  case FormAddr: R.skip(AddressSize); return true;
  case FormBlock2: R.skip(R.fixed(2)); return true;
  case FormBlock4: R.skip(R.fixed(4)); return true;
  case FormData2: case FormRef2: R.skip(2); return true;
  case FormData4: case FormRef4: case FormStrp: case FormSecOffset: R.skip(4); return true;
  case FormData8: case FormRef8: case FormRefSig8: R.skip(8); return true;
  case FormString: {
    size_t End = R.Bytes.find('\0', R.Pos);
    if (End == StringRef::npos)
      R.skip(R.Bytes.size() - R.Pos + 1);
    else
      R.Pos = End + 1;
    return true;
  }
  case FormBlock: case FormExprloc: R.skip(R.uleb()); return true;
  case FormBlock1: R.skip(R.fixed(1)); return true;
  case FormData1: case FormFlag: case FormRef1: R.skip(1); return true;
  case FormSdata: R.sleb(); return true;
  case FormUdata: case FormRefUdata: R.uleb(); return true;
  case FormRefAddr: R.skip(Version <= 2 ? AddressSize : 4); return true;
  case FormFlagPresent: return true;
  default: return false;
  }
}

bool isConstantForm(uint64_t Form) {
  return Form == FormData1 || Form == FormData2 || Form == FormData4 || Form == FormData8 ||
         Form == FormUdata || Form == FormSdata;
}

/// The narrowest of data1/data2/data4/data8 at least as wide as Form that holds Value (udata and sdata
/// hold anything).
uint64_t formHolding(uint64_t Form, uint64_t Value) {
  if (Form == FormUdata || Form == FormSdata)
    return Form;
  static constexpr std::pair<uint64_t, unsigned> Widths[] = {
      {FormData1, 1}, {FormData2, 2}, {FormData4, 4}, {FormData8, 8}};
  unsigned Min = 0;
  for (auto [F, W] : Widths)
    if (F == Form)
      Min = W;
  for (auto [F, W] : Widths)
    if (W >= Min && (W == 8 || Value < (uint64_t(1) << (8 * W))))
      return F;
  return FormData8;
}

unsigned fixedWidth(uint64_t Form) {
  switch (Form) {
  case FormData1: case FormRef1: return 1;
  case FormData2: case FormRef2: return 2;
  case FormData4: case FormRef4: return 4;
  default: return 8;
  }
}

} // namespace

uint64_t SharedAbbrevTable::codeFor(const AbbrevDecl &Decl) {
  auto [It, Inserted] = Codes.try_emplace(Decl, Codes.size() + 1);
  if (Inserted)
    InOrder.push_back(&It->first);
  return It->second;
}

std::string SharedAbbrevTable::encode() const {
  std::string Out;
  for (size_t I = 0; I < InOrder.size(); ++I) {
    const AbbrevDecl &D = *InOrder[I];
    putUleb(Out, I + 1);
    putUleb(Out, D.Tag);
    Out.push_back(D.HasChildren ? 1 : 0);
    for (auto [Attr, Form] : D.Attributes) {
      putUleb(Out, Attr);
      putUleb(Out, Form);
    }
    Out.append(2, '\0');
  }
  Out.push_back('\0');
  return Out;
}

namespace {

/// rewriteDebugInfo's walk: one compile unit after another (rewriteUnit), each DIE (rewriteDie) and each
/// attribute (rewriteAttribute) re-encoded into Out, then the unit's references patched to the DIEs' new
/// offsets (patchReferences). The input's relocations are consumed in offset order as the bytes holding
/// them are copied (NextReloc).
class DebugInfoRewriter {
public:
  DebugInfoRewriter(const ModuleVariant &Module, const Section &Info, const Section &Abbrev,
                    function_ref<uint64_t(uint64_t)> MapFile, SharedAbbrevTable &Shared)
      : Module(Module), Info(Info.contents()), Abbrev(Abbrev.contents()), MapFile(MapFile), Shared(Shared),
        Relocs(Module.relocs(Info)) {}

  Expected<RewrittenDebugInfo> run() {
    Out.Contents.reserve(Info.size() + Info.size() / 16);
    Out.Relocs.reserve(Relocs.size());
    for (uint64_t Pos = 0; Pos < Info.size();) {
      Expected<uint64_t> End = rewriteUnit(Pos);
      if (!End)
        return End.takeError();
      Pos = *End;
    }
    if (NextReloc != Relocs.size())
      return failure("a relocation past the last compile unit" + where(Relocs[NextReloc].Offset));
    return std::move(Out);
  }

private:
  /// A reference to a DIE of the same unit, written once the DIEs' new offsets are known.
  struct PendingRef {
    uint64_t At;     // output offset of the field
    uint64_t Form;   // ref1/2/4/8/ref_udata
    uint64_t Target; // unit-relative input offset
    unsigned Width;  // bytes of the field
  };
  /// Tables by offset in this module's .debug_abbrev, each with the shared code of every declaration
  /// that a DIE used unchanged (most DIEs: only a widened file number changes one), so the shared table
  /// is searched once per declaration, not once per DIE.
  struct TableUse {
    AbbrevTable Decls;
    DenseMap<uint64_t, uint64_t> SharedCodes;
  };
  /// The unit being rewritten.
  struct UnitState {
    uint64_t Start = 0, End = 0, NewStart = 0, AbbrevOffset = 0;
    unsigned Version = 0, AddressSize = 0;
    TableUse *Table = nullptr;
    std::vector<PendingRef> Refs;
  };

  static std::string where(uint64_t Offset) { return (" at offset " + Twine(Offset) + " of .debug_info").str(); }

  /// Relocations must only lie inside bytes that are copied; one that a rewrite would skip is an error.
  Error noRelocBefore(uint64_t Offset) {
    if (NextReloc < Relocs.size() && Relocs[NextReloc].Offset < Offset)
      return failure("a relocation inside a DWARF field that the link rewrites" + where(Relocs[NextReloc].Offset));
    return Error::success();
  }
  /// Relocation offsets are 32-bit (ObjectModel.h): a re-encoded section that grows past 4 GiB, where a
  /// relocation would land, is refused (the caller keeps the sections as read).
  Error pastRelocationRange(uint64_t Offset, const UnitState &U) {
    return failure("the re-encoded .debug_info would hold a relocation at offset " + Twine(Offset) + ", past 4 GiB" +
                   where(U.Start));
  }

  /// The unit at UnitStart: its header, its DIEs, its references. Returns where the next unit starts.
  Expected<uint64_t> rewriteUnit(uint64_t UnitStart) {
    UnitState U;
    U.Start = UnitStart;
    Reader R{Info, UnitStart};
    uint64_t Length = R.fixed(4);
    if (R.Overrun)
      return failure("truncated compile unit header" + where(UnitStart));
    if (Length >= 0xfffffff0)
      return failure("a DWARF64 compile unit" + where(UnitStart) + " (only 32-bit DWARF is merged)");
    U.End = UnitStart + 4 + Length;
    if (U.End > Info.size())
      return failure("compile unit" + where(UnitStart) + " is longer than the section");
    R.Bytes = Info.take_front(U.End);
    if (Error E = rewriteUnitHeader(R, U))
      return std::move(E);

    // DIEs. Offsets are unit-relative, as CU-relative references are.
    Out.Units.push_back({UnitStart, U.End, U.NewStart, 0, {}});
    Out.Units.back().Dies.reserve(Length / 8); // nvcc's DIEs average more than 8 bytes
    while (R.Pos < U.End)
      if (Error E = rewriteDie(R, U))
        return std::move(E);
    if (R.Pos != U.End)
      return failure("the last DIE of the compile unit" + where(UnitStart) + " runs past its end");
    uint64_t NewLength = Out.Contents.size() - U.NewStart - 4;
    writeLE(&Out.Contents[U.NewStart], NewLength, 4);
    if (Error E = patchReferences(U))
      return std::move(E);
    Out.Units.back().NewEnd = Out.Contents.size();
    Out.Moved |= U.NewStart != UnitStart || Out.Contents.size() != U.End;
    return U.End;
  }

  /// The header after the length: version, abbreviation offset (a relocation against .debug_abbrev,
  /// whose addend is the offset, or a number), address size. Written to Out with the length left for
  /// later and the abbreviation offset 0 (the shared table is the only one).
  Error rewriteUnitHeader(Reader &R, UnitState &U) {
    U.Version = R.fixed(2);
    if (U.Version < 2 || U.Version > 4)
      return failure("DWARF version " + Twine(U.Version) + where(U.Start) + " (versions 2 to 4 are merged)");
    const uint64_t AbbrevField = R.Pos;
    U.AbbrevOffset = R.fixed(4);
    const Relocation *AbbrevReloc = nullptr;
    if (Error E = noRelocBefore(AbbrevField))
      return E;
    if (NextReloc < Relocs.size() && Relocs[NextReloc].Offset == AbbrevField) {
      AbbrevReloc = &Relocs[NextReloc];
      if (AbbrevReloc->Kind != RelocKind::Data32 || AbbrevReloc->Symbol >= Module.Symbols.size() ||
          Module.Symbols[AbbrevReloc->Symbol].Kind != SymbolKind::Section ||
          Module.Symbols[AbbrevReloc->Symbol].name() != ".debug_abbrev")
        return failure("the abbreviation offset" + where(AbbrevField) + " does not refer to .debug_abbrev");
      U.AbbrevOffset = AbbrevReloc->Addend;
    }
    U.AddressSize = R.fixed(1);
    if (R.Overrun)
      return failure("truncated compile unit header" + where(U.Start));
    auto TableIt = Tables.find(U.AbbrevOffset);
    if (TableIt == Tables.end()) {
      auto Table = readAbbrevTable(Abbrev, U.AbbrevOffset);
      if (!Table)
        return Table.takeError();
      TableIt = Tables.emplace(U.AbbrevOffset, TableUse{std::move(*Table), DenseMap<uint64_t, uint64_t>()}).first;
    }
    U.Table = &TableIt->second;

    U.NewStart = Out.Contents.size();
    appendLE(Out.Contents, 0, 4);
    appendLE(Out.Contents, U.Version, 2);
    if (AbbrevReloc) {
      if (Out.Contents.size() > MaxRelocationOffset)
        return pastRelocationRange(Out.Contents.size(), U);
      Relocation N = *AbbrevReloc;
      N.Offset = uint32_t(Out.Contents.size());
      N.Addend = 0;
      Out.Relocs.push_back(N);
      ++NextReloc;
    }
    appendLE(Out.Contents, 0, 4);
    Out.Contents.push_back(char(U.AddressSize));
    return Error::success();
  }

  /// One DIE: its code (the shared table's code of its possibly widened declaration), then its attributes.
  /// The attributes go to a scratch string first: the code's length is known only once the new
  /// declaration (file attributes may widen) is.
  Error rewriteDie(Reader &R, UnitState &U) {
    const uint64_t DieStart = R.Pos;
    std::vector<std::pair<uint64_t, uint64_t>> &NewOffset = Out.Units.back().Dies;
    NewOffset.push_back({DieStart - U.Start, Out.Contents.size() - U.NewStart});
    Out.Moved |= NewOffset.back().first != NewOffset.back().second;
    uint64_t Code = R.uleb();
    if (R.Overrun)
      return failure("truncated DIE" + where(DieStart));
    if (Code == 0) {
      Out.Contents.push_back('\0');
      return Error::success();
    }
    const AbbrevTable &Table = U.Table->Decls;
    auto DeclIt = Code < DenseMapInfo<uint64_t>::getTombstoneKey() ? Table.find(Code) : Table.end();
    if (DeclIt == Table.end())
      return failure("DIE" + where(DieStart) + " uses abbreviation code " + Twine(Code) +
                     ", which its table (offset " + Twine(U.AbbrevOffset) + " of .debug_abbrev) does not declare");
    const AbbrevDecl &Decl = DeclIt->second;
    if (Error E = noRelocBefore(R.Pos))
      return E;
    Body.clear();
    BodyRelocs.clear();
    BodyRefs.clear();
    bool DeclChanged = false;
    NewDecl.Tag = Decl.Tag;
    NewDecl.HasChildren = Decl.HasChildren;
    NewDecl.Attributes.clear();
    for (auto [Attr, Form] : Decl.Attributes)
      if (Error E = rewriteAttribute(R, U, Attr, Form, DeclChanged))
        return E;
    // The code goes where the DIE starts (NewOffset), the attributes after it.
    uint64_t SharedCode;
    if (DeclChanged) {
      SharedCode = Shared.codeFor(NewDecl);
    } else {
      auto [It, Inserted] = U.Table->SharedCodes.try_emplace(Code, 0);
      if (Inserted)
        It->second = Shared.codeFor(NewDecl);
      SharedCode = It->second;
    }
    putUleb(Out.Contents, SharedCode);
    uint64_t BodyStart = Out.Contents.size();
    Out.Contents += Body;
    for (Relocation &N : BodyRelocs) {
      if (BodyStart + N.Offset > MaxRelocationOffset)
        return pastRelocationRange(BodyStart + N.Offset, U);
      N.Offset = uint32_t(BodyStart + N.Offset);
      Out.Relocs.push_back(N);
    }
    for (PendingRef &P : BodyRefs) {
      P.At += BodyStart;
      U.Refs.push_back(P);
    }
    return Error::success();
  }

  /// One attribute into Body and NewDecl: a file number (DW_AT_decl_file, DW_AT_call_file) renumbered, in
  /// a wider form if it must be; a reference within the unit left for patchReferences; anything else
  /// copied verbatim, with the relocations inside it.
  Error rewriteAttribute(Reader &R, const UnitState &U, uint64_t Attr, uint64_t Form, bool &DeclChanged) {
    uint64_t ActualForm = Form;
    if (Form == FormIndirect) {
      ActualForm = R.uleb();
      if (Error E = noRelocBefore(R.Pos))
        return E;
    }
    const uint64_t ValueStart = R.Pos;
    if ((Attr == AtDeclFile || Attr == AtCallFile) && isConstantForm(ActualForm)) {
      int64_t Signed = 0;
      uint64_t Value = ActualForm == FormUdata   ? R.uleb()
                       : ActualForm == FormSdata ? uint64_t(Signed = R.sleb())
                                                 : R.fixed(fixedWidth(ActualForm));
      if (R.Overrun)
        return failure("truncated attribute" + where(ValueStart));
      if (Error E = noRelocBefore(R.Pos))
        return E;
      uint64_t Mapped = Value == 0 ? 0 : MapFile(Value);
      uint64_t NewForm = formHolding(ActualForm, Mapped);
      NewDecl.Attributes.push_back({Attr, NewForm});
      DeclChanged |= NewForm != Form;
      if (NewForm == FormUdata)
        putUleb(Body, Mapped);
      else if (NewForm == FormSdata)
        putSleb(Body, Signed < 0 ? Signed : int64_t(Mapped));
      else
        appendLE(Body, Mapped, fixedWidth(NewForm));
      return Error::success();
    }
    NewDecl.Attributes.push_back({Attr, ActualForm});
    DeclChanged |= ActualForm != Form;
    if (ActualForm == FormRefAddr)
      return failure("DW_FORM_ref_addr" + where(ValueStart) + " (references between units are not merged)");
    if (ActualForm == FormRef1 || ActualForm == FormRef2 || ActualForm == FormRef4 || ActualForm == FormRef8 ||
        ActualForm == FormRefUdata) {
      uint64_t Target = ActualForm == FormRefUdata ? R.uleb() : R.fixed(fixedWidth(ActualForm));
      if (R.Overrun)
        return failure("truncated attribute" + where(ValueStart));
      if (Error E = noRelocBefore(R.Pos))
        return E;
      unsigned Width = ActualForm == FormRefUdata ? unsigned(R.Pos - ValueStart) : fixedWidth(ActualForm);
      BodyRefs.push_back({Body.size(), ActualForm, Target, Width});
      Body.append(Width, '\0');
      return Error::success();
    }
    if (!skipValue(R, ActualForm, U.AddressSize, U.Version))
      return failure("unknown attribute form " + Twine(ActualForm) + where(ValueStart));
    if (R.Overrun)
      return failure("truncated attribute" + where(ValueStart));
    while (NextReloc < Relocs.size() && Relocs[NextReloc].Offset < R.Pos) {
      Relocation N = Relocs[NextReloc++];
      N.Offset = uint32_t(N.Offset - ValueStart + Body.size()); // within this DIE's body
      BodyRelocs.push_back(N);
    }
    Body.append(Info.data() + ValueStart, R.Pos - ValueStart);
    return Error::success();
  }

  /// The unit's references, now that every DIE's new offset is known: each keeps its field's width.
  Error patchReferences(const UnitState &U) {
    for (const PendingRef &P : U.Refs) {
      std::optional<uint64_t> Moved = Out.Units.back().newDieOffset(P.Target);
      if (!Moved)
        return failure("a reference to unit offset " + Twine(P.Target) + ", where no DIE starts, in the unit" +
                       where(U.Start));
      uint64_t V = *Moved;
      if (P.Form == FormRefUdata) {
        // Same number of bytes as before (ULEB128 may be padded with continuation bytes).
        if (P.Width < 10 && V >= (uint64_t(1) << (7 * P.Width)))
          return failure("a DW_FORM_ref_udata reference that no longer fits its field in the unit" + where(U.Start));
        for (unsigned I = 0; I < P.Width; ++I)
          Out.Contents[P.At + I] = char(((V >> (7 * I)) & 0x7f) | (I + 1 < P.Width ? 0x80 : 0));
        continue;
      }
      if (P.Width < 8 && V >= (uint64_t(1) << (8 * P.Width)))
        return failure("a reference that no longer fits its field in the unit" + where(U.Start));
      writeLE(&Out.Contents[P.At], V, P.Width);
    }
    return Error::success();
  }

  const ModuleVariant &Module;
  StringRef Info, Abbrev;
  function_ref<uint64_t(uint64_t)> MapFile;
  SharedAbbrevTable &Shared;
  const ArrayRef<Relocation> Relocs; // sorted by offset
  size_t NextReloc = 0;
  RewrittenDebugInfo Out;
  std::map<uint64_t, TableUse> Tables;
  // Scratch for one DIE (reused: a -G module has tens of thousands of DIEs).
  std::string Body;
  std::vector<Relocation> BodyRelocs;
  std::vector<PendingRef> BodyRefs;
  AbbrevDecl NewDecl;
};

} // namespace

Expected<RewrittenDebugInfo> rewriteDebugInfo(const ModuleVariant &Module, const Section &Info,
                                              const Section &Abbrev, function_ref<uint64_t(uint64_t)> MapFile,
                                              SharedAbbrevTable &Shared) {
  return DebugInfoRewriter(Module, Info, Abbrev, MapFile, Shared).run();
}

std::optional<uint64_t> RewrittenDebugInfo::Unit::newDieOffset(uint64_t Old) const {
  auto It = std::lower_bound(Dies.begin(), Dies.end(), Old,
                             [](const std::pair<uint64_t, uint64_t> &D, uint64_t O) { return D.first < O; });
  if (It == Dies.end() || It->first != Old)
    return std::nullopt;
  return It->second;
}

std::optional<uint64_t> RewrittenDebugInfo::newOffset(uint64_t Old) const {
  for (const Unit &U : Units) {
    if (Old < U.OldStart || Old >= U.OldEnd)
      continue;
    if (Old == U.OldStart)
      return U.NewStart;
    std::optional<uint64_t> Die = U.newDieOffset(Old - U.OldStart);
    if (!Die)
      return std::nullopt;
    return U.NewStart + *Die;
  }
  return std::nullopt;
}

Expected<std::string> rewriteNameTable(const ModuleVariant &Module, const Section &Pub,
                                       const RewrittenDebugInfo &Info) {
  std::string Out = Pub.contents().str();
  auto where = [&](uint64_t Offset) { return (" at offset " + Twine(Offset) + " of " + Module.sectionName(Pub)).str(); };
  auto put = [&](uint64_t At, uint64_t V) { writeLE(&Out[At], V, 4); };
  Reader R{Pub.contents(), 0};
  while (R.Pos < Pub.contents().size()) {
    uint64_t SetStart = R.Pos;
    uint64_t Length = R.fixed(4);
    if (R.Overrun || Length >= 0xfffffff0 || SetStart + 4 + Length > Pub.contents().size())
      return failure("a malformed name table set" + where(SetStart));
    R.Bytes = Pub.contents().take_front(SetStart + 4 + Length);
    R.fixed(2); // version
    // The unit: a relocation against .debug_info (its addend) or a number.
    uint64_t UnitField = R.Pos, UnitOffset = R.fixed(4);
    for (const Relocation &Rel : Module.relocs(Pub))
      if (Rel.Offset == UnitField)
        UnitOffset = Rel.Addend;
    const RewrittenDebugInfo::Unit *U = nullptr;
    for (const RewrittenDebugInfo::Unit &Candidate : Info.Units)
      if (Candidate.OldStart == UnitOffset)
        U = &Candidate;
    if (!U)
      return failure("a name table set for no compile unit (.debug_info offset " + Twine(UnitOffset) + ")" +
                     where(SetStart));
    uint64_t SizeField = R.Pos;
    R.fixed(4);
    put(SizeField, U->NewEnd - U->NewStart);
    while (true) {
      uint64_t EntryField = R.Pos, Die = R.fixed(4);
      if (R.Overrun)
        return failure("a truncated name table set" + where(SetStart));
      if (Die == 0)
        break;
      std::optional<uint64_t> Moved = U->newDieOffset(Die);
      if (!Moved)
        return failure("a name table entry for unit offset " + Twine(Die) + ", where no DIE starts" +
                       where(EntryField));
      put(EntryField, *Moved);
      size_t End = Pub.contents().find('\0', R.Pos);
      if (End == StringRef::npos || End >= R.Bytes.size())
        return failure("a truncated name table set" + where(SetStart));
      R.Pos = End + 1;
    }
    R.Bytes = Pub.contents();
    R.Pos = SetStart + 4 + Length;
  }
  return Out;
}

} // namespace ptxlink

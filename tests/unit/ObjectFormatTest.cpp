// Tests of the ptxlink object format: every field of a hand-built model survives write -> read, output
// is deterministic, fat objects keep all variants, and corrupt or truncated input gives an error naming
// the file and offset instead of a crash.

#include "ObjectFormatTestModel.h"
#include "PtxlinkElf.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <gtest/gtest.h>
#include <cstdio>
#include <cstring>

#include <random>

using namespace ptxlink;
using namespace ptxlink::testmodel;

namespace {

std::string writeToString(const ObjectFile &O) {
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  llvm::Error E = writeObject(O, OS);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  OS.flush();
  return Bytes;
}

llvm::Expected<std::unique_ptr<ObjectFile>> readFromString(llvm::StringRef Bytes, llvm::StringRef Name = "t.o") {
  return readObject(llvm::MemoryBuffer::getMemBufferCopy(Bytes, Name));
}

/// The file offset of the contents of the first section of ELF type Type in Bytes (an object of one
/// plain variant), or 0: where a test patches a field of one of our tables.
uint64_t sectionOffsetOfType(const std::string &Bytes, uint32_t Type) {
  llvm::ELF::Elf64_Ehdr Ehdr;
  std::memcpy(&Ehdr, Bytes.data(), sizeof(Ehdr));
  for (unsigned I = 1; I < Ehdr.e_shnum; ++I) {
    llvm::ELF::Elf64_Shdr Shdr;
    std::memcpy(&Shdr, Bytes.data() + Ehdr.e_shoff + I * sizeof(Shdr), sizeof(Shdr));
    if (Shdr.sh_type == Type)
      return Shdr.sh_offset;
  }
  return 0;
}

/// Reads Patched as File and expects the reader's refusal at byte Offset with Message.
void expectRefusedAt(const std::string &Patched, const std::string &File, uint64_t Offset, const std::string &Message) {
  auto R = readFromString(Patched, File);
  ASSERT_FALSE(bool(R));
  char Where[32];
  std::snprintf(Where, sizeof(Where), "offset 0x%llX: ", static_cast<unsigned long long>(Offset));
  EXPECT_EQ(llvm::toString(R.takeError()), File + ": " + Where + Message);
}

void expectLoc(Loc A, Loc B) {
  EXPECT_EQ(A.Line, B.Line);
  EXPECT_EQ(A.Column, B.Column);
}

void expectParams(llvm::ArrayRef<ParamInfo> A, llvm::ArrayRef<ParamInfo> B) {
  ASSERT_EQ(A.size(), B.size());
  for (size_t I = 0; I < A.size(); ++I) {
    EXPECT_EQ(A[I].Space, B[I].Space);
    EXPECT_EQ(A[I].type(), B[I].type());
    EXPECT_EQ(A[I].VectorWidth, B[I].VectorWidth);
    EXPECT_EQ(std::vector<uint64_t>(A[I].ArrayDims.begin(), A[I].ArrayDims.end()),
              std::vector<uint64_t>(B[I].ArrayDims.begin(), B[I].ArrayDims.end()));
    EXPECT_EQ(A[I].UnsizedArray, B[I].UnsizedArray);
    EXPECT_EQ(A[I].Align, B[I].Align);
    EXPECT_EQ(A[I].IsPtr, B[I].IsPtr);
    EXPECT_EQ(A[I].PtrSpace, B[I].PtrSpace);
    EXPECT_EQ(A[I].PtrAlign, B[I].PtrAlign);
    EXPECT_EQ(A[I].name(), B[I].name());
    expectLoc(A[I].Where, B[I].Where);
  }
}

void expectSameVariant(const ModuleVariant &A, const ModuleVariant &B) {
  EXPECT_EQ(A.SourceName, B.SourceName);
  EXPECT_EQ(A.Target.VersionMajor, B.Target.VersionMajor);
  EXPECT_EQ(A.Target.VersionMinor, B.Target.VersionMinor);
  EXPECT_EQ(A.Target.Arch, B.Target.Arch);
  EXPECT_EQ(A.Target.Options, B.Target.Options);
  EXPECT_EQ(A.Target.Debug, B.Target.Debug);
  EXPECT_EQ(A.Target.MapF64ToF32, B.Target.MapF64ToF32);
  EXPECT_EQ(A.Target.Texmode, B.Target.Texmode);
  EXPECT_EQ(A.Target.AddressSize, B.Target.AddressSize);
  EXPECT_EQ(A.Target.AddressSizeGiven, B.Target.AddressSizeGiven);

  ASSERT_EQ(A.Symbols.size(), B.Symbols.size());
  for (size_t I = 0; I < A.Symbols.size(); ++I) {
    SCOPED_TRACE("symbol " + std::to_string(I) + " " + A.Symbols[I].name().str());
    const Symbol &X = A.Symbols[I], &Y = B.Symbols[I];
    EXPECT_EQ(X.name(), Y.name());
    EXPECT_EQ(X.Kind, Y.Kind);
    EXPECT_EQ(X.Bind, Y.Bind);
    EXPECT_EQ(X.Space, Y.Space);
    EXPECT_EQ(X.Section, Y.Section);
    EXPECT_EQ(X.value(), Y.value());
    EXPECT_EQ(X.size(), Y.size());
    EXPECT_EQ(X.align(), Y.align());
    EXPECT_EQ(A.aliasOf(I), B.aliasOf(I));
    EXPECT_EQ(X.Initialized, Y.Initialized);
    expectLoc(X.Where, Y.Where);
  }
  ASSERT_EQ(A.Sections.size(), B.Sections.size());
  for (size_t I = 0; I < A.Sections.size(); ++I) {
    SCOPED_TRACE("section " + std::to_string(I));
    const Section &X = A.Sections[I], &Y = B.Sections[I];
    EXPECT_EQ(A.sectionName(X), B.sectionName(Y));
    EXPECT_EQ(X.Kind, Y.Kind);
    EXPECT_EQ(X.Symbol, Y.Symbol);
    EXPECT_EQ(X.contents(), Y.contents());
    EXPECT_EQ(X.HeaderLength, Y.HeaderLength);
    expectLoc(A.sectionWhere(X), B.sectionWhere(Y));
    const llvm::ArrayRef<Relocation> XR = A.relocs(X), YR = B.relocs(Y);
    ASSERT_EQ(XR.size(), YR.size());
    for (size_t K = 0; K < XR.size(); ++K) {
      EXPECT_EQ(XR[K].Offset, YR[K].Offset);
      EXPECT_EQ(XR[K].Symbol, YR[K].Symbol);
      EXPECT_EQ(XR[K].Kind, YR[K].Kind);
      EXPECT_EQ(XR[K].Length, YR[K].Length);
      EXPECT_EQ(XR[K].isCall(), YR[K].isCall());
      EXPECT_EQ(XR[K].isCallTarget(), YR[K].isCallTarget());
      EXPECT_EQ(XR[K].Addend, YR[K].Addend);
    }
  }
  ASSERT_EQ(A.Functions.size(), B.Functions.size());
  for (size_t I = 0; I < A.Functions.size(); ++I) {
    SCOPED_TRACE("function " + std::to_string(I));
    const FunctionAbi &X = A.Functions[I], &Y = B.Functions[I];
    EXPECT_EQ(X.Symbol, Y.Symbol);
    EXPECT_EQ(X.IsKernel, Y.IsKernel);
    EXPECT_EQ(X.HasBody, Y.HasBody);
    expectParams(A.returns(X), B.returns(Y));
    expectParams(A.params(X), B.params(Y));
    EXPECT_EQ(X.NoReturn, Y.NoReturn);
    EXPECT_EQ(A.tuning(X).AbiPreserve, B.tuning(Y).AbiPreserve);
    EXPECT_EQ(A.tuning(X).AbiPreserveControl, B.tuning(Y).AbiPreserveControl);
    EXPECT_EQ(A.tuning(X).Attributes, B.tuning(Y).Attributes);
    EXPECT_EQ(A.tuning(X).MaxNReg, B.tuning(Y).MaxNReg);
    EXPECT_EQ(A.tuning(X).MaxNTid, B.tuning(Y).MaxNTid);
    EXPECT_EQ(A.tuning(X).ReqNTid, B.tuning(Y).ReqNTid);
    EXPECT_EQ(A.tuning(X).ReqNCtaPerCluster, B.tuning(Y).ReqNCtaPerCluster);
    EXPECT_EQ(A.tuning(X).MinNCtaPerSm, B.tuning(Y).MinNCtaPerSm);
    EXPECT_EQ(A.tuning(X).MaxNCtaPerSm, B.tuning(Y).MaxNCtaPerSm);
    EXPECT_EQ(A.tuning(X).MaxClusterRank, B.tuning(Y).MaxClusterRank);
    EXPECT_EQ(A.tuning(X).ExplicitCluster, B.tuning(Y).ExplicitCluster);
    EXPECT_EQ(A.tuning(X).BlocksAreClusters, B.tuning(Y).BlocksAreClusters);
    EXPECT_EQ(A.tuning(X).Pragmas, B.tuning(Y).Pragmas);
    expectLoc(A.functionWhere(X), B.functionWhere(Y));
  }
  ASSERT_EQ(A.Variables.size(), B.Variables.size());
  for (size_t I = 0; I < A.Variables.size(); ++I) {
    const VariableAbi &X = A.Variables[I], &Y = B.Variables[I];
    EXPECT_EQ(X.Symbol, Y.Symbol);
    EXPECT_EQ(X.Space, Y.Space);
    EXPECT_EQ(X.Type, Y.Type);
    EXPECT_EQ(X.VectorWidth, Y.VectorWidth);
    EXPECT_EQ(std::vector<uint64_t>(X.ArrayDims.begin(), X.ArrayDims.end()),
              std::vector<uint64_t>(Y.ArrayDims.begin(), Y.ArrayDims.end()));
    EXPECT_EQ(X.UnsizedArray, Y.UnsizedArray);
    EXPECT_EQ(X.Align, Y.Align);
    EXPECT_EQ(X.Attributes, Y.Attributes);
    EXPECT_EQ(X.Initialized, Y.Initialized);
    expectLoc(X.Where, Y.Where);
  }
  ASSERT_EQ(A.prototypes().size(), B.prototypes().size());
  for (size_t I = 0; I < A.prototypes().size(); ++I) {
    const PrototypeAbi &X = A.prototypes()[I], &Y = B.prototypes()[I];
    EXPECT_EQ(X.Label, Y.Label);
    EXPECT_EQ(X.Function, Y.Function);
    expectParams(X.Returns, Y.Returns);
    expectParams(X.Params, Y.Params);
    EXPECT_EQ(X.NoReturn, Y.NoReturn);
    EXPECT_EQ(X.AbiPreserve, Y.AbiPreserve);
    EXPECT_EQ(X.AbiPreserveControl, Y.AbiPreserveControl);
    EXPECT_EQ(X.CallTargets, Y.CallTargets);
    expectLoc(X.Where, Y.Where);
  }
  ASSERT_EQ(A.files().size(), B.files().size());
  for (size_t I = 0; I < A.files().size(); ++I) {
    EXPECT_EQ(A.files()[I].Index, B.files()[I].Index);
    EXPECT_EQ(A.files()[I].Path, B.files()[I].Path);
    EXPECT_EQ(A.files()[I].Timestamp, B.files()[I].Timestamp);
    EXPECT_EQ(A.files()[I].Size, B.files()[I].Size);
  }
}

TEST(ObjectFormat, RoundTripsEveryField) {
  auto O = buildFullModel();
  O->Variants[0].Target.Options = {"debug", "texmode_independent"};
  O->Variants[0].Target.Debug = true;
  O->Variants[0].Target.Texmode = "texmode_independent";
  O->Variants[0].Target.MapF64ToF32 = true;
  std::string Bytes = writeToString(*O);
  ASSERT_TRUE(isPtxlinkObject(Bytes));
  auto Read = readFromString(Bytes);
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  ASSERT_EQ((*Read)->Variants.size(), 1u);
  expectSameVariant(O->Variants[0], (*Read)->Variants[0]);
  // Reading copies nothing: contents point into the buffer the object adopted.
  EXPECT_EQ(writeToString(**Read), Bytes);
}

TEST(ObjectFormat, EmptyModuleRoundTrips) {
  ObjectFile O;
  O.Variants.emplace_back();
  O.Variants[0].Target.Arch = "sm_52";
  std::string Bytes = writeToString(O);
  auto Read = readFromString(Bytes);
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  expectSameVariant(O.Variants[0], (*Read)->Variants[0]);
}

TEST(ObjectFormat, WriterIsDeterministic) {
  auto A = buildFullModel(), B = buildFullModel();
  EXPECT_EQ(writeToString(*A), writeToString(*B));
}

// The writer puts every relocation section's data after all the contents (docs/object-format.md, section
// 2): a reader then finds an object's relocations on a few consecutive pages rather than on one page of
// text per function, and a large object's reader gives them back behind itself in that order.
TEST(ObjectFormat, RelocationsFollowAllContents) {
  std::string Bytes = writeToString(*buildFullModel());
  auto File = llvm::object::ELF64LEFile::create(Bytes);
  ASSERT_TRUE(bool(File)) << llvm::toString(File.takeError());
  auto Sections = File->sections();
  ASSERT_TRUE(bool(Sections)) << llvm::toString(Sections.takeError());
  uint64_t ContentsEnd = 0, FirstRela = UINT64_MAX;
  size_t Relas = 0;
  for (const auto &S : *Sections) {
    if (S.sh_type == llvm::ELF::SHT_PROGBITS)
      ContentsEnd = std::max<uint64_t>(ContentsEnd, S.sh_offset + S.sh_size);
    if (S.sh_type == llvm::ELF::SHT_RELA) {
      FirstRela = std::min<uint64_t>(FirstRela, S.sh_offset);
      ++Relas;
    }
  }
  ASSERT_GE(Relas, 2u); // the model has relocations in more than one section
  EXPECT_LE(ContentsEnd, FirstRela);
  // And the object reads back as written.
  auto Read = readFromString(Bytes);
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  EXPECT_EQ(writeToString(**Read), Bytes);
}

TEST(ObjectFormat, HeaderIsEmCudaWithOwnOsAbi) {
  std::string Bytes = writeToString(*buildFullModel());
  ASSERT_GE(Bytes.size(), 64u);
  EXPECT_EQ(Bytes[7], 0x50);   // EI_OSABI
  EXPECT_EQ(Bytes[18], char(190)); // EM_CUDA
  EXPECT_EQ(Bytes[16], 1);     // ET_REL
  std::string Cubin = Bytes;
  Cubin[7] = 0x41;
  EXPECT_FALSE(isPtxlinkObject(Cubin));
  auto R = readFromString(Cubin, "cubin.o");
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("NVIDIA cubin"), std::string::npos);
}

TEST(ObjectFormat, FatObjectKeepsAllVariants) {
  auto A = buildFullModel("sm_80"), B = buildFullModel("sm_90a");
  ObjectFile Fat;
  for (auto *Src : {A.get(), B.get()})
    Fat.Variants.push_back(Src->Variants[0]); // strings stay in A's and B's arenas, alive here
  std::string Bytes = writeToString(Fat);
  EXPECT_EQ(Bytes, writeToString(Fat));
  auto Read = readFromString(Bytes, "fat.o");
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  ASSERT_EQ((*Read)->Variants.size(), 2u);
  expectSameVariant(A->Variants[0], (*Read)->Variants[0]);
  expectSameVariant(B->Variants[0], (*Read)->Variants[1]);
  // Each variant section holds exactly the plain object of that variant.
  std::string Plain = writeToString(*A);
  EXPECT_NE(Bytes.find(Plain), std::string::npos);
}

TEST(ObjectFormat, ExtendedSectionNumbering) {
  // 40000 functions with one relocation each: 80000+ ELF sections, past the 0xff00 of plain ELF numbering.
  ObjectFile O;
  O.Variants.emplace_back();
  ModuleVariant &V = O.Variants[0];
  V.Target.Arch = "sm_80";
  constexpr uint32_t N = 40000;
  V.Symbols.reserve(N);
  V.Sections.reserve(N);
  for (uint32_t I = 0; I < N; ++I) {
    std::string Name = "f";
    Name += std::to_string(I); // not "f" + std::string: a g++ 12 -Wrestrict false positive
    addSymbol(V, O.save(Name), SymbolKind::Function, I % 3 ? Binding::Global : Binding::Local, I);
    Section S;
    S.Symbol = I; // named and placed by its symbol
    S.setContents(O.save(".func " + Name + "()\n{\n\tret;\n}"));
    S.HeaderLength = static_cast<uint32_t>(S.contents().find('{') - 1);
    Relocation R;
    R.Offset = 6;
    R.Length = static_cast<uint32_t>(Name.size());
    R.Symbol = I;
    V.appendRelocs(S, {R});
    V.Sections.push_back(std::move(S));
  }
  std::string Bytes = writeToString(O);
  EXPECT_EQ(Bytes[60], 0); // e_shnum = 0: the count is in section 0
  EXPECT_EQ(Bytes[61], 0);
  auto Read = readFromString(Bytes, "many.o");
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  expectSameVariant(V, (*Read)->Variants[0]);
  EXPECT_TRUE((*Read)->Variants[0].sectionLabels().empty()); // every name and place is a symbol's
  EXPECT_EQ(writeToString(**Read), Bytes);
}

// A function's or variable's section has no name or place of its own (Section is 40 bytes): they are
// its symbol's. A section record naming something else, or placed elsewhere, is kept as read.
TEST(ObjectFormat, SectionsTakeTheirNameAndPlaceFromTheirSymbol) {
  ObjectFile O;
  O.Variants.emplace_back();
  ModuleVariant &V = O.Variants[0];
  V.Target.Arch = "sm_80";
  const uint32_t F = addSymbol(V, "f", SymbolKind::Function, Binding::Global, 0);
  const uint32_t G = addSymbol(V, "g", SymbolKind::Function, Binding::Global, 1);
  const uint32_t H = addSymbol(V, "h", SymbolKind::Function, Binding::Global, 2);
  auto add = [&](uint32_t Sym, llvm::StringRef Name, Loc Where) {
    Section S;
    S.Symbol = Sym;
    S.setContents(O.save(".func " + V.Symbols[Sym].name().str() + "()\n{\n\tret;\n}"));
    EXPECT_TRUE(V.labelSection(S, Name, Where));
    V.startRelocs(S);
    V.Sections.push_back(S);
  };
  add(F, "f", V.Symbols[F].Where);                   // its symbol's: nothing of its own
  add(G, "other", V.Symbols[G].Where);               // another name
  add(H, "h", Loc{V.Symbols[H].Where.Line + 7, 2});  // another place
  EXPECT_EQ(V.Sections[0].Label, NoLabel);
  ASSERT_EQ(V.sectionLabels().size(), 2u);
  EXPECT_EQ(V.sectionName(0), "f");
  EXPECT_EQ(V.sectionWhere(0).Line, V.Symbols[F].Where.Line);

  std::string Bytes = writeToString(O);
  auto Read = readFromString(Bytes, "labels.o");
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  const ModuleVariant &R = (*Read)->Variants[0];
  expectSameVariant(V, R);
  EXPECT_EQ(R.Sections[0].Label, NoLabel);
  EXPECT_EQ(R.sectionName(1), "other");
  EXPECT_EQ(R.sectionName(2), "h");
  EXPECT_EQ(R.sectionWhere(2).Line, V.Symbols[H].Where.Line + 7);
  EXPECT_EQ(R.sectionWhere(2).Column, 2u);
  EXPECT_EQ(R.sectionLabels().size(), 2u);
  EXPECT_EQ(writeToString(**Read), Bytes);
}

TEST(ObjectFormat, FunctionRecordsReadTheirVariantsTables) {
  // FunctionAbi is indexes only: lists in V.Params, rare parts in V.FunctionExtras, its place its symbol's
  // unless it has one of its own. Copying a record into another variant copies what it indexes.
  static_assert(sizeof(FunctionAbi) == 16);
  ObjectFile O;
  O.Variants.resize(2);
  ModuleVariant &V = O.Variants[0], &W = O.Variants[1];
  V.Target.Arch = W.Target.Arch = "sm_80";
  const uint32_t F = addSymbol(V, "f", SymbolKind::Function, Binding::Undefined);
  const uint32_t G = addSymbol(V, "g", SymbolKind::Function, Binding::Undefined);
  FunctionAbi RF, RG;
  RF.Symbol = F;
  RG.Symbol = G;
  V.appendSignature(RF, {param(".b32", "r")}, {param(".b64", "a"), param(".b32", "b")});
  V.appendSignature(RG, {}, {});
  V.editTuning(RG).AbiPreserve = 4;
  V.setFunctionWhere(RF, V.Symbols[F].Where); // its symbol's: nothing of its own
  V.setFunctionWhere(RG, {40, 2});            // another place
  V.Functions = {RF, RG};
  EXPECT_EQ(RF.Extra, NoExtra);
  EXPECT_EQ(V.tuning(RF).AbiPreserve, std::nullopt);
  ASSERT_EQ(V.returns(RF).size(), 1u);
  ASSERT_EQ(V.params(RF).size(), 2u);
  EXPECT_EQ(V.params(RF)[1].name(), "b");
  EXPECT_TRUE(V.params(RG).empty());
  EXPECT_EQ(V.tuning(RG).AbiPreserve, 4u);
  EXPECT_EQ(V.functionWhere(RF).Line, V.Symbols[F].Where.Line);
  EXPECT_EQ(V.functionWhere(RG).Line, 40u);
  EXPECT_EQ(V.functionWhere(RG).Column, 2u);
  // Given its symbol's place again, it has none of its own.
  FunctionAbi Again = RG;
  V.setFunctionWhere(Again, V.Symbols[G].Where);
  EXPECT_FALSE(V.functionExtras()[Again.Extra].Where.has_value());
  EXPECT_EQ(V.functionWhere(Again).Line, V.Symbols[G].Where.Line);
  V.rare().FunctionExtras[Again.Extra].Where = Loc{40, 2};

  // Into another variant whose symbols sit elsewhere: same lists, tuning and places.
  addSymbol(W, "pad", SymbolKind::Function, Binding::Undefined);
  const uint32_t WG = addSymbol(W, "g", SymbolKind::Function, Binding::Undefined);
  const uint32_t WF = addSymbol(W, "f", SymbolKind::Function, Binding::Undefined);
  W.copyFunction(V, V.Functions[1], WG);
  W.copyFunction(V, V.Functions[0], WF);
  ASSERT_EQ(W.Functions.size(), 2u);
  const FunctionAbi &CG = W.Functions[0], &CF = W.Functions[1];
  EXPECT_EQ(CF.Symbol, WF);
  ASSERT_EQ(W.params(CF).size(), 2u);
  EXPECT_EQ(W.params(CF)[0].type(), ".b64");
  EXPECT_EQ(W.returns(CF)[0].name(), "r");
  EXPECT_EQ(W.tuning(CG).AbiPreserve, 4u);
  EXPECT_EQ(W.functionWhere(CG).Line, 40u);
  EXPECT_EQ(W.functionWhere(CF).Line, V.Symbols[F].Where.Line); // f's place, not W's symbol's
  EXPECT_NE(W.Symbols[WF].Where.Line, V.Symbols[F].Where.Line);
  // Within one variant too (the lists are read before the table grows).
  V.copyFunction(V, V.Functions[0], G);
  EXPECT_EQ(V.Params.size(), 6u);
  EXPECT_EQ(V.params(V.Functions[2])[1].name(), "b");

  // Written and read back: the same records, and the same bytes again.
  V.Functions.pop_back();
  V.Params.resize(3);
  std::string Bytes = writeToString(O);
  auto Read = readFromString(Bytes, "functions.o");
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  expectSameVariant(V, (*Read)->Variants[0]);
  expectSameVariant(W, (*Read)->Variants[1]);
  EXPECT_EQ((*Read)->Variants[0].Functions[0].Extra, NoExtra);
  EXPECT_EQ(writeToString(**Read), Bytes);

  // A record whose lists lie past its variant's table is refused by the writer.
  V.Functions[0].ParamCount = 7;
  std::string Ignored;
  llvm::raw_string_ostream OS(Ignored);
  llvm::Error E = writeObject(O, OS);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("parameters past the module's table"), std::string::npos);
}

TEST(ObjectFormat, FunctionRecordCountsFitTheirBitFields) {
  // FunctionAbi keeps its counts in bit-fields (16 bytes a record): the reader refuses a record with more
  // return values than MaxFunctionReturns at its count, instead of keeping a count that wrapped. The
  // greatest count round-trips.
  static_assert(sizeof(FunctionAbi) == 16);
  ObjectFile O;
  O.Variants.resize(1);
  ModuleVariant &V = O.Variants[0];
  V.Target.Arch = "sm_80";
  FunctionAbi R;
  R.Symbol = addSymbol(V, "f", SymbolKind::Function, Binding::Undefined);
  std::vector<ParamInfo> Returns(MaxFunctionReturns, param(".b32", "r"));
  V.appendSignature(R, Returns, {param(".b32", "a")});
  V.Functions.push_back(R);
  const std::string Bytes = writeToString(O);
  auto Read = readFromString(Bytes, "counts.o");
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  ASSERT_EQ((*Read)->Variants[0].Functions.size(), 1u);
  EXPECT_EQ((*Read)->Variants[0].Functions[0].ReturnCount, MaxFunctionReturns);
  EXPECT_EQ((*Read)->Variants[0].Functions[0].ParamCount, 1u);

  // The first record's return count: 16 bytes of ABI header, then its symbol, flags and preserve counts.
  const uint64_t Abi = sectionOffsetOfType(Bytes, elf::ShtAbi);
  ASSERT_NE(Abi, 0u);
  const uint64_t Field = Abi + 16 + 4 + 12;
  ASSERT_EQ(llvm::support::endian::read32le(&Bytes[Field]), MaxFunctionReturns);
  std::string Patched = Bytes;
  llvm::support::endian::write32le(&Patched[Field], MaxFunctionReturns + 1);
  expectRefusedAt(Patched, "counts.o", Field, "function ABI record has 256 return values (at most 255 are supported)");
}

TEST(ObjectFormat, InvalidModelIsRejectedByWriter) {
  auto O = buildFullModel();
  O->Variants[0].relocs(O->Variants[0].Sections[1])[0].Symbol = 999;
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  llvm::Error E = writeObject(*O, OS);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("invalid model"), std::string::npos);
}

/// The full model plus a function whose `.loc` names an offset in .debug_abbrev (a SectionOffset).
std::unique_ptr<ObjectFile> modelWithSectionOffset(int64_t Offset, llvm::StringRef Target = ".debug_abbrev") {
  auto O = buildFullModel();
  ModuleVariant &V = O->Variants[0];
  uint32_t Fn = addSymbol(V, "withloc", SymbolKind::Function, Binding::Global,
                          static_cast<uint32_t>(V.Sections.size()));
  std::string Ref = Target.str();
  if (Offset) {
    Ref += '+';
    Ref += std::to_string(Offset);
  }
  std::string Text = ".func withloc()\n{\n\t.loc 1 2 3, function_name ";
  Text += Ref;
  Text += ", inlined_at 1 1 1\n\tret;\n}";
  Section S;
  S.Kind = SectionKind::Function;
  S.Symbol = Fn;
  EXPECT_TRUE(V.labelSection(S, "withloc", V.Symbols[Fn].Where));
  S.setContents(O->save(Text));
  S.HeaderLength = static_cast<uint32_t>(Text.find('{') - 1);
  V.appendRelocs(S, {Relocation{6, Fn, RelocKind::NameRef, 7, 0},
                     Relocation{uint32_t(Text.find(Target.str())), V.findSymbol(Target), RelocKind::SectionOffset,
                                static_cast<uint32_t>(Ref.size()), int32_t(Offset)}});
  V.Sections.push_back(std::move(S));
  return O;
}

TEST(ObjectFormat, SectionOffsetRoundTripsAndPrints) {
  for (int64_t Offset : {0, 3, 0x7fffffff}) {
    auto O = modelWithSectionOffset(Offset);
    std::string Bytes = writeToString(*O);
    auto Read = readFromString(Bytes);
    ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
    expectSameVariant(O->Variants[0], (*Read)->Variants[0]);
    std::string Ptx;
    llvm::raw_string_ostream OS(Ptx);
    printModule((*Read)->Variants[0], OS);
    OS.flush();
    std::string Want = "function_name .debug_abbrev";
    if (Offset) {
      Want += '+';
      Want += std::to_string(Offset);
    }
    Want += ", inlined_at";
    EXPECT_NE(Ptx.find(Want), std::string::npos) << Ptx;
  }
}

TEST(ObjectFormat, SectionOffsetChecks) {
  // The writer refuses an offset it cannot encode; the reader, one against a symbol that is no section.
  auto Negative = modelWithSectionOffset(-1);
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  llvm::Error E = writeObject(*Negative, OS);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("section offset relocation"), std::string::npos);

  auto NotASection = modelWithSectionOffset(4, "gtab");
  auto Read = readFromString(writeToString(*NotASection));
  ASSERT_FALSE(bool(Read));
  EXPECT_NE(llvm::toString(Read.takeError()).find("'gtab', which is not a section symbol"), std::string::npos);
}

TEST(ObjectFormat, TruncatedInputGivesErrorsNotCrashes) {
  std::string Bytes = writeToString(*buildFullModel());
  for (size_t N = 0; N < Bytes.size(); ++N) {
    auto R = readFromString(llvm::StringRef(Bytes).take_front(N), "trunc.o");
    if (R) {
      ADD_FAILURE() << "prefix of " << N << " bytes was accepted";
      continue;
    }
    std::string Msg = llvm::toString(R.takeError());
    EXPECT_EQ(Msg.rfind("trunc.o: offset 0x", 0), 0u) << Msg;
  }
}

TEST(ObjectFormat, CorruptedBytesNeverCrash) {
  // Every byte of a plain and of a fat object replaced by values chosen to break sizes, counts, offsets
  // and indices. The reader may accept (e.g. a changed text byte) but must not crash or over-allocate.
  auto A = buildFullModel("sm_80"), B = buildFullModel("sm_90");
  ObjectFile Fat;
  Fat.Variants = {A->Variants[0], B->Variants[0]};
  for (const std::string &Bytes : {writeToString(*A), writeToString(Fat)}) {
    size_t Errors = 0;
    for (size_t I = 0; I < Bytes.size(); ++I)
      for (uint8_t X : {0x00, 0xff}) {
        if (uint8_t(Bytes[I]) == X)
          continue;
        std::string Bad = Bytes;
        Bad[I] = static_cast<char>(X);
        auto R = readFromString(Bad, "bad.o");
        if (!R) {
          std::string Msg = llvm::toString(R.takeError());
          EXPECT_EQ(Msg.rfind("bad.o: offset 0x", 0), 0u) << Msg;
          ++Errors;
        } else {
          // Whatever was accepted must be printable and writable without trouble.
          std::string Out;
          llvm::raw_string_ostream OS(Out);
          for (const ModuleVariant &V : (*R)->Variants)
            printModule(V, OS);
          llvm::consumeError(writeObject(**R, OS));
        }
      }
    EXPECT_GT(Errors, Bytes.size() / 3); // text and string bytes may change freely; structure may not
  }
}

TEST(ObjectFormat, RandomMultiByteCorruptionNeverCrashes) {
  // Several bytes at once, at seeded random places, including whole 4-byte fields set to huge values.
  auto A = buildFullModel();
  std::string Bytes = writeToString(*A);
  std::mt19937 Rng(12345);
  for (int Round = 0; Round < 3000; ++Round) {
    std::string Bad = Bytes;
    int N = 1 + Round % 4;
    for (int K = 0; K < N; ++K) {
      size_t At = Rng() % (Bad.size() - 4);
      if (Rng() % 2)
        llvm::support::endian::write32le(&Bad[At], Rng());
      else
        Bad[At] = static_cast<char>(Rng());
    }
    auto R = readFromString(Bad, "fuzz.o");
    if (!R) {
      EXPECT_EQ(llvm::toString(R.takeError()).rfind("fuzz.o: offset 0x", 0), 0u);
      continue;
    }
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    for (const ModuleVariant &V : (*R)->Variants)
      printModule(V, OS);
    llvm::consumeError(writeObject(**R, OS));
  }
}

TEST(ObjectFormat, RelocationOffsetsPast4GiBOrTheirSectionAreRefused) {
  // The model's relocation offsets are 32-bit: the reader refuses a larger r_offset before anything
  // truncates it (a truncated one could land inside the section and pass), and one past its section,
  // each at the byte offset of the relocation entry.
  std::string Bytes = writeToString(*buildFullModel());
  llvm::ELF::Elf64_Ehdr Ehdr;
  std::memcpy(&Ehdr, Bytes.data(), sizeof(Ehdr));
  uint64_t Rela = 0; // file offset of the first relocation entry
  for (unsigned I = 1; I < Ehdr.e_shnum && !Rela; ++I) {
    llvm::ELF::Elf64_Shdr Shdr;
    std::memcpy(&Shdr, Bytes.data() + Ehdr.e_shoff + I * sizeof(Shdr), sizeof(Shdr));
    if (Shdr.sh_type == llvm::ELF::SHT_RELA && Shdr.sh_size)
      Rela = Shdr.sh_offset;
  }
  ASSERT_NE(Rela, 0u);
  char Where[32];
  std::snprintf(Where, sizeof(Where), "offset 0x%llX: ", static_cast<unsigned long long>(Rela));
  for (uint64_t Offset : {uint64_t(1) << 32, (uint64_t(1) << 32) + 4, uint64_t(UINT32_MAX), uint64_t(1) << 40}) {
    SCOPED_TRACE(Offset);
    std::string Bad = Bytes;
    llvm::support::endian::write64le(&Bad[Rela], Offset);
    auto R = readFromString(Bad, "far.o");
    ASSERT_FALSE(bool(R));
    std::string Msg = llvm::toString(R.takeError());
    EXPECT_EQ(Msg.rfind(std::string("far.o: ") + Where, 0), 0u) << Msg;
    if (Offset > UINT32_MAX)
      EXPECT_NE(Msg.find("relocation at offset " + std::to_string(Offset) +
                         " of its section: offsets must be below 2^32"),
                std::string::npos)
          << Msg;
    else
      EXPECT_NE(Msg.find("relocation at offset 4294967295 outside its section"), std::string::npos) << Msg;
  }
}

TEST(ObjectFormat, SectionsOf4GiBOrMoreAreRefused) {
  // Section keeps a 32-bit size: the reader refuses a section of 4 GiB or more at its header's sh_size,
  // before anything truncates it (a truncated size would read a prefix and pass). The object is a sparse
  // file: the section's contents must lie in the file, and the reader never touches them.
  const std::string Bytes = writeToString(*buildFullModel());
  llvm::ELF::Elf64_Ehdr Ehdr;
  std::memcpy(&Ehdr, Bytes.data(), sizeof(Ehdr));
  uint64_t Header = 0, Offset = 0; // the first PROGBITS section's header and contents
  for (unsigned I = 1; I < Ehdr.e_shnum && !Header; ++I) {
    llvm::ELF::Elf64_Shdr Shdr;
    std::memcpy(&Shdr, Bytes.data() + Ehdr.e_shoff + I * sizeof(Shdr), sizeof(Shdr));
    if (Shdr.sh_type == llvm::ELF::SHT_PROGBITS && Shdr.sh_size) {
      Header = Ehdr.e_shoff + I * sizeof(Shdr);
      Offset = Shdr.sh_offset;
    }
  }
  ASSERT_NE(Header, 0u);
  for (uint64_t Size : {uint64_t(1) << 32, uint64_t(UINT32_MAX)}) {
    SCOPED_TRACE(Size);
    std::string Bad = Bytes;
    llvm::support::endian::write64le(&Bad[Header + offsetof(llvm::ELF::Elf64_Shdr, sh_size)], Size);
    llvm::SmallString<128> Path;
    int FD = -1;
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("ptxlink-big", "o", FD, Path));
    {
      llvm::raw_fd_ostream OS(FD, /*shouldClose=*/false);
      OS << Bad;
    }
    ASSERT_FALSE(llvm::sys::fs::resize_file(FD, std::max<uint64_t>(Bad.size(), Offset + Size)));
    llvm::sys::Process::SafelyCloseFileDescriptor(FD);
    auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    ASSERT_TRUE(bool(Buffer));
    auto R = readObject(std::move(*Buffer));
    llvm::sys::fs::remove(Path);
    if (Size > UINT32_MAX) {
      ASSERT_FALSE(bool(R));
      std::string Msg = llvm::toString(R.takeError());
      char Where[32];
      std::snprintf(Where, sizeof(Where), ": offset 0x%llX: ",
                    static_cast<unsigned long long>(Header + offsetof(llvm::ELF::Elf64_Shdr, sh_size)));
      EXPECT_NE(Msg.find(std::string(Path.str()) + Where), std::string::npos) << Msg;
      EXPECT_NE(Msg.find("of 4294967296 bytes: a section must be below 4 GiB"), std::string::npos) << Msg;
    } else {
      // 4 GiB - 1 is a section's largest size; the contents (zeros) are not what the model says, but the
      // reader reads the size whole.
      if (R) {
        bool Found = false;
        for (const Section &S : (*R)->Variants[0].Sections)
          Found |= S.contents().size() == UINT32_MAX;
        EXPECT_TRUE(Found);
      } else {
        EXPECT_EQ(llvm::toString(R.takeError()).find("a section must be below 4 GiB"), std::string::npos);
      }
    }
  }
}

TEST(ObjectFormat, AVariantLabelsAtMost2To24Sections) {
  // Section::Label is 24 bits: labelSection refuses the label that would need a 25th, leaving the section
  // unlabelled, and its callers report that with their place (nothing is truncated into another label).
  ModuleVariant V;
  V.rare().SectionLabels.resize(MaxSectionLabels - 1);
  Section Last, Over;
  Last.Kind = Over.Kind = SectionKind::Debug;
  ASSERT_TRUE(V.labelSection(Last, ".debug_str", {1, 1}));
  EXPECT_EQ(uint32_t(Last.Label), MaxSectionLabels - 1);
  EXPECT_EQ(V.sectionName(Last), ".debug_str");
  EXPECT_EQ(Last.Kind, SectionKind::Debug); // Kind shares Label's 32 bits
  EXPECT_FALSE(V.labelSection(Over, ".debug_line", {2, 1}));
  EXPECT_EQ(uint32_t(Over.Label), NoLabel);
  EXPECT_EQ(Over.Kind, SectionKind::Debug);
  EXPECT_EQ(V.sectionLabels().size(), size_t(MaxSectionLabels));
}

TEST(ObjectFormat, EachTableOnceAndAtTheFirstDuplicateHeader) {
  // The reader finds its seven tables in one walk of the section headers (a large object's table is
  // 128 MB at 10^6 functions, and a walk per table touched it seven times): a table that appears twice
  // is refused at the second one's header, a missing one is named, whichever table the reader asks for
  // first.
  const std::string Bytes = writeToString(*buildFullModel());
  llvm::ELF::Elf64_Ehdr Ehdr;
  std::memcpy(&Ehdr, Bytes.data(), sizeof(Ehdr));
  auto typeAt = [&](const std::string &B, unsigned I) {
    return llvm::support::endian::read32le(B.data() + Ehdr.e_shoff + I * sizeof(llvm::ELF::Elf64_Shdr) +
                                           offsetof(llvm::ELF::Elf64_Shdr, sh_type));
  };
  auto indexOf = [&](uint32_t Type) {
    for (unsigned I = 1; I < Ehdr.e_shnum; ++I)
      if (typeAt(Bytes, I) == Type)
        return I;
    return 0u;
  };
  const uint32_t ShtAbiType = 0x80000003, ShtFilesType = 0x80000004;
  const unsigned Abi = indexOf(ShtAbiType), Files = indexOf(ShtFilesType), Symtab = indexOf(llvm::ELF::SHT_SYMTAB);
  ASSERT_NE(Abi, 0u);
  ASSERT_NE(Files, 0u);
  ASSERT_NE(Symtab, 0u);
  auto withType = [&](unsigned I, uint32_t Type) {
    std::string B = Bytes;
    llvm::support::endian::write32le(&B[Ehdr.e_shoff + I * sizeof(llvm::ELF::Elf64_Shdr) +
                                        offsetof(llvm::ELF::Elf64_Shdr, sh_type)],
                                     Type);
    return B;
  };
  auto errorOf = [&](const std::string &B) {
    auto R = readFromString(B, "dup.o");
    return R ? std::string("no error") : llvm::toString(R.takeError());
  };
  // The files table retyped as a second ABI table: refused at the later header of the two.
  char Where[32];
  const unsigned Second = std::max(Abi, Files);
  std::snprintf(Where, sizeof(Where), "offset 0x%llX: ",
                static_cast<unsigned long long>(Ehdr.e_shoff + Second * sizeof(llvm::ELF::Elf64_Shdr)));
  std::string Msg = errorOf(withType(Files, ShtAbiType));
  EXPECT_EQ(Msg, std::string("dup.o: ") + Where + "more than one .ptxlink.abi section") << Msg;
  // The symbol table retyped away: missing.
  Msg = errorOf(withType(Symtab, llvm::ELF::SHT_PROGBITS));
  EXPECT_NE(Msg.find("missing .symtab section"), std::string::npos) << Msg;
  EXPECT_TRUE(bool(readFromString(Bytes, "ok.o")));
}

/// The file offset of the `.symtab` entry named Name in Bytes (an object of one plain variant), or 0.
uint64_t elfSymbolOffset(const std::string &Bytes, llvm::StringRef Name) {
  llvm::ELF::Elf64_Ehdr Ehdr;
  std::memcpy(&Ehdr, Bytes.data(), sizeof(Ehdr));
  auto header = [&](unsigned I) {
    llvm::ELF::Elf64_Shdr Shdr;
    std::memcpy(&Shdr, Bytes.data() + Ehdr.e_shoff + I * sizeof(Shdr), sizeof(Shdr));
    return Shdr;
  };
  for (unsigned I = 1; I < Ehdr.e_shnum; ++I) {
    llvm::ELF::Elf64_Shdr Symtab = header(I);
    if (Symtab.sh_type != llvm::ELF::SHT_SYMTAB)
      continue;
    llvm::ELF::Elf64_Shdr Strtab = header(Symtab.sh_link);
    for (uint64_t At = Symtab.sh_offset; At < Symtab.sh_offset + Symtab.sh_size; At += sizeof(llvm::ELF::Elf64_Sym)) {
      llvm::ELF::Elf64_Sym Sym;
      std::memcpy(&Sym, Bytes.data() + At, sizeof(Sym));
      if (llvm::StringRef(Bytes.data() + Strtab.sh_offset + Sym.st_name) == Name)
        return At;
    }
  }
  return 0;
}

TEST(ObjectFormat, OnlyLabelsHaveValuesAndOnlyVariablesSizes) {
  // A symbol's offset (labels) and size (variables) share one field of the model (Symbol is 32 bytes):
  // a value or size that the symbol's kind does not have is refused at its ELF field, not dropped.
  const std::string Bytes = writeToString(*buildFullModel());
  struct Case {
    const char *Name;
    size_t Field; // offset of st_value or st_size in the ELF symbol
    uint64_t Patched;
    const char *Message;
  };
  const Case Cases[] = {
      {"foo", offsetof(llvm::ELF::Elf64_Sym, st_value), 8, "symbol 'foo' has value 8: only a label has one"},
      {"gtab", offsetof(llvm::ELF::Elf64_Sym, st_value), 16, "symbol 'gtab' has value 16: only a label has one"},
      {".debug_abbrev", offsetof(llvm::ELF::Elf64_Sym, st_value), 1,
       "symbol '.debug_abbrev' has value 1: only a label has one"},
      {"foo", offsetof(llvm::ELF::Elf64_Sym, st_size), 64, "symbol 'foo' has size 64: only a variable has one"},
      {"Linfo_start", offsetof(llvm::ELF::Elf64_Sym, st_size), 4,
       "symbol 'Linfo_start' has size 4: only a variable has one"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Message);
    const uint64_t At = elfSymbolOffset(Bytes, C.Name);
    ASSERT_NE(At, 0u);
    std::string Bad = Bytes;
    llvm::support::endian::write64le(&Bad[At + C.Field], C.Patched);
    auto R = readFromString(Bad, "kinds.o");
    ASSERT_FALSE(bool(R));
    char Where[32];
    std::snprintf(Where, sizeof(Where), "offset 0x%llX: ", static_cast<unsigned long long>(At + C.Field));
    EXPECT_EQ(llvm::toString(R.takeError()), std::string("kinds.o: ") + Where + C.Message);
  }
  // What the kinds do have round-trips (a label's offset, a variable's size; RoundTripsEveryField checks
  // every symbol), and the others read as 0.
  auto R = readFromString(Bytes);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const ModuleVariant &V = (*R)->Variants[0];
  EXPECT_EQ(V.Symbols[V.findSymbol("Linfo_start")].value(), 4u);
  EXPECT_EQ(V.Symbols[V.findSymbol("Linfo_start")].size(), 0u);
  EXPECT_EQ(V.Symbols[V.findSymbol("gtab")].size(), 16u);
  EXPECT_EQ(V.Symbols[V.findSymbol("gtab")].value(), 0u);
}

TEST(ObjectFormat, SymbolAlignmentsArePowersOfTwo) {
  // The model keeps a symbol's alignment as its log2 (Symbol is 32 bytes): the reader refuses an alignment
  // that is no power of two at the record's alignment field, and every power of two up to 2^31 round-trips.
  auto Model = buildFullModel();
  const uint32_t Gtab = Model->Variants[0].findSymbol("gtab");
  ASSERT_NE(Gtab, NoSymbol);
  const std::string Bytes = writeToString(*Model);
  const uint64_t Records = sectionOffsetOfType(Bytes, elf::ShtSymbols); // the first symbol record
  ASSERT_NE(Records, 0u);
  const uint64_t Field = Records + uint64_t(Gtab) * elf::SymbolRecordSize + 12; // ELF index, kind.., section, align
  ASSERT_EQ(llvm::support::endian::read32le(&Bytes[Field]), 4u);
  for (uint32_t Bad : {3u, 12u, 0xffffffffu, 0x80000001u}) {
    SCOPED_TRACE(Bad);
    std::string Patched = Bytes;
    llvm::support::endian::write32le(&Patched[Field], Bad);
    expectRefusedAt(Patched, "align.o", Field, "symbol alignment " + std::to_string(Bad) + " is not a power of two");
  }
  for (uint32_t Good : {0u, 1u, 2u, 16u, 1u << 12, 1u << 31}) {
    SCOPED_TRACE(Good);
    Model->Variants[0].Symbols[Gtab].setAlign(Good);
    EXPECT_EQ(Model->Variants[0].Symbols[Gtab].align(), Good);
    auto R = readFromString(writeToString(*Model));
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ((*R)->Variants[0].Symbols[Gtab].align(), Good);
  }
}

TEST(ObjectFormat, SymbolNamesAndSizesFitTheirFields) {
  // A Symbol keeps a 24-bit name length and a 48-bit size or label offset (32 bytes a symbol): the reader
  // refuses a longer name length in a symbol record and a larger st_size of a variable, at the field.
  auto Model = buildFullModel();
  const uint32_t Gtab = Model->Variants[0].findSymbol("gtab");
  ASSERT_NE(Gtab, NoSymbol);
  const std::string Bytes = writeToString(*Model);
  const uint64_t Records = sectionOffsetOfType(Bytes, elf::ShtSymbols);
  const uint64_t Symtab = sectionOffsetOfType(Bytes, llvm::ELF::SHT_SYMTAB);
  ASSERT_NE(Records, 0u);
  ASSERT_NE(Symtab, 0u);
  const uint64_t Record = Records + uint64_t(Gtab) * elf::SymbolRecordSize;
  const uint32_t ElfIndex = llvm::support::endian::read32le(&Bytes[Record]);
  {
    std::string Patched = Bytes;
    llvm::support::endian::write32le(&Patched[Record + 20], MaxSymbolNameBytes + 1);
    expectRefusedAt(Patched, "fields.o", Record + 20, "symbol name of 16777216 bytes (at most 16777215 are supported)");
  }
  const uint64_t SizeField = Symtab + uint64_t(ElfIndex) * sizeof(llvm::ELF::Elf64_Sym) + 16; // st_size
  ASSERT_EQ(llvm::support::endian::read64le(&Bytes[SizeField]), 16u);
  {
    std::string Patched = Bytes;
    llvm::support::endian::write64le(&Patched[SizeField], MaxSymbolValue + 1);
    expectRefusedAt(Patched, "fields.o", SizeField,
                    "variable 'gtab' has size 281474976710656 (at most 281474976710655 is supported)");
    llvm::support::endian::write64le(&Patched[SizeField], MaxSymbolValue);
    auto R = readFromString(Patched, "fields.o");
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ((*R)->Variants[0].Symbols[Gtab].size(), MaxSymbolValue);
  }
}

TEST(ObjectFormat, AliasesLiveInTheirVariantsTable) {
  // `.alias` targets are a side table of the variant (Symbol has no field for them): they round-trip, a
  // symbol that is no alias reads NoSymbol, and setAliasOf(NoSymbol) removes an entry.
  auto Model = buildFullModel();
  ModuleVariant &V = Model->Variants[0];
  const uint32_t Alias = V.findSymbol("foo_alias"), Foo = V.findSymbol("foo");
  ASSERT_EQ(V.aliasOf(Alias), Foo);
  EXPECT_EQ(V.aliasOf(Foo), NoSymbol);
  auto R = readFromString(writeToString(*Model));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ((*R)->Variants[0].aliasOf(Alias), Foo);
  EXPECT_EQ((*R)->Variants[0].aliases().size(), 1u);
  // A symbol copied into another variant is no alias there until that variant says so.
  ModuleVariant W;
  W.Symbols.push_back(V.Symbols[Foo]);
  W.Symbols.push_back(V.Symbols[Alias]);
  EXPECT_EQ(W.aliasOf(1), NoSymbol);
  W.setAliasOf(1, 0);
  EXPECT_EQ(W.aliasOf(1), 0u);
  V.setAliasOf(Alias, NoSymbol);
  EXPECT_EQ(V.aliasOf(Alias), NoSymbol);
  EXPECT_TRUE(V.aliases().empty());
  EXPECT_EQ(V.aliasOf(~0u - 1), NoSymbol); // no symbol at all
}

/// The file offset of the first relocation entry of ELF type Type in Bytes (a plain object), or 0.
uint64_t relaEntryOfType(const std::string &Bytes, uint32_t Type) {
  llvm::ELF::Elf64_Ehdr Ehdr;
  std::memcpy(&Ehdr, Bytes.data(), sizeof(Ehdr));
  for (unsigned I = 1; I < Ehdr.e_shnum; ++I) {
    llvm::ELF::Elf64_Shdr Shdr;
    std::memcpy(&Shdr, Bytes.data() + Ehdr.e_shoff + I * sizeof(Shdr), sizeof(Shdr));
    if (Shdr.sh_type != llvm::ELF::SHT_RELA)
      continue;
    for (uint64_t At = Shdr.sh_offset; At < Shdr.sh_offset + Shdr.sh_size; At += sizeof(llvm::ELF::Elf64_Rela)) {
      llvm::ELF::Elf64_Rela E;
      std::memcpy(&E, Bytes.data() + At, sizeof(E));
      if (E.getType() == Type)
        return At;
    }
  }
  return 0;
}

TEST(ObjectFormat, RelocationLengthsPast24BitsAndAddendsPast32BitsAreRefused) {
  // Relocation is 16 bytes: a 24-bit length and a 32-bit signed addend. The reader refuses larger ones
  // at the entry's r_addend before anything truncates them (a truncated length or addend could pass).
  const std::string Full = writeToString(*buildFullModel());
  const std::string WithOffset = writeToString(*modelWithSectionOffset(4));
  struct Case {
    const std::string *Bytes;
    uint32_t Type; // 1 name, 2 file index, 3 data32, 4 data64, 5 section offset (PtxlinkElf.h)
    uint64_t Addend;
    std::string Message;
  };
  const Case Cases[] = {
      {&Full, 1, 1u << 24, "name relocation length 16777216 out of range (at most 16777215 bytes)"},
      {&Full, 1, uint64_t(1) << 32, "name relocation length 4294967296 out of range (at most 16777215 bytes)"},
      {&Full, 2, (uint64_t(1) << 32) | (1u << 24),
       "file index relocation length 16777216 out of range (at most 16777215 bytes)"},
      {&Full, 3, uint64_t(1) << 31, "relocation addend 2147483648 out of range: addends must lie in [-2^31, 2^31)"},
      {&Full, 4, uint64_t(-(int64_t(1) << 31) - 1),
       "relocation addend -2147483649 out of range: addends must lie in [-2^31, 2^31)"},
      {&WithOffset, 5, (uint64_t(1) << 31) << 16 | 6,
       "section offset relocation offset 2147483648 out of range (at most 2^31 - 1)"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Message);
    const uint64_t At = relaEntryOfType(*C.Bytes, C.Type);
    ASSERT_NE(At, 0u);
    std::string Bad = *C.Bytes;
    llvm::support::endian::write64le(&Bad[At + offsetof(llvm::ELF::Elf64_Rela, r_addend)], C.Addend);
    auto R = readFromString(Bad, "far.o");
    ASSERT_FALSE(bool(R));
    char Where[32];
    std::snprintf(Where, sizeof(Where), "offset 0x%llX: ",
                  static_cast<unsigned long long>(At + offsetof(llvm::ELF::Elf64_Rela, r_addend)));
    EXPECT_EQ(llvm::toString(R.takeError()), std::string("far.o: ") + Where + C.Message);
  }
  // The largest and smallest addends round-trip.
  for (int32_t Addend : {INT32_MAX, INT32_MIN}) {
    const uint64_t At = relaEntryOfType(Full, 3);
    std::string Edge = Full;
    llvm::support::endian::write64le(&Edge[At + offsetof(llvm::ELF::Elf64_Rela, r_addend)], uint64_t(int64_t(Addend)));
    auto R = readFromString(Edge);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    bool Seen = false;
    for (const Relocation &Rel : (*R)->Variants[0].Relocs)
      Seen |= Rel.Kind == RelocKind::Data32 && Rel.Addend == Addend;
    EXPECT_TRUE(Seen) << Addend;
  }
}

TEST(ObjectFormat, LyingCountsDoNotAllocate) {
  // A symbol table claiming 2^32-1 parameters must be refused from the byte count alone.
  std::string Bytes = writeToString(*buildFullModel());
  size_t Pos = Bytes.find(".ptxlink.abi"); // name in .strtab; find the section by scanning for its header
  ASSERT_NE(Pos, std::string::npos);
  // Locate the ABI section data: it starts with the ABI version (1) followed by the three counts 6, 3, 1.
  std::string Header("\x01\x00\x00\x00\x06\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00", 16);
  size_t Abi = Bytes.find(Header);
  ASSERT_NE(Abi, std::string::npos);
  std::string Bad = Bytes;
  Bad.replace(Abi + 4, 4, "\xff\xff\xff\xff");
  auto R = readFromString(Bad, "lie.o");
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("exceed"), std::string::npos);
}

TEST(AtomicFile, WritesOrLeavesTargetUntouched) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptxlink-atomic", Dir));
  llvm::SmallString<128> Path(Dir);
  llvm::sys::path::append(Path, "out.o");
  ASSERT_FALSE(bool(writeFileAtomically(Path, [](llvm::raw_ostream &OS) {
    OS << "first";
    return llvm::Error::success();
  })));
  llvm::Error E = writeFileAtomically(Path, [](llvm::raw_ostream &OS) {
    OS << "partial";
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "failed midway");
  });
  ASSERT_TRUE(bool(E));
  llvm::consumeError(std::move(E));
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  EXPECT_EQ((*Buf)->getBuffer(), "first");
  // No temporary file is left behind.
  std::error_code EC;
  size_t Entries = 0;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    ++Entries;
  EXPECT_EQ(Entries, 1u);
  llvm::sys::fs::remove(Path);
  llvm::sys::fs::remove(Dir);
}

// EarlierFile::RemovedFirst: the earlier file stays while the new contents are written and after a
// failure; a success replaces it; a symbolic link at the destination is replaced by the rename, the file
// it points to untouched.
TEST(AtomicFile, RemovedFirstReplacesOnlyOnceWritten) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptxlink-atomic", Dir));
  llvm::SmallString<128> Path(Dir), Target(Dir);
  llvm::sys::path::append(Path, "out.o");
  llvm::sys::path::append(Target, "target.o");
  bool ExistedWhileWriting = false;
  auto write = [&](llvm::StringRef At, llvm::StringRef Text, bool Fail) {
    return writeFileAtomically(
        At,
        [&](llvm::raw_ostream &OS) {
          ExistedWhileWriting = llvm::sys::fs::exists(At);
          OS << Text;
          return Fail ? llvm::createStringError(llvm::inconvertibleErrorCode(), "failed") : llvm::Error::success();
        },
        EarlierFile::RemovedFirst);
  };
  auto contents = [](llvm::StringRef At) {
    auto Buf = llvm::MemoryBuffer::getFile(At);
    return Buf ? (*Buf)->getBuffer().str() : std::string("<none>");
  };
  ASSERT_FALSE(bool(write(Path, "first", false)));
  llvm::Error E = write(Path, "partial", true);
  ASSERT_TRUE(bool(E));
  llvm::consumeError(std::move(E));
  EXPECT_EQ(contents(Path), "first");
  EXPECT_TRUE(ExistedWhileWriting);
  ASSERT_FALSE(bool(write(Path, "second", false)));
  EXPECT_TRUE(ExistedWhileWriting); // removed only once the new contents were complete
  EXPECT_EQ(contents(Path), "second");

  ASSERT_FALSE(bool(write(Target, "target", false)));
  ASSERT_FALSE(llvm::sys::fs::remove(Path));
  ASSERT_FALSE(llvm::sys::fs::create_link(Target, Path));
  ASSERT_FALSE(bool(write(Path, "third", false)));
  EXPECT_EQ(contents(Path), "third");
  EXPECT_EQ(contents(Target), "target");
  llvm::sys::fs::file_status St;
  ASSERT_FALSE(llvm::sys::fs::status(Path, St, /*Follow=*/false));
  EXPECT_EQ(St.type(), llvm::sys::fs::file_type::regular_file);
  llvm::sys::fs::remove(Path);
  llvm::sys::fs::remove(Target);
  llvm::sys::fs::remove(Dir);
}

} // namespace

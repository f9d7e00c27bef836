// A hand-built object model that uses every construct of the object format (every binding, symbol and
// section kind, every relocation kind, ABI records with all optional fields, files, aliases, labels in
// debug sections), shared by the object format and PTX printer unit tests.
#pragma once

#include "ptxlink/ObjectModel.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ptxlink::testmodel {

inline uint32_t addSymbol(ModuleVariant &V, llvm::StringRef Name, SymbolKind Kind, Binding Bind,
                          uint32_t Section = NoSection) {
  Symbol S;
  S.setName(Name);
  S.Kind = Kind;
  S.Bind = Bind;
  S.Section = Section;
  S.Where = {static_cast<uint32_t>(V.Symbols.size() + 3), 1};
  V.Symbols.push_back(S);
  return static_cast<uint32_t>(V.Symbols.size() - 1);
}

/// Adds a text section; every `@name@` in Text becomes a NameRef to the symbol called name, and every
/// `#N#` a FileIndex relocation with index N.
inline uint32_t addText(ObjectFile &O, ModuleVariant &V, SectionKind Kind, llvm::StringRef Name, uint32_t Sym,
                        llvm::StringRef Text, bool Header = false) {
  Section S;
  S.Kind = Kind;
  S.Symbol = Sym;
  std::vector<Relocation> Relocs;
  std::string Out;
  for (size_t I = 0; I < Text.size();) {
    char C = Text[I];
    if (C == '@' || C == '#') {
      size_t End = Text.find(C, I + 1);
      if (End == llvm::StringRef::npos) { // a lone marker character is literal text
        Out += C;
        ++I;
        continue;
      }
      llvm::StringRef Word = Text.slice(I + 1, End);
      Relocation R;
      R.Offset = Out.size();
      R.Length = static_cast<uint32_t>(Word.size());
      if (C == '@') {
        R.Kind = RelocKind::NameRef;
        R.Symbol = V.findSymbol(Word);
      } else {
        R.Kind = RelocKind::FileIndex;
        Word.getAsInteger(10, R.Symbol);
      }
      Relocs.push_back(R);
      Out += Word.str();
      I = End + 1;
      continue;
    }
    Out += C;
    ++I;
  }
  S.setContents(O.save(Out));
  if (Header)
    S.HeaderLength = static_cast<uint32_t>(S.contents().find('{') - 1);
  // A place other than its symbol's: the section keeps its own (SectionLabels), as a read object may.
  EXPECT_TRUE(V.labelSection(S, Name, {static_cast<uint32_t>(V.Sections.size() + 10), 2}));
  V.appendRelocs(S, Relocs);
  V.Sections.push_back(std::move(S));
  return static_cast<uint32_t>(V.Sections.size() - 1);
}

inline ParamInfo param(llvm::StringRef Type, llvm::StringRef Name) {
  ParamInfo P;
  EXPECT_TRUE(P.setType(Type)) << Type.str();
  P.setName(Name);
  P.Where = {7, 9};
  return P;
}

/// The full model. Symbols refer to sections by index, so sections are created in a fixed order.
inline std::unique_ptr<ObjectFile> buildFullModel(llvm::StringRef Arch = "sm_90") {
  auto O = std::make_unique<ObjectFile>();
  O->Variants.emplace_back();
  ModuleVariant &V = O->Variants.back();
  V.SourceName = "full.ptx";
  V.Target.VersionMajor = 9;
  V.Target.VersionMinor = 0;
  V.Target.Arch = O->save(Arch);
  V.Target.AddressSize = 64;
  V.Target.AddressSizeGiven = true;

  // Symbols (sections are numbered in the order added below).
  uint32_t Loc = addSymbol(V, "helper", SymbolKind::Function, Binding::Local, 0);
  uint32_t Foo = addSymbol(V, "foo", SymbolKind::Function, Binding::Global, 1);
  uint32_t K = addSymbol(V, "kern", SymbolKind::Kernel, Binding::Global, 2);
  uint32_t G = addSymbol(V, "gtab", SymbolKind::Variable, Binding::Global, 3);
  uint32_t Ext = addSymbol(V, "ext_fn", SymbolKind::Function, Binding::Undefined);
  uint32_t EVar = addSymbol(V, "ext_var", SymbolKind::Variable, Binding::Undefined);
  uint32_t Com = addSymbol(V, "cvar", SymbolKind::Variable, Binding::Common, 4);
  uint32_t ICom = addSymbol(V, "icvar", SymbolKind::Variable, Binding::Common, 5);
  uint32_t Wk = addSymbol(V, "wk", SymbolKind::Function, Binding::Weak, 6);
  uint32_t Al = addSymbol(V, "foo_alias", SymbolKind::Function, Binding::Global);
  uint32_t Abbrev = addSymbol(V, ".debug_abbrev", SymbolKind::Section, Binding::Local, 8);
  uint32_t Lbl = addSymbol(V, "Linfo_start", SymbolKind::Label, Binding::Local, 7);
  uint32_t FnBegin = addSymbol(V, "Lfunc_begin0", SymbolKind::Label, Binding::Local, 1);
  V.setAliasOf(Al, Foo);
  V.Symbols[Lbl].setValue(4);
  V.Symbols[FnBegin].setValue(60);
  for (uint32_t S : {G, EVar, Com, ICom})
    V.Symbols[S].Space = StateSpace::Global;
  V.Symbols[G].setSize(16);
  V.Symbols[G].setAlign(4);
  V.Symbols[G].Initialized = true;
  V.Symbols[EVar].setSize(16);
  V.Symbols[EVar].setAlign(4);
  V.Symbols[Com].setSize(8);
  V.Symbols[Com].setAlign(8);
  V.Symbols[ICom].setSize(4);
  V.Symbols[ICom].setAlign(4);
  V.Symbols[ICom].Initialized = true;

  addText(*O, V, SectionKind::Function, "helper", Loc, ".func @helper@()\n{\n\tret;\n}", true);
  addText(*O, V, SectionKind::Function, "foo", Foo,
          ".func (.param .b32 r) @foo@(.param .b32 a)\n{\n\t.reg .b32 %x;\n\t.loc #1# 3 1\n"
          "\tld.param.b32 %x, [a];\n\tcall.uni @helper@, ();\n\t{\n\t.param .b32 p;\n\t.param .b32 q;\n"
          "\tst.param.b32 [p], %x;\n\tcall.uni (q), @ext_fn@, (p);\n\tld.param.b32 %x, [q];\n\t}\n"
          "\tst.param.b32 [r], %x;\n\tret;\n}",
          true);
  addText(*O, V, SectionKind::Function, "kern", K,
          ".entry @kern@(.param .u64 p)\n{\n\t.reg .b64 %a;\n\t.reg .b32 %v;\n"
          "\tld.global.b32 %v, [@ext_var@];\n\tld.global.b32 %v, [@gtab@+4];\n\tld.global.b32 %v, [@icvar@];\n"
          "\tld.global.b64 %a, [@cvar@];\n\tcall.uni @wk@, ();\n\tret;\n}",
          true);
  addText(*O, V, SectionKind::Variable, "gtab", G, ".global .align 4 .b32 @gtab@[4] = {1, 2, 3, 4};");
  addText(*O, V, SectionKind::Variable, "cvar", Com, ".global .align 8 .b64 @cvar@;");
  addText(*O, V, SectionKind::Variable, "icvar", ICom, ".global .align 4 .b32 @icvar@ = 7;");
  addText(*O, V, SectionKind::Function, "wk", Wk, ".func @wk@()\n{\n\tret;\n}", true);

  // .debug_info: 4 bytes, label, 4 bytes of Data32 to .debug_abbrev + 2, 8 bytes of Data64 to a label.
  Section Info;
  Info.Kind = SectionKind::Debug;
  Info.setContents(O->save(llvm::StringRef("\x10\x00\x00\x00" "\x00\x00\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x00"
                                           "\x01\x02", 18)));
  Relocation R32;
  R32.Offset = 4;
  R32.Kind = RelocKind::Data32;
  R32.Symbol = Abbrev;
  R32.Addend = 2;
  Relocation R64;
  R64.Offset = 8;
  R64.Kind = RelocKind::Data64;
  R64.Symbol = FnBegin;
  V.appendRelocs(Info, {R32, R64});
  EXPECT_TRUE(V.labelSection(Info, ".debug_info", {40, 1}));
  V.Sections.push_back(Info);
  Section Abbr;
  Abbr.Kind = SectionKind::Debug;
  Abbr.setContents(O->save(llvm::StringRef("\x01\x11\x00\x00\x00", 5)));
  EXPECT_TRUE(V.labelSection(Abbr, ".debug_abbrev", {50, 1}));
  V.Sections.push_back(Abbr);
  V.Symbols[Abbrev].Section = 8;

  // ABI records.
  FunctionAbi FH;
  FH.Symbol = Loc;
  FH.HasBody = true;
  FunctionAbi FF;
  FF.Symbol = Foo;
  FF.HasBody = true;
  V.appendSignature(FF, {param(".b32", "r")}, {param(".b32", "a")});
  V.setFunctionWhere(FF, {5, 1});
  FunctionAbi FK;
  FK.Symbol = K;
  FK.IsKernel = true;
  FK.HasBody = true;
  ParamInfo PP = param(".u64", "p");
  PP.IsPtr = true;
  PP.PtrSpace = StateSpace::Global;
  PP.PtrAlign = 16;
  V.appendSignature(FK, {}, {PP});
  V.editTuning(FK).MaxNTid = std::array<uint32_t, 3>{128, 1, 1};
  V.editTuning(FK).MinNCtaPerSm = 2;
  V.editTuning(FK).MaxNReg = 64;
  V.editTuning(FK).Pragmas.push_back("nounroll");
  FunctionAbi FE;
  FE.Symbol = Ext;
  ParamInfo PA = param(".b8", "a");
  PA.Align = 4;
  PA.ArrayDims.push_back(4);
  PA.Space = StateSpace::Param;
  V.appendSignature(FE, {param(".b32", "r")}, {param(".b32", "a")});
  V.editTuning(FE).AbiPreserve = 8;
  V.editTuning(FE).Attributes.push_back(".unified(0x1,0x2)");
  FunctionAbi FW;
  FW.Symbol = Wk;
  FW.HasBody = true;
  FunctionAbi FA;
  FA.Symbol = Al;
  V.appendSignature(FA, {param(".b32", "r")}, {param(".b32", "a")}); // foo's
  // Records without a place of their own (their symbols have one): kept as such through a write and a read.
  for (FunctionAbi *F : {&FH, &FK, &FE, &FW, &FA})
    V.setFunctionWhere(*F, {});
  V.Functions = {FH, FF, FK, FE, FW, FA};

  VariableAbi VG;
  VG.Symbol = G;
  VG.Type = ".b32";
  VG.ArrayDims.push_back(4);
  VG.Align = 4;
  VG.Initialized = true;
  VariableAbi VE;
  VE.Symbol = EVar;
  VE.Type = ".b32";
  VE.ArrayDims.push_back(4);
  VE.Align = 4;
  VE.Attributes.push_back(".managed");
  VE.Where = {6, 3};
  VariableAbi VC;
  VC.Symbol = Com;
  VC.Type = ".b64";
  VC.Align = 8;
  V.Variables = {VG, VE, VC};

  PrototypeAbi P;
  P.Label = "proto0";
  P.Function = K;
  P.Params.push_back(param(".b32", "_"));
  P.Params.push_back(PA);
  P.Returns.push_back(param(".b64", "_"));
  P.NoReturn = true;
  P.CallTargets = {Foo, Wk};
  P.AbiPreserveControl = 3;
  P.Where = {30, 4};
  V.rare().Prototypes = {P};

  FileEntry F1;
  F1.Index = 1;
  F1.Path = "a.cu";
  FileEntry F2;
  F2.Index = 2;
  F2.Path = "/inc/b.h";
  F2.Timestamp = 1700000000;
  F2.Size = 1234;
  V.rare().Files = {F1, F2};
  (void)Lbl;
  return O;
}

} // namespace ptxlink::testmodel

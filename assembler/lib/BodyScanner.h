// Scanning of function bodies for the references the linker must be able to rewrite.
//
// The problem: instruction bodies are most of a PTX file's bytes, but the linker only cares about a few
// things in them: names of module-scope symbols (calls, operands, `mov` of a function address, local call
// tables, `.calltargets`), labels that debug sections refer to, `.loc` file indices and `.callprototype`
// signatures. Parsing instructions would be slow and pointless, so this is one tight loop over the bytes
// that classifies identifiers by position (opcode, label, declaration, operand) and tracks block scopes
// so that a local declaration shadowing a module-scope name is not mistaken for a reference.
#pragma once

#include "ptxlink/NameIndex.h"
#include "ptxlink/ObjectModel.h"
#include "PtxParser.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Allocator.h"

#include <array>
#include <optional>
#include <vector>

namespace ptxlink {

/// Module-scope names to symbol indices, the names being the symbols' own (Symbols[Index].Name, which
/// never changes its spelling): a NameIndex over the module's symbol table (the StringMap it replaced
/// kept a copy of every name, about 50 bytes per function of a module of 10^6 small functions).
class SymbolNameMap {
public:
  explicit SymbolNameMap(const ModelTable<Symbol> &Symbols) : Symbols(Symbols) {}
  /// Sizes the table for N names in all (it doubles past them).
  void reserve(size_t N) { Index.reserve(N); }
  /// Name's symbol, or NoSymbol.
  uint32_t find(llvm::StringRef Name) const { return Index.find(Name, NameOf{Symbols}); }
  /// Name's symbol and false; if it has none, records NewIndex for it and returns (NewIndex, true): the
  /// caller then appends that symbol, named Name, before the next call.
  std::pair<uint32_t, bool> insert(llvm::StringRef Name, uint32_t NewIndex) {
    return Index.insert(Name, NewIndex, NameOf{Symbols});
  }

private:
  struct NameOf {
    const ModelTable<Symbol> &Symbols;
    llvm::StringRef operator()(uint32_t I) const { return Symbols[I].name(); }
  };
  static_assert(NameIndex::None == NoSymbol);
  const ModelTable<Symbol> &Symbols;
  NameIndex Index;
};

class BodyScanner {
public:
  /// IsFunctionLabel[S] marks Label symbols that debug data expects to be defined in some function body.
  /// SectionSymbolFor(Name) is the Section symbol of this module's debug section Name (added to Symbols
  /// if it has none yet), or NoSymbol if the module has no such section.
  BodyScanner(llvm::StringRef Text, SourceDiags &Diags, const SymbolNameMap &SymMap,
              ModelTable<Symbol> &Symbols, const std::vector<uint8_t> &IsFunctionLabel,
              llvm::function_ref<uint32_t(llvm::StringRef)> SectionSymbolFor);

  /// Scans F's body (F must have one). Appends relocations to Relocs (offsets relative to F.Begin, not
  /// sorted), defines the function labels found in the body (Section = SectionIdx), and appends the
  /// body's `.callprototype` records to Protos (their CallTargets are the functions named in the body's
  /// `.calltargets` lists).
  /// Abi: F's signature (its parameter names still pointing into Text).
  void scan(const PtxFunction &F, const FunctionSignature &Abi, uint32_t SectionIdx, uint32_t FuncSym,
            ModelTable<Relocation> &Relocs, ModelTable<PrototypeAbi> &Protos, bool KeepStrings, ObjectFile &Obj);
  /// The last scanned body's label definitions that are no Label symbol's own (ModuleVariant::PlainLabel),
  /// in text order.
  llvm::ArrayRef<ModuleVariant::PlainLabel> plainLabels() const { return PlainLabels; }

private:
  /// How the words of a statement are read: operands (Normal), the names a declaration introduces and
  /// its initializer (Decl, DeclInit), a `.calltargets` list, or nothing more (Skip).
  enum class Mode : uint8_t { Normal, Decl, DeclInit, CallTargets, Skip };
  struct Statement;

  // The steps of scan(), in order.
  void startBody(const PtxFunction &F, uint32_t SectionIdx, ModelTable<Relocation> &Out);
  void declareParameters(const FunctionSignature &Abi);
  void scanStatements(const PtxFunction &F, uint32_t FuncSym, ModelTable<PrototypeAbi> &Protos, bool KeepStrings,
                      ObjectFile &Obj);
  void resolveLabelUses(const PtxFunction &F);
  void endBody(ModelTable<PrototypeAbi> &Protos, size_t FirstProto);

  // What scanStatements does with a word that matters.
  void nameOperand(Statement &St, size_t Start, size_t Stop);
  void defineLabel(size_t Begin, size_t End);
  void statementDirective(Statement &St, size_t Begin, size_t &I, size_t End, uint32_t FuncSym,
                          ModelTable<PrototypeAbi> &Protos, bool KeepStrings, ObjectFile &Obj);
  void callPrototype(Statement &St, size_t Begin, size_t &I, size_t End, uint32_t FuncSym,
                     ModelTable<PrototypeAbi> &Protos, bool KeepStrings, ObjectFile &Obj);

  struct Use {
    uint32_t Sym;
    size_t Offset;
    uint32_t Length;
  };

  uint32_t lookup(llvm::StringRef Name) const {
    if (!FirstChar[static_cast<unsigned char>(Name[0])])
      return NoSymbol;
    return SymMap.find(Name);
  }
  /// Call: the name is an operand of a `call` statement (Relocation::CallSite); CallTarget: an entry of a
  /// `.calltargets` list (Relocation::CallTargetSite).
  void reference(uint32_t Sym, size_t Offset, uint32_t Length, bool Call = false, bool CallTarget = false);
  void declareLocal(uint32_t Sym);
  void declareLocalOrDebugName(uint32_t Sym, size_t Offset, std::optional<SourceLoc> Loc);
  /// Line positions are computed lazily, only where a location is needed (errors, labels, prototypes).
  LexPos posAt(size_t Offset);
  SourceLoc locAt(size_t Offset);
  size_t skipOperands(size_t I, size_t End) const;
  void popScope();
  bool scanLoc(size_t &I, size_t End);

  llvm::StringRef Text;
  SourceDiags &D;
  const SymbolNameMap &SymMap;
  ModelTable<Symbol> &Symbols;
  const std::vector<uint8_t> &IsFunctionLabel;
  llvm::function_ref<uint32_t(llvm::StringRef)> SectionSymbolFor;
  std::array<bool, 256> FirstChar{};

  // Per-body state.
  size_t Base = 0; // F.Begin: relocation offsets are relative to it
  /// A relocation's offset in the body's section: 32 bits, as the whole text is below 4 GiB
  /// (MaxPtxModuleBytes).
  uint32_t sectionOffset(size_t TextOffset) const { return static_cast<uint32_t>(TextOffset - Base); }
  LexPos BodyStart, Known;
  uint32_t SectionIdx = NoSection;
  unsigned Depth = 0;
  std::vector<uint16_t> ShadowCount;                      // per symbol, made on the first shadow
  std::vector<std::pair<uint32_t, unsigned>> ShadowStack; // (symbol, depth)
  ModelTable<Relocation> *Relocs = nullptr;
  std::vector<Use> LabelUses;          // uses of function labels, kept if the label is defined here
  std::vector<uint32_t> LocalLabels;   // module-scope names redefined as labels in this body
  std::vector<uint32_t> CallTargets;   // functions named by .calltargets in this body
  std::vector<ModuleVariant::PlainLabel> PlainLabels; // labels defined in this body (plainLabels())
};

} // namespace ptxlink

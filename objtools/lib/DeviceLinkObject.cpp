// The device-link object of a CUDA program (what `nvcc -dlink` writes), written without nvcc.
//
// The problem: every object compiled with `nvcc -rdc=true -c` has a static initializer that calls
// `__cudaRegisterLinkedBinary<id>(callback, &__fatbinwrap<id>, module_id_string, dummy_ref)`, with <id>
// its module id, and expects the device link to define that function. nvcc builds the definitions by
// compiling its internal `crt/link.stub` with the host compiler; ptxlink must produce an equivalent
// relocatable x86-64 ELF object on its own. The runtime behaviour to reproduce (link.stub): collect the
// N callbacks and the modules' relocatable fatbinaries; when the N-th has arrived, register the linked
// fatbinary (`__cudaRegisterFatBinary(&__fatDeviceText)`), `atexit(unregister)`, run every callback
// with the handle (each registers its kernels and variables by their device names), then
// `__cudaRegisterFatBinaryEnd`.
//
// The code is three small functions. Rather than pull LLVM's MC layer and X86 back end into the
// linker (several MB of static libraries and target registration at start-up, for ~200 bytes of fixed
// code), the instructions are encoded here from a short list of fixed forms, each checked against
// llvm-objdump's disassembly in tests/lit/hostlink. Every address is RIP-relative (or taken from the GOT
// for the modules' wrappers), so the object links into PIE executables and shared libraries alike.
// Layout and symbols follow nvcc's own object (docs/host-link.md), unwind tables included.
#include "ptxlink/HostEmbed.h"
#include "ptxlink/LittleEndian.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFTypes.h"
#include "llvm/Support/Endian.h"

#include <cstring>
#include <string>
#include <vector>

using namespace llvm;

namespace ptxlink {
namespace {

// Record sizes of an x86-64 relocatable object, from LLVM's ELF64 types.
using X86Elf = object::ELF64LE;
constexpr uint64_t EhdrSize = sizeof(X86Elf::Ehdr), ShdrSize = sizeof(X86Elf::Shdr), SymSize = sizeof(X86Elf::Sym),
                   RelaSize = sizeof(X86Elf::Rela);

// ELF constants (x86-64 relocatable object), from LLVM's ELF.h.
using ELF::SHT_PROGBITS, ELF::SHT_SYMTAB, ELF::SHT_STRTAB, ELF::SHT_RELA, ELF::SHT_NOBITS;
using ELF::SHF_WRITE, ELF::SHF_ALLOC, ELF::SHF_EXECINSTR, ELF::SHF_INFO_LINK;
using ELF::STB_LOCAL, ELF::STB_GLOBAL;
using ELF::STT_NOTYPE, ELF::STT_OBJECT, ELF::STT_FUNC, ELF::STT_SECTION, ELF::STT_FILE;
using ELF::R_X86_64_64, ELF::R_X86_64_PC32, ELF::R_X86_64_PLT32, ELF::R_X86_64_REX_GOTPCRELX;

void put16(std::string &B, uint16_t V) { appendLE(B, V); }
void put32(std::string &B, uint32_t V) { appendLE(B, V); }
void put64(std::string &B, uint64_t V) { appendLE(B, V); }

struct Rela {
  uint64_t Offset;
  uint32_t Type;
  uint32_t Symbol; // index in the symbol table
  int64_t Addend;
};

struct ElfSymbol {
  std::string Name;
  uint8_t Bind = STB_LOCAL, Type = STT_NOTYPE;
  uint16_t Section = 0;
  uint64_t Value = 0, Size = 0;
};

/// x86-64 machine code with its relocations. Each method emits one instruction form; a reference to a
/// symbol is a 32-bit field relocated against it, a jump within the text is resolved here.
class Text {
public:
  std::string Bytes;
  std::vector<Rela> Relocs;

  size_t here() const { return Bytes.size(); }
  void raw(std::initializer_list<uint8_t> B) {
    for (uint8_t C : B)
      Bytes.push_back(static_cast<char>(C));
  }
  /// A 32-bit field that the relocation fills (PC-relative forms: the field is 4 bytes before the next
  /// instruction, hence the addend -4 on top of the target's offset).
  void field(uint32_t Type, uint32_t Symbol, int64_t Offset) {
    Relocs.push_back({here(), Type, Symbol, Offset - 4});
    put32(Bytes, 0);
  }
  /// A rel32 to a position in this text (known now, or patched by bind()).
  void rel32To(size_t Target) {
    put32(Bytes, static_cast<uint32_t>(static_cast<int64_t>(Target) - static_cast<int64_t>(here() + 4)));
  }
  size_t rel32Later() {
    size_t At = here();
    put32(Bytes, 0);
    return At;
  }
  void bind(size_t FieldAt, size_t Target) {
    uint32_t V = static_cast<uint32_t>(static_cast<int64_t>(Target) - static_cast<int64_t>(FieldAt + 4));
    llvm::support::endian::write32le(Bytes.data() + FieldAt, V);
  }
};

void pad(std::string &B, size_t Align, char Fill = '\0') {
  while (B.size() % Align)
    B.push_back(Fill);
}
constexpr char Int3 = '\xcc'; // fills the gaps between functions: traps if ever executed

// Section numbers (fixed layout).
enum : uint16_t { SecText = 1, SecRelaText, SecBss, SecModuleId, SecFatbin, SecSegment, SecRelaSegment, SecEhFrame,
                  SecRelaEhFrame, SecNote, SecSymtab, SecStrtab, SecShstrtab, NumSections };

/// Where the object's data lies: .bss holds the handle, the number of modules that have called in, the
/// callbacks and the prelinked fatbinaries (each N + 1 long: the last entry stays NULL, the list's
/// terminator), one `__p` per module; __nv_module_id holds "def <id>\0" per module, as nvcc's object.
struct DataLayout {
  explicit DataLayout(ArrayRef<std::string> ModuleIds) : N(static_cast<uint32_t>(ModuleIds.size())) {
    for (const std::string &Id : ModuleIds) {
      DefStringAt.push_back(ModuleIdSection.size());
      ModuleIdSection += "def " + Id;
      ModuleIdSection.push_back('\0');
    }
  }
  const uint32_t N;
  const uint64_t BssHandle = 0, BssCount = 8, BssCallbacks = 16, BssPrelinked = BssCallbacks + 8 * (N + 1),
                 BssP = BssPrelinked + 8 * (N + 1), BssSize = BssP + 8 * N;
  std::string ModuleIdSection;
  std::vector<uint64_t> DefStringAt;
};

/// The symbol table (locals first: file, sections, data, the helper functions; then the globals) and the
/// indices the code and its relocations refer to.
struct SymbolTable {
  std::vector<ElfSymbol> Symbols{1};
  uint32_t Text = 0, Bss = 0, ModuleId = 0, Fatbin = 0, Segment = 0;
  uint32_t Common = 0, UnregisterUtil = 0, FirstGlobal = 0;
  std::vector<uint32_t> Register, Wrapper; // per module
  uint32_t RegisterFatBinary = 0, RegisterFatBinaryEnd = 0, UnregisterFatBinary = 0, Atexit = 0;

  uint32_t add(ElfSymbol S) {
    Symbols.push_back(std::move(S));
    return static_cast<uint32_t>(Symbols.size() - 1);
  }
};

SymbolTable makeSymbols(ArrayRef<std::string> ModuleIds, const DataLayout &D) {
  const uint32_t N = D.N;
  SymbolTable S;
  S.add({"ptxlink-dlink", STB_LOCAL, STT_FILE, ELF::SHN_ABS});
  S.Text = S.add({"", STB_LOCAL, STT_SECTION, SecText});
  S.Bss = S.add({"", STB_LOCAL, STT_SECTION, SecBss});
  S.ModuleId = S.add({"", STB_LOCAL, STT_SECTION, SecModuleId});
  S.Fatbin = S.add({"", STB_LOCAL, STT_SECTION, SecFatbin});
  S.Segment = S.add({"", STB_LOCAL, STT_SECTION, SecSegment});
  S.add({"__cudaFatCubinHandle", STB_LOCAL, STT_OBJECT, SecBss, D.BssHandle, 8});
  S.add({"__cudaLinkedBinaryCount", STB_LOCAL, STT_OBJECT, SecBss, D.BssCount, 4});
  S.add({"__callback_array", STB_LOCAL, STT_OBJECT, SecBss, D.BssCallbacks, 8 * (N + 1)});
  S.add({"__cudaPrelinkedFatbins", STB_LOCAL, STT_OBJECT, SecBss, D.BssPrelinked, 8 * (N + 1)});
  S.add({"fatbinData", STB_LOCAL, STT_NOTYPE, SecFatbin, 0, 0});
  S.add({"__fatDeviceText", STB_LOCAL, STT_OBJECT, SecSegment, 0, 24});
  for (uint32_t K = 0; K < N; ++K) {
    S.add({"def_module_id_str" + ModuleIds[K], STB_LOCAL, STT_OBJECT, SecModuleId, D.DefStringAt[K],
           4 + ModuleIds[K].size() + 1});
    S.add({"__p" + ModuleIds[K], STB_LOCAL, STT_OBJECT, SecBss, D.BssP + 8 * K, 8});
  }
  S.Common = S.add({"__cudaRegisterLinkedBinary", STB_LOCAL, STT_FUNC, SecText});
  S.UnregisterUtil = S.add({"__cudaUnregisterBinaryUtil", STB_LOCAL, STT_FUNC, SecText});
  S.FirstGlobal = static_cast<uint32_t>(S.Symbols.size());
  for (const std::string &Id : ModuleIds) {
    S.Register.push_back(S.add({"__cudaRegisterLinkedBinary" + Id, STB_GLOBAL, STT_FUNC, SecText}));
    S.Wrapper.push_back(S.add({"__fatbinwrap" + Id, STB_GLOBAL, STT_NOTYPE, 0}));
  }
  S.RegisterFatBinary = S.add({"__cudaRegisterFatBinary", STB_GLOBAL, STT_NOTYPE, 0});
  S.RegisterFatBinaryEnd = S.add({"__cudaRegisterFatBinaryEnd", STB_GLOBAL, STT_NOTYPE, 0});
  S.UnregisterFatBinary = S.add({"__cudaUnregisterFatBinary", STB_GLOBAL, STT_NOTYPE, 0});
  S.Atexit = S.add({"atexit", STB_GLOBAL, STT_NOTYPE, 0});
  return S;
}

/// Offsets in .text that the unwind tables describe.
struct CodePlaces {
  size_t CommonAt = 0, CommonFirstPop = 0, CommonDone = 0, UnregisterAt = 0;
  std::vector<size_t> ModulePop; // offset of each module function's `pop rbx`, from its start
};

/// .text. First the shared routine, link.stub's static __cudaRegisterLinkedBinary(wrapper in rdi,
/// callback in rsi). A call beyond the N-th (a module registering twice) is ignored rather than
/// overwriting the list's NULL terminator. Sets the helper functions' values and sizes in S.
CodePlaces emitCode(Text &T, SymbolTable &S, const DataLayout &D) {
  const uint32_t N = D.N, SymBss = S.Bss;
  CodePlaces P;
  P.CommonAt = T.here();
  T.raw({0x53});                                           // push rbx
  T.raw({0x8b, 0x05}), T.field(R_X86_64_PC32, SymBss, D.BssCount);       // mov eax, [rip+count]
  T.raw({0x3d}), put32(T.Bytes, N);                        // cmp eax, N
  T.raw({0x0f, 0x83});                                     // jae .done
  size_t ToDoneEarly = T.rel32Later();
  T.raw({0x48, 0x8b, 0x57, 0x08});                         // mov rdx, [rdi+8]   (wrapper->data)
  T.raw({0x48, 0x8d, 0x0d}), T.field(R_X86_64_PC32, SymBss, D.BssPrelinked); // lea rcx, [rip+prelinked]
  T.raw({0x48, 0x89, 0x14, 0xc1});                         // mov [rcx+rax*8], rdx
  T.raw({0x48, 0x8d, 0x0d}), T.field(R_X86_64_PC32, SymBss, D.BssCallbacks); // lea rcx, [rip+callbacks]
  T.raw({0x48, 0x89, 0x34, 0xc1});                         // mov [rcx+rax*8], rsi
  T.raw({0xff, 0xc0});                                     // inc eax
  T.raw({0x89, 0x05}), T.field(R_X86_64_PC32, SymBss, D.BssCount);       // mov [rip+count], eax
  T.raw({0x3d}), put32(T.Bytes, N);                        // cmp eax, N
  T.raw({0x0f, 0x85});                                     // jne .done
  size_t ToDone = T.rel32Later();
  T.raw({0x48, 0x8d, 0x3d}), T.field(R_X86_64_PC32, S.Segment, 0);      // lea rdi, [rip+__fatDeviceText]
  T.raw({0xe8}), T.field(R_X86_64_PLT32, S.RegisterFatBinary, 0);       // call __cudaRegisterFatBinary
  T.raw({0x48, 0x89, 0x05}), T.field(R_X86_64_PC32, SymBss, D.BssHandle); // mov [rip+handle], rax
  T.raw({0x48, 0x8d, 0x3d});                               // lea rdi, [rip+__cudaUnregisterBinaryUtil]
  size_t ToUnregisterUtil = T.rel32Later();
  T.raw({0xe8}), T.field(R_X86_64_PLT32, S.Atexit, 0);     // call atexit
  T.raw({0x31, 0xdb});                                     // xor ebx, ebx
  size_t Loop = T.here();
  T.raw({0x48, 0x8b, 0x3d}), T.field(R_X86_64_PC32, SymBss, D.BssHandle); // mov rdi, [rip+handle]
  T.raw({0x48, 0x8d, 0x05}), T.field(R_X86_64_PC32, SymBss, D.BssCallbacks); // lea rax, [rip+callbacks]
  T.raw({0xff, 0x14, 0xd8});                               // call [rax+rbx*8]
  T.raw({0xff, 0xc3});                                     // inc ebx
  T.raw({0x81, 0xfb}), put32(T.Bytes, N);                  // cmp ebx, N
  T.raw({0x0f, 0x85}), T.rel32To(Loop);                    // jne .loop
  T.raw({0x48, 0x8b, 0x3d}), T.field(R_X86_64_PC32, SymBss, D.BssHandle); // mov rdi, [rip+handle]
  P.CommonFirstPop = T.here();
  T.raw({0x5b});                                           // pop rbx
  T.raw({0xe9}), T.field(R_X86_64_PLT32, S.RegisterFatBinaryEnd, 0);    // jmp __cudaRegisterFatBinaryEnd
  P.CommonDone = T.here();
  T.bind(ToDone, T.here());
  T.bind(ToDoneEarly, T.here());
  T.raw({0x5b, 0xc3});                                     // .done: pop rbx; ret
  S.Symbols[S.Common].Size = T.here() - P.CommonAt;
  pad(T.Bytes, 16, Int3);

  // __cudaUnregisterBinaryUtil: the atexit handler.
  P.UnregisterAt = T.here();
  T.bind(ToUnregisterUtil, P.UnregisterAt);
  T.raw({0x48, 0x8b, 0x3d}), T.field(R_X86_64_PC32, SymBss, D.BssHandle); // mov rdi, [rip+handle]
  T.raw({0xe9}), T.field(R_X86_64_PLT32, S.UnregisterFatBinary, 0);     // jmp __cudaUnregisterFatBinary
  S.Symbols[S.UnregisterUtil].Value = P.UnregisterAt;
  S.Symbols[S.UnregisterUtil].Size = T.here() - P.UnregisterAt;
  pad(T.Bytes, 16, Int3);

  // One __cudaRegisterLinkedBinary<id>(callback rdi, prelinked rsi, module id rdx, dummy_ref rcx) per
  // module, as link.stub's DEFINE_REGISTER_FUNC: keep the module's "def <id>" string referenced
  // (`__p = def_module_id_str; dummy_ref(&__p)`), then hand &__fatbinwrap<id> and the callback to the
  // shared routine.
  for (uint32_t K = 0; K < N; ++K) {
    size_t At = T.here();
    T.raw({0x53});                                         // push rbx
    T.raw({0x48, 0x89, 0xfb});                             // mov rbx, rdi
    T.raw({0x48, 0x8d, 0x05}), T.field(R_X86_64_PC32, S.ModuleId, D.DefStringAt[K]); // lea rax, [rip+def_str]
    T.raw({0x48, 0x89, 0x05}), T.field(R_X86_64_PC32, SymBss, D.BssP + 8 * K);       // mov [rip+__p], rax
    T.raw({0x48, 0x85, 0xc9});                             // test rcx, rcx
    T.raw({0x74, 0x09});                                   // je +9 (over the lea and the call)
    T.raw({0x48, 0x8d, 0x3d}), T.field(R_X86_64_PC32, SymBss, D.BssP + 8 * K);       // lea rdi, [rip+__p]
    T.raw({0xff, 0xd1});                                   // call rcx
    T.raw({0x48, 0x8b, 0x3d}), T.field(R_X86_64_REX_GOTPCRELX, S.Wrapper[K], 0);     // mov rdi, [rip+__fatbinwrap@GOTPCREL]
    T.raw({0x48, 0x89, 0xde});                             // mov rsi, rbx
    P.ModulePop.push_back(T.here() - At);
    T.raw({0x5b});                                         // pop rbx
    T.raw({0xe9}), T.rel32To(P.CommonAt);                  // jmp __cudaRegisterLinkedBinary
    S.Symbols[S.Register[K]].Value = At;
    S.Symbols[S.Register[K]].Size = T.here() - At;
    pad(T.Bytes, 16, Int3);
  }
  return P;
}

/// .eh_frame: unwind tables, so that debuggers, profilers and backtraces get through the registration
/// code (a callback runs inside it). One CIE (CFA = rsp + 8, return address at CFA - 8, pc-relative
/// FDE addresses), one FDE per function; `push rbx` moves the CFA to rsp + 16 and saves rbx at CFA - 16.
class EhFrameWriter {
public:
  std::string Bytes;
  std::vector<Rela> Relocs;

  /// The CIE every FDE refers to, at offset 0.
  EhFrameWriter() {
    put32(Bytes, 0); // length, patched
    put32(Bytes, 0); // CIE id
    Bytes += '\x01';                      // version
    Bytes.append("zR\0", 3);              // augmentation
    Bytes += '\x01';                      // code alignment 1
    Bytes += '\x78';                      // data alignment -8
    Bytes += '\x10';                      // return address: r16 (rip)
    Bytes += '\x01';                      // augmentation data length
    Bytes += '\x1b';                      // FDE addresses: DW_EH_PE_pcrel | DW_EH_PE_sdata4
    Bytes.append("\x0c\x07\x08", 3);     // DW_CFA_def_cfa rsp, 8
    Bytes.append("\x90\x01", 2);          // DW_CFA_offset rip, CFA - 8
    padFrame(0);
  }
  /// A function of .text (relocated against its section symbol TextSymbol) and its CFA program.
  void addFde(uint32_t TextSymbol, uint64_t Start, uint64_t Size, const std::string &Cfa) {
    size_t At = Bytes.size();
    put32(Bytes, 0);                                  // length, patched
    put32(Bytes, static_cast<uint32_t>(At + 4));      // back to the CIE at offset 0
    Relocs.push_back({Bytes.size(), R_X86_64_PC32, TextSymbol, int64_t(Start)});
    put32(Bytes, 0);                                  // pc_begin
    put32(Bytes, static_cast<uint32_t>(Size));        // pc_range
    Bytes += '\0';                                   // augmentation data length
    Bytes += Cfa;
    padFrame(At);
  }
  void finish() { put32(Bytes, 0); } // terminator

  /// CFA program bytes: advance to an offset (from the previous one, Now).
  static void advance(std::string &Cfa, size_t &Now, size_t To) {
    size_t Delta = To - Now;
    if (Delta < 64)
      Cfa += static_cast<char>(0x40 | Delta); // DW_CFA_advance_loc
    else
      Cfa += '\x02', Cfa += static_cast<char>(Delta); // DW_CFA_advance_loc1 (functions are < 256 bytes)
    Now = To;
  }
  static constexpr StringRef PushedRbx{"\x0e\x10\x83\x02", 4}; // CFA = rsp + 16; rbx at CFA - 16
  static constexpr StringRef CfaAt8{"\x0e\x08", 2};            // CFA = rsp + 8

private:
  void padFrame(size_t Start) {
    while ((Bytes.size() - Start) % 8)
      Bytes.push_back('\0'); // DW_CFA_nop
    llvm::support::endian::write32le(Bytes.data() + Start, static_cast<uint32_t>(Bytes.size() - Start - 4));
  }
};

EhFrameWriter makeEhFrame(const SymbolTable &S, const CodePlaces &P) {
  using W = EhFrameWriter;
  W E;
  {
    std::string Cfa;
    size_t Now = 0;
    W::advance(Cfa, Now, P.CommonAt + 1);
    Cfa += W::PushedRbx;
    W::advance(Cfa, Now, P.CommonFirstPop + 1);
    Cfa += '\x0a'; // DW_CFA_remember_state: the `jmp` after this pop leaves; .done is still pushed
    Cfa += W::CfaAt8;
    W::advance(Cfa, Now, P.CommonDone);
    Cfa += '\x0b'; // DW_CFA_restore_state
    W::advance(Cfa, Now, P.CommonDone + 1);
    Cfa += W::CfaAt8;
    E.addFde(S.Text, P.CommonAt, S.Symbols[S.Common].Size, Cfa);
  }
  E.addFde(S.Text, P.UnregisterAt, S.Symbols[S.UnregisterUtil].Size, "");
  for (size_t K = 0; K < S.Register.size(); ++K) {
    std::string Cfa;
    size_t Now = 0;
    W::advance(Cfa, Now, 1);
    Cfa += W::PushedRbx;
    W::advance(Cfa, Now, P.ModulePop[K] + 1);
    Cfa += W::CfaAt8;
    E.addFde(S.Text, S.Symbols[S.Register[K]].Value, S.Symbols[S.Register[K]].Size, Cfa);
  }
  E.finish();
  return E;
}

/// An ELF string table: every string NUL-terminated after a leading NUL, the empty string at 0.
uint32_t addString(std::string &Table, StringRef S) {
  if (S.empty())
    return 0;
  uint32_t At = static_cast<uint32_t>(Table.size());
  Table.append(S.data(), S.size());
  Table.push_back('\0');
  return At;
}

std::string relaBytes(const std::vector<Rela> &Rs) {
  std::string B;
  for (const Rela &R : Rs) {
    put64(B, R.Offset);
    put64(B, (uint64_t(R.Symbol) << 32) | R.Type);
    put64(B, static_cast<uint64_t>(R.Addend));
  }
  return B;
}

struct OutSection {
  const char *Name;
  uint32_t Type;
  uint64_t Flags;
  std::string Data;
  uint64_t Size; // for NOBITS
  uint32_t Link, Info;
  uint64_t Align, EntSize;
};

/// The file: header, section contents in section order, the section header table.
std::string layOutFile(std::vector<OutSection> &Secs) {
  std::string Shstrtab(1, '\0');
  std::vector<uint32_t> NameAt(NumSections, 0);
  for (uint16_t I = 1; I < NumSections; ++I)
    NameAt[I] = addString(Shstrtab, I == SecShstrtab ? ".shstrtab" : Secs[I].Name);
  Secs[SecShstrtab] = {".shstrtab", SHT_STRTAB, 0, Shstrtab, 0, 0, 0, 1, 0};

  std::string File(EhdrSize, '\0');
  std::vector<uint64_t> OffsetOf(NumSections, 0);
  for (uint16_t I = 1; I < NumSections; ++I) {
    pad(File, Secs[I].Align);
    OffsetOf[I] = File.size();
    if (Secs[I].Type != SHT_NOBITS)
      File += Secs[I].Data;
  }
  pad(File, 8);
  uint64_t ShOff = File.size();
  for (uint16_t I = 0; I < NumSections; ++I) {
    const OutSection &S = Secs[I];
    put32(File, NameAt[I]);
    put32(File, S.Type);
    put64(File, S.Flags);
    put64(File, 0); // sh_addr
    put64(File, I ? OffsetOf[I] : 0);
    put64(File, S.Type == SHT_NOBITS ? S.Size : S.Data.size());
    put32(File, S.Link);
    put32(File, S.Info);
    put64(File, I ? S.Align : 0);
    put64(File, S.EntSize);
  }
  std::string Header;
  Header += "\x7f" "ELF";
  Header += char(ELF::ELFCLASS64);
  Header += char(ELF::ELFDATA2LSB);
  Header += char(ELF::EV_CURRENT);
  Header += char(ELF::ELFOSABI_NONE); // System V, as the host compiler writes it
  Header.append(8, '\0');
  put16(Header, ELF::ET_REL);
  put16(Header, ELF::EM_X86_64);
  put32(Header, ELF::EV_CURRENT);
  put64(Header, 0); // e_entry
  put64(Header, 0); // e_phoff
  put64(Header, ShOff);
  put32(Header, 0); // e_flags
  put16(Header, EhdrSize);
  put16(Header, 0); // e_phentsize
  put16(Header, 0); // e_phnum
  put16(Header, ShdrSize);
  put16(Header, NumSections);
  put16(Header, SecShstrtab);
  File.replace(0, EhdrSize, Header);
  return File;
}

} // namespace

Error writeDeviceLinkObject(StringRef Fatbin, ArrayRef<std::string> ModuleIds, raw_ostream &OS) {
  // No module id: an object that registers nothing (nvcc -dlink of objects without relocatable device
  // code writes one too); its registration function is never called.
  const DataLayout D(ModuleIds);
  SymbolTable S = makeSymbols(ModuleIds, D);
  Text T;
  const CodePlaces Places = emitCode(T, S, D);
  const EhFrameWriter EhFrame = makeEhFrame(S, Places);

  // .nvFatBinSegment: __fatDeviceText = {magic, 2, fatbinData, __cudaPrelinkedFatbins}.
  std::string Segment;
  put32(Segment, FatbinWrapperMagic);
  put32(Segment, 2);
  put64(Segment, 0);
  put64(Segment, 0);
  std::vector<Rela> SegmentRelocs{{8, R_X86_64_64, S.Fatbin, 0}, {16, R_X86_64_64, S.Bss, int64_t(D.BssPrelinked)}};

  std::string FatbinBytes = Fatbin.str();
  pad(FatbinBytes, 8);

  std::string Strtab(1, '\0'), Symtab;
  for (const ElfSymbol &Sym : S.Symbols) {
    put32(Symtab, addString(Strtab, Sym.Name));
    Symtab.push_back(static_cast<char>((Sym.Bind << 4) | Sym.Type));
    Symtab.push_back('\0');
    put16(Symtab, Sym.Section);
    put64(Symtab, Sym.Value);
    put64(Symtab, Sym.Size);
  }

  std::vector<OutSection> Secs(NumSections);
  Secs[SecText] = {".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, T.Bytes, 0, 0, 0, 16, 0};
  Secs[SecRelaText] = {".rela.text", SHT_RELA, SHF_INFO_LINK, relaBytes(T.Relocs), 0, SecSymtab, SecText, 8, RelaSize};
  Secs[SecBss] = {".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, "", D.BssSize, 0, 0, 16, 0};
  Secs[SecModuleId] = {"__nv_module_id", SHT_PROGBITS, SHF_ALLOC, D.ModuleIdSection, 0, 0, 0, 1, 0};
  Secs[SecFatbin] = {".nv_fatbin", SHT_PROGBITS, SHF_ALLOC, std::move(FatbinBytes), 0, 0, 0, 8, 0};
  Secs[SecSegment] = {".nvFatBinSegment", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, Segment, 0, 0, 0, 8, 0};
  Secs[SecRelaSegment] = {".rela.nvFatBinSegment", SHT_RELA, SHF_INFO_LINK, relaBytes(SegmentRelocs), 0, SecSymtab,
                          SecSegment, 8, RelaSize};
  Secs[SecEhFrame] = {".eh_frame", SHT_PROGBITS, SHF_ALLOC, EhFrame.Bytes, 0, 0, 0, 8, 0};
  Secs[SecRelaEhFrame] = {".rela.eh_frame", SHT_RELA, SHF_INFO_LINK, relaBytes(EhFrame.Relocs), 0, SecSymtab,
                          SecEhFrame, 8, RelaSize};
  Secs[SecNote] = {".note.GNU-stack", SHT_PROGBITS, 0, "", 0, 0, 0, 1, 0};
  Secs[SecSymtab] = {".symtab", SHT_SYMTAB, 0, Symtab, 0, SecStrtab, S.FirstGlobal, 8, SymSize};
  Secs[SecStrtab] = {".strtab", SHT_STRTAB, 0, Strtab, 0, 0, 0, 1, 0};
  OS << layOutFile(Secs);
  return Error::success();
}

} // namespace ptxlink

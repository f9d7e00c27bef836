// `ptxlink-ar`: an ar-compatible tool for static device libraries (docs/archives.md).
//
// The problem: library vendors already have build systems that call `ar rcs libfoo.a a.o b.o`; they
// should only have to swap the tool name. So the command line is ar's (operations r q t x d s p, modifiers
// c s S v D U), the output is a standard GNU archive with a symbol index (LLVM's archive writer, so
// llvm-ar and llvm-nm read it), and the result is deterministic. On top of ar it refuses members that
// are not device objects (a host object or a cubin in a device library is a mistake found far too late
// at link time otherwise), assembles `.ptx` inputs on the way in, and never damages the existing archive:
// every problem is reported, and only a fully successful run replaces the file (atomically).
//
// It lives in the tools layer (tools/ptxlink-ar) and links the assembler for `.ptx` inputs; no library
// uses it.

#include "ptxlink/InputFiles.h"
#include "Archiver.h"

#include "ptxlink/Archive.h"
#include "ptxlink/Assembler.h"
#include "ptxlink/CommandLine.h"
#include "ptxlink/Cubin.h"
#include "ptxlink/Diagnostics.h"
#include "ptxlink/Fatbin.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"

#include <ctime>
#include <optional>

namespace ptxlink {

using namespace llvm;

namespace {

/// LLVM's GNU archive writer, with its warnings (it warns when it cannot read a member's symbols)
/// turned into errors: for a device library a member without an index entry is a broken library.
Error writeGnuArchive(ArrayRef<NewArchiveMember> Members, bool WriteIndex, bool Deterministic, raw_ostream &OS) {
  Error Warning = Error::success();
  Error E = writeArchiveToStream(OS, Members, WriteIndex ? SymtabWritingMode::NormalSymtab : SymtabWritingMode::NoSymtab,
                                 object::Archive::K_GNU, Deterministic, /*Thin=*/false, std::nullopt,
                                 [&](Error W) { Warning = joinErrors(std::move(Warning), std::move(W)); });
  if (E) {
    consumeError(std::move(Warning));
    return E;
  }
  return Warning;
}

} // namespace

std::string classifyNonMember(StringRef Bytes) {
  if (isPtxlinkObject(Bytes))
    return "";
  if (isArchive(Bytes) || Bytes.starts_with("!<thin>\n"))
    return "it is an archive (archives cannot be nested)";
  if (std::optional<ElfIdentity> Elf = identifyElf(Bytes)) {
    if (Elf->Machine == ELF::EM_CUDA)
      return "it is an NVIDIA cubin (EI_OSABI 0x" + utohexstr(Elf->OsAbi) +
             "); ptxlink libraries hold PTX: archive the .ptx file or its ptxlink-as object";
    return ("it is an ELF file for another machine (e_machine " + Twine(Elf->Machine) + ")").str();
  }
  if (isFatbin(Bytes))
    return "it is an NVIDIA fatbinary";
  if (Bytes.starts_with("BC\xC0\xDE"))
    return "it is LLVM bitcode";
  if (Bytes.take_front(4096).contains(".version"))
    return "it looks like PTX text: name it .ptx to have it assembled";
  return "unrecognised contents";
}

namespace {

// The option table (Options.td, turned into Options.inc by llvm-tblgen; its entries name opt:: flags).
using namespace llvm::opt;
enum ArOptionID {
  OPT_INVALID = 0,
#define OPTION(...) LLVM_MAKE_OPT_ID(__VA_ARGS__),
#include "Options.inc"
#undef OPTION
};
#define PREFIX(NAME, VALUE)                                                                                \
  static constexpr StringLiteral NAME##_init[] = VALUE;                                                    \
  static constexpr ArrayRef<StringLiteral> NAME(NAME##_init, std::size(NAME##_init) - 1);
#include "Options.inc"
#undef PREFIX
static constexpr StringLiteral ArPrefixTable_init[] =
#define PREFIX_UNION(VALUES) VALUES
#include "Options.inc"
#undef PREFIX_UNION
    ;
static constexpr ArrayRef<StringLiteral> ArPrefixTable(ArPrefixTable_init, std::size(ArPrefixTable_init) - 1);
static constexpr opt::OptTable::Info ArOptionInfos[] = {
#define OPTION(...) LLVM_CONSTRUCT_OPT_INFO(__VA_ARGS__),
#include "Options.inc"
#undef OPTION
};

class ArOptTable : public opt::PrecomputedOptTable {
public:
  ArOptTable() : PrecomputedOptTable(ArOptionInfos, ArPrefixTable) {}
};

constexpr ToolDescription ArDescription = {
    "ptxlink-ar", "build and inspect static device libraries", "[-]<operation>[modifiers] <archive> [files...]",
    R"(Inputs are ptxlink objects (plain or fat) or .ptx files, which are assembled and stored as <stem>.o.
The archive is a GNU ar archive with a symbol index of every .visible, .weak and .common definition.

OPERATIONS:
  r   insert files, replacing members of the same name
  q   append files (no replacement)
  d   delete the named members
  t   list members (all, or the named ones)
  x   extract members (all, or the named ones) into the current directory
  p   print members' contents to standard output
  s   (alone) rewrite the symbol index, like ranlib

MODIFIERS:
  c   do not warn when the archive is created
  s   write a symbol index (the default)
  S   do not write a symbol index
  v   verbose
  D   deterministic: zero time stamps, uid and gid, mode 644 (the default)
  U   record the inputs' real time stamps, uid, gid and mode
)"};

/// A member of the archive being built: name, bytes (owned, or inside a mapped file) and metadata.
struct Member {
  std::string Name;
  MemoryBufferRef Bytes;
  sys::TimePoint<std::chrono::seconds> ModTime{};
  unsigned UID = 0, GID = 0, Perms = 0644;
  uint64_t Size() const { return Bytes.getBufferSize(); }
};

class ArchiverTool {
public:
  ArchiverTool(raw_ostream &Out, raw_ostream &Err) : Out(Out), Diags(Err, "ptxlink-ar") {}
  int run(ArrayRef<const char *> Args);

private:
  bool parseOperation(StringRef Ops);
  bool readArchive(bool MustExist);
  bool addInputs(bool Replace);
  std::optional<Member> loadInput(const std::string &Path);
  bool checkMembers();
  bool writeArchive(bool WriteIndex);
  bool list();
  bool extract(bool Print);
  bool remove();
  std::vector<size_t> selectMembers(bool &Ok);
  void printLong(const Member &M);

  raw_ostream &Out;
  DiagnosticEngine Diags;
  char Operation = 0;
  bool Create = false, Verbose = false, NoIndex = false, RealMetadata = false;
  std::string ArchivePath;
  ArrayRef<const char *> Files; // into the expanded command line, which outlives the tool
  bool ArchiveExisted = false;

  std::unique_ptr<MemoryBuffer> OldBuffer;
  std::unique_ptr<object::Archive> Old;
  std::vector<Member> Members;
  std::vector<std::unique_ptr<MemoryBuffer>> Owned; // input files and assembled PTX
};

bool ArchiverTool::parseOperation(StringRef Ops) {
  Ops.consume_front("-");
  if (Ops.empty()) {
    Diags.error("no operation given (one of r q d t x p s); see --help");
    return false;
  }
  bool SeenS = false;
  for (char C : Ops) {
    switch (C) {
    case 'r':
    case 'q':
    case 'd':
    case 't':
    case 'x':
    case 'p':
      if (Operation && Operation != C) {
        Diags.error(Twine("only one operation may be given ('") + StringRef(&Operation, 1) + "' and '" +
                    StringRef(&C, 1) + "')");
        return false;
      }
      Operation = C;
      break;
    case 's':
      SeenS = true;
      break;
    case 'S':
      NoIndex = true;
      break;
    case 'c':
      Create = true;
      break;
    case 'v':
      Verbose = true;
      break;
    case 'D':
      RealMetadata = false;
      break;
    case 'U':
      RealMetadata = true;
      break;
    default:
      Diags.error(Twine("unsupported operation or modifier '") + StringRef(&C, 1) + "' in '" + Ops +
                  "'; see --help");
      return false;
    }
  }
  if (!Operation && SeenS)
    Operation = 's';
  if (!Operation) {
    Diags.error("no operation given (one of r q d t x p s) in '" + Ops + "'; see --help");
    return false;
  }
  if (NoIndex && SeenS) {
    Diags.error("modifiers 's' and 'S' contradict each other");
    return false;
  }
  return true;
}

int ArchiverTool::run(ArrayRef<const char *> Args) {
  // ar's words are positional: only the first may be an option (--help, --version); the archive and
  // member names after it are names even when they start with a dash. A first word with one dash that
  // is not in the table is an operation in ar's old style (`-rcs`).
  StringRef First = Args.empty() ? StringRef() : StringRef(Args[0]);
  if (First.starts_with("-")) {
    ArOptTable Table;
    unsigned MissingIndex = 0, MissingCount = 0;
    opt::InputArgList Parsed = Table.ParseArgs(Args.take_front(), MissingIndex, MissingCount);
    if (auto RC = answerInformationalOptions(Table, ArDescription, Parsed, OPT_help, OPT_help_man, OPT_version,
                                             "ptxlink-ar " PTXLINK_VERSION, Out))
      return *RC;
    if (First.starts_with("--")) {
      Diags.error(unknownOptionMessage(Table, ArDescription, First));
      return 1;
    }
  }
  if (Args.size() < 2) {
    Diags.error("expected an operation and an archive name: ptxlink-ar [-]<operation>[modifiers] <archive> "
                "[files...]; see --help");
    return 1;
  }
  if (!parseOperation(First))
    return 1;
  ArchivePath = Args[1];
  Files = Args.drop_front(2);

  bool Ok = false;
  switch (Operation) {
  case 'r':
  case 'q':
    // `ar rcs lib.a lib.a`: the archive would become a member of itself, the old one lost.
    if (Error E = OutputFiles(Files).claim(ArchivePath, "archive")) {
      Diags.error(toString(std::move(E)));
      return 1;
    }
    Ok = readArchive(/*MustExist=*/false) && addInputs(Operation == 'r') && checkMembers() &&
         writeArchive(!NoIndex);
    break;
  case 'd':
    Ok = readArchive(true) && remove() && checkMembers() && writeArchive(!NoIndex);
    break;
  case 's':
    Ok = readArchive(true) && checkMembers() && writeArchive(true);
    break;
  case 't':
    Ok = readArchive(true) && list();
    break;
  case 'x':
    Ok = readArchive(true) && extract(/*Print=*/false);
    break;
  case 'p':
    Ok = readArchive(true) && extract(/*Print=*/true);
    break;
  }
  Out.flush();
  return Ok && !Diags.hasErrors() ? 0 : 1;
}

bool ArchiverTool::readArchive(bool MustExist) {
  if (!sys::fs::exists(ArchivePath)) {
    if (MustExist) {
      Diags.error(ArchivePath + ": no such file");
      return false;
    }
    return true;
  }
  ArchiveExisted = true;
  sys::fs::file_status St;
  if (!sys::fs::status(ArchivePath, St) && St.type() != sys::fs::file_type::regular_file &&
      St.type() != sys::fs::file_type::directory_file) {
    // A device or FIFO holds no archive to read: `rcs /dev/null` writes a new one to it (as -o does),
    // the other operations have nothing to work on.
    if (!MustExist)
      return true;
    Diags.error("cannot read the archive " + ArchivePath + ": not a regular file");
    return false;
  }
  auto Buffer = readInputFile(ArchivePath);
  if (!Buffer) {
    Diags.error("cannot open " + ArchivePath + ": " + Buffer.getError().message());
    return false;
  }
  OldBuffer = std::move(*Buffer);
  StringRef Bytes = OldBuffer->getBuffer();
  if (!isArchive(Bytes)) {
    Diags.error(ArchivePath + ": not an archive (missing \"!<arch>\\n\" at offset 0)" +
                (Bytes.starts_with("!<thin>\n") ? "; thin archives are not supported" : ""));
    return false;
  }
  auto Parsed = object::Archive::create(OldBuffer->getMemBufferRef());
  if (!Parsed) {
    Diags.error(ArchivePath + ": malformed archive: " + toString(Parsed.takeError()));
    return false;
  }
  Old = std::move(*Parsed);
  Error Err = Error::success();
  for (const object::Archive::Child &C : Old->children(Err)) {
    auto Fail = [&](Error E) {
      Diags.error(ArchivePath + ": malformed archive: " + toString(std::move(E)) + " (member header at offset " +
                  Twine(C.getChildOffset()) + ")");
      return false;
    };
    Expected<StringRef> Name = C.getName();
    if (!Name)
      return Fail(Name.takeError());
    Expected<MemoryBufferRef> Ref = C.getMemoryBufferRef();
    if (!Ref)
      return Fail(Ref.takeError());
    Member M;
    M.Name = Name->str();
    M.Bytes = *Ref;
    if (auto T = C.getLastModified())
      M.ModTime = *T;
    else
      return Fail(T.takeError());
    if (auto U = C.getUID())
      M.UID = *U;
    else
      return Fail(U.takeError());
    if (auto G = C.getGID())
      M.GID = *G;
    else
      return Fail(G.takeError());
    if (auto P = C.getAccessMode())
      M.Perms = *P;
    else
      return Fail(P.takeError());
    Members.push_back(std::move(M));
  }
  if (Err) {
    std::string Where;
    if (!Members.empty()) {
      const Member &Last = Members.back();
      uint64_t Offset = Last.Bytes.getBufferStart() - OldBuffer->getBufferStart();
      Where = (" (the last member read, '" + Last.Name + "', has its data at offset " + Twine(Offset) +
               "; the archive has " + Twine(OldBuffer->getBufferSize()) + " bytes)")
                  .str();
    }
    Diags.error(ArchivePath + ": malformed archive: " + toString(std::move(Err)) + Where);
    return false;
  }
  return true;
}

std::optional<Member> ArchiverTool::loadInput(const std::string &Path) {
  auto Buffer = readInputFile(Path);
  if (!Buffer) {
    Diags.error("cannot open " + Path + ": " + Buffer.getError().message());
    return std::nullopt;
  }
  Member M;
  if (RealMetadata) {
    sys::fs::file_status Status;
    if (std::error_code EC = sys::fs::status(Path, Status)) {
      Diags.error("cannot stat " + Path + ": " + EC.message());
      return std::nullopt;
    }
    M.ModTime = std::chrono::time_point_cast<std::chrono::seconds>(Status.getLastModificationTime());
    M.UID = Status.getUser();
    M.GID = Status.getGroup();
    M.Perms = Status.permissions() & 07777;
  }
  StringRef Base = sys::path::filename(Path);
  if (sys::path::extension(Path) == ".ptx") {
    std::unique_ptr<ObjectFile> Object = assembleFiles({Path}, Diags);
    if (!Object)
      return std::nullopt; // the assembler reported why
    SmallString<0> Bytes;
    raw_svector_ostream OS(Bytes);
    if (Error E = writeObject(*Object, OS)) {
      Diags.error(Path + ": " + toString(std::move(E)));
      return std::nullopt;
    }
    M.Name = (sys::path::stem(Base) + ".o").str();
    Owned.push_back(std::make_unique<SmallVectorMemoryBuffer>(std::move(Bytes), M.Name, false));
    M.Bytes = Owned.back()->getMemBufferRef();
    return M;
  }
  M.Name = Base.str();
  std::string Why = classifyNonMember((*Buffer)->getBuffer());
  if (!Why.empty()) {
    Diags.error(Path + ": not a ptxlink device object: " + Why);
    return std::nullopt;
  }
  // Read it completely, so a corrupt object is reported now, naming the file, rather than at link time
  // as a member of a library.
  auto Checked = readObject(MemoryBuffer::getMemBuffer((*Buffer)->getMemBufferRef(), false));
  if (!Checked) {
    Diags.error(toString(Checked.takeError()));
    return std::nullopt;
  }
  Owned.push_back(std::move(*Buffer));
  M.Bytes = Owned.back()->getMemBufferRef();
  return M;
}

bool ArchiverTool::addInputs(bool Replace) {
  // Name -> first member of that name (r replaces that one), so adding N files costs O(N), not O(N^2).
  StringMap<size_t> FirstNamed;
  for (size_t I = 0; I < Members.size(); ++I)
    FirstNamed.try_emplace(Members[I].Name, I);
  bool Ok = true;
  for (StringRef Path : Files) {
    std::optional<Member> M = loadInput(Path.str());
    if (!M) {
      Ok = false;
      continue;
    }
    auto [It, New] = FirstNamed.try_emplace(M->Name, Members.size());
    if (Replace && !New) {
      if (Verbose)
        Out << "r - " << M->Name << "\n";
      Members[It->second] = std::move(*M);
    } else {
      if (Verbose)
        Out << "a - " << M->Name << "\n";
      Members.push_back(std::move(*M));
    }
  }
  return Ok;
}

bool ArchiverTool::checkMembers() {
  bool Ok = true;
  for (const Member &M : Members) {
    std::string Why = classifyNonMember(M.Bytes.getBuffer());
    if (!Why.empty()) {
      Diags.error(ArchivePath + "(" + M.Name + "): not a ptxlink device object: " + Why);
      Ok = false;
    }
  }
  return Ok;
}

bool ArchiverTool::writeArchive(bool WriteIndex) {
  if (Diags.hasErrors())
    return false;
  if (!ArchiveExisted && !Create)
    Diags.stream() << "ptxlink-ar: creating " << ArchivePath << "\n";
  std::vector<NewArchiveMember> New;
  New.reserve(Members.size());
  for (const Member &M : Members) {
    NewArchiveMember N;
    N.Buf = MemoryBuffer::getMemBuffer(M.Bytes, false);
    N.MemberName = M.Name;
    if (RealMetadata) {
      N.ModTime = M.ModTime;
      N.UID = M.UID;
      N.GID = M.GID;
      N.Perms = M.Perms;
    }
    New.push_back(std::move(N));
  }
  Error E = writeFileAtomically(ArchivePath, [&](raw_ostream &OS) {
    return writeGnuArchive(New, WriteIndex, /*Deterministic=*/!RealMetadata, OS);
  });
  if (E) {
    Diags.error(toString(std::move(E))); // writeFileAtomically names the archive
    return false;
  }
  return true;
}

std::vector<size_t> ArchiverTool::selectMembers(bool &Ok) {
  std::vector<size_t> Selected;
  if (Files.empty()) {
    for (size_t I = 0; I < Members.size(); ++I)
      Selected.push_back(I);
    return Selected;
  }
  // Like ar: each name selects its first member of that name; names are matched on the base name.
  for (StringRef F : Files) {
    StringRef Name = sys::path::filename(F);
    auto It = std::find_if(Members.begin(), Members.end(), [&](const Member &M) { return M.Name == Name; });
    if (It == Members.end()) {
      Diags.error("no member named '" + Name + "' in " + ArchivePath);
      Ok = false;
      continue;
    }
    Selected.push_back(It - Members.begin());
  }
  return Selected;
}

void ArchiverTool::printLong(const Member &M) {
  // GNU ar's `tv` layout; the date is printed in UTC so listings do not depend on the time zone.
  static constexpr char Letters[] = "rwxrwxrwx";
  std::string Mode;
  for (unsigned Bit = 0; Bit < 9; ++Bit)
    Mode += (M.Perms & (0400 >> Bit)) ? Letters[Bit] : '-';
  std::time_t T = std::chrono::system_clock::to_time_t(M.ModTime);
  std::tm Tm{};
  gmtime_r(&T, &Tm);
  char Date[64];
  std::strftime(Date, sizeof Date, "%b %e %H:%M %Y", &Tm);
  Out << Mode << " " << M.UID << "/" << M.GID << " " << format("%6llu", (unsigned long long)M.Size()) << " " << Date
      << " " << M.Name << "\n";
}

bool ArchiverTool::list() {
  bool Ok = true;
  for (size_t I : selectMembers(Ok)) {
    if (Verbose)
      printLong(Members[I]);
    else
      Out << Members[I].Name << "\n";
  }
  return Ok;
}

bool ArchiverTool::extract(bool Print) {
  bool Ok = true;
  std::vector<size_t> Selected = selectMembers(Ok);
  if (!Print) {
    // Every member's file is claimed before any is written: a member named as the archive itself would
    // replace it, and two members of one name would leave only the later one.
    OutputFiles Written{ArrayRef<std::string>(ArchivePath)};
    for (size_t I : Selected) {
      const Member &M = Members[I];
      // A member name is a file name in the current directory, never a path.
      if (M.Name.empty() || M.Name == "." || M.Name == ".." || StringRef(M.Name).contains('/')) {
        Diags.error("refusing to extract member '" + M.Name + "' of " + ArchivePath + ": not a plain file name");
        Ok = false;
      } else if (Error E = Written.claim(M.Name, "extracted member")) {
        Diags.error(toString(std::move(E)));
        Ok = false;
      }
    }
    if (!Ok)
      return false;
  }
  for (size_t I : Selected) {
    const Member &M = Members[I];
    if (Print) {
      if (Verbose)
        Out << "\n<" << M.Name << ">\n\n";
      Out << M.Bytes.getBuffer();
      continue;
    }
    if (Verbose)
      Out << "x - " << M.Name << "\n";
    Error E = writeFileAtomically(M.Name, [&](raw_ostream &OS) -> Error {
      OS << M.Bytes.getBuffer();
      return Error::success();
    });
    if (E) {
      Diags.error(toString(std::move(E)));
      Ok = false;
    }
  }
  return Ok;
}

bool ArchiverTool::remove() {
  if (Files.empty())
    return true; // like ar: `d` without names deletes nothing
  bool Ok = true;
  std::vector<size_t> Selected = selectMembers(Ok);
  if (!Ok)
    return false;
  std::vector<bool> Drop(Members.size(), false);
  for (size_t I : Selected) {
    if (Drop[I])
      continue;
    Drop[I] = true;
    if (Verbose)
      Out << "d - " << Members[I].Name << "\n";
  }
  std::vector<Member> Kept;
  for (size_t I = 0; I < Members.size(); ++I)
    if (!Drop[I])
      Kept.push_back(std::move(Members[I]));
  Members = std::move(Kept);
  return true;
}

} // namespace

int runArchiverTool(ArrayRef<std::string> Args, raw_ostream &Out, raw_ostream &Err) {
  // Build systems pass long member lists in response files (`ar rcs lib.a @objects.rsp`), as GNU ar allows.
  auto Expanded = expandResponseFiles(Args);
  if (!Expanded) {
    Err << "ptxlink-ar: error: cannot read a response file: " << toString(Expanded.takeError()) << "\n";
    return 1;
  }
  ArchiverTool Tool(Out, Err);
  return Tool.run(Expanded->argv());
}

} // namespace ptxlink

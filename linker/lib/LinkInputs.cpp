// Pass 0: reading the inputs.
//
// The problem: inputs come as our objects (memory-mapped, nothing copied), PTX text (assembled
// in-process), and static libraries whose members are loaded only when they define something still
// undefined (ArchiveExtractor implements lld's rule). Reading and assembling are independent per file, so
// they run in parallel (on the process's pool, Executor.h); their diagnostics are collected per file and reported in
// command-line order afterwards, so the output does not depend on --threads.
#include "ArchiveExtraction.h"
#include "CubinInputs.h"
#include "ptxlink/Assembler.h"
#include "ptxlink/Cubin.h"
#include "ptxlink/Executor.h"
#include "ptxlink/HostEmbed.h"
#include "InputTextPages.h"
#include "LinkContext.h"
#include "ptxlink/ObjectFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace llvm;

namespace ptxlink {

Diagnostic toolError(const Twine &Message, StringRef Code) {
  Diagnostic D;
  D.Level = Severity::Error;
  D.Message = Message.str();
  D.Code = Code.str();
  return D;
}

namespace {

/// One command-line input after reading: an object, a library, or a failure. One per input, all alive
/// at the end of reading beside every object (10^5 of them in one link): the host part is boxed.
struct Loaded {
  std::string Path;
  bool WholeArchive = false;
  std::unique_ptr<ObjectFile> Object;
  std::unique_ptr<StaticLibrary> Library;
  std::unique_ptr<HostOrigin> Host;  // an nvcc host object
  std::vector<size_t> HostReachable; // an nvcc archive: members linked whatever the device link needs
  std::vector<Diagnostic> Diags; // reported in order after the parallel loop
};

/// A diagnostic sink for work running on another thread: records, prints nothing.
struct LocalDiags {
  std::string Ignored;
  raw_string_ostream OS{Ignored};
  DiagnosticEngine Engine{OS};
  LocalDiags() {
    Engine.setRecord(true);
    Engine.setErrorLimit(0);
  }
};


/// Offset of the first byte in the head of Bytes that no PTX text contains (NUL or another control
/// character), or npos. Only the head is looked at: enough to tell a binary file from text.
size_t firstBinaryByte(StringRef Bytes) {
  StringRef Head = Bytes.take_front(4096);
  for (size_t I = 0; I < Head.size(); ++I) {
    unsigned char C = Head[I];
    if (C < 0x20 && C != '\t' && C != '\n' && C != '\r' && C != '\f' && C != '\v')
      return I;
  }
  return StringRef::npos;
}

/// The host part of an input, boxed for InputFile (most inputs have none).
std::unique_ptr<HostOrigin> boxed(std::optional<HostOrigin> &Host) {
  return Host ? std::make_unique<HostOrigin>(std::move(*Host)) : nullptr;
}

/// Gives back what the assembler reserved beyond a module's tables (it sizes them for the most a module
/// can need, and at least 64 relocations): a link holds every input's module until it ends, and for
/// 10^5 one-function modules that slack was a kilobyte each.
void releaseSlack(ModuleVariant &V) {
  auto Shrink = [](auto &Vec) {
    using T = typename std::decay_t<decltype(Vec)>::value_type;
    if ((Vec.capacity() - Vec.size()) * sizeof(T) >= 64)
      Vec = std::decay_t<decltype(Vec)>(std::make_move_iterator(Vec.begin()), std::make_move_iterator(Vec.end()));
  };
  Shrink(V.Sections);
  Shrink(V.Relocs);
  Shrink(V.Symbols);
  Shrink(V.Functions);
  Shrink(V.Params);
  Shrink(V.Variables);
  if (V.Rare.get())
    Shrink(V.rare().SectionLabels);
}

/// Turns bytes into an object: ours are read, anything else is taken as PTX text and assembled.
/// Options: the link's, for which of an nvcc object's PTX images it reads (ptxArchesToRead).
std::unique_ptr<ObjectFile> objectFromBuffer(const LinkOptions &Options, std::unique_ptr<MemoryBuffer> Buffer,
                                             StringRef DisplayName, std::optional<HostOrigin> &Host,
                                             std::vector<Diagnostic> &Out, DecompressionBudget &Budget) {
  StringRef Bytes = Buffer->getBuffer();
  if (isX86HostObject(Bytes))
    return hostObjectFromBuffer(std::move(Buffer), DisplayName, Host, Out, Budget, ptxArchesToRead(Options));
  if (isPtxlinkObject(Bytes)) {
    std::string Identifier = Buffer->getBufferIdentifier().str();
    auto Obj = readObject(std::move(Buffer));
    if (!Obj) {
      // The reader names the buffer itself ("a.o: offset 0x28: ..."); name it once, as the link knows it
      // (an archive member as "lib.a(m.o)").
      std::string Why = toString(Obj.takeError());
      StringRef Rest = Why;
      if (!Identifier.empty())
        Rest.consume_front(Identifier + ": ");
      Out.push_back(toolError(DisplayName + ": " + Rest, "bad-object"));
      return nullptr;
    }
    return std::move(*Obj);
  }
  if (isCubin(Bytes)) // SASS only: a module known by its symbol table (CubinInputs.h)
    return cubinObjectFromBuffer(std::move(Buffer), DisplayName, Host, Out);
  if (Bytes.starts_with("\x7f" "ELF")) {
    Out.push_back(toolError(DisplayName + ": is an ELF file but neither a ptxlink object nor an x86-64 host object; "
                                          "ptxlink links PTX: ptxlink objects, .ptx files, fatbinaries and nvcc -rdc "
                                          "host objects that embed PTX",
                            "unsupported-input"));
    return nullptr;
  }
  // A fatbinary (nvcc -fatbin -rdc=true): its PTX and SASS as an nvcc object's device code.
  if (isFatbin(Bytes))
    return fatbinObjectFromBuffer(std::move(Buffer), DisplayName, Host, Out, Budget, ptxArchesToRead(Options));
  // A binary file of unknown kind would otherwise be "assembled" into a screenful of errors about its bytes.
  // A file named .ptx is left to the assembler, which reports the offending byte at its line and column.
  if (!DisplayName.ends_with(".ptx")) {
    if (size_t At = firstBinaryByte(Bytes); At != StringRef::npos) {
      Out.push_back(toolError(DisplayName + ": unknown file type: not a ptxlink object, archive or PTX text (binary byte 0x" +
                                  utohexstr(static_cast<unsigned char>(Bytes[At])) + " at offset " + Twine(At) + ")",
                              "unsupported-input"));
      return nullptr;
    }
  }
  auto Obj = std::make_unique<ObjectFile>();
  LocalDiags Local;
  bool Ok = assembleInto(*Obj, Bytes, DisplayName, Local.Engine, /*TextOutlivesObject=*/true, Buffer.get());
  for (const Diagnostic &D : Local.Engine.recorded())
    Out.push_back(D);
  if (!Ok)
    return nullptr;
  for (ModuleVariant &V : Obj->Variants)
    releaseSlack(V);
  Obj->adopt(std::move(Buffer));
  return Obj;
}

/// objectFromBuffer, then, for an nvcc object, the variants its SASS gives it for the link's arches that
/// its PTX does not serve (addSassVariants, CubinInputs.h).
std::unique_ptr<ObjectFile> linkObjectFromBuffer(const LinkOptions &Options, std::unique_ptr<MemoryBuffer> Buffer,
                                                 StringRef DisplayName, std::optional<HostOrigin> &Host,
                                                 std::vector<Diagnostic> &Out, DecompressionBudget &Budget) {
  auto Obj = objectFromBuffer(Options, std::move(Buffer), DisplayName, Host, Out, Budget);
  if (Obj && Host)
    addSassVariants(Options, *Obj, *Host, DisplayName, Out);
  return Obj;
}

/// linkObjectFromBuffer for a command-line input: its host part boxed into L.
std::unique_ptr<ObjectFile> loadObject(const LinkOptions &Options, Loaded &L, std::unique_ptr<MemoryBuffer> Buffer,
                                       DecompressionBudget &Budget) {
  std::optional<HostOrigin> Host;
  auto Obj = linkObjectFromBuffer(Options, std::move(Buffer), L.Path, Host, L.Diags, Budget);
  L.Host = boxed(Host);
  return Obj;
}

} // namespace

/// True for a GNU ld linker script (`/* GNU ld script */`, `OUTPUT_FORMAT(...)`, `GROUP ( ... )`), which
/// glibc installs in place of libm.a, libc.so and the like.
static bool isHostLinkerScript(StringRef Bytes) {
  StringRef Head = Bytes.take_front(512).ltrim();
  return Head.starts_with("/* GNU ld script") || Head.starts_with("OUTPUT_FORMAT") || Head.starts_with("GROUP") ||
         Head.starts_with("INPUT");
}

std::optional<std::string> findLibrary(StringRef Name, const std::vector<std::string> &Dirs) {
  std::string FileName = Name.starts_with(":") ? Name.drop_front().str() : ("lib" + Name + ".a").str();
  for (const std::string &D : Dirs) {
    SmallString<256> P(D);
    sys::path::append(P, FileName);
    if (sys::fs::exists(P))
      return std::string(P);
  }
  return std::nullopt;
}

std::optional<std::string> findHostLibrary(StringRef Name, const std::vector<std::string> &Dirs) {
  if (Name.starts_with(":"))
    return findLibrary(Name, {"/usr/local/lib", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
                              "/usr/lib64", "/lib", "/usr/lib"});
  // The -L folders, the host linker's default folders (Debian's multiarch ones included), and the CUDA
  // toolkit's, where nvcc finds libcudart_static.a; as shared libraries (lib<name>.so, or only the
  // versioned libpthread.so.0 of a runtime-only system) or archives.
  std::vector<std::string> Search = Dirs;
  for (const char *D : {"/usr/local/lib", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                        "/lib", "/usr/lib"})
    Search.push_back(D);
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *Root = std::getenv(Var); Root && *Root)
      for (const char *Sub : {"lib64", "lib", "targets/x86_64-linux/lib"})
        Search.push_back((Twine(Root) + "/" + Sub).str());
  for (const char *Sub : {"lib64", "lib", "targets/x86_64-linux/lib"})
    Search.push_back((Twine("/usr/local/cuda/") + Sub).str());
  std::string Base = ("lib" + Name).str();
  for (const std::string &D : Search)
    for (const char *Suffix : {".so", ".a"}) {
      SmallString<256> P(D);
      sys::path::append(P, Base + Suffix);
      if (sys::fs::exists(P))
        return std::string(P);
    }
  // Only a versioned shared library (libpthread.so.0 on a system without the -dev package): the one case
  // that needs a folder's listing, and only once nothing else matched.
  for (const std::string &D : Search) {
    std::error_code EC;
    for (sys::fs::directory_iterator It(D, EC), End; !EC && It != End; It.increment(EC))
      if (sys::path::filename(It->path()).starts_with(Base + ".so."))
        return It->path();
  }
  return std::nullopt;
}

namespace {

/// The command line's inputs as files to read: each -l found in the -L folders; one that names a host
/// library (nvcc -dlink's command line carries the host link's) is left out, and one found nowhere is an
/// error.
std::vector<Loaded> namedInputs(const LinkOptions &Options, DiagnosticEngine &Diags) {
  std::vector<Loaded> Items;
  Items.reserve(Options.Inputs.size()); // grown by doubling, up to twice its size at the end of reading
  for (const LinkInput &In : Options.Inputs) {
    Loaded L;
    L.WholeArchive = In.WholeArchive;
    if (In.What == LinkInput::Library) {
      auto P = findLibrary(In.Path, Options.LibraryPaths);
      if (!P) {
        // nvcc -dlink's command line (and CMake's device-link rule) carries the host link's libraries too:
        // -lrt -lpthread -ldl -lcudart_static. Found as host libraries, they hold no device code.
        if (auto Host = findHostLibrary(In.Path, Options.LibraryPaths)) {
          if (Options.Verbose)
            Diags.stream() << "ptxlink: -l" << In.Path << ": " << *Host
                           << " is a host library (no device code): left to the host link\n";
          continue;
        }
        Diags.error("unable to find library -l" + In.Path, std::vector<DiagSite>(), "library-not-found");
        continue;
      }
      L.Path = *P;
    } else {
      L.Path = In.Path;
    }
    Items.push_back(std::move(L));
  }
  return Items;
}

/// An archive input into L: an nvcc -lib archive (its members that host code reaches noted) or a device
/// library. False if it is a library already read (the same file named twice).
bool openLibrary(const LinkOptions &Options, Loaded &L, std::unique_ptr<MemoryBuffer> Buffer,
                 std::vector<std::pair<sys::fs::UniqueID, bool>> &SeenLibraries, DecompressionBudget &Budget) {
  // The same archive named twice (CMake gives a library both as a path in the target's flags and as
  // a link library: /abs/libfoo.a ... libfoo.a) is one library, as to nvlink and ld: its members
  // would otherwise be linked twice ("module id ... appears twice").
  if (sys::fs::UniqueID ID; !sys::fs::getUniqueID(L.Path, ID)) {
    if (llvm::is_contained(SeenLibraries, std::make_pair(ID, L.WholeArchive)))
      return false;
    SeenLibraries.push_back({ID, L.WholeArchive});
  }
  if (isHostObjectLibrary(Buffer->getMemBufferRef())) {
    auto Lib = openHostObjectLibrary(std::move(Buffer), L.HostReachable, Budget,
                                     /*EveryMember=*/Options.Emit == EmitKind::HostObject, ptxArchesToRead(Options));
    if (!Lib)
      L.Diags.push_back(toolError(toString(Lib.takeError()), "bad-archive"));
    else
      L.Library = std::move(*Lib);
    if (L.WholeArchive) // the extractor loads every member
      L.HostReachable.clear();
    return true;
  }
  auto Lib = StaticLibrary::open(std::move(Buffer));
  if (!Lib)
    // StaticLibrary::open names the file itself ("lib.a: malformed archive: ...").
    L.Diags.push_back(toolError(toString(Lib.takeError()), "bad-archive"));
  else
    L.Library = std::move(*Lib);
  return true;
}

/// Reads every item: objects and archives here, one after another (reading an object is mostly first
/// touches of memory, which threads only make contend for the address space: two threads read 200 objects
/// no faster than one, and the link as a whole took longer); PTX text, and the PTX of nvcc host objects,
/// assembled in parallel, which is real work. Problems go into each item's Diags.
void readInputs(const LinkOptions &Options, std::vector<Loaded> &Items, DecompressionBudget &Budget,
                InputTextPages &TextPages, DiagnosticEngine &Diags) {
  std::vector<std::pair<size_t, std::unique_ptr<MemoryBuffer>>> ToAssemble;
  ToAssemble.reserve(Items.size());
  std::vector<std::pair<sys::fs::UniqueID, bool>> SeenLibraries; // (file, --whole-archive) read so far
  for (size_t I = 0; I < Items.size(); ++I) {
    Loaded &L = Items[I];
    auto Buffer = mapInputFile(L.Path);
    if (Buffer && !Options.MaxDecompressed)
      Budget.addInput((*Buffer)->getBufferSize());
    if (!Buffer) {
      L.Diags.push_back(toolError("cannot open " + L.Path + ": " + Buffer.getError().message(), "cannot-open"));
      continue;
    }
    StringRef Bytes = (*Buffer)->getBuffer();
    if (Bytes.starts_with("!<thin>\n")) {
      // A GNU thin archive (`ar T`) stores paths, not members; the libraries ptxlink extracts from hold
      // their members. Say how to make one rather than "unknown file type".
      L.Diags.push_back(toolError(L.Path + ": is a thin archive (it lists member paths instead of holding the "
                                           "members), which ptxlink does not read; make a normal one with "
                                           "`ptxlink-ar rcs " + sys::path::filename(L.Path) + " <members>`",
                                  "unsupported-input"));
      continue;
    }
    if (isHostLinkerScript(Bytes)) {
      // libm.a, libc.so and friends on glibc systems are GNU ld scripts naming the real libraries: host
      // code only.
      if (Options.Verbose)
        Diags.stream() << "ptxlink: " << L.Path << ": a GNU ld script (host libraries): left to the host link\n";
      continue;
    }
    if (isArchive(Bytes)) {
      openLibrary(Options, L, std::move(*Buffer), SeenLibraries, Budget);
      continue;
    }
    // nvcc host objects carry PTX to decompress and assemble: real work, done in parallel like .ptx files.
    if (const bool Ours = isPtxlinkObject(Bytes); Ours || (Bytes.starts_with("\x7f" "ELF") && !isX86HostObject(Bytes))) {
      L.Object = loadObject(Options, L, std::move(*Buffer), Budget);
      // Its text may go back to the kernel now, while its pages are the last read. Only ours: an assembled
      // module's names are views of its text, which the passes before printing read.
      if (L.Object)
        TextPages.add(*L.Object, /*Detachable=*/Ours);
    } else {
      ToAssemble.push_back({I, std::move(*Buffer)});
    }
  }
  Options.Exec->parallelFor(0, ToAssemble.size(), [&](size_t K) {
    Loaded &L = Items[ToAssemble[K].first];
    L.Object = loadObject(Options, L, std::move(ToAssemble[K].second), Budget);
  });
  for (const auto &Assembled : ToAssemble)
    if (Items[Assembled.first].Object)
      TextPages.add(*Items[Assembled.first].Object, /*Detachable=*/false);
  TextPages.finishLoading();
}

/// The objects in command-line order into Files, each library's members that host code reaches after the
/// objects before it, and the libraries to the extractor; each item's problems reported in that order.
/// UseExtractor: whether the extractor needs the objects' names (only where there are libraries).
void addReadInputs(const LinkOptions &Options, std::vector<Loaded> &Items, bool UseExtractor, std::vector<InputFile> &Files,
                   ArchiveExtractor &Extractor, DecompressionBudget &Budget, DiagnosticEngine &Diags) {
  Files.reserve(Files.size() + Items.size()); // one per object; a library's members come after
  // The link's table of names sized once, for at most the objects' symbols (nearly all of them visible
  // names, but in a -G module's labels): growing it by doubling rehashed every name again. A library's
  // members and index come later and may grow it.
  size_t Symbols = 0;
  for (const Loaded &L : Items)
    if (L.Object)
      for (const ModuleVariant &V : L.Object->Variants)
        Symbols += V.Symbols.size();
  Extractor.names().reserve(Extractor.names().size() + Symbols);
  for (Loaded &L : Items) {
    for (Diagnostic &D : L.Diags)
      Diags.report(std::move(D));
    if (L.Object) {
      Files.push_back({std::move(L.Path), std::move(L.Object), std::move(L.Host)});
      Extractor.names().addObject(*Files.back().Object, uint32_t(Files.size() - 1));
      if (UseExtractor)
        Extractor.addObject(*Files.back().Object, uint32_t(Files.size() - 1));
    } else if (L.Library) {
      // An nvcc archive's members that host code can reach are linked right away (HostInputs.cpp); the
      // extractor then finds their symbols defined and never loads them again.
      for (size_t Member : L.HostReachable) {
        StringRef MemberName = L.Library->memberName(Member);
        Expected<MemoryBufferRef> MB = L.Library->memberBuffer(Member);
        if (!MB) {
          Diags.error(toString(MB.takeError()), std::vector<DiagSite>(), "bad-archive");
          continue;
        }
        std::string Display = (L.Library->fileName() + "(" + MemberName + ")").str();
        std::optional<HostOrigin> Host;
        std::vector<Diagnostic> Problems;
        auto Obj = linkObjectFromBuffer(Options, MemoryBuffer::getMemBuffer(*MB, false), Display, Host, Problems, Budget);
        for (Diagnostic &D : Problems)
          Diags.report(std::move(D));
        if (Obj) {
          Files.push_back({Display, std::move(Obj), boxed(Host)});
          Extractor.names().addObject(*Files.back().Object, uint32_t(Files.size() - 1));
          Extractor.addObject(*Files.back().Object, uint32_t(Files.size() - 1));
        }
      }
      Extractor.addLibrary(std::move(L.Library), L.WholeArchive);
    }
  }
}

/// The archive members the link needs, appended to Files (ArchiveExtraction.h), and --why-extract's report.
void extractMembers(const LinkOptions &Options, std::vector<InputFile> &Files, ArchiveExtractor &Extractor,
                    DecompressionBudget &Budget, DiagnosticEngine &Diags, raw_ostream &Reports) {
  Error E = Extractor.run([&](uint32_t Input) { return StringRef(Files[Input].Name); },
                          [&](const ExtractedMember &Member) -> Error {
                            std::vector<Diagnostic> Problems;
                            std::optional<HostOrigin> Host;
                            auto Obj = linkObjectFromBuffer(Options, MemoryBuffer::getMemBuffer(Member.Buffer, false),
                                                            Member.DisplayName, Host, Problems, Budget);
                            for (Diagnostic &D : Problems)
                              Diags.report(std::move(D));
                            // Past the error limit nothing more is shown: stop extracting (a
                            // --whole-archive of 10^6 bad members went on through all of them).
                            if (Diags.limitReached())
                              return createStringError(inconvertibleErrorCode(), "error limit reached");
                            if (!Obj)
                              return Error::success(); // reported; the link fails at the checkpoint
                            Files.push_back({Member.DisplayName, std::move(Obj), boxed(Host)});
                            Extractor.names().addObject(*Files.back().Object, uint32_t(Files.size() - 1));
                            Extractor.addObject(*Files.back().Object, uint32_t(Files.size() - 1));
                            return Error::success();
                          });
  if (E) // past the error limit this only makes the engine say "too many errors emitted"
    Diags.error(toString(std::move(E)), std::vector<DiagSite>(), "archive-extraction");
  if (Options.WhyExtractFile == "-") { // as lld: `-` is standard output, unless the output itself goes there
    raw_ostream &OS = Options.Output == "-" ? Diags.stream() : Reports;
    Extractor.writeWhyExtract(OS);
    OS.flush();
  } else if (!Options.WhyExtractFile.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(Options.WhyExtractFile, EC);
    if (EC)
      Diags.error("cannot write " + Options.WhyExtractFile + ": " + EC.message(), std::vector<DiagSite>(), "cannot-write");
    else
      Extractor.writeWhyExtract(OS);
  }
}

} // namespace

bool loadInputs(const LinkOptions &Options, DiagnosticEngine &Diags, PassTimes &Times, ArchiveExtractor &Extractor,
                InputTextPages &TextPages, std::vector<InputFile> &Files, raw_ostream &Reports) {
  PassTimes::Scope Reading = Times.scope("read inputs");
  std::vector<Loaded> Items = namedInputs(Options, Diags);
  // One decompression budget for the whole link: nvcc host objects' compressed PTX
  // may expand to 100 MB plus twice the size of the inputs, all of them together, or to --max-decompressed.
  DecompressionBudget Budget = Options.MaxDecompressed ? DecompressionBudget(*Options.MaxDecompressed)
                                                       : DecompressionBudget();
  readInputs(Options, Items, Budget, TextPages, Diags);
  // Which names are still needed matters only when there are libraries to pull members from: the
  // extractor's table of names is filled only then.
  const bool HaveLibraries = llvm::any_of(Items, [](const Loaded &L) { return L.Library != nullptr; });
  addReadInputs(Options, Items, HaveLibraries, Files, Extractor, Budget, Diags);
  Reading.stop();
  if (Diags.hasErrors())
    return false;

  if (HaveLibraries) {
    PassTimes::Scope Extracting = Times.scope("extract archive members");
    extractMembers(Options, Files, Extractor, Budget, Diags, Reports);
  }
  completeCubinInputs(Files);
  return !Diags.hasErrors();
}

} // namespace ptxlink

// The on-disk compile cache of `ptxlink --sass` (see CompileCache.h for the contract).
//
// Layout: <dir>/<first two hex digits>/<key>.cubin, each file the payload followed by a 32-byte trailer
// (magic with the format version, payload size, XXH3-64 of the payload, XXH3-64 of the entry's key and
// kind). The last field binds the bytes to their name: a valid entry copied or renamed to another key's
// path (a backup restored over the wrong files, a tool that moves files about) is a miss there, not that
// key's code. Two levels keep
// directories small for caches of many thousands of entries. The checksum comes last so that an entry
// begins with its payload: nvlink reads a cached cubin file in place (it stops at the ELF's end) and
// gives the same output as from the bare cubin. (Format 1 had the same fields as a header, format 2 a
// zero in the last field; their entries are misses.)
#include "CompileCache.h"

#include "ptxlink/InputFiles.h"
#include "ptxlink/LittleEndian.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

using namespace llvm;

namespace ptxlink {

namespace {
constexpr char Magic[8] = {'P', 'T', 'X', 'L', 'K', 'C', 'C', '3'};
constexpr size_t TrailerSize = 32; // magic, u64 size, u64 checksum, u64 key tag
constexpr StringRef CubinSuffix = ".cubin", LinkSuffix = ".link", PtxImageSuffix = ".ptxz";
StringRef suffixOf(CompileCache::EntryKind Kind) {
  return Kind == CompileCache::EntryKind::Link       ? LinkSuffix
         : Kind == CompileCache::EntryKind::PtxImage ? PtxImageSuffix
                                                     : CubinSuffix;
}

void put64(std::string &S, uint64_t V) { appendLE(S, V); }
} // namespace

std::string CompileCache::defaultDirectory() {
  SmallString<256> P;
  if (auto X = sys::Process::GetEnv("XDG_CACHE_HOME"); X && !X->empty()) {
    P = *X;
  } else if (auto H = sys::Process::GetEnv("HOME"); H && !H->empty()) {
    P = *H;
    sys::path::append(P, ".cache");
  } else {
    return "";
  }
  sys::path::append(P, "ptxlink");
  return std::string(P);
}

std::string CompileCache::key(ArrayRef<StringRef> Parts) {
  XXH3_state_t *State = XXH3_createState();
  XXH3_128bits_reset(State);
  for (StringRef P : Parts) {
    uint64_t Len = P.size();
    XXH3_128bits_update(State, &Len, sizeof(Len));
    XXH3_128bits_update(State, P.data(), P.size());
  }
  XXH128_hash_t H = XXH3_128bits_digest(State);
  XXH3_freeState(State);
  char Buf[33];
  snprintf(Buf, sizeof(Buf), "%016llx%016llx", static_cast<unsigned long long>(H.high64),
           static_cast<unsigned long long>(H.low64));
  return Buf;
}

namespace {
/// The trailer's last field: which entry the bytes are (its key and kind).
uint64_t keyTag(StringRef Key, CompileCache::EntryKind Kind) {
  std::string Name = (Key + suffixOf(Kind)).str();
  return XXH3_64bits(Name.data(), Name.size());
}

/// What follows an entry's payload.
std::string trailerOf(StringRef Payload, StringRef Key, CompileCache::EntryKind Kind) {
  std::string S(Magic, sizeof(Magic));
  put64(S, Payload.size());
  put64(S, XXH3_64bits(Payload.data(), Payload.size()));
  put64(S, keyTag(Key, Kind));
  return S;
}
} // namespace

std::string CompileCache::encodeEntry(StringRef Payload, StringRef Key, EntryKind Kind) {
  return (Payload + trailerOf(Payload, Key, Kind)).str();
}

std::optional<StringRef> CompileCache::payloadOf(StringRef Bytes, StringRef Key, EntryKind Kind) {
  if (Bytes.size() < TrailerSize)
    return std::nullopt;
  const char *Trailer = Bytes.data() + Bytes.size() - TrailerSize;
  if (std::memcmp(Trailer, Magic, sizeof(Magic)) != 0)
    return std::nullopt;
  uint64_t Size = llvm::support::endian::read64le(Trailer + 8), Sum = llvm::support::endian::read64le(Trailer + 16);
  if (Size != Bytes.size() - TrailerSize || llvm::support::endian::read64le(Trailer + 24) != keyTag(Key, Kind)) // another key's
    return std::nullopt;
  StringRef Payload = Bytes.take_front(Size);
  if (XXH3_64bits(Payload.data(), Payload.size()) != Sum)
    return std::nullopt;
  return Payload;
}

std::optional<std::string> CompileCache::decodeEntry(StringRef Bytes, StringRef Key, EntryKind Kind) {
  if (auto Payload = payloadOf(Bytes, Key, Kind))
    return Payload->str();
  return std::nullopt;
}

std::string CompileCache::entryPath(StringRef Key, EntryKind Kind) const {
  SmallString<256> P(Dir);
  sys::path::append(P, Key.take_front(2), (Key + suffixOf(Kind)).str());
  return std::string(P);
}

namespace {
/// Opens an entry for reading without blocking, if it is a regular file of a size an entry can have
/// (its trailer, at most the cache's limit): a FIFO at an entry's path would block open(2) and read(2)
/// forever, a symbolic link to /dev/zero would be read until memory ran out. Anything else is a miss.
std::optional<int> openEntry(const std::string &Path, uint64_t Limit, uint64_t &Size) {
  llvm::ErrorOr<int> FD = openInputFile(Path, Size);
  if (!FD || *FD == 0) // 0: "-", which no entry path is
    return std::nullopt;
  if (Size < TrailerSize || Size > std::max<uint64_t>(Limit, TrailerSize)) {
    sys::Process::SafelyCloseFileDescriptor(*FD);
    return std::nullopt;
  }
  return *FD;
}
} // namespace

std::optional<CompileCache::Entry> CompileCache::find(StringRef Key, EntryKind Kind) const {
  std::string Path = entryPath(Key, Kind);
  uint64_t Size;
  std::optional<int> FD = openEntry(Path, Limit, Size);
  if (!FD)
    return std::nullopt;
  // Read into memory, not mapped: the bytes verified are the bytes used (nvlink is given a private copy
  // of them), whatever another process does to the file meanwhile. A mapping would show a rewrite in
  // place.
  auto Buffer = MemoryBuffer::getOpenFile(sys::fs::convertFDToNativeFile(*FD), Path, Size,
                                          /*RequiresNullTerminator=*/false, /*IsVolatile=*/true);
  std::optional<Entry> Found;
  if (Buffer)
    if (std::optional<StringRef> Payload = payloadOf((*Buffer)->getBuffer(), Key, Kind))
      Found = Entry{std::move(*Buffer), *Payload, std::move(Path)};
  if (Found) // recently used: eviction goes by modification time
    (void)sys::fs::setLastAccessAndModificationTime(*FD, sys::toTimePoint(std::time(nullptr)));
  sys::Process::SafelyCloseFileDescriptor(*FD);
  return Found;
}

std::optional<std::string> CompileCache::lookup(StringRef Key, EntryKind Kind) const {
  // As find(), read into the string that is returned: nvlink's result (megabytes, on every warm relink)
  // is not copied a second time out of a buffer.
  std::string Path = entryPath(Key, Kind);
  uint64_t Size;
  std::optional<int> FD = openEntry(Path, Limit, Size);
  if (!FD)
    return std::nullopt;
  std::string Bytes(Size, '\0');
  size_t Done = 0;
  while (Done < Size) {
    Expected<size_t> N = sys::fs::readNativeFile(sys::fs::convertFDToNativeFile(*FD),
                                                 MutableArrayRef<char>(Bytes.data() + Done, Size - Done));
    if (!N) {
      consumeError(N.takeError());
      break;
    }
    if (*N == 0)
      break;
    Done += *N;
  }
  std::optional<std::string> Found;
  if (Done == Size)
    if (std::optional<StringRef> Payload = payloadOf(Bytes, Key, Kind)) {
      Bytes.resize(Payload->size()); // the payload is the entry's beginning
      Found = std::move(Bytes);
    }
  if (Found) // recently used: eviction goes by modification time
    (void)sys::fs::setLastAccessAndModificationTime(*FD, sys::toTimePoint(std::time(nullptr)));
  sys::Process::SafelyCloseFileDescriptor(*FD);
  return Found;
}

bool CompileCache::touch(StringRef Key, EntryKind Kind) const {
  uint64_t Size;
  std::optional<int> FD = openEntry(entryPath(Key, Kind), Limit, Size);
  if (!FD)
    return false;
  bool Done = !sys::fs::setLastAccessAndModificationTime(*FD, sys::toTimePoint(std::time(nullptr)));
  sys::Process::SafelyCloseFileDescriptor(*FD);
  return Done;
}

namespace {
/// A new temporary file beside where Key's entries live (the same file system, so that a rename puts it
/// in place), open for writing.
Error createTemporaryIn(StringRef Parent, int &FD, SmallVectorImpl<char> &Temp) {
  if (std::error_code EC = sys::fs::create_directories(Parent))
    return createStringError(EC, "cannot create the cache directory " + Parent + ": " + EC.message());
  if (std::error_code EC = sys::fs::createUniqueFile(Parent + "/tmp-%%%%%%%%%%%%", FD, Temp))
    return createStringError(EC, "cannot write into the cache directory " + Parent + ": " + EC.message());
  return Error::success();
}
} // namespace

Expected<std::string> CompileCache::createTemporary(StringRef Key) const {
  SmallString<256> Temp;
  int FD;
  if (Error E = createTemporaryIn(sys::path::parent_path(entryPath(Key)), FD, Temp))
    return std::move(E);
  sys::Process::SafelyCloseFileDescriptor(FD);
  return std::string(Temp);
}

std::error_code appendToFile(StringRef Path, StringRef Bytes) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Append);
  if (EC)
    return EC;
  OS << Bytes;
  OS.close();
  EC = OS.error();
  OS.clear_error(); // else the stream's destructor ends the process
  return EC;
}

Error CompileCache::adopt(StringRef Temporary, StringRef Key, EntryKind Kind, StringRef Used) const {
  std::string Path = entryPath(Key, Kind);
  auto Fail = [&](std::error_code EC, const Twine &What) {
    sys::fs::remove(Temporary);
    return createStringError(EC, What + ": " + EC.message());
  };
  std::string Trailer;
  {
    auto Payload = MemoryBuffer::getFile(Temporary, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Payload)
      return Fail(Payload.getError(), "cannot read " + Temporary);
    if ((*Payload)->getBuffer() != Used)
      return Fail(std::make_error_code(std::errc::invalid_argument),
                  "not stored: " + Temporary + " changed after the link read it");
    Trailer = trailerOf(Used, Key, Kind);
  }
  if (std::error_code EC = appendToFile(Temporary, Trailer))
    return Fail(EC, "cannot write the cache entry " + Temporary);
  if (std::error_code EC = sys::fs::rename(Temporary, Path))
    return Fail(EC, "cannot store the cache entry " + Path);
  return Error::success();
}

Error CompileCache::store(StringRef Key, StringRef Payload, EntryKind Kind) const {
  std::string Path = entryPath(Key, Kind);
  StringRef Parent = sys::path::parent_path(Path);
  SmallString<256> Temp;
  int FD;
  if (Error E = createTemporaryIn(Parent, FD, Temp))
    return E;
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Payload << trailerOf(Payload, Key, Kind); // no copy of the payload (nvlink's result is megabytes)
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      sys::fs::remove(Temp);
      return createStringError(EC, "cannot write the cache entry " + Temp + ": " + EC.message());
    }
  }
  // A concurrent link may have stored the same key: both wrote the same bytes, either rename wins.
  if (std::error_code EC = sys::fs::rename(Temp, Path)) {
    sys::fs::remove(Temp);
    return createStringError(EC, "cannot store the cache entry " + Path + ": " + EC.message());
  }
  return Error::success();
}

uint64_t CompileCache::prune() const {
  struct Entry {
    sys::TimePoint<> Used;
    uint64_t Size;
    std::string Path;
  };
  std::vector<Entry> Entries;
  uint64_t Total = 0, Removed = 0;
  auto Now = std::chrono::system_clock::now();
  std::error_code EC;
  for (sys::fs::directory_iterator Sub(Dir, EC), End; !EC && Sub != End; Sub.increment(EC)) {
    if (sys::path::filename(Sub->path()).size() != 2)
      continue;
    std::error_code EC2;
    for (sys::fs::directory_iterator F(Sub->path(), EC2); !EC2 && F != End; F.increment(EC2)) {
      sys::fs::file_status St;
      if (sys::fs::status(F->path(), St) || St.type() != sys::fs::file_type::regular_file)
        continue;
      StringRef Name = sys::path::filename(F->path());
      if (Name.starts_with("tmp-")) {
        if (Now - St.getLastModificationTime() > std::chrono::hours(1) && !sys::fs::remove(F->path()))
          Removed += St.getSize();
        continue;
      }
      if (!Name.ends_with(CubinSuffix) && !Name.ends_with(LinkSuffix) && !Name.ends_with(PtxImageSuffix))
        continue;
      Entries.push_back({St.getLastModificationTime(), St.getSize(), F->path()});
      Total += St.getSize();
    }
  }
  if (Total <= Limit)
    return Removed;
  std::sort(Entries.begin(), Entries.end(), [](const Entry &A, const Entry &B) {
    return A.Used != B.Used ? A.Used < B.Used : A.Path < B.Path;
  });
  for (const Entry &E : Entries) {
    if (Total <= Limit)
      break;
    if (!sys::fs::remove(E.Path)) { // another link may have removed it first: then it is gone anyway
      Total -= E.Size;
      Removed += E.Size;
    }
  }
  return Removed;
}

} // namespace ptxlink

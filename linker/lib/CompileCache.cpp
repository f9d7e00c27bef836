// The on-disk compile cache of `ptxlink --sass` (see CompileCache.h for the contract).
//
// Layout: <dir>/<first two hex digits>/<key>.cubin, each file a 32-byte header (magic, format version,
// payload size, XXH3-64 of the payload) followed by the payload. Two levels keep directories small for
// caches of many thousands of entries.
#include "CompileCache.h"

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
constexpr char Magic[8] = {'P', 'T', 'X', 'L', 'K', 'C', 'C', '1'};
constexpr size_t HeaderSize = 32; // magic, u64 size, u64 checksum, u64 reserved (zero)
constexpr StringRef CubinSuffix = ".cubin", LinkSuffix = ".link";
StringRef suffixOf(CompileCache::EntryKind Kind) {
  return Kind == CompileCache::EntryKind::Link ? LinkSuffix : CubinSuffix;
}

void put64(std::string &S, uint64_t V) {
  for (int I = 0; I < 8; ++I)
    S.push_back(static_cast<char>(V >> (8 * I)));
}
uint64_t get64(const char *P) {
  uint64_t V = 0;
  for (int I = 0; I < 8; ++I)
    V |= uint64_t(static_cast<uint8_t>(P[I])) << (8 * I);
  return V;
}
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

std::string CompileCache::encodeEntry(StringRef Payload) {
  std::string S;
  S.reserve(HeaderSize + Payload.size());
  S.append(Magic, sizeof(Magic));
  put64(S, Payload.size());
  put64(S, XXH3_64bits(Payload.data(), Payload.size()));
  put64(S, 0);
  S.append(Payload.data(), Payload.size());
  return S;
}

std::optional<std::string> CompileCache::decodeEntry(StringRef Bytes) {
  if (Bytes.size() < HeaderSize || std::memcmp(Bytes.data(), Magic, sizeof(Magic)) != 0)
    return std::nullopt;
  uint64_t Size = get64(Bytes.data() + 8), Sum = get64(Bytes.data() + 16);
  if (Size != Bytes.size() - HeaderSize || get64(Bytes.data() + 24) != 0) // reserved: zero in this version
    return std::nullopt;
  StringRef Payload = Bytes.drop_front(HeaderSize);
  if (XXH3_64bits(Payload.data(), Payload.size()) != Sum)
    return std::nullopt;
  return Payload.str();
}

std::string CompileCache::entryPath(StringRef Key, EntryKind Kind) const {
  SmallString<256> P(Dir);
  sys::path::append(P, Key.take_front(2), (Key + suffixOf(Kind)).str());
  return std::string(P);
}

std::optional<std::string> CompileCache::lookup(StringRef Key, EntryKind Kind) const {
  std::string Path = entryPath(Key, Kind);
  int FD;
  if (sys::fs::openFileForRead(Path, FD))
    return std::nullopt;
  auto Buffer = MemoryBuffer::getOpenFile(sys::fs::convertFDToNativeFile(FD), Path, -1, false);
  std::optional<std::string> Payload;
  if (Buffer)
    Payload = decodeEntry((*Buffer)->getBuffer());
  if (Payload) // recently used: eviction goes by modification time
    (void)sys::fs::setLastAccessAndModificationTime(FD, sys::toTimePoint(std::time(nullptr)));
  sys::Process::SafelyCloseFileDescriptor(FD);
  return Payload;
}

bool CompileCache::touch(StringRef Key, EntryKind Kind) const {
  int FD;
  if (sys::fs::openFileForRead(entryPath(Key, Kind), FD))
    return false;
  bool Done = !sys::fs::setLastAccessAndModificationTime(FD, sys::toTimePoint(std::time(nullptr)));
  sys::Process::SafelyCloseFileDescriptor(FD);
  return Done;
}

Error CompileCache::store(StringRef Key, StringRef Payload, EntryKind Kind) const {
  std::string Path = entryPath(Key, Kind);
  StringRef Parent = sys::path::parent_path(Path);
  if (std::error_code EC = sys::fs::create_directories(Parent))
    return createStringError(EC, "cannot create the cache directory " + Parent);
  SmallString<256> Temp;
  int FD;
  if (std::error_code EC = sys::fs::createUniqueFile(Parent + "/tmp-%%%%%%%%%%%%", FD, Temp))
    return createStringError(EC, "cannot write into the cache directory " + Parent);
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << encodeEntry(Payload);
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      sys::fs::remove(Temp);
      return createStringError(EC, "cannot write the cache entry " + Temp);
    }
  }
  // A concurrent link may have stored the same key: both wrote the same bytes, either rename wins.
  if (std::error_code EC = sys::fs::rename(Temp, Path)) {
    sys::fs::remove(Temp);
    return createStringError(EC, "cannot store the cache entry " + Path);
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
      if (!Name.ends_with(CubinSuffix) && !Name.ends_with(LinkSuffix))
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

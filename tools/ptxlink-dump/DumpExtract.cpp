// ptxlink-dump --extract (and cuobjdump's -xelf/-xptx): all of a run's images, or none.
//
// The problem: the images are found while the inputs are read, one at a time, so an image that cannot be
// written - its name is an input's, or the disk is full - used to be found after the ones before it were
// already in place: a failed run left some of its files, and a rerun could not tell them from a good
// run's. Each image is written into a private folder inside the destination instead (the same file
// system, so a rename moves it), and only a run in which every image was staged moves them all to their
// names; otherwise the folder goes with everything in it. The folder is removed on SIGINT, SIGTERM and
// SIGHUP too (TemporaryFolder.h).
#include "DumpInternal.h"

#include "ptxlink/TemporaryFolder.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ptxlink::dump {

ExtractionStage::ExtractionStage(StringRef Dir, ArrayRef<std::string> Inputs) : Dir(Dir.str()), Claims(Inputs) {}

ExtractionStage::~ExtractionStage() { discard(); }

Error ExtractionStage::stage(StringRef Path, StringRef Data) {
  // An image whose name is an input's (`--extract . a.1.sm_90.cubin a.fatbin`), or an earlier image's
  // (two inputs of one name in different folders), is refused: and with it the run's extraction.
  if (Error E = Claims.claim(Path, "extracted image")) {
    Failed = true;
    return E;
  }
  if (Failed) // nothing will be moved: the rest is only claimed, so that every refusal is reported
    return Error::success();
  if (Folder.empty()) {
    CreatedDir = !sys::fs::exists(Dir);
    if (std::error_code EC = sys::fs::create_directories(Dir)) {
      Failed = true;
      return createStringError(EC, "cannot create directory '" + Dir + "': " + EC.message());
    }
    // An absolute prefix: LLVM puts a relative one under the system's temporary folder.
    SmallString<256> Prefix(Dir), Made;
    sys::path::append(Prefix, ".ptxlink-extract");
    if (std::error_code EC = sys::fs::make_absolute(Prefix)) {
      Failed = true;
      return createStringError(EC, "cannot write in '" + Dir + "': " + EC.message());
    }
    if (std::error_code EC = sys::fs::createUniqueDirectory(Prefix, Made)) {
      Failed = true;
      return createStringError(EC, "cannot write in '" + Dir + "': " + EC.message());
    }
    Folder = std::string(Made);
    removeFolderOnSignal(Folder);
  }
  SmallString<256> Staged(Folder);
  sys::path::append(Staged, sys::path::filename(Path));
  Names.push_back(sys::path::filename(Path).str());
  std::error_code EC;
  raw_fd_ostream OS(Staged, EC, sys::fs::OF_None);
  if (!EC) {
    OS << Data;
    OS.close();
    EC = OS.error();
    OS.clear_error();
  }
  if (EC) {
    Failed = true;
    return createStringError(EC, "cannot write '" + Path + "': " + EC.message());
  }
  return Error::success();
}

Error ExtractionStage::finish() {
  if (Failed) {
    discard();
    return createStringError(inconvertibleErrorCode(),
                             "--extract: nothing was written to '" + Dir + "' (an image could not be extracted)");
  }
  for (size_t I = 0; I < Names.size(); ++I) {
    SmallString<256> From(Folder), To(Dir);
    sys::path::append(From, Names[I]);
    sys::path::append(To, Names[I]);
    if (std::error_code EC = sys::fs::rename(From, To)) {
      // Rare (the folder is in the destination): what was moved goes too, so that the run leaves none.
      for (size_t J = 0; J < I; ++J) {
        SmallString<256> Moved(Dir);
        sys::path::append(Moved, Names[J]);
        sys::fs::remove(Moved);
      }
      Names.erase(Names.begin(), Names.begin() + I);
      discard();
      return createStringError(EC, "--extract: cannot move the image to '" + To + "': " + EC.message() +
                                       "; nothing was written to '" + Dir + "'");
    }
  }
  Names.clear();
  discard();
  return Error::success();
}

void ExtractionStage::discard() {
  if (Folder.empty()) {
    Names.clear();
    return;
  }
  for (const std::string &Name : Names) {
    SmallString<256> Staged(Folder);
    sys::path::append(Staged, Name);
    sys::fs::remove(Staged);
  }
  Names.clear();
  sys::fs::remove(Folder);
  dontRemoveFolderOnSignal(Folder);
  Folder.clear();
  if (CreatedDir && Failed)
    sys::fs::remove(Dir); // only if empty: a folder this run made for nothing
  CreatedDir = false;
}

} // namespace ptxlink::dump

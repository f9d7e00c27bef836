// libnvJitLink, NVIDIA's link-time optimiser and linker as a library, loaded at run time.
//
// The problem: `ptxlink -dlto` must hand the LTO-IR of nvcc -dlto objects to NVIDIA's optimiser (LTO-IR is
// NVIDIA's private format, never read here), yet ptxlink must build and run where no CUDA toolkit is
// installed. So the library is opened with dlopen when a link asks for it, found the way ptxas is found
// (beside ptxas on PATH, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda), and the few entry points used are
// declared here rather than taken from nvJitLink.h, which a machine without CUDA does not have. The C API
// has been stable since CUDA 12.0: nvJitLinkCreate, AddData, Complete, Get{LinkedCubin,LinkedPtx,
// ErrorLog,InfoLog}{Size,}, Destroy, Version.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxlink {

/// nvJitLinkInputType's values (nvJitLink.h): what AddData is given.
enum class NvJitLinkInput : int { Cubin = 1, Ptx = 2, LtoIr = 3, Fatbin = 4, Object = 5, Library = 6 };

/// The opened library and its entry points. Loading twice in one process is cheap (dlopen counts).
class NvJitLinkLibrary {
public:
  /// Opens the library: Explicit if given (--nvjitlink), else the first libnvJitLink.so found in the
  /// toolkit's library folders (candidateDirs). The error names every place looked at.
  static llvm::Expected<NvJitLinkLibrary> open(llvm::StringRef Explicit);
  /// The folders looked in, in order: beside ptxas (PATH) ../lib64 and ../lib, $CUDA_HOME/lib64 and /lib,
  /// $CUDA_PATH/lib64 and /lib, /usr/local/cuda/lib64.
  static std::vector<std::string> candidateDirs();

  const std::string &path() const { return Path; }
  /// "13.0": what nvJitLinkVersion says.
  const std::string &version() const { return Version; }
  /// The version, and the library file's real path, size and modification time: nvJitLinkVersion names
  /// no patch release (13.0.48 and 13.0.88 both say 13.0), and the optimiser's build decides its output.
  /// Part of the LTO cache key.
  const std::string &identity() const { return Identity; }

  /// One link (an nvJitLinkHandle). Move-only; destroys the handle.
  class Link {
  public:
    Link(Link &&O) noexcept : Lib(O.Lib), Handle(O.Handle) { O.Handle = nullptr; }
    Link(const Link &) = delete;
    ~Link();
    /// Adds one input; Name appears in nvJitLink's messages. The bytes must live until complete().
    llvm::Error add(NvJitLinkInput Kind, llvm::StringRef Bytes, llvm::StringRef Name);
    /// Optimises and links; the error carries nvJitLink's error log.
    llvm::Error complete();
    llvm::Expected<std::string> cubin();
    /// The optimised program as PTX (only after an -lto link).
    llvm::Expected<std::string> ptx();
    std::string errorLog();
    std::string infoLog();

  private:
    friend class NvJitLinkLibrary;
    Link(const NvJitLinkLibrary *Lib, void *Handle) : Lib(Lib), Handle(Handle) {}
    llvm::Error fail(llvm::StringRef What, int Result);
    const NvJitLinkLibrary *Lib;
    void *Handle;
  };
  /// nvJitLinkCreate with Options ("-arch=sm_80", "-lto", "-split-compile=2").
  llvm::Expected<Link> create(llvm::ArrayRef<std::string> Options) const;

private:
  using CreateFn = int (*)(void **, uint32_t, const char **);
  using DestroyFn = int (*)(void **);
  using AddDataFn = int (*)(void *, int, const void *, size_t, const char *);
  using HandleFn = int (*)(void *);
  using SizeFn = int (*)(void *, size_t *);
  using BytesFn = int (*)(void *, void *);
  using VersionFn = int (*)(unsigned *, unsigned *);

  llvm::sys::DynamicLibrary Handle;
  std::string Path, Version, Identity;
  CreateFn Create = nullptr;
  DestroyFn Destroy = nullptr;
  AddDataFn AddData = nullptr;
  HandleFn Complete = nullptr;
  SizeFn CubinSize = nullptr, PtxSize = nullptr, ErrorLogSize = nullptr, InfoLogSize = nullptr;
  BytesFn Cubin = nullptr, Ptx = nullptr, ErrorLog = nullptr, InfoLog = nullptr;
};

} // namespace ptxlink

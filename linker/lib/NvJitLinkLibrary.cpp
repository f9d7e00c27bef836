// Finding, opening and calling libnvJitLink (NvJitLinkLibrary.h).
#include "NvJitLinkLibrary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace ptxlink {

namespace {

/// nvJitLinkResult's names (nvJitLink.h), for messages.
const char *resultName(int R) {
  static const char *const Names[] = {"NVJITLINK_SUCCESS",
                                      "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
                                      "NVJITLINK_ERROR_MISSING_ARCH",
                                      "NVJITLINK_ERROR_INVALID_INPUT",
                                      "NVJITLINK_ERROR_PTX_COMPILE",
                                      "NVJITLINK_ERROR_NVVM_COMPILE",
                                      "NVJITLINK_ERROR_INTERNAL",
                                      "NVJITLINK_ERROR_THREADPOOL",
                                      "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
                                      "NVJITLINK_ERROR_FINALIZE",
                                      "NVJITLINK_ERROR_NULL_INPUT",
                                      "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
                                      "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
                                      "NVJITLINK_ERROR_ARCH_MISMATCH",
                                      "NVJITLINK_ERROR_OUTDATED_LIBRARY",
                                      "NVJITLINK_ERROR_MISSING_FATBIN",
                                      "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
                                      "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
                                      "NVJITLINK_ERROR_LTO_NOT_ENABLED"};
  if (R >= 0 && size_t(R) < std::size(Names))
    return Names[R];
  return "an unknown nvJitLink error";
}

/// The library's file names, newest first: the unversioned link is only in a toolkit's development files.
constexpr StringRef LibraryNames[] = {"libnvJitLink.so", "libnvJitLink.so.13", "libnvJitLink.so.12"};

} // namespace

std::vector<std::string> NvJitLinkLibrary::candidateDirs() {
  std::vector<std::string> Dirs;
  auto addToolkit = [&](StringRef Root) {
    for (StringRef Sub : {"lib64", "lib"}) {
      SmallString<256> D(Root);
      sys::path::append(D, Sub);
      if (!llvm::is_contained(Dirs, std::string(D)))
        Dirs.push_back(std::string(D));
    }
  };
  // Beside ptxas on PATH, through symlinks (/usr/bin/ptxas -> /usr/local/cuda-13.0/bin/ptxas): the
  // toolkit whose ptxas the rest of the build uses.
  if (ErrorOr<std::string> Ptxas = sys::findProgramByName("ptxas")) {
    SmallString<256> Real;
    if (sys::fs::real_path(*Ptxas, Real))
      Real = *Ptxas;
    addToolkit(sys::path::parent_path(sys::path::parent_path(Real)));
  }
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (std::optional<std::string> Root = sys::Process::GetEnv(Var); Root && !Root->empty())
      addToolkit(*Root);
  if (!llvm::is_contained(Dirs, std::string("/usr/local/cuda/lib64")))
    Dirs.push_back("/usr/local/cuda/lib64");
  return Dirs;
}

Expected<NvJitLinkLibrary> NvJitLinkLibrary::open(StringRef Explicit) {
  std::vector<std::string> Tried;
  NvJitLinkLibrary L;
  std::string Why;
  auto tryOpen = [&](const std::string &File) {
    Tried.push_back(File);
    if (!sys::fs::exists(File))
      return false;
    std::string Err;
    sys::DynamicLibrary D = sys::DynamicLibrary::getLibrary(File.c_str(), &Err);
    if (!D.isValid()) {
      Why = "; " + File + " exists but cannot be loaded: " + Err;
      return false;
    }
    L.Handle = D;
    L.Path = File;
    return true;
  };
  bool Found = false;
  if (!Explicit.empty()) {
    Found = tryOpen(Explicit.str());
  } else {
    for (const std::string &Dir : candidateDirs()) {
      for (StringRef Name : LibraryNames) {
        SmallString<256> P(Dir);
        sys::path::append(P, Name);
        if ((Found = tryOpen(std::string(P))))
          break;
      }
      if (Found)
        break;
    }
  }
  if (!Found)
    return createStringError(inconvertibleErrorCode(),
                             "-dlto needs libnvJitLink from the CUDA toolkit (12.0 or newer), which was not found; "
                             "looked for " +
                                 (Explicit.empty() ? join(ArrayRef<StringRef>(LibraryNames), ", ") + " in " : std::string()) +
                                 join(Explicit.empty() ? candidateDirs() : std::vector<std::string>{Explicit.str()},
                                      ", ") +
                                 Why +
                                 (Explicit.empty() ? " (put ptxas on PATH, set CUDA_HOME, or name the library with "
                                                     "--nvjitlink FILE)"
                                                   : ""));
  auto sym = [&](const char *Name) { return L.Handle.getAddressOfSymbol(Name); };
  L.Create = reinterpret_cast<CreateFn>(sym("nvJitLinkCreate"));
  L.Destroy = reinterpret_cast<DestroyFn>(sym("nvJitLinkDestroy"));
  L.AddData = reinterpret_cast<AddDataFn>(sym("nvJitLinkAddData"));
  L.Complete = reinterpret_cast<HandleFn>(sym("nvJitLinkComplete"));
  L.CubinSize = reinterpret_cast<SizeFn>(sym("nvJitLinkGetLinkedCubinSize"));
  L.Cubin = reinterpret_cast<BytesFn>(sym("nvJitLinkGetLinkedCubin"));
  L.PtxSize = reinterpret_cast<SizeFn>(sym("nvJitLinkGetLinkedPtxSize"));
  L.Ptx = reinterpret_cast<BytesFn>(sym("nvJitLinkGetLinkedPtx"));
  L.ErrorLogSize = reinterpret_cast<SizeFn>(sym("nvJitLinkGetErrorLogSize"));
  L.ErrorLog = reinterpret_cast<BytesFn>(sym("nvJitLinkGetErrorLog"));
  L.InfoLogSize = reinterpret_cast<SizeFn>(sym("nvJitLinkGetInfoLogSize"));
  L.InfoLog = reinterpret_cast<BytesFn>(sym("nvJitLinkGetInfoLog"));
  auto GetVersion = reinterpret_cast<VersionFn>(sym("nvJitLinkVersion"));
  if (!L.Create || !L.Destroy || !L.AddData || !L.Complete || !L.CubinSize || !L.Cubin || !L.PtxSize || !L.Ptx ||
      !L.ErrorLogSize || !L.ErrorLog || !L.InfoLogSize || !L.InfoLog || !GetVersion)
    return createStringError(inconvertibleErrorCode(),
                             L.Path + " is not a usable libnvJitLink: it lacks one of the nvJitLink C API's "
                                      "functions (CUDA 12.0 or newer has them all)");
  unsigned Major = 0, Minor = 0;
  if (int R = GetVersion(&Major, &Minor); R != 0)
    return createStringError(inconvertibleErrorCode(), L.Path + ": nvJitLinkVersion failed: " + resultName(R));
  L.Version = std::to_string(Major) + "." + std::to_string(Minor);
  SmallString<256> Real;
  if (sys::fs::real_path(L.Path, Real))
    Real = L.Path;
  sys::fs::file_status Status;
  L.Identity = L.Version + "\x1f" + std::string(Real);
  if (!sys::fs::status(Real, Status))
    L.Identity += "\x1f" + std::to_string(Status.getSize()) + "\x1f" +
                  std::to_string(sys::toTimeT(Status.getLastModificationTime()));
  return L;
}

Expected<NvJitLinkLibrary::Link> NvJitLinkLibrary::create(ArrayRef<std::string> Options) const {
  std::vector<const char *> Argv;
  for (const std::string &O : Options)
    Argv.push_back(O.c_str());
  void *H = nullptr;
  if (int R = Create(&H, uint32_t(Argv.size()), Argv.data()); R != 0)
    return createStringError(inconvertibleErrorCode(), "nvJitLinkCreate(" + join(Options, " ") + ") failed: " +
                                                           resultName(R));
  return Link(this, H);
}

NvJitLinkLibrary::Link::~Link() {
  if (Handle)
    Lib->Destroy(&Handle);
}

Error NvJitLinkLibrary::Link::fail(StringRef What, int Result) {
  std::string Log = errorLog();
  StringRef Trimmed = StringRef(Log).rtrim();
  return createStringError(inconvertibleErrorCode(), "nvJitLink: " + What + " failed (" + resultName(Result) + ")" +
                                                         (Trimmed.empty() ? "" : ":\n" + Trimmed.str()));
}

Error NvJitLinkLibrary::Link::add(NvJitLinkInput Kind, StringRef Bytes, StringRef Name) {
  std::string N = Name.str();
  if (int R = Lib->AddData(Handle, int(Kind), Bytes.data(), Bytes.size(), N.c_str()); R != 0)
    return fail("adding " + Name.str(), R);
  return Error::success();
}

Error NvJitLinkLibrary::Link::complete() {
  if (int R = Lib->Complete(Handle); R != 0)
    return fail("the link", R);
  return Error::success();
}

Expected<std::string> NvJitLinkLibrary::Link::cubin() {
  size_t Size = 0;
  if (int R = Lib->CubinSize(Handle, &Size); R != 0)
    return fail("nvJitLinkGetLinkedCubinSize", R);
  std::string Out(Size, '\0');
  if (int R = Lib->Cubin(Handle, Out.data()); R != 0)
    return fail("nvJitLinkGetLinkedCubin", R);
  return Out;
}

Expected<std::string> NvJitLinkLibrary::Link::ptx() {
  size_t Size = 0;
  if (int R = Lib->PtxSize(Handle, &Size); R != 0)
    return fail("nvJitLinkGetLinkedPtxSize", R);
  std::string Out(Size, '\0');
  if (int R = Lib->Ptx(Handle, Out.data()); R != 0)
    return fail("nvJitLinkGetLinkedPtx", R);
  Out.resize(strnlen(Out.data(), Out.size())); // the size counts the terminating NUL
  return Out;
}

static std::string readLog(void *Handle, int (*SizeOf)(void *, size_t *), int (*Read)(void *, void *)) {
  size_t Size = 0;
  if (SizeOf(Handle, &Size) != 0 || Size == 0)
    return "";
  std::string Out(Size, '\0');
  if (Read(Handle, Out.data()) != 0)
    return "";
  Out.resize(strnlen(Out.data(), Out.size()));
  return Out;
}

std::string NvJitLinkLibrary::Link::errorLog() { return readLog(Handle, Lib->ErrorLogSize, Lib->ErrorLog); }
std::string NvJitLinkLibrary::Link::infoLog() { return readLog(Handle, Lib->InfoLogSize, Lib->InfoLog); }

} // namespace ptxlink

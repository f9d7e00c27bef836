// What the tools read and what they may remove (InputFiles.h): inputs must be regular files or standard
// input, outputs must not be inputs, and a failed run's cleanup touches regular files only.

#include "ptxlink/InputFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <optional>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxlink {
namespace {

enum class InputError { NotRegular = 1, TooLarge };

class InputErrorCategory final : public std::error_category {
public:
  const char *name() const noexcept override { return "ptxlink-input"; }
  std::string message(int Code) const override {
    switch (static_cast<InputError>(Code)) {
    case InputError::NotRegular:
      return "not a regular file (inputs are regular files, or '-' for standard input)";
    case InputError::TooLarge:
      return "standard input is larger than " + std::to_string(MaxStandardInputBytes >> 30) + " GiB";
    }
    return "input error";
  }
};

const std::error_category &inputErrorCategory() {
  static const InputErrorCategory Category; // error categories are compared by address: one instance
  return Category;
}

std::error_code lastError() { return std::error_code(errno, std::generic_category()); }

/// Reads descriptor FD to its end, at most Limit bytes (a larger input is an error, not a fill of memory).
llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> readToEnd(int FD, uint64_t Expected, uint64_t Limit,
                                                            llvm::StringRef Name) {
  std::string Bytes;
  Bytes.resize(std::min<uint64_t>(Expected + 1, Limit + 1)); // one more: a file that grew is read to its end
  size_t Have = 0;
  while (true) {
    if (Have == Bytes.size()) {
      if (Have > Limit)
        return inputTooLargeError();
      Bytes.resize(std::min<uint64_t>(uint64_t(Bytes.size()) * 2 + 65536, Limit + 1));
    }
    ssize_t N = ::read(FD, Bytes.data() + Have, Bytes.size() - Have);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return lastError();
    if (N == 0)
      break;
    Have += size_t(N);
  }
  if (Have > Limit)
    return inputTooLargeError();
  return llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(Bytes.data(), Have), Name);
}

} // namespace

std::error_code notRegularFileError() { return {int(InputError::NotRegular), inputErrorCategory()}; }
std::error_code inputTooLargeError() { return {int(InputError::TooLarge), inputErrorCategory()}; }

llvm::ErrorOr<int> openInputFile(llvm::StringRef Path, uint64_t &Size) {
  Size = 0;
  if (Path == "-")
    return 0;
  std::string CPath = Path.str();
  // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, possibly forever.
  int FD;
  do
    FD = ::open(CPath.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  while (FD < 0 && errno == EINTR);
  if (FD < 0)
    return lastError();
  struct stat St;
  if (::fstat(FD, &St) != 0) {
    std::error_code EC = lastError();
    ::close(FD);
    return EC;
  }
  if (!S_ISREG(St.st_mode)) {
    ::close(FD);
    return S_ISDIR(St.st_mode) ? std::make_error_code(std::errc::is_a_directory) : notRegularFileError();
  }
  // O_NONBLOCK stays: on a regular file, the only kind kept, it changes nothing (reads and mappings of
  // a regular file never block on it), and clearing it cost two calls per input (3000 inputs: 6000).
  Size = uint64_t(St.st_size);
  return FD;
}

llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> readInputFile(llvm::StringRef Path) {
  uint64_t Size;
  llvm::ErrorOr<int> FD = openInputFile(Path, Size);
  if (!FD)
    return FD.getError();
  if (*FD == 0)
    return readToEnd(0, 0, MaxStandardInputBytes, "<stdin>");
  // A regular file: LLVM maps it or reads it, as it judges best for its size.
  auto Buffer = llvm::MemoryBuffer::getOpenFile(llvm::sys::fs::convertFDToNativeFile(*FD), Path, Size,
                                                /*RequiresNullTerminator=*/false);
  ::close(*FD);
  return Buffer;
}

OutputFiles::OutputFiles(llvm::ArrayRef<std::string> Inputs) {
  for (const std::string &In : Inputs)
    addInput(In);
}

OutputFiles::OutputFiles(llvm::ArrayRef<const char *> Inputs) {
  for (const char *In : Inputs)
    addInput(In);
}

void OutputFiles::addInput(llvm::StringRef In) {
  llvm::sys::fs::UniqueID Id;
  if (In != "-" && !llvm::sys::fs::getUniqueID(In, Id))
    InputIds.try_emplace(Id, In.str());
}

std::string OutputFiles::nameKey(llvm::StringRef Path) {
  // The folder through its real path (symbolic links and `..` resolved), once per folder: the name
  // itself is what the writer's rename replaces, a symbolic link there included.
  llvm::StringRef Folder = llvm::sys::path::parent_path(Path);
  auto [It, New] = RealFolders.try_emplace(Folder);
  if (New) {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(Folder.empty() ? llvm::StringRef(".") : Folder, Real)) {
      // A folder that does not exist yet (ptxlink-dump --extract creates it): its absolute spelling.
      Real = Folder;
      (void)llvm::sys::fs::make_absolute(Real);
      llvm::sys::path::remove_dots(Real, /*remove_dot_dot=*/true);
    }
    It->second = std::string(Real);
  }
  return It->second + "/" + llvm::sys::path::filename(Path).str();
}

llvm::Error OutputFiles::claim(llvm::StringRef Path, llvm::StringRef What) {
  if (Path.empty() || Path == "-")
    return llvm::Error::success();
  auto Refuse = [&](const llvm::Twine &Why) {
    return llvm::createStringError(std::make_error_code(std::errc::invalid_argument),
                                   What + " '" + Path + "' " + Why);
  };
  llvm::sys::fs::file_status St;
  bool Exists = !llvm::sys::fs::status(Path, St, /*Follow=*/true);
  if (Exists && St.type() != llvm::sys::fs::file_type::regular_file)
    return llvm::Error::success(); // a device or FIFO is written to, not replaced
  std::optional<llvm::sys::fs::UniqueID> Id;
  if (Exists) {
    Id = St.getUniqueID();
    if (auto It = InputIds.find(*Id); It != InputIds.end())
      return Refuse("is also an input ('" + It->second + "')");
    if (auto It = ClaimedIds.find(*Id); It != ClaimedIds.end())
      return Refuse("is the same file as " + It->second.What + " '" + It->second.Path + "'");
  }
  std::string Key = nameKey(Path);
  if (auto It = ClaimedNames.find(Key); It != ClaimedNames.end())
    return Refuse("is the same file as " + It->second.What + " '" + It->second.Path + "'");
  Claim C{Path.str(), What.str()};
  if (Id)
    ClaimedIds.try_emplace(*Id, C);
  ClaimedNames.try_emplace(Key, std::move(C));
  return llvm::Error::success();
}

llvm::Error checkOutputIsNotInput(llvm::StringRef Output, llvm::ArrayRef<std::string> Inputs) {
  return OutputFiles(Inputs).claim(Output);
}

void removeFailedOutput(llvm::StringRef Output) {
  if (Output.empty() || Output == "-")
    return;
  llvm::sys::fs::file_status St;
  if (!llvm::sys::fs::status(Output, St, /*Follow=*/false) && St.type() == llvm::sys::fs::file_type::regular_file)
    llvm::sys::fs::remove(Output);
}

} // namespace ptxlink

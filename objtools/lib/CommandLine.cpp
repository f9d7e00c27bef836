// Response files and "did you mean" for every tool (CommandLine.h).
#include "ptxlink/CommandLine.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

namespace ptxlink {

Expected<std::vector<std::string>> expandResponseFiles(ArrayRef<std::string> Args) {
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  SmallVector<const char *, 64> Argv;
  for (const std::string &A : Args)
    Argv.push_back(Saver.save(A).data());
  cl::ExpansionContext Expander(Alloc, cl::TokenizeGNUCommandLine);
  if (Error E = Expander.expandResponseFiles(Argv))
    return std::move(E);
  return std::vector<std::string>(Argv.begin(), Argv.end());
}

std::vector<std::string> tokenizeOptionsText(StringRef Text) {
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  SmallVector<const char *, 32> Tokens;
  cl::TokenizeGNUCommandLine(Text, Saver, Tokens, /*MarkEOLs=*/false);
  return std::vector<std::string>(Tokens.begin(), Tokens.end());
}

std::string closestOption(StringRef Unknown, ArrayRef<StringRef> Known) {
  // Compare bare names: `-sas`, `--sas` and `--sas=1` are all the same typo of `--sass`.
  auto Bare = [](StringRef S) { return S.ltrim('-').split('=').first; };
  StringRef Wanted = Bare(Unknown);
  if (Wanted.empty())
    return "";
  StringRef Best;
  unsigned BestDistance = ~0u;
  for (StringRef K : Known) {
    unsigned D = Wanted.edit_distance(Bare(K), /*AllowReplacements=*/true, BestDistance);
    if (D < BestDistance) {
      BestDistance = D;
      Best = K;
    }
  }
  // One edit in a short name, up to a third of a longer one: beyond that the "suggestion" is noise.
  unsigned Limit = std::max<unsigned>(1, Wanted.size() / 3);
  if (Best.empty() || BestDistance > Limit || Best == Unknown)
    return "";
  return Best.str();
}

std::string unknownOptionMessage(StringRef Unknown, ArrayRef<StringRef> Known) {
  std::string Message = "unknown option '" + Unknown.str() + "'";
  std::string Suggestion = closestOption(Unknown, Known);
  if (!Suggestion.empty())
    Message += "; did you mean '" + Suggestion + "'?";
  return Message;
}

} // namespace ptxlink

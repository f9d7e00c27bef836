// "did you mean" for an undefined symbol: the defined names the user most likely meant.
//
// The problem: an undefined C++ function is usually defined after all, with other parameter types, in
// another namespace, or with other qualifiers; and an undefined extern "C" name is usually a typo, or a
// C++ function someone forgot to declare extern "C" (or the reverse). So C++ names are compared by their
// demangled parts (same base name, then say which parts differ) and plain names by edit distance, with
// a mangled definition of the same base name as the strongest hint. At most three suggestions, best
// first, ties broken by name, so the output is deterministic.

#include "ptxlink/AbiCheck.h"

#include "llvm/Demangle/Demangle.h"

#include <algorithm>

using namespace llvm;

namespace ptxlink {

namespace {

/// The parts of a demangled function name that "did you mean" compares.
struct CxxParts {
  bool Valid = false;
  bool IsFunction = false;
  std::string Full, Base, Context, Params;
};

std::string take(char *Buf) {
  if (!Buf)
    return "";
  std::string S(Buf);
  std::free(Buf);
  return S;
}

CxxParts splitCxx(StringRef Name) {
  CxxParts P;
  if (!Name.starts_with("_Z"))
    return P;
  ItaniumPartialDemangler D;
  std::string Copy = Name.str();
  if (D.partialDemangle(Copy.c_str()))
    return P;
  P.Valid = true;
  P.Full = take(D.finishDemangle(nullptr, nullptr));
  P.IsFunction = D.isFunction();
  if (P.IsFunction) {
    size_t N = 0;
    P.Base = take(D.getFunctionBaseName(nullptr, &N));
    N = 0;
    P.Context = take(D.getFunctionDeclContextName(nullptr, &N));
    N = 0;
    P.Params = take(D.getFunctionParameters(nullptr, &N));
  } else {
    // A variable: the last component of the qualified name is its base name.
    StringRef Full = P.Full;
    size_t Colon = Full.rfind("::");
    P.Base = Colon == StringRef::npos ? P.Full : Full.substr(Colon + 2).str();
    P.Context = Colon == StringRef::npos ? "" : Full.substr(0, Colon).str();
  }
  return P;
}

/// The rest of the demangled text once context, base name and parameters are accounted for: cv and ref
/// qualifiers of member functions, template arguments, return types of templates.
std::string qualifiers(const CxxParts &P) {
  StringRef Full = P.Full;
  size_t At = Full.rfind(P.Params);
  if (P.Params.empty() || At == StringRef::npos)
    return "";
  return Full.substr(At + P.Params.size()).trim().str();
}

struct Candidate {
  unsigned Score; // lower is better
  StringRef Name;
  std::string Text;
};

std::string quoteCxx(StringRef Name, const CxxParts &P) {
  if (!P.Valid)
    return ("'" + Name + "'").str();
  return "'" + P.Full + "' (" + Name.str() + ")";
}

} // namespace

void suggestNearMisses(StringRef Undefined, ArrayRef<StringRef> DefinedNames, std::vector<DiagSite> &Out) {
  CxxParts U = splitCxx(Undefined);
  // Plain names the user might have mistyped: how far is far enough to suggest (a quarter of the name).
  StringRef UndefBase = U.Valid ? StringRef(U.Base) : Undefined;
  unsigned MaxDistance = std::max<unsigned>(1, UndefBase.size() / 4);
  std::vector<Candidate> Found;
  for (StringRef Name : DefinedNames) {
    if (Name == Undefined)
      continue;
    CxxParts D = splitCxx(Name);
    if (U.Valid && D.Valid) {
      if (U.Base != D.Base)
        continue;
      std::vector<std::string> Diffs;
      unsigned Score = 0;
      if (U.Params != D.Params) {
        Diffs.push_back("parameters " + U.Params + " vs " + D.Params);
        Score += 2;
      }
      if (U.Context != D.Context) {
        Diffs.push_back("scope '" + (U.Context.empty() ? std::string("::") : U.Context) + "' vs '" +
                        (D.Context.empty() ? std::string("::") : D.Context) + "'");
        Score += 3;
      }
      std::string QU = qualifiers(U), QD = qualifiers(D);
      if (QU != QD) {
        Diffs.push_back("qualifiers '" + QU + "' vs '" + QD + "'");
        Score += 1;
      }
      if (Diffs.empty())
        Diffs.push_back("same demangled name, different mangling (return type or template arguments?)");
      std::string Text = "did you mean " + quoteCxx(Name, D) + "? differs in ";
      for (size_t I = 0; I < Diffs.size(); ++I)
        Text += (I ? "; " : "") + Diffs[I];
      Found.push_back({Score, Name, std::move(Text)});
      continue;
    }
    if (!U.Valid && D.Valid && D.Base == Undefined) {
      Found.push_back({0, Name,
                       "did you mean " + quoteCxx(Name, D) + "? it is a C++ name: is '" + Undefined.str() +
                           "' declared extern \"C\" on one side only?"});
      continue;
    }
    if (U.Valid && !D.Valid && Name == U.Base) {
      Found.push_back({0, Name,
                       ("did you mean '" + Name + "'? it is an extern \"C\" name: is '" + U.Full +
                        "' declared extern \"C\" on one side only?")
                           .str()});
      continue;
    }
    if (U.Valid || D.Valid)
      continue;
    // Both plain: spelling. Case-only differences count as one edit.
    unsigned Distance =
        Undefined.equals_insensitive(Name) ? 1 : Undefined.edit_distance(Name, true, MaxDistance + 1);
    // An edit that rewrites the whole name ('u' -> 'k') is no near miss, only a coincidence of length.
    bool KeepsSomething = Distance < std::max(Undefined.size(), Name.size());
    if (Distance <= MaxDistance && KeepsSomething)
      Found.push_back({10 + Distance, Name, ("did you mean '" + Name + "'?").str()});
  }
  std::sort(Found.begin(), Found.end(), [](const Candidate &A, const Candidate &B) {
    return A.Score != B.Score ? A.Score < B.Score : A.Name < B.Name;
  });
  for (size_t I = 0; I < Found.size() && I < 3; ++I)
    Out.push_back({std::move(Found[I].Text)});
}

} // namespace ptxlink

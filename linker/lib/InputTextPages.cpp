// The inputs' text given back between reading and printing (InputTextPages.h).

#include "InputTextPages.h"

#include "ptxlink/InputFiles.h"

#include <algorithm>
#include <cstring>

namespace ptxlink {

namespace {
/// The span of an object's section contents: from the lowest byte of any section to the highest, over
/// every variant. Null where it has none.
std::pair<const char *, const char *> textSpan(const ObjectFile &Object) {
  const char *Lo = nullptr, *Hi = nullptr;
  for (const ModuleVariant &V : Object.Variants)
    for (const Section &S : V.Sections) {
      llvm::StringRef C = S.contents();
      if (C.empty())
        continue;
      Lo = Lo ? std::min(Lo, C.data()) : C.data();
      Hi = std::max(Hi, C.data() + C.size());
    }
  return {Lo, Hi};
}
} // namespace

InputTextPages::InputTextPages(uint64_t DetachAfter)
    : DetachAfter(DetachAfter), ReleaseFn([this](llvm::StringRef Range) { release(Range); }),
      HeaderFn([this](const Section &S, uint32_t &Hint) { return header(S, Hint); }) {}

void InputTextPages::add(ObjectFile &Object, bool Detachable) {
  const uint64_t Mapped = Object.mappedBytes();
  if (Mapped == 0)
    return; // read into memory (a small file) or made here: nothing to give back
  if (Mapped >= LargeTextBytes) {
    // A large input: its reader or assembler gave back what it could; the printer gives its text back
    // behind itself.
    if (auto [Lo, Hi] = textSpan(Object); Lo)
      Spans.push_back({Lo, Hi, &Object, uint32_t(Headers.size()), uint32_t(Headers.size())});
    return;
  }
  if (!Detachable)
    return;
  Added += Mapped;
  if (Detaching) {
    detach(Object);
    return;
  }
  Undetached.push_back(&Object);
  if (Added < DetachAfter)
    return;
  Detaching = true;
  for (ObjectFile *Earlier : Undetached)
    detach(*Earlier);
  Undetached.clear();
  Undetached.shrink_to_fit();
}

void InputTextPages::detach(ObjectFile &Object) {
  auto [Lo, Hi] = textSpan(Object);
  if (!Lo)
    return;
  const size_t FirstHeader = Headers.size();
  for (ModuleVariant &V : Object.Variants) {
    for (const Section &S : V.Sections)
      if (S.Kind == SectionKind::Function && S.HeaderLength && S.HeaderLength <= S.contents().size()) {
        char *Copy = Copies.Allocate<char>(S.HeaderLength);
        std::memcpy(Copy, S.contents().data(), S.HeaderLength);
        Headers.push_back({S.contents().data(), Copy, S.HeaderLength});
      }
    if (!V.plainLabels().empty() && V.plainLabelHashes().empty()) {
      ModelTable<uint64_t> &Hashes = V.facts().PlainLabelHashes;
      Hashes.reserve(V.plainLabels().size());
      for (const ModuleVariant::PlainLabel &L : V.plainLabels())
        Hashes.push_back(ModuleVariant::plainLabelNameHash(V.plainLabelName(L)));
    }
  }
  // By address within the input (a fat object's variants follow one another; the writer keeps each one's
  // sections in order, so this is nearly always sorted already).
  auto ByContents = [](const HeaderCopy &A, const HeaderCopy &B) { return A.Contents < B.Contents; };
  if (!std::is_sorted(Headers.begin() + FirstHeader, Headers.end(), ByContents))
    std::sort(Headers.begin() + FirstHeader, Headers.end(), ByContents);
  Object.releaseSourcePages(llvm::StringRef(Lo, size_t(Hi - Lo)), Discard);
  ++DetachedInputs;
  DetachedBytes += uint64_t(Hi - Lo);
  Spans.push_back({Lo, Hi, &Object, uint32_t(FirstHeader), uint32_t(Headers.size())});
}

void InputTextPages::finishLoading() {
  Discard.flush();
  llvm::sort(Spans, [](const Span &A, const Span &B) { return A.Begin < B.Begin; });
}

llvm::StringRef InputTextPages::header(const Section &S, uint32_t &Hint) const {
  const char *At = S.contents().data();
  auto found = [&](size_t I) {
    Hint = uint32_t(I + 1);
    return llvm::StringRef(Headers[I].Copy, Headers[I].Length);
  };
  // The printer asks in the order the copies were kept, skipping the functions it does not print.
  for (size_t I = Hint, End = std::min(Headers.size(), size_t(Hint) + 8); I < End; ++I)
    if (Headers[I].Contents == At)
      return found(I);
  // Elsewhere (an alias's target, another input): the input by address, then the copy within it.
  auto It = std::partition_point(Spans.begin(), Spans.end(), [At](const Span &Sp) { return Sp.End <= At; });
  if (It == Spans.end() || At < It->Begin)
    return {};
  auto First = Headers.begin() + It->FirstHeader, Last = Headers.begin() + It->EndHeader;
  auto Copy = std::partition_point(First, Last, [At](const HeaderCopy &H) { return H.Contents < At; });
  if (Copy == Last || Copy->Contents != At)
    return {};
  return found(size_t(Copy - Headers.begin()));
}

void InputTextPages::release(llvm::StringRef Range) const {
  std::lock_guard<std::mutex> Hold(Lock);
  const char *B = Range.data(), *E = B + Range.size();
  // The first span that ends after B: spans do not overlap (each is its own input's bytes).
  auto It = std::partition_point(Spans.begin(), Spans.end(), [B](const Span &S) { return S.End <= B; });
  for (; It != Spans.end() && It->Begin < E; ++It) {
    const char *Lo = std::max(B, It->Begin), *Hi = std::min(E, It->End);
    It->Object->releaseSourcePages(llvm::StringRef(Lo, size_t(Hi - Lo)), Discard);
  }
}

} // namespace ptxlink

// The one-definition-rule hash of a weak definition (docs/linker.md, "The ODR comparison").
//
// The problem: every .cu file that instantiates a template carries its own `.weak` copy, and the linker
// warns when two copies of one name differ. Comparing them means reading their text, which a link of
// hundreds of modules cannot afford (and the linker reads no PTX text after assembly). So the assembler
// hashes each weak definition once, modulo what nvcc numbers per module, and the object carries the
// number (ModuleVariant::OdrHashes); the resolver compares numbers.
//
// What the hash covers, decided per module, so that it is known at assembly:
//  - the text of the definition with every relocated name replaced: a *visible* name (a symbol of this
//    module bound Global, Weak, Common or Undefined: the names a link resolves across modules, which
//    keep their spelling through every link) is kept as spelled, except the definition's own name; the
//    own name, module-local names (file-static functions and variables, renamed apart by a link) and
//    labels that debug data refers to become one marker;
//  - then normalised: comments, `.loc` lines and unused labels go, used labels are numbered in order of
//    first use, `__local_depotN` loses N, nvcc's translation-unit tags in names (`_INTERNAL_<tag>`,
//    `__nv_static_NN__<tag>`, `_GLOBAL__N__<tag>`) and `$<digits>` suffixes lose their numbering, and runs
//    of blanks count as one;
//  - XXH3-64 of the result.
// Two copies hash equal exactly when their normalised texts are equal (but for a 64-bit collision).
#pragma once

#include "ptxlink/ObjectModel.h"

#include <cstdint>

namespace ptxlink {

/// The ODR hash of section Index of V (a function or variable section; its relocations set).
uint64_t odrHash(const ModuleVariant &V, uint32_t Index);

/// If section Index of V defines a Weak symbol, appends its ODR hash to V.OdrHashes. Sections are given
/// theirs in increasing order (the table stays sorted).
void recordOdrHash(ModuleVariant &V, uint32_t Index);

} // namespace ptxlink

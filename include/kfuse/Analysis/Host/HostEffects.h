//===- HostEffects.h - what host statements may change -----------*- C++ -*-===//
//
// Host code between two launches may change what a later launch is given.
// A local that only its own name reaches changes only where that name is
// written; any other variable (its address taken, a reference bound to it,
// captured by reference, a global) may change through any store through a
// pointer or reference and any call. kfuse suggest's dependences and the
// launch rewrite's operand rule both ask these two questions.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_HOSTEFFECTS_H
#define KFUSE_ANALYSIS_HOSTEFFECTS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

#include <string>

namespace kfuse {

/// Whether \p V is a local of \p Body whose value only its own name reads
/// and writes: no address taken (but by an allocator that fills it), no
/// reference bound to it, no lambda capturing it by reference, no member
/// called on it.
bool privateLocal(const clang::VarDecl &V, const clang::Stmt &Body);
/// Why other names may reach \p V ("its address is taken"); empty when
/// \p V is a private local.
std::string otherNames(const clang::VarDecl &V, const clang::Stmt &Body);

/// What in \p S may write memory other than a private local's own name: a
/// store through a pointer, reference or member, or a call other than the
/// inert ones (inertHostCall). Empty when nothing.
std::string indirectWrite(const clang::Stmt *S);

} // namespace kfuse

#endif

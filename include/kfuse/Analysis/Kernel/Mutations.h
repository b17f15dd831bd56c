//===- Mutations.h - what a body may change -------------------*- C++ -*-===//
//
// The places code may store into: both the access analysis (a loop variable
// changed elsewhere is no canonical loop) and the launch reader (a local
// whose initializer is its value everywhere) ask it.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_MUTATIONS_H
#define KFUSE_ANALYSIS_MUTATIONS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <set>

namespace kfuse {

/// Calls \p Mutated with each expression \p Body may store into: the left
/// side of an assignment (built-in or overloaded), what is incremented or
/// decremented, what has its address taken, what is bound to a non-const
/// reference (a parameter or a variable), and the object of a non-const
/// method call.
void forEachMutation(const clang::Stmt *Body,
                     llvm::function_ref<void(const clang::Expr *)> Mutated);

/// The variable whose own storage \p E names: x, x.f, x[i] for an array x;
/// null through a pointer (`p->f`, `p[i]`: memory) and for anything else.
const clang::VarDecl *ownedVariable(const clang::Expr *E);

/// The parameters \p Kernel's body changes (`p += offset`, `n--`, a member
/// of a struct parameter, one bound to a non-const reference).
std::set<const clang::ParmVarDecl *> changedParams(const clang::FunctionDecl &Kernel);

} // namespace kfuse

#endif

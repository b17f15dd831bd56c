//===- HostAliases.h - which buffers a host pointer may point into -*- C++ -*-===//
//
// kfuse suggest calls two launches independent only where their buffers
// are proven apart. In one host function, each pointer is traced back to
// the allocations it may hold: a variable (or member) that cudaMalloc or
// malloc gave a buffer is that buffer; one assigned from others may be any
// of theirs; one the function receives (a parameter, a global it never
// assigns) is assumed to be its own buffer, which its callers decide. What
// kfuse cannot follow (a call's result, an element of an array of
// pointers, a pointer passed by address to another function) may be any
// buffer.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_HOSTALIASES_H
#define KFUSE_ANALYSIS_HOSTALIASES_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kfuse {

/// The buffers a pointer may point into.
struct BufferRoots {
  std::set<std::string> Names; ///< Each by the variable or member that received it.
  bool Any = false;            ///< kfuse cannot follow it: it may be any buffer.
  std::string Why;             ///< Why, when Any.
  /// The names that are something the function receives (a parameter, a
  /// global it never assigns): what they point to, its callers decide.
  std::set<std::string> Received;
  /// Whether the two may share a buffer; \p Why says how.
  bool mayShare(const BufferRoots &O, std::string &Why) const;
};

class HostAliases {
public:
  HostAliases(clang::ASTContext &Ctx, const clang::FunctionDecl &F);
  ~HostAliases();

  /// The buffers the pointer \p E may point into.
  BufferRoots rootsOf(const clang::Expr *E);
  /// The name of the variable or member path \p E names ("d_a", "s.a",
  /// "p->a"); empty when it is no such path.
  std::string pathOf(const clang::Expr *E) const;

private:
  struct Facts;
  clang::ASTContext &Ctx;
  std::unique_ptr<Facts> F;
  std::map<std::string, BufferRoots> Done;
  std::set<std::string> Busy;

  BufferRoots rootsOfPath(const std::string &Path, const clang::Expr *Named);
  BufferRoots rootsOf(const clang::Expr *E, const std::string &Target, unsigned Depth);
  std::string text(const clang::Expr *E) const;
  /// "v's elements" for v.data() (or, with \p Element, v[i], whose address
  /// is taken) of a standard vector, array, string or valarray v; empty
  /// for anything else.
  std::string containerElements(const clang::Expr *E, bool Element = false) const;
};

} // namespace kfuse

#endif

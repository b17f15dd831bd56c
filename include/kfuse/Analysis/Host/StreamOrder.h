//===- StreamOrder.h - what a wait between two launches orders -*- C++ -*-===//
//
// Fusing two launches runs the second where the first was, above the host
// code between them. A wait there (cudaDeviceSynchronize, a stream or event
// wait, a synchronous copy) orders more than the first launch: work queued
// earlier on other streams finishes before the second launch starts. The
// move is sound only where no such work may still run and touch what either
// launch uses. This file finds the work a host function queues, which of it
// a wait that every path passes has already waited for, and the waits.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_STREAMORDER_H
#define KFUSE_ANALYSIS_STREAMORDER_H

#include "kfuse/Analysis/Host/HostAliases.h"
#include "kfuse/Analysis/Host/KernelLaunches.h"

#include "clang/AST/ParentMap.h"

#include <memory>
#include <string>
#include <vector>

namespace kfuse {

/// Whether \p Child runs whenever \p Parent does (an operand that is not a
/// branch of a conditional, the condition of an if, ...).
bool runsWith(const clang::Stmt *Parent, const clang::Stmt *Child);

/// `do { ... } while (0)`, which checking macros wrap a statement in.
bool isDoWhileZero(const clang::Stmt *S);

/// The statement \p S belongs to in the block that runs it: a do-while(0)
/// from a macro is part of the statement.
struct StatementPlace {
  const clang::CompoundStmt *Scope = nullptr;
  unsigned Position = 0;
  bool InLoop = false;
  /// It runs whenever its statement in Scope does: not in a branch of an
  /// expression, a lambda, a case or a label of its own.
  bool Straight = true;
};
StatementPlace placeOf(const clang::Stmt *S, const clang::ParentMap &Parents);

/// A stream as host code names it.
struct StreamRef {
  enum Kind { Default, Named, Unknown } What = Default;
  std::string Text; ///< Named: as written.
  /// Unknown streams are never known to be the same.
  bool same(const StreamRef &O) const;
};

/// The stream \p E names: omitted, 0 or a null pointer is the default.
StreamRef streamOf(const clang::Expr *E, clang::ASTContext &Ctx);

/// Work a host function queues without waiting for it to finish: a kernel
/// launch, an asynchronous copy or fill, a library call, or a call of a
/// function of the program that queues any of these.
struct QueuedWork {
  const clang::Expr *At = nullptr; ///< The call or launch in the host function.
  std::string What;                ///< "cudaMemcpyAsync", "the launch of 'k'", ...
  StreamRef Stream;
  struct Touch {
    BufferRoots Roots;
    ParamUse Use = ParamUse::Unknown;
  };
  std::vector<Touch> Touches; ///< What it may read or write.
  /// Queued by a lambda, which runs wherever it is called.
  bool Anywhere = false;
};

/// The first call in \p S (or in a function of the program it calls) after
/// which the host, or a stream, waits for work queued before it.
const clang::CallExpr *waitIn(const clang::Stmt *S);

/// The queued work and the waits of one host function.
class StreamOrder {
public:
  StreamOrder(clang::ASTContext &Ctx, const clang::FunctionDecl &Caller, HostAliases &Aliases);
  ~StreamOrder();

  /// Work queued on a stream other than \p Stream that may still run when
  /// code between the launches \p First and \p Second executes: queued
  /// before First (or after Second, in a loop around both), and not waited
  /// for by a wait every path to First passes.
  std::vector<const QueuedWork *> pendingBetween(const clang::Expr *First,
                                                 const clang::Expr *Second,
                                                 const StreamRef &Stream) const;

  /// Whether a device-wide wait (cudaDeviceSynchronize) runs on every path
  /// from the function's entry to \p First: what its callers queued is done.
  bool callersWaitedFor(const clang::Expr *First) const;

private:
  struct Facts;
  clang::ASTContext &Ctx;
  std::unique_ptr<Facts> F;

  bool before(const clang::Stmt *A, const clang::Stmt *B) const;
  bool dominates(const clang::CallExpr *Wait, const clang::Expr *Launch) const;
  bool waitedFor(const QueuedWork &W, const clang::Expr *First) const;
  bool inLoopWith(const clang::Stmt *S, const clang::Expr *Launch,
                  const clang::Stmt *Other = nullptr) const;
};

} // namespace kfuse

#endif

//===- BarrierRewriter.cpp - block barriers become partial barriers -------===//
//
// bar.sync ID, COUNT waits until COUNT threads (a multiple of the warp size)
// have arrived at barrier ID, so a kernel given its own id and its range's
// size waits only for its own threads. Like __syncthreads() it orders the
// memory accesses of the threads that take part. The _count/_and/_or forms
// map to barrier.red over the same id and count. Where threads may return
// before a barrier, it is the section's kfuse_exit_aware_barrier.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Transforms/KernelRewrites.h"

namespace kfuse {
namespace {

std::string templateArgs(const SectionContext &Ctx) {
  return "<" + std::to_string(Ctx.BarrierId) + ", " + std::to_string(Ctx.BarrierCount) + ">";
}

/// The function that replaces a __syncthreads_count/_and/_or.
std::string reductionBarrier(const SectionContext &Ctx, llvm::StringRef Callee) {
  return "kfuse" + Callee.drop_front(1).str() + templateArgs(Ctx);
}

} // namespace

std::string partialBarrier(const SectionContext &Ctx, llvm::StringRef Callee) {
  if (Callee.starts_with("__syncthreads_"))
    return reductionBarrier(Ctx, Callee);
  if (Ctx.Style == BarrierStyle::ExitAware)
    return Ctx.ExitAwareBarrier + ".sync()";
  return "asm volatile(\"bar.sync " + std::to_string(Ctx.BarrierId) + ", " +
         std::to_string(Ctx.BarrierCount) + ";\" ::: \"memory\")";
}

bool rewriteBarriers(const KernelModel &Model, SectionContext &Ctx, EditSet &Edits) {
  bool Ok = true;
  for (const Barrier &B : Model.Barriers) {
    if (B.Kind == BarrierKind::SyncThreadsCount) {
      // Only the callee changes, so the predicate keeps its own edits.
      const clang::Expr *Callee = B.Call->getCallee()->IgnoreImpCasts();
      clang::SourceRange Name(Callee->getExprLoc(), Callee->getExprLoc());
      if (Edits.canEdit(Name))
        Ok &= Edits.replaceRange(Name, partialBarrier(Ctx, B.Callee), B.Callee);
      else
        Ctx.BarriersInMacros.insert(B.Callee);
      continue;
    }
    // Inside an expression (`for (i = n, __syncthreads(); ...)`) the asm
    // statement cannot stand: a function template wraps it.
    std::string Replacement = B.IsStatement || Ctx.Style == BarrierStyle::ExitAware
                                  ? partialBarrier(Ctx, B.Callee)
                                  : "kfuse_syncthreads" + templateArgs(Ctx) + "()";
    if (Edits.canEdit(B.Call->getSourceRange()))
      Ok &= Edits.replaceRange(B.Call->getSourceRange(), Replacement, B.Callee);
    else if (B.Kind == BarrierKind::SyncThreads)
      Ctx.BarriersInMacros.insert(B.Callee);
    else
      Ok &= Edits.replaceRange(B.Call->getSourceRange(), "", B.Callee); // Reports the macro.
  }
  return Ok;
}

} // namespace kfuse

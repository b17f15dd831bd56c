//===- BarrierRewriter.cpp - block barriers become partial barriers -------===//
//
// bar.sync ID, COUNT waits until COUNT threads (a multiple of the warp size)
// have arrived at barrier ID, so a kernel given its own id and its range's
// size waits only for its own threads. Like __syncthreads() it orders the
// memory accesses of the threads that take part.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Transforms/KernelRewrites.h"

namespace kfuse {

std::string partialBarrier(unsigned Id, unsigned Count) {
  return "asm volatile(\"bar.sync " + std::to_string(Id) + ", " + std::to_string(Count) +
         ";\" ::: \"memory\")";
}

bool rewriteBarriers(const KernelModel &Model, unsigned BarrierId, unsigned Count,
                     EditSet &Edits) {
  bool Ok = true;
  for (const Barrier &B : Model.Barriers)
    Ok &= Edits.replaceRange(B.Call->getSourceRange(), partialBarrier(BarrierId, Count), B.Callee);
  return Ok;
}

} // namespace kfuse

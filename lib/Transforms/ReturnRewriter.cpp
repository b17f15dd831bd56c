//===- ReturnRewriter.cpp - a return leaves only the kernel's own part ----===//

#include "kfuse/Transforms/KernelRewrites.h"

namespace kfuse {

bool rewriteReturns(const KernelModel &Model, const std::string &EndLabel, EditSet &Edits) {
  bool Ok = true;
  for (const Return &R : Model.Returns)
    Ok &= Edits.replaceRange(R.Stmt->getSourceRange(), "goto " + EndLabel, "return");
  return Ok;
}

} // namespace kfuse

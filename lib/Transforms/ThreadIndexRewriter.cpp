//===- ThreadIndexRewriter.cpp - each kernel sees its own thread range ----===//

#include "kfuse/Transforms/KernelRewrites.h"

namespace kfuse {

bool rewriteThreadIndices(const KernelModel &Model, const std::string &ThreadIdxName,
                          const std::string &BlockDimName, EditSet &Edits) {
  bool Ok = true;
  for (const BuiltinUse &Use : Model.Builtins) {
    if (Use.Var == BuiltinVar::ThreadIdx)
      Ok &= Edits.replaceToken(Use.Ref->getLocation(), ThreadIdxName, spelling(Use.Var));
    else if (Use.Var == BuiltinVar::BlockDim)
      Ok &= Edits.replaceToken(Use.Ref->getLocation(), BlockDimName, spelling(Use.Var));
  }
  return Ok;
}

} // namespace kfuse

//===- CheckCommand.cpp - `kfuse check CONFIG` ----------------------------===//
//
// Everything `kfuse fuse` would do up to printing: every legality check and
// every rewrite, so refusals that only a rewrite finds (a name in a macro
// body, a helper whose spelling another file's macro fixes) show too. It
// writes nothing, so a build or CI can run it in advance.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Driver/Commands.h"
#include "kfuse/Driver/Pipeline.h"

#include "kfuse/Config/Config.h"

namespace kfuse {

int runCheck(const ParseSettings &Settings, const CheckRequest &Request, Reporter &Diags,
             llvm::raw_ostream &Out) {
  FusionInput Input;
  Input.ConfigPath = Request.ConfigPath;
  Input.Fusion = Request.Fusion;
  Input.Tuning = Request.Tuning;
  std::optional<FusionOutput> Fused = fuseConfig(Settings, Input, Diags);
  if (!Fused)
    return 1;
  for (const FusedKernel &K : Fused->File.Kernels)
    Out << "kfuse: fusion '" << K.Fusion << "' can be fused: " << K.Sections.size() << " kernels, "
        << K.BlockThreads << " threads per block, grid '" << gridModeName(K.Grid) << "'\n";
  return 0;
}

} // namespace kfuse

// A tool on kfuse's installed libraries:
//   consumer                 prints the versions, as `kfuse --version` does;
//   consumer CONFIG OUTPUT   fuses CONFIG through the public pipeline, says
//                            what the model holds, and prints it to OUTPUT.
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Driver/Commands.h"
#include "kfuse/Driver/Pipeline.h"
#include "kfuse/Emission/FusedFilePrinter.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

int main(int argc, char **argv) {
  kfuse::ParseSettings Settings;
  if (argc != 3)
    return kfuse::runVersion(Settings, llvm::outs());
  kfuse::Reporter Diags(llvm::errs());
  kfuse::FusionInput Input;
  Input.ConfigPath = argv[1];
  Input.OutputDir = llvm::sys::path::parent_path(argv[2]).str();
  std::optional<kfuse::FusionOutput> Fused = kfuse::fuseConfig(Settings, Input, Diags);
  if (!Fused)
    return 1;
  for (const kfuse::FusedKernel &K : Fused->File.Kernels) {
    llvm::outs() << "fusion " << K.Fusion << ": " << K.KernelName << ", " << K.BlockThreads
                 << " threads";
    for (const kfuse::FusedSection &S : K.Sections)
      llvm::outs() << ", " << S.KernelName << " on [" << S.Range.Begin << ", " << S.Range.end()
                   << ")";
    llvm::outs() << "\n";
  }
  std::error_code Error;
  llvm::raw_fd_ostream Out(argv[2], Error);
  if (Error)
    return 1;
  Out << kfuse::printFusedFile(Fused->File);
  return 0;
}

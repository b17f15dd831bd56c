// A tool on kfuse's installed libraries:
//   consumer                 prints the versions, as `kfuse --version` does;
//   consumer CONFIG OUTPUT   fuses CONFIG through the public pipeline, says
//                            what the model holds, and prints it to OUTPUT;
//   consumer CONFIG OUTPUT FUSION T1,T2,...
//                            fuses one fusion of CONFIG with the threads
//                            given per kernel (a typed FusedLayout), through
//                            the pipeline stage that fuses one at a time.
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Driver/Commands.h"
#include "kfuse/Emission/FusedFilePrinter.h"
#include "kfuse/Pipeline/FusionPipeline.h"
#include "kfuse/Pipeline/Inputs.h"
#include "kfuse/Pipeline/Pipeline.h"
#include "kfuse/Plan/FusedLayout.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/ADT/StringExtras.h"

#include <optional>

namespace {

void describe(const kfuse::FusedFile &File) {
  for (const kfuse::FusedKernel &K : File.Kernels) {
    llvm::outs() << "fusion " << K.Fusion << ": " << K.KernelName << ", " << K.BlockThreads
                 << " threads";
    for (const kfuse::FusedSection &S : K.Sections)
      llvm::outs() << ", " << S.KernelName << " on [" << S.Range.Begin << ", " << S.Range.end()
                   << ")";
    llvm::outs() << "\n";
  }
}

int write(const kfuse::FusedFile &File, const char *Path) {
  std::error_code Error;
  llvm::raw_fd_ostream Out(Path, Error);
  if (Error)
    return 1;
  Out << kfuse::printFusedFile(File);
  return 0;
}

/// One fusion, laid out as \p Split says, through kfuse::FusionPipeline.
std::optional<kfuse::FusedFile> fuseOne(const kfuse::ParseSettings &Settings,
                                        const std::string &ConfigPath, const std::string &OutputDir,
                                        const std::string &Name, llvm::StringRef Split,
                                        kfuse::Reporter &Diags) {
  std::optional<kfuse::Config> C = kfuse::readConfigFile(ConfigPath, Diags);
  std::optional<kfuse::ParserOptions> Options = kfuse::makeParserOptions(Settings, Diags);
  if (!C || !Options)
    return std::nullopt;
  std::vector<const kfuse::FusionSpec *> Fusions = kfuse::selectFusions(*C, Name, Diags);
  if (Fusions.empty())
    return std::nullopt;
  kfuse::FusedLayout Layout;
  llvm::SmallVector<llvm::StringRef> Parts;
  Split.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    unsigned Threads = 0;
    if (P.getAsInteger(10, Threads))
      return std::nullopt;
    Layout.Threads.push_back(Threads);
  }
  kfuse::SourceParser Parser(*Options, Diags);
  kfuse::FusionPipeline Pipeline(*C, Parser, Diags);
  Pipeline.load(Fusions);
  if (!Pipeline.resolved(0))
    return std::nullopt;
  std::optional<kfuse::FusedKernel> K = Pipeline.fuse(0, kfuse::FusionLayout{Layout});
  if (!K)
    return std::nullopt;
  kfuse::FusedFile File;
  File.Generator = std::string("kfuse ") + kfuse::Version;
  File.Config = ConfigPath;
  File.Kernels.push_back(std::move(*K));
  File.Preambles = Pipeline.preambles(OutputDir);
  return File;
}

} // namespace

int main(int argc, char **argv) {
  kfuse::ParseSettings Settings;
  if (argc != 3 && argc != 5)
    return kfuse::runVersion(Settings, llvm::outs());
  kfuse::Reporter Diags(llvm::errs());
  std::string OutputDir = llvm::sys::path::parent_path(argv[2]).str();
  if (argc == 5) {
    std::optional<kfuse::FusedFile> File =
        fuseOne(Settings, argv[1], OutputDir, argv[3], argv[4], Diags);
    if (!File)
      return 1;
    describe(*File);
    return write(*File, argv[2]);
  }
  kfuse::FusionInput Input;
  Input.ConfigPath = argv[1];
  Input.OutputDir = OutputDir;
  std::optional<kfuse::FusionOutput> Fused = kfuse::fuseConfig(Settings, Input, Diags);
  if (!Fused)
    return 1;
  describe(Fused->File);
  return write(Fused->File, argv[2]);
}

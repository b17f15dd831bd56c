//===- FuseCommand.cpp - `kfuse fuse CONFIG` ------------------------------===//

#include "kfuse/Driver/Commands.h"

#include "FusionPipeline.h"
#include "Support.h"

#include "kfuse/Analysis/FusionLegality.h"
#include "kfuse/Analysis/KernelAnalyzer.h"
#include "kfuse/Config/Config.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Emission/FusedFile.h"
#include "kfuse/Frontend/SourceParser.h"
#include "kfuse/Plan/PartitionPlan.h"
#include "kfuse/Transforms/HorizontalFuser.h"
#include "kfuse/Transforms/PreambleExtractor.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>

namespace kfuse {
namespace {

using diag::ID;

class FuseCommand {
public:
  FuseCommand(const ParseSettings &Settings, const FuseRequest &Request, Reporter &Diags)
      : Settings(Settings), Request(Request), Diags(Diags) {}

  int run(llvm::raw_ostream &Out) {
    std::optional<Config> C = readConfigFile(Request.ConfigPath, Diags);
    if (!C)
      return 1;
    std::vector<const FusionSpec *> Fusions = selectFusions(*C, Request.Fusion, Diags);
    if (Fusions.empty())
      return 1;
    std::optional<ParserOptions> Options = makeParserOptions(Settings, Diags);
    if (!Options)
      return 1;
    SourceParser Parser(*Options, Diags);
    std::string OutputPath = outputPath(*C);
    llvm::SmallString<256> OutputDir(OutputPath == "-" ? "." : OutputPath);
    if (OutputPath != "-")
      llvm::sys::path::remove_filename(OutputDir);
    if (OutputDir.empty())
      OutputDir = ".";

    FusedFile File;
    File.Generator = std::string("kfuse ") + Version;
    File.Config = Request.ConfigPath;
    FusionPipeline Pipeline(*C, Parser, Diags);
    Pipeline.load(Fusions);
    for (size_t I = 0; I < Pipeline.size(); ++I)
      if (std::optional<FusedKernel> K = Pipeline.fuse(I))
        File.Kernels.push_back(std::move(*K));
    if (Diags.errorCount() == 0)
      File.Preambles = Pipeline.preambles(std::string(OutputDir));
    if (Diags.errorCount() != 0)
      return 1;

    std::string Text = printFusedFile(File);
    if (OutputPath == "-") {
      Out << Text;
      return 0;
    }
    if (!writeAtomically(OutputPath, Text, Diags))
      return 1;
    for (const FusedKernel &K : File.Kernels)
      llvm::errs() << "kfuse: wrote fusion '" << K.Fusion << "' (" << K.Sections.size()
                   << " kernels, " << K.BlockThreads << " threads per block) to " << OutputPath
                   << "\n";
    return 0;
  }

private:
  const ParseSettings &Settings;
  const FuseRequest &Request;
  Reporter &Diags;

  std::string outputPath(const Config &C) const {
    if (Request.Output)
      return *Request.Output;
    return llvm::sys::path::stem(C.Path).str() + ".fused.cu";
  }
};

} // namespace

int runFuse(const ParseSettings &Settings, const FuseRequest &Request, Reporter &Diags,
            llvm::raw_ostream &Out) {
  return FuseCommand(Settings, Request, Diags).run(Out);
}

} // namespace kfuse

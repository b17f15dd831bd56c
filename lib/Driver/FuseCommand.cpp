//===- FuseCommand.cpp - `kfuse fuse CONFIG` ------------------------------===//

#include "kfuse/Driver/Commands.h"
#include "kfuse/Driver/Pipeline.h"

#include "FusionPipeline.h"
#include "Outputs.h"
#include "Support.h"

#include "kfuse/Analysis/FusionLegality.h"
#include "kfuse/Analysis/KernelAnalyzer.h"
#include "kfuse/Analysis/KernelLaunches.h"
#include "kfuse/Analysis/LaunchRewrites.h"
#include "kfuse/Config/Config.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Emission/Depfile.h"
#include "kfuse/Emission/FusedFilePrinter.h"
#include "kfuse/Emission/UnifiedDiff.h"
#include "kfuse/Frontend/SourceParser.h"
#include "kfuse/Plan/GridChoice.h"
#include "kfuse/Plan/PartitionPlan.h"
#include "kfuse/Transforms/HorizontalFuser.h"
#include "kfuse/Transforms/LaunchRewriter.h"
#include "kfuse/Transforms/PreambleExtractor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

namespace kfuse {
namespace {

using diag::ID;

/// Where the rewritten copy of host file \p File goes.
std::string copyPath(const std::string &File, const HostRewriteTarget &Target) {
  return (llvm::Twine(Target.CopyDir) + llvm::sys::path::get_separator() +
          llvm::sys::path::filename(File))
      .str();
}

/// The files under `replace:` that the selected fusions read, absolute.
int replacedFiles(const Config &C, const std::vector<const FusionSpec *> &Fusions,
                  llvm::raw_ostream &Out) {
  std::vector<std::string> Files;
  for (const FusionSpec *F : Fusions)
    for (const std::string &Id : C.kernelsOf(*F)) {
      const std::string &File = C.findKernel(Id)->ResolvedFile;
      std::string Path = absolutePath(File);
      if (C.replaces(File) && !llvm::is_contained(Files, Path))
        Files.push_back(Path);
    }
  for (const std::string &F : Files)
    Out << F << "\n";
  return 0;
}

/// The config's layout, or with measurements the one they chose.
class FusionLayouts {
public:
  /// \p RewritesLaunches: the launches of a fusion the measurements keep
  /// native stay as they are.
  FusionLayouts(const Config &C, const std::optional<std::string> &Path,
                const std::optional<TuneResults> &Tuning, bool RewritesLaunches, Reporter &Diags)
      : C(C), Path(Path), Tuning(Tuning), RewritesLaunches(RewritesLaunches), Diags(Diags) {}

  std::optional<FusionLayout> of(const FusionSpec &F, bool BlocksWait) {
    if (!Tuning) {
      sayDefaultGrid(F, BlocksWait);
      return FusionLayout();
    }
    const FusionResult *R = findMeasurements(*Tuning, F.Name, *Path, Diags);
    if (!R)
      return std::nullopt;
    Verdict V = decide(*R);
    if (V.Fuse)
      return tunedLayout(V, *Path);
    KeptNative.insert(F.Name);
    Diags.report(RewritesLaunches ? ID::TuningKeepsLaunches : ID::TuningKeepsNative)
        << *Path << F.Name << V.Reason;
    sayDefaultGrid(F, BlocksWait);
    return FusionLayout();
  }

  /// Whether the measurements found fusion \p Name's original launches faster.
  bool keepsNative(const std::string &Name) const { return KeptNative.count(Name) != 0; }

private:
  const Config &C;
  const std::optional<std::string> &Path;
  const std::optional<TuneResults> &Tuning;
  bool RewritesLaunches;
  Reporter &Diags;
  std::set<std::string> KeptNative;

  /// Without measurements, a fusion whose config names no grid runs on the
  /// one kfuse chooses, and the user hears which.
  void sayDefaultGrid(const FusionSpec &F, bool BlocksWait) {
    GridChoice Choice = chooseGrid(C, F, BlocksWait);
    if (Choice.Default)
      Diags.report({{ID::GridDefault,
                     F.Position.Line,
                     F.Position.Column,
                     {F.Name, gridModeName(Choice.Mode), Choice.Why}}},
                   C.Path);
  }
};

class FuseCommand {
public:
  FuseCommand(const ParseSettings &Settings, const FuseRequest &Request, Reporter &Diags)
      : Settings(Settings), Request(Request), Diags(Diags) {}

  int run(llvm::raw_ostream &Out) {
    if (Request.ListReplaced || Request.ListRewritten)
      return listFiles(Out);
    std::string OutputPath = outputPath();
    if (Request.Depfile && OutputPath == "-") {
      Diags.report(ID::DepfileNeedsOutput);
      return 1;
    }
    FusionInput Input;
    Input.ConfigPath = Request.ConfigPath;
    Input.Fusion = Request.Fusion;
    Input.Tuning = Request.Tuning;
    Input.OutputDir = directoryOf(OutputPath == "-" ? "" : OutputPath);
    if (Request.Header)
      Input.LauncherHeader = relativePath(*Request.Header, Input.OutputDir);
    if (Request.Rewrite) {
      if (!Request.Header) {
        Diags.report(ID::RewriteNeedsHeader);
        return 1;
      }
      HostRewriteTarget &Target = Input.RewriteLaunches.emplace();
      Target.Header = *Request.Header;
      Target.Config = Request.ConfigPath;
      if (*Request.Rewrite == RewriteOutput::Copies)
        Target.CopyDir = Request.RewriteDir.value_or(
            (llvm::Twine(Input.OutputDir) + llvm::sys::path::get_separator() + "rewritten").str());
    }
    std::optional<FusionOutput> Fused = fuseConfig(Settings, Input, Diags);
    if (!Fused)
      return 1;
    const FusedFile &File = Fused->File;
    std::string Header;
    if (Request.Header)
      Header = launcherHeader(File, *Request.Header);
    if (Diags.errorCount() != 0)
      return 1;

    std::string Text = printFusedFile(File);
    // Every file or none: the header, the fused file, the depfile and the
    // rewritten host files.
    OutputTransaction Files(Diags);
    std::string Diff;
    if (!stageHosts(*Fused, Input, Files, Diff))
      return 1;
    if (Request.Header)
      Files.stage(*Request.Header, Header);
    if (OutputPath != "-")
      Files.stage(OutputPath, Text);
    if (Request.Depfile)
      // Make syntax: the output, named as on the command line (Make matches
      // targets by name), depends on every file the run read.
      Files.stage(*Request.Depfile, printDepfile(OutputPath, Fused->Read));
    if (!Files.commit())
      return 1;
    if (OutputPath == "-") {
      Out << Text;
      return 0;
    }
    Out << Diff;
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

  std::string outputPath() const {
    if (Request.Output)
      return *Request.Output;
    return llvm::sys::path::stem(Request.ConfigPath).str() + ".fused.cu";
  }

  /// Stages each rewritten host file as the request asks, or prints its
  /// diff into \p Diff; adds the run's inputs, less the files -i rewrites.
  bool stageHosts(const FusionOutput &Fused, const FusionInput &Input, OutputTransaction &Files,
                  std::string &Diff) {
    std::vector<std::string> Inputs = Fused.Read;
    for (const RewrittenHost &H : Fused.Hosts) {
      switch (*Request.Rewrite) {
      case RewriteOutput::Copies:
        Files.stage(copyPath(H.File, *Input.RewriteLaunches), H.Text, /*MakeDirectory=*/true);
        break;
      case RewriteOutput::Diff:
        Diff += printUnifiedDiff(relativePath(H.File, "."), H.Original, H.Text);
        break;
      case RewriteOutput::InPlace: {
        std::string Backup = H.File + ".orig";
        if (llvm::sys::fs::exists(Backup)) {
          Diags.report(ID::RewriteBackupExists) << Backup;
          return false;
        }
        llvm::erase(Inputs, H.File);
        Files.stage(Backup, H.Original);
        Files.stage(H.File, H.Text);
        break;
      }
      }
    }
    Files.addInputs(Inputs);
    return true;
  }

  int listFiles(llvm::raw_ostream &Out) {
    std::optional<Config> C = readConfigFile(Request.ConfigPath, Diags);
    if (!C)
      return 1;
    std::vector<const FusionSpec *> Fusions = selectFusions(*C, Request.Fusion, Diags);
    if (Fusions.empty())
      return 1;
    if (Request.ListReplaced)
      return replacedFiles(*C, Fusions, Out);
    return rewrittenFiles(*C, Fusions, Out);
  }

  /// The host files --rewrite-launches rewrites for the selected fusions,
  /// absolute.
  int rewrittenFiles(const Config &C, const std::vector<const FusionSpec *> &Fusions,
                     llvm::raw_ostream &Out) {
    std::vector<std::string> Files;
    for (const FusionSpec *F : Fusions) {
      std::optional<std::string> Host = hostFileOf(C, *F, /*Copies=*/false, Diags);
      if (!Host)
        return 1;
      std::string Path = absolutePath(*Host);
      if (!llvm::is_contained(Files, Path))
        Files.push_back(Path);
    }
    for (const std::string &F : Files)
      Out << F << "\n";
    return 0;
  }

  /// The header's text, or empty after reporting a parameter type it cannot
  /// name.
  std::string launcherHeader(const FusedFile &File, const std::string &Path) {
    std::string Dir = directoryOf(Path);
    std::vector<std::string> Includes;
    std::vector<diag::Problem> Problems;
    for (const FusedKernel &K : File.Kernels)
      for (const FusedSection &S : K.Sections)
        for (const FusedParam &P : S.Params) {
          const PortableParam &Q = P.Portable;
          if (!Q.LocalType.empty())
            Diags.report({{ID::HeaderLocalType,
                           Q.Line,
                           Q.Column,
                           {Q.OriginalName, S.KernelName, Q.LocalType, Q.LocalTypeFile}}},
                         Q.File);
          for (const std::string &H : Q.Headers) {
            std::string Directive = H.front() == '<' ? H : "\"" + relativePath(H, Dir) + "\"";
            if (!llvm::is_contained(Includes, Directive))
              Includes.push_back(Directive);
          }
        }
    std::string Guard =
        "KFUSE_" + llvm::StringRef(identifierFrom(llvm::sys::path::filename(Path))).upper();
    return printLauncherHeader(File, Guard, Includes);
  }
};

/// The host code of each fusion (the pipeline's index, and its fused
/// kernel) with its launches rewritten into one launcher call; or nothing
/// after reporting why a group of launches cannot be.
std::optional<std::vector<RewrittenHost>>
rewriteHostCode(FusionPipeline &Pipeline,
                const std::vector<std::pair<size_t, const FusedKernel *>> &Fused,
                SourceParser &Parser, const HostRewriteTarget &Target, Reporter &Diags) {
  const Config &C = Pipeline.config();
  std::vector<LaunchGroup> Groups;
  std::vector<const FusedKernel *> Kernels;
  for (const auto &[Index, Kernel] : Fused) {
    const FusionSpec &F = Pipeline.fusion(Index);
    std::optional<std::string> Host = hostFileOf(C, F, !Target.CopyDir.empty(), Diags);
    clang::ASTUnit *Unit = Host ? Parser.parse(*Host, CompileSide::Host) : nullptr;
    if (!Unit)
      continue;
    const std::vector<FusionMember> &Members = Pipeline.members(Index);
    std::vector<KernelUses> Uses;
    for (const FusionMember &M : Members)
      Uses.push_back(kernelUses(*M.Unit, *M.Model.Decl, Parser.rejected(*M.Unit)));
    if (std::optional<LaunchGroup> G =
            findLaunchGroup(*Unit, Parser.rejected(*Unit), C, F, Members, Uses, Diags)) {
      Groups.push_back(std::move(*G));
      Kernels.push_back(Kernel);
    }
  }
  if (Diags.errorCount() != 0 || !groupsDisjoint(Groups, Diags))
    return std::nullopt;
  return rewriteLaunches(Groups, Kernels, Target);
}

} // namespace

std::optional<FusionOutput> fuseConfig(const ParseSettings &Settings, const FusionInput &Input,
                                       Reporter &Diags, std::vector<FusionVerdict> *Verdicts) {
  std::optional<Config> C = readConfigFile(Input.ConfigPath, Diags);
  if (!C)
    return std::nullopt;
  std::vector<const FusionSpec *> Fusions = selectFusions(*C, Input.Fusion, Diags);
  if (Fusions.empty())
    return std::nullopt;
  std::optional<TuneResults> Tuning;
  if (Input.Tuning && !(Tuning = readTuneResults(*Input.Tuning, Diags)))
    return std::nullopt;
  std::optional<ParserOptions> Options = makeParserOptions(Settings, Diags);
  if (!Options)
    return std::nullopt;
  SourceParser Parser(*Options, Diags);
  FusionOutput Result;
  FusedFile &File = Result.File;
  File.Generator = std::string("kfuse ") + Version;
  File.Config = Input.ConfigPath;
  File.LauncherHeader = Input.LauncherHeader;
  FusionPipeline Pipeline(*C, Parser, Diags);
  Pipeline.load(Fusions);
  FusionLayouts Layouts(*C, Input.Tuning, Tuning, Input.RewriteLaunches.has_value(), Diags);
  std::vector<size_t> Fused; ///< The fusion of each fused kernel.
  for (size_t I = 0; I < Pipeline.size(); ++I) {
    unsigned Before = Diags.errorCount();
    // A fusion whose kernels were not found is reported already.
    if (Pipeline.resolved(I)) {
      std::optional<FusionLayout> Layout =
          Layouts.of(Pipeline.fusion(I), pollsOtherBlocks(Pipeline.members(I)));
      if (!Layout)
        return std::nullopt;
      if (std::optional<FusedKernel> K = Pipeline.fuse(I, *Layout)) {
        File.Kernels.push_back(std::move(*K));
        Fused.push_back(I);
      }
    }
    if (Verdicts)
      Verdicts->push_back(
          {Pipeline.fusion(I).Name, Pipeline.resolved(I) && Diags.errorCount() == Before});
  }
  if (Diags.errorCount() != 0)
    return std::nullopt;
  if (Input.RewriteLaunches) {
    // Launches the measurements found faster as they are stay so.
    std::vector<std::pair<size_t, const FusedKernel *>> Rewritten;
    for (size_t K = 0; K < Fused.size(); ++K)
      if (!Layouts.keepsNative(Pipeline.fusion(Fused[K]).Name))
        Rewritten.push_back({Fused[K], &File.Kernels[K]});
    std::optional<std::vector<RewrittenHost>> Hosts =
        rewriteHostCode(Pipeline, Rewritten, Parser, *Input.RewriteLaunches, Diags);
    if (!Hosts)
      return std::nullopt;
    Result.Hosts = std::move(*Hosts);
    // A copy of a file the config replaces is what the fused file includes.
    if (!Input.RewriteLaunches->CopyDir.empty())
      for (const RewrittenHost &H : Result.Hosts)
        Pipeline.includeWholeAs(H.File, copyPath(H.File, *Input.RewriteLaunches));
  }
  File.Preambles = Pipeline.preambles(Input.OutputDir);
  if (Diags.errorCount() != 0)
    return std::nullopt;
  Result.Read = runInputs(Input.ConfigPath, Input.Tuning, Parser);
  return Result;
}

int runFuse(const ParseSettings &Settings, const FuseRequest &Request, Reporter &Diags,
            llvm::raw_ostream &Out) {
  return FuseCommand(Settings, Request, Diags).run(Out);
}

} // namespace kfuse

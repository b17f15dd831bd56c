//===- Pipeline.cpp - a config's fusions as the fused-file model ----------===//

#include "kfuse/Pipeline/Pipeline.h"

#include "kfuse/Analysis/Host/KernelLaunches.h"
#include "kfuse/Analysis/Host/LaunchRewrites.h"
#include "kfuse/Analysis/Host/ProgramModel.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Pipeline/FusionPipeline.h"
#include "kfuse/Pipeline/Inputs.h"
#include "kfuse/Plan/GridChoice.h"
#include "kfuse/Tuning/Selection.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <set>

namespace kfuse {

/// Where the rewritten copy of host file \p File goes.
std::string copyPath(const std::string &File, const HostRewriteTarget &Target) {
  return (llvm::Twine(Target.CopyDir) + llvm::sys::path::get_separator() +
          llvm::sys::path::filename(File))
      .str();
}

namespace {

using diag::ID;

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
    if (V.Fuse) {
      Saved[F.Name] = V.NativeBest->Median - V.Fastest->Median;
      return tunedLayout(V, *Path);
    }
    KeptNative.insert(F.Name);
    Diags.report(RewritesLaunches ? ID::TuningKeepsLaunches : ID::TuningKeepsNative)
        << *Path << F.Name << V.Reason;
    sayDefaultGrid(F, BlocksWait);
    return FusionLayout();
  }

  /// Whether the measurements found fusion \p Name's original launches faster.
  bool keepsNative(const std::string &Name) const { return KeptNative.count(Name) != 0; }

  bool measured() const { return Tuning.has_value(); }

  /// The time fusion \p Name saved in the measurements: its original
  /// launches' best median less its fastest variant's.
  double saved(const std::string &Name) const {
    auto It = Saved.find(Name);
    return It == Saved.end() ? 0 : It->second;
  }

private:
  const Config &C;
  const std::optional<std::string> &Path;
  const std::optional<TuneResults> &Tuning;
  bool RewritesLaunches;
  Reporter &Diags;
  std::set<std::string> KeptNative;
  std::map<std::string, double> Saved;

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

/// The host code of each fusion (the pipeline's index, and its fused
/// kernel; in the order of preference, which \p Why says) with its launches
/// rewritten into one launcher call; or nothing after reporting why a group
/// of launches cannot be. Of fusions that would replace one launch, the
/// first takes it.
std::optional<std::vector<RewrittenHost>>
rewriteHostCode(FusionPipeline &Pipeline,
                const std::vector<std::pair<size_t, const FusedKernel *>> &Fused,
                SourceParser &Parser, const HostRewriteTarget &Target, const std::string &Why,
                Reporter &Diags) {
  const Config &C = Pipeline.config();
  // Each host file's launches, their kernels resolved to every fusion's
  // members there, and their dependences: one model per file.
  struct HostOf {
    size_t Fusion;
    const FusedKernel *Kernel;
    clang::ASTUnit *Unit;
  };
  std::vector<HostOf> Hosts;
  std::map<clang::ASTUnit *, std::vector<std::pair<clang::ASTUnit *, const clang::FunctionDecl *>>>
      KernelsOf;
  std::map<clang::ASTUnit *, bool> Again; // Rewritten by kfuse before: said once per file.
  for (const auto &[Index, Kernel] : Fused) {
    std::optional<std::string> Host =
        hostFileOf(C, Pipeline.fusion(Index), !Target.CopyDir.empty(), Diags);
    clang::ASTUnit *Unit = Host ? Parser.parse(*Host, CompileSide::Host) : nullptr;
    if (!Unit)
      continue;
    auto [It, First] = Again.try_emplace(Unit, false);
    if (First)
      It->second = rewrittenBefore(*Unit, Diags);
    if (It->second)
      continue;
    Hosts.push_back({Index, Kernel, Unit});
    for (const FusionMember &M : Pipeline.members(Index))
      KernelsOf[Unit].push_back({M.Unit, M.Model.Decl});
  }
  std::map<clang::ASTUnit *, ProgramModel> Models;
  for (auto &[Unit, Kernels] : KernelsOf)
    Models.emplace(Unit, ProgramModel::ofHostFile(Parser, *Unit, Kernels));
  std::vector<LaunchGroup> Groups;
  std::vector<const FusedKernel *> Kernels;
  for (const HostOf &H : Hosts)
    if (std::optional<LaunchGroup> G = findLaunchGroup(
            Models.at(H.Unit), C, Pipeline.fusion(H.Fusion), Pipeline.members(H.Fusion), Diags)) {
      Groups.push_back(std::move(*G));
      Kernels.push_back(H.Kernel);
    }
  std::vector<LaunchGroup> Taken;
  std::vector<const FusedKernel *> TakenKernels;
  for (size_t I : disjointGroups(Groups, Why, Diags)) {
    Taken.push_back(std::move(Groups[I]));
    TakenKernels.push_back(Kernels[I]);
  }
  if (Diags.errorCount() != 0)
    return std::nullopt;
  return rewriteLaunches(Taken, TakenKernels, Target);
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
  if (!Input.LauncherHeader.empty())
    Pipeline.declareLaunchersInHeader();
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
      Verdicts->push_back({Pipeline.fusion(I).Name,
                           Pipeline.resolved(I) && Diags.errorCount() == Before,
                           Pipeline.fusion(I).Alternative});
  }
  if (Diags.errorCount() != 0)
    return std::nullopt;
  if (Input.RewriteLaunches) {
    // Launches the measurements found faster as they are stay so.
    // An alternative to another fusion replaces launches only where the
    // measurements prefer it, or where the user names it.
    std::vector<std::pair<size_t, const FusedKernel *>> Rewritten;
    for (size_t K = 0; K < Fused.size(); ++K) {
      const FusionSpec &F = Pipeline.fusion(Fused[K]);
      if (!Layouts.keepsNative(F.Name) && (!F.Alternative || Layouts.measured() || Input.Fusion))
        Rewritten.push_back({Fused[K], &File.Kernels[K]});
    }
    // Where two fusions share a launch, the one that saved more takes it.
    if (Layouts.measured())
      std::stable_sort(Rewritten.begin(), Rewritten.end(), [&](const auto &A, const auto &B) {
        return Layouts.saved(Pipeline.fusion(A.first).Name) >
               Layouts.saved(Pipeline.fusion(B.first).Name);
      });
    std::optional<std::vector<RewrittenHost>> Hosts = rewriteHostCode(
        Pipeline, Rewritten, Parser, *Input.RewriteLaunches,
        Layouts.measured() ? "saved more time in the measurements" : "comes first in the config",
        Diags);
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
  Result.ReadHashes = Parser.inputHashes();
  return Result;
}

} // namespace kfuse

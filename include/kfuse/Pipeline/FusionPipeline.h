//===- FusionPipeline.h - from a config's fusions to fused kernels --------===//
//
// What `kfuse fuse` and `kfuse tune` share: parse and analyze the kernels of
// the selected fusions, plan the renames that let their files stand side by
// side, and build a fused kernel per fusion in the layout asked for.
// Internal to the driver.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PIPELINE_FUSIONPIPELINE_H
#define KFUSE_PIPELINE_FUSIONPIPELINE_H

#include "kfuse/Analysis/Kernel/FusionLegality.h"
#include "kfuse/Config/Config.h"
#include "kfuse/Frontend/SourceParser.h"
#include "kfuse/Plan/FusedLayout.h"
#include "kfuse/Transforms/FusedFile.h"
#include "kfuse/Transforms/HorizontalFuser.h"
#include "kfuse/Transforms/PreambleExtractor.h"
#include "kfuse/Tuning/Evaluation.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kfuse {

class Reporter;

/// The bytes member \p M's launch (its config entry's) moves through each of
/// its buffers; none where its launch or any of its memory is unknown: a
/// buffer it reaches through another, a device variable, an access kfuse
/// cannot follow.
std::optional<std::vector<BufferTraffic>> bufferTraffic(const FusionMember &M);

/// How one fused kernel is laid out; by default as the config says.
struct FusionLayout {
  /// The fused variant to emit: its threads, grid, waves and registers
  /// (counts it leaves empty are the tuning harness's); none: the config's.
  std::optional<FusedLayout> Variant;
  std::string Name; ///< Names the kernel and launcher; empty: the fusion's.
  /// Where Variant was measured: the variant and the results file, which a
  /// problem with its threads names instead of a line of the config.
  std::string MeasuredVariant, MeasuredIn;
};

/// What pipelines find of a parsed file whatever the fusion, kept for the
/// pipelines of one run to share: suggest checks each of a thousand
/// candidates of one file in a pipeline of its own.
struct FileFacts {
  std::map<clang::ASTUnit *, std::shared_ptr<FunctionModels>> HelperModels;
  std::map<clang::ASTUnit *,
           std::shared_ptr<const std::map<const clang::VarDecl *, DeviceVariable>>>
      DeviceVariablesOf;
  /// The renames of a file fused alone, where planning them named nothing
  /// new and reported nothing.
  std::map<const clang::ASTUnit *, std::shared_ptr<const FileRenames>> RenamesAlone;
  /// Kernels found by the name a config gives (each lookup walks the file).
  std::map<std::pair<const clang::ASTUnit *, std::string>, const clang::FunctionDecl *> Kernels;
};

class FusionPipeline {
public:
  FusionPipeline(const Config &C, SourceParser &Parser, Reporter &Diags,
                 std::shared_ptr<FileFacts> Facts = std::make_shared<FileFacts>())
      : C(C), Parser(Parser), Diags(Diags), Facts(std::move(Facts)) {}

  /// Parses and analyzes the kernels of \p Fusions and plans the renames;
  /// a fusion with a kernel that cannot be found is reported and skipped.
  void load(const std::vector<const FusionSpec *> &Fusions);

  const Config &config() const { return C; }
  size_t size() const { return Fusions.size(); }
  const FusionSpec &fusion(size_t I) const { return *Fusions[I]; }
  bool resolved(size_t I) const { return Resolved[I]; }
  const std::vector<FusionMember> &members(size_t I) const { return AllMembers[I]; }

  /// The fused kernel of fusion \p I, or nothing if it cannot be fused.
  std::optional<FusedKernel> fuse(size_t I, const FusionLayout &Layout = {});

  /// One preamble per input file, in the order of inputs(), for \p Use. In
  /// the fused file, a file the config replaces is included whole; for the
  /// tuning harness, nothing is renamed with PreambleUse::Originals (each
  /// file then compiles on its own).
  std::vector<Preamble> preambles(const std::string &OutputDir,
                                  PreambleUse Use = PreambleUse::Fused,
                                  const HeaderMirror *Mirror = nullptr);

  /// A header of its own will declare the launchers (--header): the
  /// kernels' parameter types must be ones it can name. Before load().
  void declareLaunchersInHeader() { LaunchersInHeader = true; }

  /// In the fused file, include \p Copy where the whole \p File (absolute)
  /// would be: the rewritten copy of a file the config replaces.
  void includeWholeAs(const std::string &File, const std::string &Copy) { WholeAs[File] = Copy; }

  /// The input files, each once: those the config replaces first (their
  /// symbols cannot be renamed), then in the order the config names them.
  std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> inputs() const;

private:
  const Config &C;
  SourceParser &Parser;
  Reporter &Diags;
  NameAllocator Names;
  std::vector<const FusionSpec *> Fusions;
  std::vector<bool> Resolved;
  // Kept until printing: the models point into the parsed units.
  std::vector<std::vector<FusionMember>> AllMembers;
  std::shared_ptr<FileFacts> Facts;
  std::set<std::string> UnparsedFiles; ///< Reported with the config line that reads them.
  std::map<const clang::ASTUnit *, std::shared_ptr<const FileRenames>> Renames;
  std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> Inputs;
  std::map<std::string, std::string> WholeAs;
  bool LaunchersInHeader = false;

  /// Kernels of a fusion that share a range of threads: one kernel, or a
  /// vertical chain.
  struct MemberGroup {
    std::string Name;
    size_t First = 0, Count = 1;
    const FusionSpec *Chain = nullptr;
  };
  std::vector<MemberGroup> groupsOf(const FusionSpec &F) const;
  bool bindChain(const MemberGroup &G, const std::vector<FusionMember> &Members,
                 VerticalPlan &Chains);

  void problem(diag::ID Id, ConfigPosition At, std::vector<std::string> Args);
  /// The members \p Coarsen asks several blocks per iteration of that can
  /// run them with the loads first: alone on a loop of a persistent grid,
  /// elementwise at the block their section runs as. Warns about the others
  /// where the config \p Asked.
  std::map<size_t, std::pair<ElementwiseKernel, unsigned>>
  readAhead(const FusionSpec &F, const std::vector<FusionMember> &Members,
            const FusionLayoutPlan &Plan, GridMode Grid, const std::vector<unsigned> &Coarsen,
            bool Asked);
  std::optional<FusionMember> member(const KernelSpec &K);
};

} // namespace kfuse

#endif

//===- Suggestions.h - which launches of a program are worth fusing -*- C++ -*-===//
//
// What `kfuse suggest` found: the program's launches as a config needs
// them, the launches that could run side by side, whether kfuse can fuse
// them, and, with a profile, what fusing them can gain. Ranked here; the
// table and the config are printed by Emission. Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNING_SUGGESTIONS_H
#define KFUSE_TUNING_SUGGESTIONS_H

#include "kfuse/Config/Config.h"
#include "kfuse/Tuning/Estimate.h"
#include "kfuse/Tuning/Profile.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// One argument of a launch, as the config's launch spec needs it.
struct SuggestedArg {
  std::string Param; ///< The kernel's parameter.
  std::string Text;  ///< What the launch passes.
  bool Buffer = false;
  ElementType Type = ElementType::F32; ///< Buffers: the element the kernel reads.
  std::optional<uint64_t> Count;       ///< Buffers: elements, when the source shows them.
  /// Buffers: the launching function's allocation size as written, where it
  /// allocates the buffer with a size that is not constant.
  std::string AllocatedText;
  bool Written = false; ///< Buffers: the kernel writes it.
  /// Without a value or count: why, where the callers give it
  /// (LaunchedValue::Several).
  std::string Several;
  std::optional<std::string> Value; ///< Scalars: the value, when constant.
};

/// A launch found in the host code.
struct SuggestedLaunch {
  std::string Id;     ///< Its name in the config.
  std::string Kernel; ///< Qualified, with template arguments.
  std::string File;   ///< Where the kernel is defined (absolute); empty when unknown.
  std::string Where;  ///< file:line:col of the launch.
  /// The same with the file relative to the config: the kernel entry's
  /// `site:`. Empty when the launch is in no file of its own (a macro's).
  std::string Site;
  std::string Syntax; ///< "<<<>>>", "cudaLaunchKernel", ...
  std::string GridText, BlockText, SharedText, Stream;
  std::optional<std::array<uint64_t, 3>> Grid, Block; ///< Known from the source or the profile.
  /// Without a grid or block: why, where the launching function's callers
  /// give it (LaunchShape::Several).
  std::string GridSeveral, BlockSeveral;
  bool GridFromProfile = false, BlockFromProfile = false;
  std::optional<uint64_t> SharedBytes;
  std::vector<SuggestedArg> Args;
  bool ArgsKnown = true;
  bool InLoop = false;
  std::optional<ProfiledKernel> Profile;
};

/// A buffer one launch of a vertical candidate writes and the next reads.
struct SuggestedFlow {
  size_t From = 0, To = 0; ///< Indices into the launches.
  std::string FromParam, ToParam;
  std::string Buffer; ///< As host code names it.
  /// Nothing reads it after the chain: the fused kernel keeps it in
  /// registers only (`temporary: true`).
  bool Temporary = false;
  std::string Kept; ///< Why it is still stored, when not Temporary.
  /// The buffer's size, where the source shows it.
  std::optional<uint64_t> Bytes;
  /// Memory traffic the fusion removes: the buffer's load, and its store
  /// where it is temporary.
  std::optional<uint64_t> removedBytes() const {
    if (!Bytes)
      return std::nullopt;
    return *Bytes * (Temporary ? 2 : 1);
  }
};

/// Scalar parameters of two launches of a vertical candidate that carry one
/// value (`same:`).
struct SuggestedSame {
  size_t First = 0, Second = 0; ///< Indices into the launches.
  std::string FirstParam, SecondParam;
};

/// Launches that could be one fused launch.
struct Candidate {
  std::string Name;            ///< The fusion's name in the config.
  std::vector<size_t> Members; ///< Indices into the launches, in program order.
  /// Why they cannot run side by side; empty when they can.
  std::vector<std::string> Conflicts;
  std::vector<std::string> Assumptions; ///< What that relies on.
  /// Some of it is the launching function's callers' to keep (pointers it
  /// receives point to different buffers, no work of theirs queued on other
  /// streams): the config has the promise (`distinct_buffers: true`) for
  /// the user to make.
  bool CallersPromise = false;
  /// kfuse check's errors fusing them (first line of each); empty when it
  /// fuses them.
  std::vector<std::string> Refusals;
  bool Checked = false; ///< kfuse check ran on it.
  /// The kernel files the config must list under `replace:` for kfuse to
  /// fuse them (their kernels read variables the program writes), as the
  /// config names them.
  std::vector<std::string> Replace;
  std::optional<FusionEstimate> Bound; ///< With a profile of every member.
  /// Side by side (independent launches), or one after the other in each
  /// thread: dependent launches whose every dependence is a Flow.
  FusionMode Mode = FusionMode::Horizontal;
  std::vector<SuggestedFlow> Flows;
  std::vector<SuggestedSame> Same;
  /// Ready, but shares a launch with a fusion ranked before it: the config
  /// keeps it as an alternative for tune to measure, which fuse rewrites
  /// only where the measurements prefer it. Names that fusion.
  std::string AlternativeTo;

  bool independent() const { return Conflicts.empty(); }
  /// The traffic a vertical fusion removes, where every flow's size is known.
  std::optional<uint64_t> removedBytes() const {
    uint64_t Sum = 0;
    for (const SuggestedFlow &F : Flows) {
      std::optional<uint64_t> B = F.removedBytes();
      if (!B)
        return std::nullopt;
      Sum += *B;
    }
    return Flows.empty() ? std::nullopt : std::optional<uint64_t>(Sum);
  }
  /// Whether a fusion of some mode could take them: kfuse check says.
  bool fusable() const { return independent() || Mode == FusionMode::Vertical; }
  bool ready() const { return fusable() && Checked && Refusals.empty(); }
};

struct Suggestions {
  std::vector<SuggestedLaunch> Launches;
  std::vector<Candidate> Candidates;
  bool Profiled = false;
};

/// Sorts the candidates: those kfuse can fuse first, then those that could
/// run side by side, then the rest; within each, by estimated gain, then
/// by the bound of perfect overlap, then by the memory traffic and the
/// launches they remove, then in program order; then chooses the config's
/// fusions (chooseFusions).
void rankCandidates(Suggestions &S);

/// In rank order, takes each ready candidate that shares no launch with one
/// taken before it; marks the others ready ones as alternatives
/// (Candidate::AlternativeTo), so that the config's fusions never overlap.
void chooseFusions(Suggestions &S);

} // namespace kfuse

#endif

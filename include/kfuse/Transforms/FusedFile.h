//===- FusedFile.h - what kfuse writes, before it is printed ----*- C++ -*-===//
//
// The model the transforms produce and own; Emission only prints it.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_FUSEDFILE_H
#define KFUSE_TRANSFORMS_FUSEDFILE_H

#include "kfuse/Config/Config.h"
#include "kfuse/Plan/FusedLayout.h"
#include "kfuse/Plan/FusionLayout.h"
#include "kfuse/Plan/PartitionPlan.h"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kfuse {

/// A launcher parameter as a header of its own can declare it, where
/// macros, typedefs and template parameters of the kernel's file are not
/// in scope.
struct PortableParam {
  std::string Declaration; ///< Canonical, fully qualified type and the name.
  /// Headers that declare the types it names: "<cuda_fp16.h>", or an
  /// absolute path for a project header.
  std::vector<std::string> Headers;
};

struct FusedParam {
  std::string Declaration; ///< "const float *scale_in", as the user spelled the type.
  std::string Name;        ///< "scale_in"
  PortableParam Portable;
  /// As the launcher, a host function, declares it: without
  /// `__grid_constant__`, which only a kernel's parameter may carry.
  std::string HostDeclaration;
  unsigned Position = 0; ///< Its place among the kernel's parameters, from 0.
  /// A pointer to the parameter's type as the launcher declares it (a
  /// flow's merged parameter: its writer's), as Clang prints it: what tune's
  /// harness casts the argument's storage to.
  std::string PointerType;
};

/// A macro as a section's kernel had it, where another input's definition
/// (or none) stands: pushed, set and popped around the section.
struct MacroOverride {
  std::string Name;
  std::string Definition; ///< "NAME(a) body"; empty: undefined in the section.
};

/// How the body's barriers wait.
enum class BarrierStyle {
  Aligned,   ///< bar.sync: every thread of the range reaches every barrier.
  ExitAware, ///< Threads that returned keep arriving until all are done.
};

/// A value one kernel passes to the next in a register.
struct RegisterValue {
  std::string Comment;
  std::string Type; ///< As declared: "float".
  std::string Name; ///< What the sections read and write.
  /// The array of one value per original block, where a fused block runs
  /// several at once (FusedLayout::BlocksPerIteration).
  std::string PerBlockName;
};

/// A value of a buffer's element that an elementwise kernel's range loads
/// before the bodies of the blocks it runs in one iteration.
struct AheadLoad {
  std::string Comment;
  std::string Type;   ///< Canonical: "float", "unsigned int".
  std::string Name;   ///< What the body reads in place of the load.
  std::string Array;  ///< One value per block (or iteration) at a time.
  std::string Buffer; ///< The pointer it loads through, as the section names it.
};

/// Several blocks of an elementwise kernel (kfuse/Analysis/Elementwise.h)
/// per iteration of its range's loop, their loads first.
struct ReadsAhead {
  unsigned Blocks = 1;
  std::string
      Index; ///< Declares the element, in the section's view: "const long long kfuse_i = ...;".
  std::string IndexName; ///< The element it declares: "kfuse_i".
  std::string Condition; ///< Whether the body reaches its loads: "kfuse_i < (long long)saxpy_n".
  /// Whether the buffers the loads read lie apart from those the body
  /// writes; with "true" for none. Where they do not, each block loads
  /// right before its body.
  std::string Apart;
  std::string ApartName; ///< The flag holding it.
  std::vector<AheadLoad> Loads;
};

/// One original kernel's part of a horizontally fused kernel.
struct FusedSection {
  std::string KernelId;   ///< The config entry.
  std::string KernelName; ///< The original function (the instantiation for templates).
  std::string Origin;     ///< "file:line" of the original definition.
  ThreadRange Range;
  std::array<unsigned, 3> Block{1, 1, 1}; ///< The block shape this part runs as.
  std::array<unsigned, 3> OriginalBlock{1, 1, 1};
  bool Resizable = false;
  std::vector<FusedParam> Params;
  std::string LaunchName; ///< The launcher's kfuse_launch parameter for this kernel.
  std::string GridName;   ///< The fused kernel's parameter holding this kernel's grid.
  /// The fused kernel's parameter holding the byte offset of this kernel's
  /// dynamic shared memory; empty when it has none.
  std::string SharedOffsetName;
  unsigned SharedAlign = 16; ///< Alignment of that region.
  bool UsesThreadIdx = false, UsesBlockDim = false, UsesBlockIdx = false, UsesGridDim = false;
  BarrierStyle Barriers = BarrierStyle::Aligned;
  /// Declarations before the body: template arguments, namespaces, dynamic
  /// shared memory declared outside the kernel, barriers inside macros.
  std::vector<std::string> Declarations;
  /// Macros the section reads that stand otherwise where the fused kernel
  /// is: the kernel's file defines them differently, or not at all.
  std::vector<MacroOverride> Macros;
  std::string EndLabel; ///< Empty when the body never returns early.
  /// For ExitAware barriers: the barrier's state and its shared counters.
  std::string ExitAwareBarrier, ExitCounters;
  std::string Body; ///< The rewritten body, braces included.
  /// A barrier over the range before the body: the kernel reads what
  /// other threads wrote in the kernels before it. Empty for none.
  std::string WaitBefore;
  /// The launch whose grid this kernel's launch must repeat (data flows
  /// from it); empty for none.
  std::string SameGridAs;
  /// Grid dimensions the launch must leave at 1.
  std::array<bool, 3> UnitGrid{false, false, false};
  /// Works with any 1-D grid, so on a persistent grid it runs once with the
  /// fused grid as its own instead of looping over its launch's blocks.
  bool OnFusedGrid = false;
  /// Waits at a block barrier or uses shared memory (itself or in what it
  /// calls): the next original block it runs must wait for this one.
  bool Synchronizes = false;
  /// On a persistent grid: the blocks it runs per iteration, loads first.
  std::optional<ReadsAhead> Ahead;
  /// Its body calls kfuse_lie_apart: it reads ahead, as Ahead or in its own
  /// grid-stride loop (rewritten in Body).
  bool ChecksApart = false;
};

/// Sections whose grid-stride loops run in step (kfuse/Plan/VerticalPlan.h):
/// one loop over the elements runs an iteration of each section per element.
struct SteppedSections {
  size_t First = 0, Count = 0;
  std::string Comment;
  std::string Type;     ///< Of the loops' variables.
  std::string Variable; ///< The element, which each section's iteration takes.
  /// As the first section's loop computes them, in its view of the block.
  std::string Init, Bound, Step;
};

struct FusedKernel {
  std::string Fusion;
  std::string KernelName;
  std::string LauncherName;
  /// The host function that says whether the launcher takes a set of launch
  /// configurations (the checks the launcher makes before launching).
  std::string FitsName;
  unsigned BlockThreads = 0;
  unsigned BarrierIds = 1; ///< Block barriers it uses, as the plan gave out ids.
  /// How it runs its sections: side by side or one after the other, the
  /// grid and its waves, and how it gets its registers (counts left empty
  /// are the tuning harness's to choose, as macros the printer spells).
  FusedLayout Layout;
  std::vector<FusedSection> Sections;
  std::vector<BlockLoop> Loops; ///< For persistent grids: every section in one.
  /// Values passed from one kernel to the next in registers.
  std::vector<RegisterValue> Registers;
  std::vector<SteppedSections> InStep;
};

/// Declarations of an input file that the fused kernels may need.
struct Preamble {
  std::string Origin;
  std::string Text;
  /// The file is included whole: the fused file is compiled in its place.
  bool Whole = false;
};

struct FusedFile {
  std::string Generator; ///< "kfuse 0.1.0"
  std::string Config;    ///< The config, as named on the command line.
  /// The header declaring the launchers, as the comments name it; empty
  /// for none. With one, launchers are external functions whose default
  /// stream argument lives in the header; without, they are inline.
  std::string LauncherHeader;
  std::vector<Preamble> Preambles;
  std::vector<FusedKernel> Kernels;
};

} // namespace kfuse

#endif

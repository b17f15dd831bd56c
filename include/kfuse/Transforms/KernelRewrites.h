//===- KernelRewrites.h - the rewrites of one kernel's body -----*- C++ -*-===//
//
// Each rewrite does one thing to a function body, reading its model and
// adding edits; the body rewriter runs them over a kernel's body and over
// the body of every device function inlined into it. Each returns false
// after reporting what it cannot rewrite.
//
// threadIdx, blockDim, blockIdx and gridDim need no edits: the section that
// holds the body declares the kernel's own view of them under those names.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_KERNELREWRITES_H
#define KFUSE_TRANSFORMS_KERNELREWRITES_H

#include "kfuse/Analysis/Kernel/Elementwise.h"
#include "kfuse/Analysis/Kernel/FileSymbols.h"
#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/KernelModel.h"
#include "kfuse/Transforms/EditSet.h"
#include "kfuse/Transforms/FusedFile.h"

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kfuse {

class NameAllocator;
class Reporter;

/// New names for a function's parameters, locals and labels.
using RenameMap = std::map<const clang::NamedDecl *, std::string>;

/// A grid-stride loop (kfuse/Analysis/Elementwise.h) that runs several
/// iterations at a time, the loads of all of them first where the buffers
/// lie apart: the names its rewrite declares.
struct CoarseStrides {
  GridStrideLoop Loop;
  unsigned Count = 2; ///< Iterations at a time.
  std::string Bound;  ///< n, as the section names it.
  /// As ReadsAhead: the flag, and what it holds.
  std::string ApartName, Apart;
  std::string Step, Next, At, Iteration; ///< Locals of the rewritten loop.
  std::vector<AheadLoad> Loads;          ///< At Next or At.
};

/// A grid-stride loop that runs one iteration, in step with other kernels'
/// loops (SteppedSections): its variable starts from Element's value.
struct StepIteration {
  GridStrideLoop Loop;
  std::string Element;
};

/// What the rewrites of one kernel's part share: the kernel's body and the
/// bodies inlined into it alike.
struct SectionContext {
  unsigned BarrierId = 0;
  unsigned BarrierCount = 0;
  BarrierStyle Style = BarrierStyle::Aligned;
  /// The section's kfuse_exit_aware_barrier, for the ExitAware style.
  std::string ExitAwareBarrier;
  /// Expression for the start of the kernel's dynamic shared memory.
  std::string DynamicShared;
  clang::ASTUnit &Unit;
  FunctionModels &Helpers;
  NameAllocator &Names;
  Reporter &Diags;
  /// Symbols of the kernel's file that get new names beside the other inputs.
  const FileRenames &Renames;
  /// The block shape the section runs as.
  std::array<unsigned, 3> Block{1, 1, 1};
  /// Tree reductions run in the first warp (the layout asks for it).
  bool OneWarpReductions = false;
  /// The kernel's grid-stride loop, where it runs several iterations at a time.
  std::optional<CoarseStrides> Strides{};
  /// The kernel's grid-stride loop, where it runs in step with others'.
  std::optional<StepIteration> InStep{};

  // Found while rewriting, for the section's declarations.
  std::set<BuiltinVar> Builtins{};
  /// Barrier functions called inside macro bodies, which the section
  /// shadows because no edit can reach them.
  std::set<std::string> BarriersInMacros{};
  /// Dynamic shared arrays declared outside the kernel: name and the
  /// declaration of the pointer that stands for it.
  std::map<std::string, std::string> FileScopeDynamicShared{};
  unsigned DynamicSharedAlign = 16;
  bool UsesDynamicShared = false;
  /// Accesses to temporaries that become the variable holding the value.
  std::map<const clang::Expr *, std::string> Replaced{};
  /// Names renamed inside the bodies of macros the section expands.
  MacroBodyEdits MacroBodies{};
  /// Definitions of the copies of functions the section calls rather than
  /// inlines (CallLowering::SectionCopy), each after the copies it calls.
  std::vector<std::string> Copies{};
  /// The name of each function's copy.
  std::map<const clang::FunctionDecl *, std::string> CopyNames{};
};

/// The text that waits at the kernel's barrier in place of a call to
/// \p Callee; for the _count/_and/_or forms, the function to call instead.
std::string partialBarrier(const SectionContext &Ctx, llvm::StringRef Callee);

/// Renames declarations and every reference to them.
bool renameSymbols(const KernelModel &Model, const RenameMap &Names, EditSet &Edits);

/// Gives the file's renamed symbols their new names inside \p Body. A
/// spelling in a macro's body is left to the preamble, which renames the
/// macro.
bool renameFileSymbols(const FileRenames &Renames, clang::SourceRange Body,
                       const clang::SourceManager &SM, EditSet &Edits);

/// Fresh names for the parameters (when \p Params), locals and labels of a
/// body. A local whose name a macro body spells keeps it
/// (KernelModel::keepsName).
RenameMap freshNames(const KernelModel &Model, const std::string &Prefix, bool Params,
                     NameAllocator &Names);

/// Runs each tree reduction of the body (KernelModel::TreeReductions) in
/// the first warp with one barrier, where the section asks for it and its
/// block is the one the reduction spans; the others stay as written.
bool rewriteTreeReductions(const KernelModel &Model, SectionContext &Ctx, EditSet &Edits);

/// Turns each block barrier into a barrier over the kernel's range.
bool rewriteBarriers(const KernelModel &Model, SectionContext &Ctx, EditSet &Edits);

/// Answers cooperative groups' queries of the block (thread_rank(), size(),
/// group_index(), ...) from the kernel's own view of it.
bool rewriteGroupQueries(const KernelModel &Model, SectionContext &Ctx, EditSet &Edits);

/// Replaces the text of each preprocessor branch of the body that was not
/// compiled with an #error that fires when a device compilation takes it:
/// kfuse rewrote only the branches it parsed.
bool guardSkippedBranches(const KernelModel &Model, SectionContext &Ctx, EditSet &Edits);

/// Points extern __shared__ arrays at the kernel's own region.
bool rewriteDynamicShared(const KernelModel &Model, const RenameMap &Names, SectionContext &Ctx,
                          EditSet &Edits);

/// using T = float; and constexpr int N = 256; for the template arguments of
/// \p F, one per line; empty when \p F is no template instantiation.
std::string templateArgumentDeclarations(const clang::FunctionDecl &F);

/// What a return becomes.
struct ReturnPlan {
  std::string EndLabel;   ///< Where a return jumps; empty where returns stay (a copy).
  std::string ResultName; ///< Where a returned value goes; empty to drop it.
  /// Statements that must run before a return's value is read: calls inlined
  /// out of it.
  std::map<const clang::ReturnStmt *, std::string> Prefixes;
};

/// Turns each return into a jump to the end of the body, or, in a copy,
/// puts the calls inlined out of a return before it.
bool rewriteReturns(const KernelModel &Model, const ReturnPlan &Plan, EditSet &Edits);

/// The body of \p Model (a kernel or a function being inlined) with every
/// rewrite applied and every call that touches the block inlined. \p Renames
/// holds the names its parameters get; its locals and labels get fresh names
/// that start with \p Prefix. \p Inlining lists the functions being inlined.
std::optional<std::string> rewriteBody(const KernelModel &Model, const std::string &Prefix,
                                       RenameMap Renames, ReturnPlan &Returns, SectionContext &Ctx,
                                       std::vector<const clang::FunctionDecl *> &Inlining);

} // namespace kfuse

#endif

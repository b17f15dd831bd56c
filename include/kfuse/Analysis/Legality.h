//===- Legality.h - the registry of checks that can refuse a fusion -*- C++ -*-===//
//
// Every refusal kfuse can raise belongs to one check of LegalityChecks.def.
// A check is a function of its scope's signature; the runners below call
// each check of a scope in the table's order, so `kfuse fuse`, `kfuse check`
// and `kfuse list` run the same code. Checks of the Chain, Files and
// Launches scopes are raised where their facts are built (the chain proof,
// the preamble's renames, the host launches); the table still names them,
// so `kfuse list --checks` shows every refusal.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_LEGALITY_H
#define KFUSE_ANALYSIS_LEGALITY_H

#include "kfuse/Analysis/Kernel/FusionLegality.h"
#include "kfuse/Analysis/Kernel/ThreadShares.h"
#include "kfuse/Diagnostics/DiagnosticIds.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// What a check reads, which is also when it runs.
enum class CheckScope {
  Kernel,   ///< one body the fused kernel runs (the kernel or an inlined function)
  Member,   ///< a kernel as the config declares it
  Fusion,   ///< the kernels of a fusion together
  Chain,    ///< what flows along a vertical chain
  Layout,   ///< the grid and each kernel's share of the block's threads
  Ranges,   ///< the planned thread ranges and register counts
  Files,    ///< what the input files define, put in one fused file
  Launches, ///< the host launches --rewrite-launches replaces
};

enum class CheckId {
#define KFUSE_CHECK(Name, Scope, Text, Summary, ...) Name,
#include "kfuse/Analysis/LegalityChecks.def"
};

struct LegalityCheck {
  CheckId Id;
  CheckScope Scope;
  llvm::StringRef Name;
  llvm::StringRef Summary;
  llvm::ArrayRef<diag::ID> Refusals;
};

/// The registry, in the table's order.
llvm::ArrayRef<LegalityCheck> legalityChecks();
/// The check that raises \p Refusal, or null when none does.
const LegalityCheck *checkRaising(diag::ID Refusal);
llvm::StringRef scopeName(CheckScope Scope);

/// One body the fused kernel runs: the kernel's own, or a function inlined
/// into it through CallStack.
struct BodyUnderCheck {
  const KernelModel &Model;
  const std::string &Kernel; ///< The kernel it is inlined into.
  FunctionModels &Helpers;
  clang::SourceManager &SM;
  /// Calls that led here, the kernel's first; empty for the kernel's body.
  llvm::ArrayRef<const clang::CallExpr *> CallStack;
  /// Definitions being inlined, outermost first, this one last.
  llvm::ArrayRef<const clang::FunctionDecl *> Stack;
  /// Their models, in the same order.
  llvm::ArrayRef<const KernelModel *> Models;
};

/// The kernels of one fusion; EarlierRefusals when a check of an earlier
/// scope refused them already.
struct FusionUnderCheck {
  const std::vector<FusionMember> &Members;
  bool EarlierRefusals = false;
};

/// A fusion's grid and how its block's threads are shared, before planning.
struct LayoutUnderCheck {
  const std::vector<FusionMember> &Members;
  const std::string &Fusion;
  GridMode Grid;
  const PartitionRequest &Shares;
  const std::string &ConfigPath; ///< Where the shares' problems point.
};

/// The planned ranges, one per member, and the register counts asked for.
struct RangesUnderCheck {
  const std::vector<FusionMember> &Members;
  const FusionSpec &Fusion;
  GridMode Grid;
  bool Vertical = false;
  llvm::ArrayRef<ThreadRange> Ranges;
  /// Per-warpgroup register counts asked for (one per kernel), or none.
  size_t SectionRegisters = 0;
  const std::string &ConfigPath;
};

/// Runs every Kernel check on \p Kernel and on each function inlined into
/// it. Returns whether none reported.
bool runKernelChecks(const KernelModel &Kernel, FunctionModels &Helpers, clang::SourceManager &SM,
                     Reporter &Diags);
bool runMemberChecks(const FusionMember &M, Reporter &Diags);
bool runFusionChecks(const FusionUnderCheck &F, Reporter &Diags);
bool runLayoutChecks(const LayoutUnderCheck &L, Reporter &Diags);
bool runRangesChecks(const RangesUnderCheck &R, Reporter &Diags);

/// Why the call \p C, which touches the block, can be neither inlined nor
/// called as a copy the section defines (C.lowering() says which it needs),
/// or nothing. \p Stack: the definitions being inlined, outermost first.
std::optional<std::string> callObstacle(const CallSite &C,
                                        llvm::ArrayRef<const clang::FunctionDecl *> Stack);

// The checks, one function each (LegalityChecks.def names them).
#define KFUSE_CHECK(Name, Scope, Text, Summary, ...) KFUSE_DECLARE_##Scope(Name)
#define KFUSE_DECLARE_Kernel(Name) void check##Name(const BodyUnderCheck &B, Reporter &Diags);
#define KFUSE_DECLARE_Member(Name) void check##Name(const FusionMember &M, Reporter &Diags);
#define KFUSE_DECLARE_Fusion(Name) void check##Name(const FusionUnderCheck &F, Reporter &Diags);
#define KFUSE_DECLARE_Layout(Name) void check##Name(const LayoutUnderCheck &L, Reporter &Diags);
#define KFUSE_DECLARE_Ranges(Name) void check##Name(const RangesUnderCheck &R, Reporter &Diags);
#define KFUSE_DECLARE_Chain(Name)
#define KFUSE_DECLARE_Files(Name)
#define KFUSE_DECLARE_Launches(Name)
#include "kfuse/Analysis/LegalityChecks.def"
#undef KFUSE_DECLARE_Kernel
#undef KFUSE_DECLARE_Member
#undef KFUSE_DECLARE_Fusion
#undef KFUSE_DECLARE_Layout
#undef KFUSE_DECLARE_Ranges
#undef KFUSE_DECLARE_Chain
#undef KFUSE_DECLARE_Files
#undef KFUSE_DECLARE_Launches

} // namespace kfuse

#endif

//===- FusionLegality.h - can these kernels be fused safely? ----*- C++ -*-===//
#ifndef KFUSE_ANALYSIS_FUSIONLEGALITY_H
#define KFUSE_ANALYSIS_FUSIONLEGALITY_H

#include "kfuse/Analysis/DeviceVariables.h"
#include "kfuse/Analysis/FileSymbols.h"
#include "kfuse/Analysis/KernelAnalyzer.h"
#include "kfuse/Analysis/KernelModel.h"
#include "kfuse/Config/Config.h"

#include "clang/Frontend/ASTUnit.h"

#include <memory>
#include <vector>

namespace kfuse {

class Reporter;

/// One kernel of a fusion: what the config says of it and what analysis found.
struct FusionMember {
  const KernelSpec *Spec;
  clang::ASTUnit *Unit;
  KernelModel Model;
  /// Models of the device functions inlined into the kernel.
  std::shared_ptr<FunctionModels> Helpers;
  /// What the kernel's file renames beside the other input files.
  std::shared_ptr<const FileRenames> Renames = std::make_shared<const FileRenames>();
  /// The mutable device variables of the kernel's file, and how a fused
  /// file reaches each.
  std::shared_ptr<const std::map<const clang::VarDecl *, DeviceVariable>> Variables =
      std::make_shared<const std::map<const clang::VarDecl *, DeviceVariable>>();
  /// The fused file is compiled in place of the kernel's file (`replace:`),
  /// so it reaches every variable of that file.
  bool SameUnit = false;
};

/// Whether the threads of \p Model that return early must keep arriving at
/// its barriers: a return comes before a barrier, or the kernel returns and
/// calls a function that synchronizes.
bool needsExitAwareBarriers(const KernelModel &Model);

/// Barrier ids the inline PTX of \p M's kernel and of the functions inlined
/// into it uses, which the fused kernel must leave to it.
std::vector<unsigned> reservedBarrierIds(const FusionMember &M);

/// Reports every loop of the members (and of what they call) whose
/// condition polls memory another block may write, a volatile or atomic
/// read: a persistent or proportional grid runs original blocks one after
/// another in each fused block, so such a wait may never end. CUDA does not
/// promise that blocks run concurrently either, but the originals' blocks
/// usually do. Returns true when there is none or \p Grid is as launched.
bool checkGridMode(const std::vector<FusionMember> &Members, GridMode Grid,
                   const std::string &Fusion, Reporter &Diags);
/// Whether checkGridMode refuses every grid but the one as launched.
bool pollsOtherBlocks(const std::vector<FusionMember> &Members);

/// The kernel \p K names in \p Unit; or null after reporting, at the
/// config, why the name finds none: the file only declares it, names no
/// such kernel (its kernels are noted), or no instantiation of a template
/// kernel matches.
const clang::FunctionDecl *resolveKernel(const KernelSpec &K, clang::ASTUnit &Unit,
                                         const std::string &ConfigPath, Reporter &Diags);

/// Whether each member fits the range of \p RangeSizes threads it gets: a
/// kernel compiled for at most N threads per block may use more registers
/// per thread than a larger range can get. Reports each one that does not.
bool checkLaunchBounds(const std::vector<FusionMember> &Members,
                       const std::vector<unsigned> &RangeSizes, Reporter &Diags);

/// Fused, the members no longer run one after the other, so memory one
/// writes and another uses must be apart. Kernels' arguments are the
/// launcher's to keep apart (flows name those that are not); reports each
/// __device__ variable one member writes and another uses, and memory a
/// member reaches that no argument names (a pointer loaded from a variable,
/// made from an integer, a surface) which another member may use. Returns
/// true when there is none.
bool checkMemoryOrder(const std::vector<FusionMember> &Members, Reporter &Diags);

/// Reports, at its source, every construct that keeps the members from being
/// fused horizontally without deadlock, race or a change of result. Returns
/// true when there is none.
bool checkHorizontalFusion(const std::vector<FusionMember> &Members, Reporter &Diags);

} // namespace kfuse

#endif

//===- FusionLegality.h - can these kernels be fused safely? ----*- C++ -*-===//
#ifndef KFUSE_ANALYSIS_FUSIONLEGALITY_H
#define KFUSE_ANALYSIS_FUSIONLEGALITY_H

#include "kfuse/Analysis/Kernel/DeviceVariables.h"
#include "kfuse/Analysis/Kernel/FileSymbols.h"
#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/KernelModel.h"
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
  /// A header of its own declares the fused kernels' launchers (--header),
  /// so it must name every parameter type.
  bool LauncherInHeader = false;
};

/// Whether the threads of \p Model that return early must keep arriving at
/// its barriers: a return comes before a barrier, or the kernel returns and
/// calls a function that synchronizes.
bool needsExitAwareBarriers(const KernelModel &Model);

/// Barrier ids the inline PTX of \p M's kernel and of the functions inlined
/// into it uses, which the fused kernel must leave to it.
std::vector<unsigned> reservedBarrierIds(const FusionMember &M);

/// Whether the grid-mode check refuses every grid but the one as launched:
/// a member polls memory another block may write (a volatile or atomic read
/// in a loop condition), and a persistent or proportional grid runs blocks
/// one after another in each fused block.
bool pollsOtherBlocks(const std::vector<FusionMember> &Members);

/// Where \p Ref ("kernel.param" in a config) points among \p Members: the
/// member's index and the parameter's, or nothing.
std::optional<std::pair<size_t, size_t>> findParam(const ParamRef &Ref,
                                                   const std::vector<FusionMember> &Members);

/// The kernel \p K names in \p Unit; or null after reporting, at the
/// config, why the name finds none: the file only declares it, names no
/// such kernel (its kernels are noted), or no instantiation of a template
/// kernel matches.
const clang::FunctionDecl *resolveKernel(const KernelSpec &K, clang::ASTUnit &Unit,
                                         const std::string &ConfigPath, Reporter &Diags);

/// Runs the Kernel, Member and Fusion checks of the legality registry
/// (Legality.h) on the members: reports, at its source, every construct
/// that keeps them from being fused without deadlock, race or a change of
/// result. Returns true when there is none.
bool checkHorizontalFusion(const std::vector<FusionMember> &Members, Reporter &Diags);

} // namespace kfuse

#endif

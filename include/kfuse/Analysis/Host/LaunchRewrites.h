//===- LaunchRewrites.h - may these launches become one launcher call? -*- C++ -*-===//
//
// `kfuse fuse --rewrite-launches` replaces the launches a horizontal fusion
// stands for by one call of its launcher. That moves the later launches up
// to the first one, past the host code between them, and evaluates every
// launch's operands at that point. Legal only when the launches follow one
// another in one block, are independent (kfuse suggest's analysis), share
// a stream, are statements of their own outside macros, and nothing between
// them changes what a later launch is given. Everything else is refused.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_LAUNCHREWRITES_H
#define KFUSE_ANALYSIS_LAUNCHREWRITES_H

#include "kfuse/Analysis/Host/KernelLaunches.h"
#include "kfuse/Analysis/Host/ProgramModel.h"
#include "kfuse/Analysis/Kernel/FusionLegality.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

class Reporter;

/// The launches of one host file that one call of a fusion's launcher
/// replaces, proven rewritable.
struct LaunchGroup {
  const FusionSpec *Fusion = nullptr;
  clang::ASTUnit *Host = nullptr;
  /// One per member of the fusion, in its order (which is program order).
  std::vector<KernelLaunch> Launches;
  /// Each launch's statement, with its `;`: what the rewrite replaces.
  std::vector<clang::CharSourceRange> Statements;
};

/// What follows the #include of the fused launchers that a rewritten host
/// file gets: the rewrite writes it, and a later rewrite recognises it.
inline constexpr const char *LauncherIncludeComment = "// kfuse: the fused launchers (";

/// Whether \p Host is kfuse's rewrite of a program file already (its
/// #include of the launchers): reported, with the original to rewrite
/// instead where `-i` kept it beside.
bool rewrittenBefore(clang::ASTUnit &Host, Reporter &Diags);

/// The host file whose launches fusion \p F replaces (absolute): where its
/// kernel entries' sites are, else the file of its first kernel. Reports, at
/// the config, sites in different files, and with \p Copies (rewritten
/// copies elsewhere) a header, which its includers would not read.
std::optional<std::string> hostFileOf(const Config &C, const FusionSpec &F, bool Copies,
                                      Reporter &Diags);

/// Finds among the launches of \p Model (one host file's, their kernels
/// resolved to the fusions' members) those of \p Members, the kernels of
/// fusion \p F, which one launcher call can replace. Reports every reason
/// it cannot, at the launch or at the config (\p C), and returns nothing.
std::optional<LaunchGroup> findLaunchGroup(const ProgramModel &Model, const Config &C,
                                           const FusionSpec &F,
                                           const std::vector<FusionMember> &Members,
                                           Reporter &Diags);

/// Of \p Groups, in the order of preference, the ones the rewrite takes
/// (their indices): each group whose launches an earlier group took stays
/// as it is, with a warning that names the group that took them and \p Why
/// it came first ("saves more time in the measurements"); an alternative
/// (FusionSpec::Alternative) stays without one.
std::vector<size_t> disjointGroups(const std::vector<LaunchGroup> &Groups, const std::string &Why,
                                   Reporter &Diags);

} // namespace kfuse

#endif

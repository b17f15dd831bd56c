//===- HorizontalFuser.h - several kernels side by side in one block -*- C++ -*-===//
//
// The HFuse construction (Fig. 5 of the paper): kernel i runs on threads
// [Begin_i, End_i) of a 1-D block, sees its own threadIdx and blockDim, and
// waits at barrier id i with a count of its range's size.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_HORIZONTALFUSER_H
#define KFUSE_TRANSFORMS_HORIZONTALFUSER_H

#include "kfuse/Analysis/Kernel/Elementwise.h"
#include "kfuse/Analysis/Kernel/FusionLegality.h"
#include "kfuse/Plan/PartitionPlan.h"
#include "kfuse/Plan/VerticalPlan.h"
#include "kfuse/Transforms/FusedFile.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class IdentifierTable;
} // namespace clang

namespace kfuse {

class Reporter;

/// Hands out identifiers that clash with nothing the inputs spell and with
/// nothing handed out before.
class NameAllocator {
public:
  void reserve(llvm::StringRef Name) { Taken.insert(Name.str()); }
  /// Reserves every identifier a parsed file spells, its headers included
  /// (looked up in its identifier table, not copied: suggest checks a
  /// thousand candidates of one file).
  void reserveIdentifiersOf(clang::ASTUnit &Unit);
  std::string allocate(const std::string &Wanted);

private:
  bool taken(const std::string &Name) const;
  std::set<std::string> Taken;
  std::vector<const clang::IdentifierTable *> Tables;
};

/// \p Text with every character that cannot stand in an identifier made '_'.
std::string identifierFrom(llvm::StringRef Text);

/// How the bodies are rewritten, beside the plan's ranges.
struct BodyOptions {
  /// Tree reductions run in the first warp with one barrier.
  bool OneWarpReductions = false;
  /// Members, by index, whose range runs several blocks per iteration of a
  /// persistent grid with their loads first, and how many.
  std::map<size_t, std::pair<ElementwiseKernel, unsigned>> ReadAhead;
};

/// Builds the fused kernel of \p Members laid out by \p Plan, or reports why
/// a body cannot be rewritten and returns nothing. \p Chains, when given,
/// binds the members' parameters and temporaries across vertical chains.
std::optional<FusedKernel> fuseHorizontally(const std::string &Fusion,
                                            const std::vector<FusionMember> &Members,
                                            const PartitionPlan &Plan, NameAllocator &Names,
                                            Reporter &Diags, const VerticalPlan *Chains = nullptr,
                                            BodyOptions Options = {});

} // namespace kfuse

#endif

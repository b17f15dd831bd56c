//===- FlowLegality.h - may data pass from one kernel to the next? -*- C++ -*-===//
//
// Vertical fusion runs kernel A and then kernel B in every thread. When B
// reads a buffer A wrote, the originals ordered every write before every
// read; the fused kernel keeps that order only among the threads that see
// each other's writes: the same thread, or the same block after a barrier.
// The proof compares each pair of accesses to a flow's buffer (at least
// one a write): with A's index f, B's must be f at a thread shifted by a
// constant d inside the block, A's writes must be injective (no two threads
// write one element), and B's conditions must imply A's at the shifted
// thread. d = 0 needs nothing; d != 0 needs a barrier; anything else is
// refused with both index expressions.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_FLOWLEGALITY_H
#define KFUSE_ANALYSIS_FLOWLEGALITY_H

#include "kfuse/Analysis/FusionLegality.h"
#include "kfuse/Analysis/MemoryAccess.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kfuse {

class Reporter;

/// A parameter of a member of the chain.
struct MemberParam {
  size_t Member = 0;
  const clang::ParmVarDecl *Param = nullptr;
  bool operator<(const MemberParam &O) const {
    return std::tie(Member, Param) < std::tie(O.Member, O.Param);
  }
  bool operator==(const MemberParam &O) const { return Member == O.Member && Param == O.Param; }
};

/// A temporary that lives in a register: the accesses it replaces.
struct RegisterTemporary {
  std::string Name;        ///< "scale.y", for comments.
  std::string ToName;      ///< "bias.in", for comments.
  std::string ElementType; ///< The register's type.
  MemberParam From, To;
  /// Per member: the accesses that become the register.
  std::map<size_t, std::vector<const clang::Expr *>> Accesses;
};

/// How the kernels of a vertical chain share their parameters and data.
struct VerticalPlan {
  /// Parameters that take an earlier member's parameter instead of one of
  /// their own: flows through memory and groups of the same value.
  std::map<MemberParam, MemberParam> Aliases;
  std::vector<RegisterTemporary> Registers;
  /// Per member: whether it must wait for all threads of the block to
  /// finish the members before it.
  std::vector<bool> WaitBefore;
  /// Grid dimensions the launcher must see as 1: the proof assumed that
  /// blocks differing only there do not exist.
  std::array<bool, 3> UnitGrid{false, false, false};
  /// Parameters no member takes any more: both ends of a register temporary.
  std::vector<MemberParam> Dropped;
};

/// Checks the flows and groups of \p F over \p Members (the kernels of the
/// chain, in order) and plans them; reports every problem and returns
/// nothing when one stops the fusion.
std::optional<VerticalPlan> planVerticalChain(const FusionSpec &F,
                                              const std::vector<const FusionMember *> &Members,
                                              const std::string &ConfigPath, Reporter &Diags);

} // namespace kfuse

#endif

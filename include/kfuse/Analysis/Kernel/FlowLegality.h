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
// This proves and records facts; how the fused kernel then passes
// parameters, where it waits and which registers it declares is the Plan
// stage's (kfuse/Plan/VerticalPlan.h).
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_FLOWLEGALITY_H
#define KFUSE_ANALYSIS_FLOWLEGALITY_H

#include "kfuse/Analysis/Kernel/FusionLegality.h"
#include "kfuse/Analysis/Kernel/MemoryAccess.h"
#include "kfuse/Analysis/Kernel/StepLoop.h"

#include <array>
#include <map>
#include <optional>
#include <set>
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

/// A flow that may live in a register: the accesses it replaces, each
/// proven private to its thread and covered by a write.
struct RegisterTemporary {
  std::string Name;        ///< "scale.y", for comments.
  std::string ToName;      ///< "bias.in", for comments.
  std::string ElementType; ///< The register's type.
  MemberParam From, To;
  /// Per member: the accesses that become the register.
  std::map<size_t, std::vector<const clang::Expr *>> Accesses;
  /// The consumer's accesses that only read: they read the value as memory
  /// held it, which nvcc must not contract with the producer's arithmetic
  /// (a multiply there and an add here would become one fused multiply-add
  /// the original launches never computed).
  std::set<const clang::Expr *> Reads;
};

/// A flow of the config, proven legal.
struct ProvenFlow {
  MemberParam From, To;
  /// The consumer reads elements other threads of the block wrote: it must
  /// wait for them (a barrier before it).
  bool Barrier = false;
  /// Set when the config asks for a temporary and it can be a register.
  std::optional<RegisterTemporary> Register;
};

/// What holds for a vertical chain: every flow and group of its config.
struct ChainProof {
  size_t Members = 0;
  /// Groups of the same value: each parameter and its group's earliest.
  std::map<MemberParam, MemberParam> SameValue;
  /// Flows through memory: the consumer's buffer and the producer's.
  std::map<MemberParam, MemberParam> SameBuffer;
  std::vector<ProvenFlow> Flows; ///< In the config's order.
  /// Grid dimensions the proof assumed to be 1: blocks differing only
  /// there do not exist.
  std::array<bool, 3> UnitGrid{false, false, false};
  /// Per member, its grid-stride loop, where a register temporary lies in
  /// the loops and they run in step (StepLoop.h); empty otherwise.
  std::vector<StepLoop> InStep;
};

/// Checks the flows and groups of \p F over \p Members (the kernels of the
/// chain, in order); reports every problem and returns nothing when one
/// stops the fusion.
std::optional<ChainProof> proveVerticalChain(const FusionSpec &F,
                                             const std::vector<const FusionMember *> &Members,
                                             const std::string &ConfigPath, Reporter &Diags);

} // namespace kfuse

#endif

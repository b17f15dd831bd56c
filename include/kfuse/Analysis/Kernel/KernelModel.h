//===- KernelModel.h - what the fuser knows about one kernel ----*- C++ -*-===//
//
// Built once by analysis and read by every transform, the legality checks,
// the printer and `kfuse list`: the kernel's parameters and locals, its uses
// of the CUDA built-in variables, its barriers, shared memory, returns and
// calls, each with the AST node it came from.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_KERNELMODEL_H
#define KFUSE_ANALYSIS_KERNELMODEL_H

#include "kfuse/Analysis/Kernel/CooperativeGroups.h"
#include "kfuse/Analysis/Kernel/PreprocessorBranches.h"
#include "kfuse/Analysis/Kernel/TreeReductions.h"
#include "kfuse/Frontend/RejectedCode.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceLocation.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kfuse {

/// The CUDA built-in variables a kernel can read.
enum class BuiltinVar { ThreadIdx, BlockDim, BlockIdx, GridDim };
const char *spelling(BuiltinVar V);

struct BuiltinUse {
  BuiltinVar Var;
  const clang::DeclRefExpr *Ref;
};

enum class BarrierKind {
  SyncThreads,      ///< __syncthreads()
  SyncThreadsCount, ///< __syncthreads_count/_and/_or
  GroupSync,        ///< cooperative_groups: block.sync() or cg::sync(block)
  Named,            ///< __barrier_sync and the NVVM barrier built-ins
};

struct Barrier {
  const clang::CallExpr *Call;
  BarrierKind Kind;
  std::string Callee;
  bool IsStatement; ///< Stands alone as a statement, so it can become one.
  /// Loops around the barrier, innermost first.
  std::vector<const clang::Stmt *> Loops;
};

struct Return {
  const clang::ReturnStmt *Stmt;
  std::vector<const clang::Stmt *> Loops;
};

struct SharedVariable {
  const clang::VarDecl *Var;
  bool Dynamic;   ///< extern __shared__ T name[];
  bool FileScope; ///< Declared outside the kernel.
  uint64_t Bytes; ///< 0 for dynamic shared memory.
};

/// A warp collective (a shuffle, vote, match, reduction, __syncwarp, or an
/// operation of a cooperative-groups tile): it waits for the lanes it names.
/// In a block that is not whole warps, the lanes past the block's last
/// thread exist in a fused block and run elsewhere; a collective that names
/// them never completes.
struct WarpCollective {
  const clang::Stmt *At = nullptr; ///< The call, or the inline assembly.
  std::string Name;
  enum class Lanes {
    Mask,     ///< The constant Mask names them.
    Reaching, ///< Only lanes that reach it: __activemask(), a coalesced group.
    Tile,     ///< Every lane of a tile of TileSize lanes.
    Computed, ///< MaskExpr computes them (per thread, as in `tid < k ? ~0u : m`).
    Any,      ///< kfuse cannot tell: any lane of the warp.
  } Names = Lanes::Any;
  uint64_t Mask = 0;
  unsigned TileSize = 0;
  const clang::Expr *MaskExpr = nullptr;
  const clang::ASTContext *AST = nullptr; ///< MaskExpr's.
  /// Whether, in a 1-D block (\p OneDimensional) of \p Threads threads
  /// padded to whole warps, it names only lanes that run this kernel.
  bool namesOnlyLiveLanes(unsigned Threads, bool OneDimensional) const;
};

/// What a called function does to the block, found through its body and the
/// bodies of everything it calls.
struct CalleeEffect {
  bool ReadsBuiltins = false; ///< threadIdx, blockDim, blockIdx or gridDim, or their registers.
  bool Synchronizes = false;  ///< A block barrier, in C++ or inline PTX.
  bool WarpSync = false;      ///< __syncwarp: waits for lanes of the caller's warp.
  /// Warp collectives it reaches, each once.
  std::vector<WarpCollective> WarpCollectives;
  /// A mutable function-scope static variable it (or a function it calls)
  /// declares: one per program, which a copy in the fused file is not.
  const clang::VarDecl *StaticLocal = nullptr;
  bool UsesShared = false; ///< Declares or reads __shared__ memory.
  /// An extern __shared__ array it declares or reads: the kernel's dynamic
  /// shared memory, reached through a helper (SharedMemory<T>, smem()).
  const clang::VarDecl *DynamicShared = nullptr;
  bool Unknown = false; ///< Somewhere a user function without a body.
  /// Inline assembly it reaches that ends the thread (PTX exit or ret);
  /// null for none.
  const clang::GCCAsmStmt *EndsThread = nullptr;
  /// A cooperative-groups call it reaches that a fused block cannot keep
  /// (grid sync, or refused), and what it does; null for none.
  const clang::CallExpr *GroupCall = nullptr;
  kfuse::GroupCall Group;
  bool InSystemHeader = false; ///< The callee belongs to the toolkit, not the project.
  /// Mutable __device__, __constant__ and __managed__ variables it reads or
  /// writes, by their canonical declarations.
  std::set<const clang::VarDecl *> DeviceVariables;
  /// A loop condition it reaches that polls memory another block may write
  /// (a volatile or atomic read); null for none.
  const clang::Expr *SpinWait = nullptr;
  /// A function it reaches whose body Clang rejects, and why; null for none.
  const clang::FunctionDecl *RejectedFunction = nullptr;
  const Rejection *Rejected = nullptr;
  /// What a fused kernel must rewrite, so the call has to be inlined.
  bool touchesBlock() const { return ReadsBuiltins || Synchronizes || UsesShared; }
};

/// Where a call stands, which decides how its inlined body replaces it.
enum class CallPosition {
  Statement, ///< f(a); the inlined body replaces the statement.
  /// Inside a statement that evaluates it once, before anything else that
  /// depends on it: T x = f(a);, x = g(f(a)) + 1;, return f(a);,
  /// if (f(a)) ... The inlined body goes before the statement and the call
  /// becomes the variable holding its result.
  Hoisted,
  Unsupported, ///< Evaluated conditionally or repeatedly; see NotHoistable.
};

/// How a call whose callee touches the block reaches the kernel's section.
enum class CallLowering {
  /// The callee's body replaces the call (CallPosition says where).
  Inline,
  /// The call stays a call, of a copy of the callee that the section defines
  /// (a lambda that sees the section's view of the block): where the call
  /// cannot be hoisted, the callee returns a reference or declares static
  /// shared memory.
  SectionCopy,
};

struct CallSite {
  const clang::CallExpr *Call;
  const clang::FunctionDecl *Callee;
  CalleeEffect Effect;
  CallPosition Position = CallPosition::Unsupported;
  /// The call with the implicit conversions around it.
  const clang::Expr *Whole = nullptr;
  /// The statement the call stands as, or the one it is hoisted out of.
  const clang::Stmt *Site = nullptr;
  /// Why the call cannot be hoisted, for Unsupported.
  const char *NotHoistable = "";
  /// Why the section cannot call a copy of the callee here; empty if it can.
  const char *NotCopyable = "";
  /// The callee's own body declares a static __shared__ variable, which
  /// exists once per block however often it is called: every call must
  /// reach one copy of the callee, not an inlined body each.
  bool DeclaresShared = false;
  CallLowering lowering() const;
};

/// An object's construction or destruction: a call kfuse does not inline,
/// whose effect (the constructor's member initializers and body, or the
/// destructor's body) must then leave the block alone.
struct SpecialCall {
  const clang::Expr *At; ///< The construction, or the declaration's initializer.
  clang::SourceLocation Loc;
  const clang::CXXMethodDecl *Callee; ///< A constructor or a destructor.
  CalleeEffect Effect;
};

/// Barriers of the function's own inline PTX.
struct AsmBarrier {
  const clang::GCCAsmStmt *Stmt;
  std::vector<unsigned> Ids; ///< Literal barrier ids it names.
  /// Every barrier names a literal id other than 0 and a thread count, so it
  /// keeps working inside a fused block once no other kernel uses its ids.
  bool Partial = false;
};

/// A cooperative-groups query of the block's shape or the thread's place in
/// it, which the section answers from the kernel's own view.
struct GroupQueryUse {
  const clang::CallExpr *Call;
  BlockQuery Query;
  unsigned TileSize; ///< For a tile's meta_group_rank() and meta_group_size().
};

/// A cooperative-groups call a fused block cannot keep, and why.
struct GroupRefusal {
  const clang::CallExpr *Call;
  const char *Why;
};

/// A kernel, or a device function inlined into one: what its body does.
struct KernelModel {
  const clang::FunctionDecl *Decl = nullptr;
  std::string Name; ///< Qualified name.
  std::vector<const clang::ParmVarDecl *> Params;
  std::vector<const clang::VarDecl *> Locals;
  std::vector<const clang::LabelDecl *> Labels;
  /// References to parameters and locals, each once, in source order.
  std::vector<const clang::DeclRefExpr *> LocalRefs;
  std::vector<const clang::LabelStmt *> LabelStmts;
  std::vector<const clang::GotoStmt *> Gotos;
  /// Branches of `if constexpr` this instantiation discards: Clang keeps
  /// an empty statement where the template's text still names the
  /// template's locals, which no reference of the instantiation reaches.
  std::vector<const clang::CompoundStmt *> DiscardedBranches;
  /// Calls of __syncwarp in the body itself (those of helpers: their
  /// CalleeEffect::WarpSync).
  std::vector<const clang::CallExpr *> WarpSyncs;
  /// Warp collectives of the body itself (__syncwarp included); those of
  /// helpers: their CalleeEffect::WarpCollectives.
  std::vector<WarpCollective> WarpCollectives;
  /// Mutable function-scope static variables the body itself declares.
  std::vector<const clang::VarDecl *> StaticLocals;
  /// For a member function: `this` as written, and members reached through
  /// an implicit `this` (the member's name stands for this->name).
  std::vector<const clang::CXXThisExpr *> ExplicitThis;
  std::vector<const clang::MemberExpr *> ImplicitMembers;
  std::vector<BuiltinUse> Builtins;
  std::vector<Barrier> Barriers;
  std::vector<Return> Returns;
  std::vector<SharedVariable> Shared;
  std::vector<CallSite> Calls;
  /// Constructors and destructors the body runs (implicitly, too) that do
  /// something: kfuse inlines neither.
  std::vector<SpecialCall> SpecialCalls;
  std::vector<AsmBarrier> AsmBarriers;
  /// Inline assembly that ends the thread (PTX exit, or ret in a kernel).
  std::vector<const clang::GCCAsmStmt *> AsmExits;
  /// Calls to cooperative groups' grid-wide synchronization.
  std::vector<const clang::CallExpr *> GridSyncs;
  /// Loop conditions of its own body that poll memory (volatile or atomic
  /// reads): the read in each.
  std::vector<const clang::Expr *> SpinWaits;
  std::vector<GroupQueryUse> GroupQueries;
  std::vector<GroupRefusal> GroupRefusals;
  /// Mutable __device__, __constant__ or __managed__ variables outside the
  /// kernel that its own body reads or writes, by canonical declaration.
  std::vector<const clang::VarDecl *> DeviceVariables;
  /// Preprocessor chains of the body with a branch that was not compiled:
  /// the fused body keeps their directives and an #error in such branches.
  BodyConditionals Conditionals;
  /// Block tree reductions of its own body that the first warp can run
  /// alone, with the same additions (kfuse rewrites them on request).
  std::vector<TreeReduction> TreeReductions;
  std::optional<unsigned> LaunchBoundsMaxThreads;
  /// Why Clang rejects the body itself; null when it does not.
  const Rejection *Rejected = nullptr;

  bool uses(BuiltinVar V) const;
  /// The extern __shared__ array of its own, else of a function it calls,
  /// and that function (null for its own); {null, null} for none.
  std::pair<const clang::VarDecl *, const clang::FunctionDecl *> dynamicShared() const;
  uint64_t staticSharedBytes() const;
  /// Returns that threads may take while others of the block go on to a
  /// barrier: a barrier after the return, or in a loop around it.
  std::vector<std::pair<const Return *, const Barrier *>> returnsBeforeBarriers() const;
  /// Whether it waits at a block barrier, itself or in a function it calls.
  bool synchronizes() const;
  /// Barrier ids its own inline PTX uses.
  std::vector<unsigned> asmBarrierIds() const;
  /// Calls whose bodies must be inlined.
  std::vector<const CallSite *> callsToInline() const;
  /// Whether a macro body spells local \p V (its declaration or a use), so
  /// that no edit can rename it and it keeps its name where it is fused.
  bool keepsName(const clang::VarDecl *V) const;
  /// The device variables it reaches, itself or through what it calls, in
  /// source order.
  std::vector<const clang::VarDecl *> reachedDeviceVariables() const;
};

} // namespace kfuse

#endif

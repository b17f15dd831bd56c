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

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceLocation.h"

#include <cstdint>
#include <optional>
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

/// What a called function does to the block, found through its body and the
/// bodies of everything it calls.
struct CalleeEffect {
  bool ReadsThreadIndex = false; ///< threadIdx or blockDim, or their registers.
  bool Synchronizes = false;     ///< A block barrier, in C++ or inline PTX.
  bool Unknown = false;          ///< Somewhere a user function without a body.
  bool CooperativeGroups = false;
  bool touchesBlock() const { return ReadsThreadIndex || Synchronizes; }
};

struct CallSite {
  const clang::CallExpr *Call;
  const clang::FunctionDecl *Callee;
  CalleeEffect Effect;
};

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
  std::vector<BuiltinUse> Builtins;
  std::vector<Barrier> Barriers;
  std::vector<Return> Returns;
  std::vector<SharedVariable> Shared;
  std::vector<CallSite> Calls;
  std::vector<const clang::GCCAsmStmt *> AsmBarriers;
  /// Mutable __device__ or __constant__ variables outside the kernel that it reads or writes.
  std::vector<const clang::VarDecl *> DeviceVariables;
  /// Preprocessor branches inside the body that were not compiled.
  std::vector<clang::SourceRange> SkippedBranches;
  std::optional<unsigned> LaunchBoundsMaxThreads;

  bool uses(BuiltinVar V) const;
  bool usesDynamicShared() const;
  uint64_t staticSharedBytes() const;
  /// Returns that threads may take while others of the block go on to a
  /// barrier: a barrier after the return, or in a loop around it.
  std::vector<std::pair<const Return *, const Barrier *>> returnsBeforeBarriers() const;
};

} // namespace kfuse

#endif

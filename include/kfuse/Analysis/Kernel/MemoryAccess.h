//===- MemoryAccess.h - what a kernel reads and writes, and where -*- C++ -*-===//
//
// Every use of memory a kernel can share with other kernels, in the kernel
// and in the functions it calls: each access is a read, a write, an update,
// an atomic update or unknown, at an element given as an IndexExpr (or at
// elements kfuse cannot name), with the conditions it runs under and the
// loops around it. Built once per kernel; vertical fusion's legality proof,
// the check of memory the launcher does not pass, kfuse suggest and
// `kfuse list` read it.
//
// The model is default-deny: the walker classifies each expression kind it
// knows, and a pointer or a place in memory that reaches any other
// construct becomes an access of kind Unknown (it may read and write all
// it can reach), with the construct and the reason. Memory is told apart by
// how the kernel reaches it (MemoryKind): the buffer of a pointer
// parameter, memory reached through pointers the parameters hold, a
// __device__ variable, or memory kfuse cannot tie to anything the launch
// passes.
//
// Symbols of the index expressions: built-ins (threadIdx.x, blockIdx.x,
// gridDim.x, and y, z), scalar parameters, and the iteration count of each
// canonical loop (Symbol::loop, numbered in the kernel). blockDim is replaced
// by the block the kernel is launched with, when it is known.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_MEMORYACCESS_H
#define KFUSE_ANALYSIS_MEMORYACCESS_H

#include "kfuse/Analysis/Kernel/IndexExpr.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

enum class AccessKind {
  Read,
  Write,
  ReadWrite, ///< Read and written by one operation (+=, ++).
  Atomic,
  Unknown, ///< May read and write anything it reaches.
};
const char *spelling(AccessKind K);

/// How a kernel reaches the memory an access touches.
enum class MemoryKind {
  Buffer,   ///< The buffer a pointer parameter points into.
  Reached,  ///< Memory a parameter's pointers lead to: pointers loaded from its
            ///< buffer, or held in a parameter of class type.
  Variable, ///< A __device__, __managed__ or __constant__ variable.
  Unknown,  ///< Anything else: a pointer built from an integer, held in a
            ///< variable, a surface or texture, code kfuse cannot see.
};

struct MemoryAccess {
  /// p[i], *p, the atomic call, the call or operand kfuse cannot follow.
  const clang::Expr *Site = nullptr;
  clang::SourceLocation Loc; ///< Where it is written (the file's own position).
  AccessKind Kind = AccessKind::Read;
  /// Elements from the buffer's start (of its element type, arrays
  /// flattened); meaningful only when IndexKnown.
  IndexExpr Index;
  bool IndexKnown = true;
  /// Consecutive elements one access covers from Index: 4 for a float4
  /// stored through a float buffer.
  unsigned Width = 1;
  /// Conditions it runs under: ifs, early returns, loop conditions.
  std::vector<IndexCondition> Guards;
  /// Iteration symbols of the canonical loops around it, outermost first.
  std::vector<Symbol> Loops;
  bool InLoop = false;  ///< Inside any loop, canonical or not.
  bool Partial = false; ///< Touches a part of the element (p[i].x).
  /// The called function it lies in; null for the kernel's own body.
  const clang::FunctionDecl *Helper = nullptr;
  /// For an access in a system header (the toolkit's, Clang's wrappers),
  /// the call in the project's code that led there; invalid otherwise.
  clang::SourceLocation CalledAt;
  std::string Text; ///< As written.
  /// Why kfuse cannot say more: for an Unknown access, an unknown index
  /// or memory of kind Reached or Unknown.
  std::string Why;

  bool reads() const { return Kind != AccessKind::Write; }
  bool writes() const { return Kind != AccessKind::Read; }
  /// One element at a known index, read or written as a whole or in part.
  bool precise() const { return Kind != AccessKind::Unknown && IndexKnown && Width == 1; }
};

/// The accesses to one piece of memory.
struct MemoryAccesses {
  MemoryKind Kind = MemoryKind::Buffer;
  /// The pointer parameter (Buffer), or the parameter whose pointers lead
  /// there (Reached).
  const clang::ParmVarDecl *Param = nullptr;
  const clang::VarDecl *Variable = nullptr; ///< For Variable.
  std::vector<MemoryAccess> Accesses;

  /// The first access of kind Unknown; null when every one is classified.
  const MemoryAccess *unknown() const;
  bool reads() const;
  bool writes() const;
  /// "buffer 'out'", "memory reached through 'bufs'", "variable 'g'",
  /// "memory kfuse cannot tie to an argument".
  std::string describe() const;
};

/// A loop `for (i = Init; ...; i += Step)` whose variable changes nowhere else.
struct LoopShape {
  std::string Variable;
  IndexExpr Init, Step;
};

struct KernelAccesses {
  std::vector<MemoryAccesses> Buffers; ///< One per pointer parameter, in order.
  /// Memory not behind a pointer parameter: kinds Reached, Variable and
  /// Unknown, in the order first accessed.
  std::vector<MemoryAccesses> Other;
  std::map<Symbol, LoopShape> Loops; ///< By iteration symbol.

  const MemoryAccesses *find(llvm::StringRef Param) const;
  /// The memory of kind Unknown; null when the kernel reaches none.
  const MemoryAccesses *unknown() const;
  /// Whether the kernel touches memory other kernels may see at all.
  bool touchesMemory() const;
};

/// " when c1 && c2" as written in the source; empty for no condition.
std::string guardsText(const std::vector<IndexCondition> &Guards);

/// Accesses of \p Kernel launched with blocks of \p Block; without one,
/// blockDim stays a symbol.
KernelAccesses analyzeAccesses(const clang::FunctionDecl &Kernel,
                               std::optional<std::array<unsigned, 3>> Block);

} // namespace kfuse

#endif

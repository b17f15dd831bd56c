//===- MemoryAccess.h - what a kernel reads and writes, and where -*- C++ -*-===//
//
// For each pointer parameter of a kernel: every element access through it,
// in the kernel and in the functions it calls, with the element's index as
// an IndexExpr, the conditions it runs under and the loops around it. Built
// once per kernel; vertical fusion's legality proof and `kfuse list` read it.
//
// Symbols of the index expressions: built-ins (threadIdx.x, blockIdx.x,
// gridDim.x, and y, z), scalar parameters, and the iteration count of each
// canonical loop (Symbol::loop, numbered in the kernel). blockDim is replaced
// by the block the kernel is launched with, when it is known.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_MEMORYACCESS_H
#define KFUSE_ANALYSIS_MEMORYACCESS_H

#include "kfuse/Analysis/IndexExpr.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

enum class AccessKind { Read, Write, ReadWrite, Atomic };
const char *spelling(AccessKind K);

struct MemoryAccess {
  const clang::Expr *Site = nullptr; ///< p[i], *p or the atomic call.
  AccessKind Kind = AccessKind::Read;
  IndexExpr Index; ///< Elements from the parameter's pointer.
  /// Conditions it runs under: ifs, early returns, loop conditions.
  std::vector<IndexCondition> Guards;
  /// Iteration symbols of the canonical loops around it, outermost first.
  std::vector<Symbol> Loops;
  bool InLoop = false;  ///< Inside any loop, canonical or not.
  bool Partial = false; ///< Touches a member of the element (p[i].x).
  /// The called function it lies in; null for the kernel's own body.
  const clang::FunctionDecl *Helper = nullptr;
  std::string Text; ///< As written.

  bool reads() const { return Kind != AccessKind::Write; }
  bool writes() const { return Kind != AccessKind::Read; }
};

struct BufferAccesses {
  const clang::ParmVarDecl *Param = nullptr;
  std::vector<MemoryAccess> Accesses;
  /// How the pointer escapes kfuse's view (stored, passed to a function
  /// without a body, moved); empty when every use is an access above.
  std::string Escape;
  clang::SourceLocation EscapeLoc;
};

/// A loop `for (i = Init; ...; i += Step)` whose variable changes nowhere else.
struct LoopShape {
  std::string Variable;
  IndexExpr Init, Step;
};

struct KernelAccesses {
  std::vector<BufferAccesses> Buffers; ///< One per pointer parameter, in order.
  std::map<Symbol, LoopShape> Loops;   ///< By iteration symbol.
  const BufferAccesses *find(llvm::StringRef Param) const;
};

/// " when c1 && c2" as written in the source; empty for no condition.
std::string guardsText(const std::vector<IndexCondition> &Guards);

/// Accesses of \p Kernel launched with blocks of \p Block; without one,
/// blockDim stays a symbol.
KernelAccesses analyzeAccesses(const clang::FunctionDecl &Kernel,
                               std::optional<std::array<unsigned, 3>> Block);

} // namespace kfuse

#endif

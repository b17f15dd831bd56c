//===- KernelAnalyzer.h - building the kernel model ------------*- C++ -*-===//
#ifndef KFUSE_ANALYSIS_KERNELANALYZER_H
#define KFUSE_ANALYSIS_KERNELANALYZER_H

#include "kfuse/Analysis/Kernel/KernelModel.h"

#include "clang/Frontend/ASTUnit.h"

#include <map>
#include <memory>

namespace kfuse {

/// The __global__ functions defined in \p Unit outside system headers, in
/// source order.
std::vector<const clang::FunctionDecl *> findKernels(clang::ASTUnit &Unit);

/// The kernel named \p Name (qualified or not), or null.
const clang::FunctionDecl *findKernel(clang::ASTUnit &Unit, llvm::StringRef Name);
/// Every kernel named \p Name: more than one for overloads.
std::vector<const clang::FunctionDecl *> kernelsNamed(clang::ASTUnit &Unit, llvm::StringRef Name);

/// The definition in \p Unit of the kernel \p Declared (from another parse,
/// such as the host side of a file) declares: same qualified name, template
/// arguments and parameter types; null when \p Unit defines none.
const clang::FunctionDecl *findSameKernel(clang::ASTUnit &Unit,
                                          const clang::FunctionDecl &Declared);

/// findSameKernel and kernelsNamed for many launches of one file, from one
/// walk of it (each of those walks the file again).
class KernelIndex {
public:
  explicit KernelIndex(clang::ASTUnit &Unit);
  const clang::FunctionDecl *same(const clang::FunctionDecl &Declared) const;
  size_t countNamed(llvm::StringRef Name) const;

private:
  std::map<std::string, const clang::FunctionDecl *> BySignature; ///< The first of each.
  std::vector<const clang::FunctionDecl *> Defined;               ///< As findKernels gives them.
};

/// What a kernel name from a config finds in a file.
struct KernelLookup {
  /// The kernel; for a template, the instantiation the name spells
  /// ("reduce<float, 256>").
  const clang::FunctionDecl *Kernel = nullptr;
  /// The template kernel the name refers to, found or not.
  const clang::FunctionDecl *Template = nullptr;
  /// How the file's instantiations of that template are spelled.
  std::vector<std::string> Instantiations;
};

KernelLookup lookUpKernel(clang::ASTUnit &Unit, llvm::StringRef Name);

/// \p Text without blanks and unsigned suffixes: "f<1U, 2>" and "f<1,2>"
/// (as profilers print instantiations) compare equal.
std::string kernelNameKey(llvm::StringRef Text);

/// The qualified name of \p F with its template arguments, as lookUpKernel
/// takes it: "blas::axpy<float>".
std::string instantiationName(const clang::FunctionDecl &F);

/// \p F as a config names one overload among several: "scale(float *, int)".
std::string overloadName(const clang::FunctionDecl &F);

/// A config's kernel name split at its parameter list: "scale(float *, int)"
/// is {"scale", "float *, int"}; a name without one has no list.
std::pair<std::string, std::optional<std::string>> splitOverloadName(llvm::StringRef Text);

/// The overload of \p Name whose parameter types \p Params spells (blanks
/// aside), or null.
const clang::FunctionDecl *findOverload(clang::ASTUnit &Unit, llvm::StringRef Name,
                                        llvm::StringRef Params);

/// A __global__ function named \p Name that the unit declares but never
/// defines (its body is in another file); null for none.
const clang::FunctionDecl *findDeclaredOnlyKernel(clang::ASTUnit &Unit, llvm::StringRef Name);

/// The built-in variable \p D stands for, if it is one. Clang declares them
/// as objects of the __cuda_builtin_*_t types.
std::optional<BuiltinVar> builtinVar(const clang::ValueDecl *D);

/// The instruction of inline PTX that ends the thread (exit; ret, which in
/// a kernel's body ends it too), as written; empty for none. Each
/// instruction ends at ';' and may carry labels and a guard predicate.
std::string threadEndingInstruction(const clang::GCCAsmStmt &Asm);

/// The warp collective \p Call is (a shuffle, vote, match, reduction,
/// __syncwarp or __activemask, with the lanes its mask names), if it is one.
std::optional<WarpCollective> warpCollective(const clang::CallExpr &Call,
                                             const clang::ASTContext &Ctx);
/// Inline PTX that shuffles, votes, matches or reduces across the warp.
std::optional<WarpCollective> warpCollective(const clang::GCCAsmStmt &Asm);
/// A cooperative-groups call on a tile, or one cutting a tile, as \p Group
/// classifies \p Call.
std::optional<WarpCollective> warpCollective(const clang::CallExpr &Call, const GroupCall &Group);

/// A function-scope static variable of the program that is not shared
/// memory and not constant: one per program, whatever copies its function.
bool isMutableStaticLocal(const clang::VarDecl &V);

/// Whether a call of \p F may write memory or otherwise change state (print,
/// wait, trap): its body does, or it is a toolkit function that does.
bool callMayChangeState(const clang::FunctionDecl &F);

/// Whether \p F is the getter behind threadIdx.x and the other built-in
/// variables' components.
bool isBuiltinVariableGetter(const clang::FunctionDecl &F);

/// The built-in variable and component (0 for x, 1 for y, 2 for z) that
/// \p E reads, as in `threadIdx.x`; nothing for any other expression.
std::optional<std::pair<BuiltinVar, unsigned>> builtinComponent(const clang::Expr *E);

/// Builds the model of a kernel, or of a device function to inline, which
/// must have a body. \p Rejected holds the bodies of \p Unit that Clang
/// rejects.
KernelModel analyzeKernel(clang::ASTUnit &Unit, const clang::FunctionDecl &Kernel,
                          const RejectedCode &Rejected);

class FunctionModels;

/// Whether \p Model's body, or a function inlined into it, has a tree
/// reduction the first warp can run alone.
bool reachesTreeReduction(const KernelModel &Model, FunctionModels &Helpers);

/// Models of the device functions that get inlined into a file's kernels,
/// each built once and read by the legality checks and the inliner.
class FunctionModels {
public:
  FunctionModels(clang::ASTUnit &Unit, const RejectedCode &Rejected)
      : Unit(Unit), Rejected(Rejected) {}
  /// The model of \p F's definition, which must have a body.
  const KernelModel &of(const clang::FunctionDecl &F);
  /// The translation unit the functions belong to.
  clang::ASTUnit &unit() const { return Unit; }

private:
  clang::ASTUnit &Unit;
  const RejectedCode &Rejected;
  std::map<const clang::FunctionDecl *, std::unique_ptr<KernelModel>> Models;
};

} // namespace kfuse

#endif

//===- KernelAnalyzer.h - building the kernel model ------------*- C++ -*-===//
#ifndef KFUSE_ANALYSIS_KERNELANALYZER_H
#define KFUSE_ANALYSIS_KERNELANALYZER_H

#include "kfuse/Analysis/KernelModel.h"

#include "clang/Frontend/ASTUnit.h"

namespace kfuse {

/// The __global__ functions defined in \p Unit outside system headers, in
/// source order.
std::vector<const clang::FunctionDecl *> findKernels(clang::ASTUnit &Unit);

/// The kernel named \p Name (qualified or not), or null.
const clang::FunctionDecl *findKernel(clang::ASTUnit &Unit, llvm::StringRef Name);

/// Builds the model of \p Kernel, which must have a body.
KernelModel analyzeKernel(clang::ASTUnit &Unit, const clang::FunctionDecl &Kernel);

} // namespace kfuse

#endif

//===- DeviceVariables.h - globals the fused kernels must share -*- C++ -*-===//
//
// A kernel's __device__, __constant__ and __managed__ variables are written
// by the program: host code fills constant tables with cudaMemcpyToSymbol,
// kernels count into device globals. A fused kernel must read the very
// variable the program writes, not a copy in its own translation unit. Per
// variable of a file, analysis decides how the fused file reaches it:
//   - a copy, when nothing in the file writes it or takes its address (host
//     code that names it counts as a writer) and no other translation unit
//     can (it has internal linkage, or the file is not compiled with
//     relocatable device code): the copy holds the same value forever;
//   - an extern declaration, when the file builds with -rdc and the
//     variable has external linkage: the device linker joins the two;
//   - only from the same translation unit otherwise: the fused file must be
//     compiled in the file's place (`replace:` in the config).
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_DEVICEVARIABLES_H
#define KFUSE_ANALYSIS_DEVICEVARIABLES_H

#include "clang/AST/Decl.h"
#include "clang/Frontend/ASTUnit.h"

#include <map>
#include <string>

namespace kfuse {

/// How a fused file in another translation unit reaches a variable.
enum class VariableReach {
  Copy,     ///< Its own static copy: nothing ever writes the variable.
  Extern,   ///< An extern declaration, joined by the device linker.
  SameUnit, ///< Only from the variable's own translation unit.
};

struct DeviceVariable {
  VariableReach Reach = VariableReach::SameUnit;
  /// For SameUnit: the first place that writes it or takes its address,
  /// and what that is ("host code", "device code").
  clang::SourceLocation Writer;
  std::string WrittenBy;
  bool Relocatable = false; ///< The file builds with relocatable device code.
};

/// The mutable __device__, __constant__ and __managed__ variables declared
/// outside functions in \p Unit (system headers aside), each with how a
/// fused file reaches it.
std::map<const clang::VarDecl *, DeviceVariable> analyzeDeviceVariables(clang::ASTUnit &Unit);

/// Whether \p V is one of those variables: on the device, mutable, outside
/// any function.
bool isMutableDeviceVariable(const clang::VarDecl &V);

} // namespace kfuse

#endif

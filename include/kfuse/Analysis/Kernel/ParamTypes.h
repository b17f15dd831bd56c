//===- ParamTypes.h - where a kernel parameter's types are declared -*- C++ -*-===//
//
// A header that declares the fused kernels' launchers (`kfuse fuse --header`)
// must name every parameter's type: it includes the headers that declare
// them, and cannot name a type only the kernel's .cu file declares.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_PARAMTYPES_H
#define KFUSE_ANALYSIS_PARAMTYPES_H

#include "clang/AST/Decl.h"
#include "clang/Frontend/ASTUnit.h"

#include <string>
#include <vector>

namespace kfuse {

struct ParamTypeHomes {
  /// Headers that declare the classes and enums the type names (through
  /// pointers, references, arrays and template arguments): "<cuda_fp16.h>",
  /// or the absolute path of a project header.
  std::vector<std::string> Headers;
  /// A type that no header declares (the kernel's .cu file does, or it has
  /// no linkage), and the file that declares it; empty when there is none.
  std::string LocalType, LocalTypeFile;
};

ParamTypeHomes paramTypeHomes(const clang::ParmVarDecl &P, clang::ASTUnit &Unit);

} // namespace kfuse

#endif

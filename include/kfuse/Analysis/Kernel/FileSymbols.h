//===- FileSymbols.h - what an input file declares at file scope -*- C++ -*-===//
//
// The fused file holds the declarations of every input file side by side, so
// two files that both define a helper, a type or a macro of one name would
// clash there. Analysis finds where each file spells its own symbols and
// what its macros say, so that the later file's symbols can be renamed and
// its macros redefined where its kernels need them.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_FILESYMBOLS_H
#define KFUSE_ANALYSIS_FILESYMBOLS_H

#include "clang/Frontend/ASTUnit.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kfuse {

/// One place where the main file spells the name of \p Symbol, a function,
/// variable, type or template the main file declares at namespace scope.
struct SymbolSpelling {
  clang::SourceLocation Loc;
  const clang::NamedDecl *Symbol; ///< As symbolOf() gives it.
};

/// The declaration that stands for everything named like \p D: the
/// canonical declaration, and for a template or its specializations the
/// templated declaration of the primary template.
const clang::NamedDecl *symbolOf(const clang::NamedDecl *D);

/// Every spelling of the main file's own namespace-scope symbols, written
/// code only (not template instantiations).
std::vector<SymbolSpelling> mainFileSymbolSpellings(clang::ASTUnit &Unit);

/// Whether \p Symbol is a type, so that a section can alias its old name.
bool isTypeSymbol(const clang::NamedDecl *Symbol);

/// A macro defined outside system headers, as the end of the file leaves it.
struct UserMacro {
  std::string Definition; ///< "NAME(a, b) body", as written.
  std::string Normalized; ///< The definition with white space normalized, to compare.
  std::string File;       ///< Real path of the file that defines it.
  bool Guard = false;     ///< The include guard of that file.
  /// Where it is defined, in the unit userMacros() read it from.
  clang::SourceLocation Loc;
  /// Defined only in a branch this parse skipped (#if __CUDA_ARCH__ < 320):
  /// another compilation pass may define it; Definition is empty.
  bool OtherPass = false;
};

/// The macros defined outside system headers at the end of the file, or
/// where \p At stands, by name.
std::map<std::string, UserMacro> userMacros(clang::ASTUnit &Unit,
                                            std::optional<clang::SourceLocation> At = {});

/// The macros a branch this parse skipped defines in the project's files
/// (nvcc's host pass, or another architecture, may take it), by name.
std::map<std::string, UserMacro> otherPassMacros(clang::ASTUnit &Unit);

/// Real paths of the project (not system) files \p Unit reads, its main
/// file included.
std::set<std::string> projectFiles(clang::ASTUnit &Unit);

/// Symbols of one input file that kfuse renames because an earlier input
/// file defines symbols of the same names.
struct FileRenames {
  std::map<const clang::NamedDecl *, std::string> NewNames; ///< By symbolOf().
  std::vector<SymbolSpelling> Spellings;                    ///< Of those symbols only.
  /// Macros of earlier inputs that are still defined where this file's
  /// declarations start but that this file does not read: undefined there.
  std::vector<std::string> UndefineBefore;
  /// This file's macros, which its kernels' sections must see.
  std::map<std::string, UserMacro> Macros;
  /// The macros defined after every file's declarations, where the fused
  /// kernels stand; one map shared by the files of an output.
  std::shared_ptr<const std::map<std::string, UserMacro>> AtKernels =
      std::make_shared<const std::map<std::string, UserMacro>>();
};

} // namespace kfuse

#endif

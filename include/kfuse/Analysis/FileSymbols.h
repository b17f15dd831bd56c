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

/// The macros defined at the end of the file outside system headers: name
/// and definition ("NAME(a, b) body") as written.
std::map<std::string, std::string> userMacros(clang::ASTUnit &Unit);

/// Symbols of one input file that kfuse renames because an earlier input
/// file defines symbols of the same names.
struct FileRenames {
  std::map<const clang::NamedDecl *, std::string> NewNames; ///< By symbolOf().
  std::vector<SymbolSpelling> Spellings;                    ///< Of those symbols only.
  /// Macros whose definitions differ from another file's: name and this
  /// file's definition, redefined around this file's kernels.
  std::map<std::string, std::string> ClashingMacros;

  bool empty() const { return NewNames.empty() && ClashingMacros.empty(); }
};

} // namespace kfuse

#endif

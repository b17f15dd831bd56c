//===- EditSet.h - source edits gathered from several rewrites --*- C++ -*-===//
//
// Rewrites say what to replace by AST location; the edit set maps that to the
// characters of the file (through macro arguments when it can) and refuses,
// with a diagnostic, a location that only exists inside a macro's body.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_EDITSET_H
#define KFUSE_TRANSFORMS_EDITSET_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Frontend/ASTUnit.h"

#include <map>
#include <string>
#include <tuple>

namespace kfuse {

class Reporter;

class EditSet {
public:
  EditSet(clang::ASTUnit &Unit, Reporter &Diags) : Unit(Unit), Diags(Diags) {}

  /// Replaces the token at \p Loc; \p What names it in a diagnostic.
  bool replaceToken(clang::SourceLocation Loc, llvm::StringRef Text, llvm::StringRef What);
  /// Replaces the tokens of \p Range. Edits inside it made before or after
  /// are dropped when the text is put together.
  bool replaceRange(clang::SourceRange Range, llvm::StringRef Text, llvm::StringRef What);
  /// Replaces the characters of \p Range, which lie in one file.
  bool replaceChars(clang::CharSourceRange Range, llvm::StringRef Text, llvm::StringRef What);
  /// Replaces statement \p S together with the semicolon that ends it.
  bool replaceStatement(const clang::Stmt &S, llvm::StringRef Text, llvm::StringRef What);
  /// Whether the tokens of \p Range are characters of a file that an edit can replace.
  bool canEdit(clang::SourceRange Range) const;

  /// The text of \p Range with the edits inside it applied.
  std::string rewrittenText(clang::SourceRange Range) const;

private:
  struct Edit {
    clang::CharSourceRange Range;
    std::string Text;
  };
  using Key = std::tuple<unsigned, unsigned, unsigned>; // File, begin and end offsets.

  clang::CharSourceRange fileRange(clang::SourceRange Range) const;
  bool add(clang::CharSourceRange File, clang::SourceLocation At, llvm::StringRef Text,
           llvm::StringRef What);
  Key keyOf(clang::CharSourceRange File) const;

  clang::ASTUnit &Unit;
  Reporter &Diags;
  std::map<Key, Edit> Edits;
};

} // namespace kfuse

#endif

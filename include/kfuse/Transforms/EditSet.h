//===- EditSet.h - source edits gathered from several rewrites --*- C++ -*-===//
//
// Rewrites say what to replace by AST location; the edit set maps that to the
// characters of the file (through macro arguments when it can) by the rules
// of Analysis/MacroBodies.h, whose check refuses in advance what they cannot
// reach; a location only a macro's body holds is reported here too.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_EDITSET_H
#define KFUSE_TRANSFORMS_EDITSET_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/MacroInfo.h"

#include <map>
#include <string>
#include <tuple>

namespace kfuse {

class Reporter;

/// Edits of tokens spelled inside the bodies of the file's own macros (a
/// renamed parameter in `#define u(i, j) u[(i) * n + (j)]`): the section
/// that expands them gets its own definition of each such macro, with the
/// edits made.
class MacroBodyEdits {
public:
  /// Replaces the token at \p Loc, spelled in the body of one of the
  /// file's own macros (ownMacroBody); false when it is not spelled in such
  /// a body or an earlier edit made it something else.
  bool replace(clang::ASTUnit &Unit, clang::SourceLocation Loc, llvm::StringRef Text);
  /// Each edited macro, "NAME(args) body" with its edits, by name.
  std::map<std::string, std::string> definitions() const;

private:
  struct Macro {
    const clang::MacroInfo *Info = nullptr;                     ///< The definition edited.
    std::string Definition;                                     ///< As written, from its name on.
    std::map<unsigned, std::pair<unsigned, std::string>> Edits; ///< Offset: length, text.
  };
  std::map<std::string, Macro> Macros;
};

class EditSet {
public:
  /// \p Bodies, when given, takes the edits of tokens spelled in macro
  /// bodies that no edit of the file's text can reach.
  EditSet(clang::ASTUnit &Unit, Reporter &Diags, MacroBodyEdits *Bodies = nullptr)
      : Unit(Unit), Diags(Diags), Bodies(Bodies) {}

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

  /// The text of \p Range with the edits inside it applied. A range no
  /// edit can reach (part of a macro's body) is reported, and failed()
  /// says so afterwards.
  std::string rewrittenText(clang::SourceRange Range) const;
  /// Whether a range rewrittenText was asked for lay where no edit reaches.
  bool failed() const { return Unreadable; }

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
  MacroBodyEdits *Bodies;
  std::map<Key, Edit> Edits;
  mutable bool Unreadable = false;
};

} // namespace kfuse

#endif

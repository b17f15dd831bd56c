//===- MacroBodies.h - where an edit of the source can reach -----*- C++ -*-===//
//
// The rewrite replaces tokens and ranges of the kernels' files. What it can
// reach is a fact of the source, decided here once: the legality check
// (checkMacroBodies) refuses in advance what the rewrite could not edit,
// and the rewrite's edit set maps edits by the same rules.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_MACROBODIES_H
#define KFUSE_ANALYSIS_MACROBODIES_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace clang {
class LangOptions;
class MacroInfo;
class Preprocessor;
class SourceManager;
} // namespace clang

namespace kfuse {

class Reporter;

/// The characters of one file that an edit of the tokens of \p Range
/// replaces: where they are written there, or one whole macro expansion;
/// invalid otherwise.
clang::CharSourceRange editableChars(const clang::SourceManager &SM,
                                     const clang::LangOptions &LangOpts, clang::SourceRange Range);

/// Whether an edit can replace the tokens of \p Range (editableChars).
bool editableRange(const clang::SourceManager &SM, const clang::LangOptions &LangOpts,
                   clang::SourceRange Range);

/// The macro of the kernel's own files in whose body the token at \p Loc is
/// spelled, which a section can define again with the token edited; null
/// when the token is not spelled in such a body (a system header's macro, a
/// token pasted or passed from elsewhere).
const clang::MacroInfo *ownMacroBody(clang::Preprocessor &PP, clang::SourceLocation Loc);

/// The text of \p Range as written, for a diagnostic: inside the macro
/// body that spells it when it lies there.
std::string spelledText(const clang::SourceManager &SM, const clang::LangOptions &LangOpts,
                        clang::SourceRange Range);

/// Whether an edit can replace the token at \p Loc: in the file, or in the
/// body of one of the file's own macros (ownMacroBody).
bool editableToken(clang::Preprocessor &PP, clang::SourceLocation Loc);

/// Refuses an edit of \p What, spelled at \p At where no edit reaches
/// (kfuse-macro-body): reported at the expansion, naming the macro whose
/// body or argument spells it. The check and the rewrite's backstop word
/// it the same.
void reportMacroBodyUse(Reporter &Diags, clang::SourceManager &SM,
                        const clang::LangOptions &LangOpts, clang::SourceLocation At,
                        llvm::StringRef What);

} // namespace kfuse

#endif

//===- EditSet.cpp - source edits gathered from several rewrites ----------===//

#include "kfuse/Transforms/EditSet.h"

#include "kfuse/Diagnostics/Reporter.h"

#include "clang/Lex/Lexer.h"
#include "clang/Rewrite/Core/Rewriter.h"

namespace kfuse {

bool EditSet::replaceToken(clang::SourceLocation Loc, llvm::StringRef Text,
                           llvm::StringRef What) {
  return add(clang::SourceRange(Loc, Loc), Loc, Text, What);
}

bool EditSet::replaceRange(clang::SourceRange Range, llvm::StringRef Text,
                           llvm::StringRef What) {
  return add(Range, Range.getBegin(), Text, What);
}

bool EditSet::add(clang::SourceRange Range, clang::SourceLocation At, llvm::StringRef Text,
                  llvm::StringRef What) {
  clang::SourceManager &SM = Unit.getSourceManager();
  clang::CharSourceRange File = clang::Lexer::makeFileCharRange(
      clang::CharSourceRange::getTokenRange(Range), SM, Unit.getLangOpts());
  if (File.isInvalid()) {
    llvm::StringRef Macro = clang::Lexer::getImmediateMacroName(At, SM, Unit.getLangOpts());
    Diags.report(SM.getExpansionLoc(At), SM, diag::ID::MacroBodyUse) << What << Macro;
    return false;
  }
  std::pair<clang::FileID, unsigned> Where = SM.getDecomposedLoc(File.getBegin());
  auto Key = std::make_pair(Where.first.getHashValue(), Where.second);
  auto [It, New] = Edits.emplace(Key, Edit{File, Text.str()});
  if (!New && It->second.Text != Text) {
    // One spelling that must become two things: a macro argument used in two roles.
    llvm::StringRef Macro = clang::Lexer::getImmediateMacroName(At, SM, Unit.getLangOpts());
    Diags.report(SM.getExpansionLoc(At), SM, diag::ID::MacroBodyUse) << What << Macro;
    return false;
  }
  return true;
}

std::string EditSet::rewrittenText(clang::SourceRange Range) const {
  clang::Rewriter Rewriter(Unit.getSourceManager(), Unit.getLangOpts());
  for (const auto &[Key, E] : Edits)
    Rewriter.ReplaceText(E.Range, E.Text);
  clang::CharSourceRange File = clang::Lexer::makeFileCharRange(
      clang::CharSourceRange::getTokenRange(Range), Unit.getSourceManager(), Unit.getLangOpts());
  return Rewriter.getRewrittenText(File);
}

} // namespace kfuse

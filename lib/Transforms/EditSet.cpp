//===- EditSet.cpp - source edits gathered from several rewrites ----------===//

#include "kfuse/Transforms/EditSet.h"

#include "kfuse/Analysis/Kernel/MacroBodies.h"
#include "kfuse/Diagnostics/Reporter.h"

#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"

#include <algorithm>
#include <vector>

namespace kfuse {

clang::CharSourceRange EditSet::fileRange(clang::SourceRange Range) const {
  return editableChars(Unit.getSourceManager(), Unit.getLangOpts(), Range);
}

EditSet::Key EditSet::keyOf(clang::CharSourceRange File) const {
  const clang::SourceManager &SM = Unit.getSourceManager();
  std::pair<clang::FileID, unsigned> Begin = SM.getDecomposedLoc(File.getBegin());
  return {Begin.first.getHashValue(), Begin.second, SM.getFileOffset(File.getEnd())};
}

bool EditSet::canEdit(clang::SourceRange Range) const {
  return editableRange(Unit.getSourceManager(), Unit.getLangOpts(), Range);
}

bool EditSet::replaceToken(clang::SourceLocation Loc, llvm::StringRef Text, llvm::StringRef What) {
  clang::CharSourceRange File = fileRange(clang::SourceRange(Loc, Loc));
  if (File.isInvalid() && Bodies && Bodies->replace(Unit, Loc, Text)) {
    // A macro #defined inside the body being rewritten is printed with
    // it, after the section's own definition: its #define gets the edit too.
    const clang::SourceManager &SM = Unit.getSourceManager();
    clang::SourceLocation Spelling = SM.getSpellingLoc(Loc);
    unsigned Length = clang::Lexer::MeasureTokenLength(Spelling, SM, Unit.getLangOpts());
    clang::CharSourceRange Token =
        clang::CharSourceRange::getCharRange(Spelling, Spelling.getLocWithOffset(Length));
    Edits.emplace(keyOf(Token), Edit{Token, Text.str()});
    return true;
  }
  return add(File, Loc, Text, What);
}

bool MacroBodyEdits::replace(clang::ASTUnit &Unit, clang::SourceLocation Loc,
                             llvm::StringRef Text) {
  const clang::SourceManager &SM = Unit.getSourceManager();
  const clang::MacroInfo *MI = ownMacroBody(Unit.getPreprocessor(), Loc);
  if (!MI)
    return false;
  llvm::StringRef Name = clang::Lexer::getImmediateMacroName(Loc, SM, Unit.getLangOpts());
  clang::SourceLocation Begin = MI->getDefinitionLoc(), End = MI->getDefinitionEndLoc();
  clang::SourceLocation Spelling = SM.getSpellingLoc(Loc);
  Macro &M = Macros[Name.str()];
  // A name #defined again between two uses: one section definition cannot
  // stand for both (checkMacroBodies refuses it in advance).
  if (M.Info && M.Info != MI)
    return false;
  M.Info = MI;
  if (M.Definition.empty())
    M.Definition = clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(Begin, End),
                                               SM, Unit.getLangOpts())
                       .str();
  unsigned Offset = SM.getFileOffset(Spelling) - SM.getFileOffset(Begin);
  unsigned Length = clang::Lexer::MeasureTokenLength(Spelling, SM, Unit.getLangOpts());
  auto [It, New] = M.Edits.emplace(Offset, std::make_pair(Length, Text.str()));
  // One spelling that must become two things: refused (checkMacroBodies
  // refuses it in advance).
  return New || It->second.second == Text;
}

std::map<std::string, std::string> MacroBodyEdits::definitions() const {
  std::map<std::string, std::string> Result;
  for (const auto &[Name, M] : Macros) {
    std::string Text = M.Definition;
    // From the end, so each offset still points where it did.
    for (auto It = M.Edits.rbegin(); It != M.Edits.rend(); ++It)
      if (It->first + It->second.first <= Text.size())
        Text.replace(It->first, It->second.first, It->second.second);
    Result[Name] = Text;
  }
  return Result;
}

bool EditSet::replaceRange(clang::SourceRange Range, llvm::StringRef Text, llvm::StringRef What) {
  return add(fileRange(Range), Range.getBegin(), Text, What);
}

bool EditSet::replaceChars(clang::CharSourceRange Range, llvm::StringRef Text,
                           llvm::StringRef What) {
  return add(Range, Range.getBegin(), Text, What);
}

bool EditSet::replaceStatement(const clang::Stmt &S, llvm::StringRef Text, llvm::StringRef What) {
  clang::CharSourceRange File = fileRange(S.getSourceRange());
  if (File.isValid()) {
    const clang::SourceManager &SM = Unit.getSourceManager();
    llvm::StringRef Rest = SM.getCharacterData(File.getEnd());
    size_t Semi = Rest.find_first_not_of(" \t\r\n");
    if (Semi != llvm::StringRef::npos && Rest[Semi] == ';')
      File.setEnd(File.getEnd().getLocWithOffset(Semi + 1));
  }
  return add(File, S.getBeginLoc(), Text, What);
}

bool EditSet::add(clang::CharSourceRange File, clang::SourceLocation At, llvm::StringRef Text,
                  llvm::StringRef What) {
  clang::SourceManager &SM = Unit.getSourceManager();
  if (File.isInvalid()) {
    reportMacroBodyUse(Diags, SM, Unit.getLangOpts(), At, What);
    return false;
  }
  auto [It, New] = Edits.emplace(keyOf(File), Edit{File, Text.str()});
  if (!New && It->second.Text != Text) {
    // One spelling that must become two things: a macro argument used in two roles.
    reportMacroBodyUse(Diags, SM, Unit.getLangOpts(), At, What);
    return false;
  }
  return true;
}

std::string EditSet::rewrittenText(clang::SourceRange Range) const {
  clang::CharSourceRange File = fileRange(Range);
  if (File.isInvalid()) {
    clang::SourceManager &SM = Unit.getSourceManager();
    reportMacroBodyUse(Diags, SM, Unit.getLangOpts(), Range.getBegin(),
                       spelledText(SM, Unit.getLangOpts(), Range));
    Unreadable = true;
    return "";
  }
  Key Outer = keyOf(File);
  if (auto Whole = Edits.find(Outer); Whole != Edits.end())
    return Whole->second.Text;
  clang::Rewriter Rewriter(Unit.getSourceManager(), Unit.getLangOpts());
  unsigned CoveredUntil = 0;
  // Edits sorted by start; of two that start together the longer comes first
  // and hides what lies inside it.
  std::vector<std::pair<Key, const Edit *>> Inside;
  for (const auto &[K, E] : Edits)
    if (std::get<0>(K) == std::get<0>(Outer) && std::get<1>(K) >= std::get<1>(Outer) &&
        std::get<2>(K) <= std::get<2>(Outer))
      Inside.push_back({K, &E});
  std::stable_sort(Inside.begin(), Inside.end(), [](const auto &A, const auto &B) {
    if (std::get<1>(A.first) != std::get<1>(B.first))
      return std::get<1>(A.first) < std::get<1>(B.first);
    return std::get<2>(A.first) > std::get<2>(B.first);
  });
  for (const auto &[K, E] : Inside) {
    if (std::get<1>(K) < CoveredUntil)
      continue;
    Rewriter.ReplaceText(E->Range, E->Text);
    CoveredUntil = std::max(CoveredUntil, std::get<2>(K));
  }
  return Rewriter.getRewrittenText(File);
}

} // namespace kfuse

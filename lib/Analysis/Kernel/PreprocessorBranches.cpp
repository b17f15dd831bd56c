//===- PreprocessorBranches.cpp - #if chains inside a body ----------------===//

#include "kfuse/Analysis/Kernel/PreprocessorBranches.h"

#include "clang/Lex/PreprocessingRecord.h"
#include "clang/Lex/Preprocessor.h"

#include <algorithm>

namespace kfuse {
namespace {

/// Offset just past the newline ending the line that starts at \p At,
/// backslash continuations included.
size_t pastLine(llvm::StringRef Text, size_t At) {
  while (At < Text.size()) {
    size_t End = Text.find('\n', At);
    if (End == llvm::StringRef::npos)
      return Text.size();
    if (End == 0 || Text[End - 1] != '\\')
      return End + 1;
    At = End + 1;
  }
  return Text.size();
}

std::optional<ConditionalDirective> directiveAt(llvm::StringRef Text, size_t LineBegin) {
  size_t Next = pastLine(Text, LineBegin);
  llvm::StringRef Line = Text.slice(LineBegin, Next);
  llvm::StringRef Rest = Line.ltrim(" \t");
  if (!Rest.consume_front("#"))
    return std::nullopt;
  Rest = Rest.ltrim(" \t");
  llvm::StringRef Keyword = Rest.take_while([](char C) { return llvm::isAlpha(C); });
  ConditionalDirective D;
  if (Keyword == "if")
    D.Kind = DirectiveKind::If;
  else if (Keyword == "ifdef")
    D.Kind = DirectiveKind::Ifdef;
  else if (Keyword == "ifndef")
    D.Kind = DirectiveKind::Ifndef;
  else if (Keyword == "elif")
    D.Kind = DirectiveKind::Elif;
  else if (Keyword == "else")
    D.Kind = DirectiveKind::Else;
  else if (Keyword == "endif")
    D.Kind = DirectiveKind::Endif;
  else
    return std::nullopt;
  D.Begin = static_cast<unsigned>(LineBegin);
  D.End = static_cast<unsigned>(Line.ends_with("\n") ? Next - 1 : Next);
  llvm::StringRef Condition = Rest.drop_front(Keyword.size()).rtrim();
  // A comment to the end of the line would swallow what kfuse appends.
  size_t LastLine = Condition.rfind('\n');
  size_t Comment = Condition.find("//", LastLine == llvm::StringRef::npos ? 0 : LastLine);
  D.Condition = Condition.substr(0, Comment).trim().str();
  return D;
}

} // namespace

BodyConditionals findConditionals(clang::ASTUnit &Unit, clang::SourceRange Body) {
  const clang::SourceManager &SM = Unit.getSourceManager();
  clang::SourceLocation Begin = SM.getExpansionLoc(Body.getBegin());
  clang::SourceLocation End = SM.getExpansionRange(Body.getEnd()).getEnd();
  BodyConditionals Result;
  Result.File = SM.getFileID(Begin);
  llvm::StringRef Text = SM.getBufferData(Result.File);
  clang::SourceLocation Start = SM.getLocForStartOfFile(Result.File);
  // Skipped ranges run from the '#' of the directive that opens the skipped
  // lines to the directive that ends them, perhaps over several branches.
  std::vector<std::pair<unsigned, unsigned>> Skipped;
  if (clang::PreprocessingRecord *Record = Unit.getPreprocessor().getPreprocessingRecord())
    for (clang::SourceRange R : Record->getSkippedRanges())
      if (SM.getFileID(R.getBegin()) == Result.File)
        Skipped.push_back({SM.getFileOffset(R.getBegin()), SM.getFileOffset(R.getEnd())});
  auto skipped = [&](unsigned From, unsigned To) {
    return std::any_of(Skipped.begin(), Skipped.end(),
                       [&](auto R) { return R.first < From && To <= R.second; });
  };

  std::vector<ConditionalChain> Open;
  size_t Last = SM.getFileOffset(End);
  for (size_t Line = SM.getFileOffset(Begin); Line < Last; Line = pastLine(Text, Line)) {
    // The body's first line starts before its brace; directives start lines.
    if (Line != 0 && Text[Line - 1] != '\n')
      continue;
    std::optional<ConditionalDirective> D = directiveAt(Text, Line);
    if (!D)
      continue;
    unsigned After = static_cast<unsigned>(pastLine(Text, Line));
    bool Opens = D->Kind == DirectiveKind::If || D->Kind == DirectiveKind::Ifdef ||
                 D->Kind == DirectiveKind::Ifndef;
    if (!Opens && Open.empty()) {
      Result.Unbalanced = Start.getLocWithOffset(D->Begin);
      continue;
    }
    if (Opens) {
      Open.push_back({{*D, After, After, false}});
      continue;
    }
    Open.back().back().ContentEnd = D->Begin;
    if (D->Kind != DirectiveKind::Endif) {
      Open.back().push_back({*D, After, After, false});
      continue;
    }
    ConditionalChain Chain = std::move(Open.back());
    Open.pop_back();
    bool Inside = skipped(Chain.front().Opening.Begin, Chain.back().ContentEnd);
    bool AnySkipped = false;
    for (ConditionalBranch &B : Chain) {
      B.Compiled = !skipped(B.ContentBegin, std::max(B.ContentBegin, B.ContentEnd));
      AnySkipped |= !B.Compiled;
    }
    if (!Inside && AnySkipped)
      Result.Chains.insert(Result.Chains.begin(), std::move(Chain));
  }
  if (!Open.empty() && !Result.Unbalanced)
    Result.Unbalanced = Start.getLocWithOffset(Open.front().front().Opening.Begin);
  // Outermost first: an outer chain's edits do not touch its inner chains'.
  std::sort(Result.Chains.begin(), Result.Chains.end(), [](const auto &A, const auto &B) {
    return A.front().Opening.Begin < B.front().Opening.Begin;
  });
  return Result;
}

} // namespace kfuse

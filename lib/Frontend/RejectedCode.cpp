//===- RejectedCode.cpp - function bodies Clang rejects -------------------===//

#include "kfuse/Frontend/RejectedCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <algorithm>

namespace kfuse {

namespace {

const clang::FunctionDecl *key(const clang::FunctionDecl &F) { return F.getCanonicalDecl(); }

/// Every function definition written in the file (template patterns, not
/// their instantiations, which share the pattern's text).
class BodyCollector : public clang::RecursiveASTVisitor<BodyCollector> {
public:
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitLambdaBody() const { return true; }
  bool VisitFunctionDecl(clang::FunctionDecl *F) {
    if (F->doesThisDeclarationHaveABody() && F->getBody())
      Bodies.push_back(F);
    return true;
  }
  std::vector<const clang::FunctionDecl *> Bodies;
};

bool contains(const clang::SourceManager &SM, const clang::FunctionDecl &F,
              clang::SourceLocation Loc) {
  clang::SourceRange Body = F.getBody()->getSourceRange();
  clang::SourceLocation Begin = SM.getExpansionLoc(Body.getBegin());
  clang::SourceLocation End = SM.getExpansionRange(Body.getEnd()).getEnd();
  if (SM.getFileID(Begin) != SM.getFileID(Loc))
    return false;
  return !SM.isBeforeInTranslationUnit(Loc, Begin) && !SM.isBeforeInTranslationUnit(End, Loc);
}

} // namespace

const Rejection *RejectedCode::of(const clang::FunctionDecl &F) const {
  for (const clang::FunctionDecl *D :
       {&F, static_cast<const clang::FunctionDecl *>(F.getTemplateInstantiationPattern())}) {
    if (!D)
      continue;
    auto It = Index.find(key(*D));
    if (It != Index.end())
      return &Functions[It->second].second;
  }
  return nullptr;
}

bool RejectedCode::contains(const clang::SourceManager &SM, clang::SourceLocation Loc) const {
  if (Loc.isInvalid())
    return false;
  clang::SourceLocation At = SM.getExpansionLoc(Loc);
  return std::any_of(Functions.begin(), Functions.end(),
                     [&](const auto &F) { return kfuse::contains(SM, *F.first, At); });
}

std::vector<clang::StoredDiagnostic>
outsideRejected(const std::vector<clang::StoredDiagnostic> &All, const RejectedCode &Rejected,
                const clang::SourceManager &SM) {
  std::vector<clang::StoredDiagnostic> Kept;
  bool Dropped = false; // The last diagnostic other than a note.
  for (const clang::StoredDiagnostic &D : All) {
    if (D.getLevel() != clang::DiagnosticsEngine::Note)
      Dropped =
          D.getLevel() >= clang::DiagnosticsEngine::Error || Rejected.contains(SM, D.getLocation());
    if (!Dropped)
      Kept.push_back(D);
  }
  return Kept;
}

void RejectedCode::add(const clang::FunctionDecl &F, Rejection Why) {
  if (Index.emplace(key(F), Functions.size()).second)
    Functions.push_back({&F, std::move(Why)});
}

std::optional<RejectedCode>
attributeErrors(clang::ASTUnit &Unit, const std::vector<clang::StoredDiagnostic> &Diagnostics) {
  RejectedCode Result;
  BodyCollector Collector;
  bool Collected = false;
  const clang::SourceManager &SM = Unit.getSourceManager();
  for (const clang::StoredDiagnostic &D : Diagnostics) {
    if (D.getLevel() == clang::DiagnosticsEngine::Fatal)
      return std::nullopt; // Clang stopped reading there.
    if (D.getLevel() != clang::DiagnosticsEngine::Error)
      continue;
    if (D.getLocation().isInvalid())
      return std::nullopt;
    if (!Collected) {
      Collector.TraverseDecl(Unit.getASTContext().getTranslationUnitDecl());
      Collected = true;
    }
    clang::SourceLocation At = SM.getExpansionLoc(D.getLocation());
    bool Inside = false;
    // Every function around the error: the lambda and the kernel holding it.
    for (const clang::FunctionDecl *F : Collector.Bodies)
      if (contains(SM, *F, At)) {
        Inside = true;
        Result.add(*F, {At, D.getMessage().str()});
      }
    if (!Inside)
      return std::nullopt;
  }
  return Result;
}

} // namespace kfuse

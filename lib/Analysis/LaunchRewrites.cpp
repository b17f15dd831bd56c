//===- LaunchRewrites.cpp - may these launches become one launcher call? --===//

#include "kfuse/Analysis/LaunchRewrites.h"

#include "kfuse/Analysis/KernelAnalyzer.h"
#include "kfuse/Diagnostics/Reporter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

#include <map>
#include <set>

namespace kfuse {

using namespace clang;
using diag::ID;

namespace {

/// Where a kernel entry says its launch is, or its file when it does not.
std::string siteFile(const KernelSpec &K) { return K.Site ? K.Site->ResolvedFile : K.ResolvedFile; }

/// "a.cu:12", "a.cu:12:5" or "a.cu", as the config spells it.
std::string siteText(const KernelSpec &K) {
  if (!K.Site)
    return K.File;
  std::string Text = K.Site->File + ":" + std::to_string(K.Site->Line);
  if (K.Site->Column)
    Text += ":" + std::to_string(K.Site->Column);
  return Text;
}

std::string joined(const std::vector<unsigned> &Lines) {
  std::string Out;
  for (unsigned L : Lines)
    Out += (Out.empty() ? "" : ", ") + std::to_string(L);
  return Out;
}

/// Variables and members whose value code elsewhere may change while the
/// launching function runs: globals, statics, references and members.
std::vector<std::string> sharedNames(const Expr *E) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<std::string> Found;
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      const auto *V = dyn_cast<VarDecl>(R->getDecl());
      if (V && (!V->hasLocalStorage() || V->getType()->isReferenceType()) &&
          !(V->getType().isConstQualified() && V->hasConstantInitialization()) && !V->isConstexpr())
        Found.push_back(V->getNameAsString());
      return true;
    }
    bool VisitMemberExpr(MemberExpr *M) {
      if (isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts()))
        Found.push_back(M->getMemberDecl()->getNameAsString());
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<Expr *>(E));
  return F.Found;
}

/// The first call in \p S to a function of the program (or through a
/// pointer), which may change what sharedNames() finds.
std::string programCall(const Stmt *S, const SourceManager &SM) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const SourceManager &SM;
    std::string Found;
    explicit Finder(const SourceManager &SM) : SM(SM) {}
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *F = C->getDirectCallee();
      if (!F)
        Found = "a call through a pointer";
      else if (!SM.isInSystemHeader(F->getLocation()) && !F->getBuiltinID())
        Found = "'" + F->getNameAsString() + "'";
      return Found.empty();
    }
  } F(SM);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

class GroupFinder {
public:
  GroupFinder(ASTUnit &Host, const RejectedCode &Rejected, const Config &C, const FusionSpec &F,
              const std::vector<FusionMember> &Members, const std::vector<KernelUses> &Uses,
              Reporter &Diags)
      : Host(Host), SM(Host.getSourceManager()), Ctx(Host.getASTContext()), Rejected(Rejected),
        C(C), F(F), Members(Members), Uses(Uses), Diags(Diags) {}

  std::optional<LaunchGroup> run() {
    for (KernelLaunch &L : findLaunches(Host, Rejected))
      if (SM.isInMainFile(L.Loc))
        Launches.push_back(std::move(L));
    std::vector<size_t> Chosen;
    for (size_t M = 0; M < Members.size(); ++M) {
      std::optional<size_t> I = launchOf(M);
      if (!I)
        return std::nullopt;
      Chosen.push_back(*I);
    }
    std::vector<std::optional<KernelUses>> Of(Launches.size());
    for (size_t M = 0; M < Members.size(); ++M)
      Of[Chosen[M]] = Uses[M];
    LaunchRelations Relations = relateLaunches(Host, Launches, Of);
    unsigned Before = Diags.errorCount();
    // A launch that cannot be rewritten is reported alone, not again with
    // its neighbours.
    std::vector<bool> Rewritable;
    for (size_t M = 0; M < Members.size(); ++M) {
      unsigned Errors = Diags.errorCount();
      checkLaunch(Chosen, M);
      Rewritable.push_back(Diags.errorCount() == Errors);
    }
    for (size_t M = 1; M < Members.size(); ++M)
      if (Rewritable[M - 1] && Rewritable[M])
        checkPair(Relations, Chosen, M);
    if (Members.size() > 2 && Diags.errorCount() == Before)
      checkGroup(Relations, Chosen);
    if (Diags.errorCount() != Before)
      return std::nullopt;
    LaunchGroup G;
    G.Fusion = &F;
    G.Host = &Host;
    for (size_t I : Chosen) {
      G.Launches.push_back(Launches[I]);
      G.Statements.push_back(statementRange(Launches[I]));
    }
    return G;
  }

private:
  ASTUnit &Host;
  SourceManager &SM;
  ASTContext &Ctx;
  const RejectedCode &Rejected;
  const Config &C;
  const FusionSpec &F;
  const std::vector<FusionMember> &Members;
  const std::vector<KernelUses> &Uses;
  Reporter &Diags;
  std::vector<KernelLaunch> Launches;

  const std::string &name(size_t M) const { return Members[M].Model.Name; }

  bool launches(const KernelLaunch &L, size_t M) const {
    if (!L.Kernel)
      return false;
    const FunctionDecl *K = findSameKernel(*Members[M].Unit, *L.Kernel);
    return K && K->getCanonicalDecl() == Members[M].Model.Decl->getCanonicalDecl();
  }

  void reportAtConfig(ID Id, const ConfigPosition &At, std::vector<std::string> Args) {
    Diags.report({{Id, At.Line, At.Column, std::move(Args)}}, C.Path);
  }

  /// The launch member \p M's kernel entry names.
  std::optional<size_t> launchOf(size_t M) {
    const KernelSpec &K = *Members[M].Spec;
    std::vector<size_t> All, AtSite;
    std::vector<unsigned> Lines;
    for (size_t I = 0; I < Launches.size(); ++I) {
      if (!launches(Launches[I], M))
        continue;
      PresumedLoc P = SM.getPresumedLoc(Launches[I].Loc);
      All.push_back(I);
      Lines.push_back(P.getLine());
      if (!K.Site ||
          (P.getLine() == K.Site->Line && (K.Site->Column == 0 || P.getColumn() == K.Site->Column)))
        AtSite.push_back(I);
    }
    ConfigPosition At = K.Site ? K.Site->Position : K.Position;
    if (AtSite.empty()) {
      std::string Why = All.empty() ? "that file launches it nowhere"
                                    : "its launches in that file are on lines " + joined(Lines);
      reportAtConfig(ID::RewriteNoLaunch, At, {name(M), siteText(K), Why});
      return std::nullopt;
    }
    if (AtSite.size() > 1) {
      std::vector<unsigned> Ambiguous;
      for (size_t I : AtSite)
        Ambiguous.push_back(SM.getPresumedLoc(Launches[I].Loc).getLine());
      reportAtConfig(
          ID::RewriteAmbiguous, At,
          {std::to_string(AtSite.size()), name(M), siteText(K), joined(Ambiguous), F.Name});
      return std::nullopt;
    }
    return AtSite.front();
  }

  /// The launch's statement in its block, stripped of what wraps a full
  /// expression.
  static const Stmt *statementOf(const KernelLaunch &L) {
    if (!L.Scope)
      return nullptr;
    const Stmt *S = L.Scope->body_begin()[L.Position];
    if (const auto *E = dyn_cast<ExprWithCleanups>(S))
      S = E->getSubExpr();
    return S;
  }

  CharSourceRange statementRange(const KernelLaunch &L) const {
    SourceLocation Begin = L.Site->getBeginLoc(), End = L.Site->getEndLoc();
    SourceLocation AfterSemi = Lexer::findLocationAfterToken(End, tok::semi, SM, Ctx.getLangOpts(),
                                                             /*SkipTrailingWhitespace=*/false);
    if (AfterSemi.isInvalid())
      return {};
    return CharSourceRange::getCharRange(Begin, AfterSemi);
  }

  void checkLaunch(const std::vector<size_t> &Chosen, size_t M) {
    const KernelLaunch &L = Launches[Chosen[M]];
    SourceLocation Loc = L.Loc;
    if (L.Syntax != LaunchSyntax::Chevrons) {
      Diags.report(Loc, SM, ID::RewriteSyntax) << name(M) << spelling(L.Syntax);
      return;
    }
    for (SourceLocation End : {L.Site->getBeginLoc(), L.Site->getEndLoc()})
      if (End.isMacroID()) {
        Diags.report(Loc, SM, ID::RewriteMacro)
            << name(M) << Lexer::getImmediateMacroName(End, SM, Ctx.getLangOpts());
        return;
      }
    if (L.Caller->isTemplateInstantiation() || L.Caller->isTemplated()) {
      Diags.report(Loc, SM, ID::RewriteTemplate) << name(M) << L.Caller->getQualifiedNameAsString();
      return;
    }
    if (!L.Straight || statementOf(L) != L.Site || statementRange(L).isInvalid()) {
      Diags.report(Loc, SM, ID::RewriteInExpression) << name(M);
      return;
    }
    checkOperands(L, M);
    if (M > 0)
      checkMovedPast(Launches[Chosen.front()], L, M);
  }

  /// The rewritten code passes every operand to one call and evaluates the
  /// launch configurations again where it launches the originals instead.
  void checkOperands(const KernelLaunch &L, size_t M) {
    const auto &K = cast<CUDAKernelCallExpr>(*L.Site);
    std::vector<const Expr *> Operands;
    for (const Expr *E : K.getConfig()->arguments())
      if (!isa<CXXDefaultArgExpr>(E)) // shared memory and stream left out
        Operands.push_back(E);
    for (const Expr *E : K.arguments()) {
      if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E)) {
        Diags.report(L.Loc, SM, ID::RewriteOperand)
            << D->getParam()->getNameAsString() << name(M)
            << "is left to the kernel's default argument, which its launcher does not have";
        continue;
      }
      Operands.push_back(E);
    }
    for (const Expr *E : Operands)
      if (std::string Effect = sideEffect(E); !Effect.empty())
        Diags.report(SM.getExpansionLoc(E->getBeginLoc()), SM, ID::RewriteOperand)
            << text(E) << name(M)
            << "may have side effects (" + Effect +
                   "); the rewritten code evaluates the launches' operands in another order, "
                   "and again where it launches the original kernels";
  }

  /// What in \p E may change state: an assignment, an increment, a call of
  /// a function that is not constexpr (dim3's constructors are), new,
  /// delete or throw. Empty when nothing.
  static std::string sideEffect(const Expr *E) {
    struct Finder : RecursiveASTVisitor<Finder> {
      std::string Found;
      bool VisitBinaryOperator(BinaryOperator *B) {
        if (B->isAssignmentOp())
          Found = "an assignment";
        return Found.empty();
      }
      bool VisitUnaryOperator(UnaryOperator *U) {
        if (U->isIncrementDecrementOp())
          Found = "an increment";
        return Found.empty();
      }
      bool VisitCallExpr(CallExpr *C) {
        const FunctionDecl *F = C->getDirectCallee();
        if (!F || !F->isConstexpr())
          Found = F ? "a call of '" + F->getNameAsString() + "'" : "a call through a pointer";
        return Found.empty();
      }
      bool VisitCXXConstructExpr(CXXConstructExpr *C) {
        if (!C->getConstructor()->isConstexpr() && !C->getConstructor()->isTrivial())
          Found = "a constructor of '" + C->getConstructor()->getParent()->getNameAsString() + "'";
        return Found.empty();
      }
      bool VisitStmt(Stmt *S) {
        if (isa<CXXNewExpr, CXXDeleteExpr, CXXThrowExpr, StmtExpr>(S))
          Found = "an allocation or a throw";
        return Found.empty();
      }
    } F;
    F.TraverseStmt(const_cast<Expr *>(E));
    return F.Found;
  }

  /// A later launch's operands are read where the first launch was: nothing
  /// between may change them. kernelLaunches' relations catch the function's
  /// own variables; a call of the program may change anything else.
  void checkMovedPast(const KernelLaunch &First, const KernelLaunch &L, size_t M) {
    const auto &K = cast<CUDAKernelCallExpr>(*L.Site);
    for (unsigned S = First.Position + 1; S < L.Position; ++S) {
      const Stmt *Between = First.Scope->body_begin()[S];
      std::string Call = programCall(Between, SM);
      if (Call.empty())
        continue;
      std::vector<std::string> Names = sharedNames(&K);
      if (Names.empty())
        return;
      Diags.report(L.Loc, SM, ID::RewriteOperand)
          << Names.front() << name(M)
          << "is read where the first launch was, before " + Call +
                 " between the launches, which may change it";
      return;
    }
  }

  std::string text(const Expr *E) const {
    CharSourceRange R = SM.getExpansionRange(E->getSourceRange());
    return Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str();
  }

  void checkPair(const LaunchRelations &R, const std::vector<size_t> &Chosen, size_t M) {
    size_t A = Chosen[M - 1], B = Chosen[M];
    const KernelLaunch &Second = Launches[B];
    std::string Where = launchLocation(SM, Launches[A].Loc);
    const LaunchPair *P = nullptr;
    for (const LaunchPair &Q : R.Pairs)
      if (Q.First == A && Q.Second == B)
        P = &Q;
    if (!P) {
      std::string Why = B == A  ? "it is the same launch"
                        : B < A ? "it comes first"
                        : B > A + 1
                            ? "another launch comes between them"
                            : "they are in different blocks, or code between them branches, "
                              "loops or jumps";
      Diags.report(Second.Loc, SM, ID::RewriteNotConsecutive)
          << name(M) << name(M - 1) << Where << Why;
      return;
    }
    for (const LaunchConflict &X : P->Conflicts)
      Diags.report(Second.Loc, SM, ID::RewriteDependent)
          << name(M - 1) << name(M) << describe(X, name(M - 1), name(M), SM);
    for (const LaunchAssumption &X : P->Assumptions) {
      if (X.What == LaunchAssumption::HostWaits ||
          (X.What == LaunchAssumption::DistinctBuffers && F.DistinctBuffers))
        continue;
      std::string Why = describe(X, name(M - 1), name(M), SM);
      if (X.What == LaunchAssumption::DistinctBuffers)
        Why = "it would rely on this: " + Why + " (add 'distinct_buffers: true' to fusion '" +
              F.Name + "' to promise it)";
      Diags.report(Second.Loc, SM, ID::RewriteUnproven) << name(M - 1) << name(M) << Why;
    }
  }

  /// Three or more launches: every two of them independent, which the
  /// relations' groups say.
  void checkGroup(const LaunchRelations &R, const std::vector<size_t> &Chosen) {
    for (const std::vector<size_t> &G : R.Groups) {
      auto It = llvm::find(G, Chosen.front());
      if (It != G.end() && static_cast<size_t>(G.end() - It) >= Chosen.size() &&
          std::equal(Chosen.begin(), Chosen.end(), It))
        return;
    }
    Diags.report(Launches[Chosen.back()].Loc, SM, ID::RewriteDependent)
        << name(0) << name(Chosen.size() - 1)
        << "launches of the group that are not next to each other may depend on each other";
  }
};

} // namespace

std::optional<std::string> hostFileOf(const Config &C, const FusionSpec &F, Reporter &Diags) {
  const KernelSpec *First = nullptr;
  for (const std::string &Id : F.Kernels) {
    const KernelSpec *K = C.findKernel(Id);
    if (!First) {
      First = K;
      continue;
    }
    if (siteFile(*K) != siteFile(*First)) {
      ConfigPosition At = K->Site ? K->Site->Position : K->Position;
      Diags.report({{ID::RewriteSiteFiles,
                     At.Line,
                     At.Column,
                     {F.Name, First->Kernel, siteText(*First), K->Kernel, siteText(*K)}}},
                   C.Path);
      return std::nullopt;
    }
  }
  return siteFile(*First);
}

std::optional<LaunchGroup> findLaunchGroup(ASTUnit &Host, const RejectedCode &Rejected,
                                           const Config &C, const FusionSpec &F,
                                           const std::vector<FusionMember> &Members,
                                           const std::vector<KernelUses> &Uses, Reporter &Diags) {
  if (F.Mode == FusionMode::Vertical) {
    Diags.report({{ID::RewriteVertical, F.Position.Line, F.Position.Column, {F.Name}}}, C.Path);
    return std::nullopt;
  }
  return GroupFinder(Host, Rejected, C, F, Members, Uses, Diags).run();
}

bool groupsDisjoint(const std::vector<LaunchGroup> &Groups, Reporter &Diags) {
  std::map<const Expr *, const LaunchGroup *> Owner;
  bool Disjoint = true;
  for (const LaunchGroup &G : Groups)
    for (const KernelLaunch &L : G.Launches) {
      auto [It, New] = Owner.emplace(L.Site, &G);
      if (New)
        continue;
      Disjoint = false;
      Diags.report(L.Loc, G.Host->getSourceManager(), ID::RewriteOverlap)
          << L.KernelName << It->second->Fusion->Name << G.Fusion->Name;
    }
  return Disjoint;
}

} // namespace kfuse

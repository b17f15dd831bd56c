//===- LaunchRewrites.cpp - may these launches become one launcher call? --===//

#include "kfuse/Analysis/Host/LaunchRewrites.h"

#include "kfuse/Analysis/Host/HostEffects.h"
#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Diagnostics/Reporter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <filesystem>

#include <map>
#include <set>

namespace kfuse {

using namespace clang;
using diag::ID;

namespace {

/// Where a kernel entry says its launch is, or its file when it does not.
std::string siteFile(const KernelSpec &K) {
  std::filesystem::path File = K.Site ? K.Site->ResolvedFile : K.ResolvedFile;
  return std::filesystem::absolute(File).lexically_normal().string();
}

bool isHeader(llvm::StringRef File) {
  return llvm::is_contained({".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc"},
                            llvm::sys::path::extension(File).lower());
}

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

/// The variables \p E names, and whether it reads memory through a pointer.
struct Named {
  std::set<const VarDecl *> Variables;
  std::vector<std::string> Members; ///< Reached through `this`.
  bool Indirect = false;
};

Named namedBy(const Expr *E) {
  struct Finder : RecursiveASTVisitor<Finder> {
    Named Out;
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
        Out.Variables.insert(V);
      return true;
    }
    bool VisitMemberExpr(MemberExpr *M) {
      if (isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts()))
        Out.Members.push_back(M->getMemberDecl()->getNameAsString());
      Out.Indirect |= M->isArrow();
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      Out.Indirect |= U->getOpcode() == UO_Deref;
      return true;
    }
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *A) {
      Out.Indirect |= A->getBase()->IgnoreParenImpCasts()->getType()->isPointerType();
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<Expr *>(E));
  return F.Out;
}

/// Whether \p F, or what it calls (to a depth), may throw.
bool mayThrow(const FunctionDecl *F, unsigned Depth) {
  const FunctionDecl *Def = nullptr;
  if (!F || !F->hasBody(Def) || !Def)
    return false; // The toolkit's and the C library's functions do not throw.
  struct Finder : RecursiveASTVisitor<Finder> {
    unsigned Depth;
    bool Throws = false;
    bool VisitCXXThrowExpr(CXXThrowExpr *) { return !(Throws = true); }
    bool VisitCallExpr(CallExpr *C) {
      if (Depth > 0 && mayThrow(C->getDirectCallee(), Depth - 1))
        Throws = true;
      return !Throws;
    }
  } Find;
  Find.Depth = Depth;
  Find.TraverseStmt(Def->getBody());
  return Find.Throws;
}

class GroupFinder {
public:
  GroupFinder(const ProgramModel &Model, const Config &C, const FusionSpec &F,
              const std::vector<FusionMember> &Members, Reporter &Diags)
      : Model(Model), Host(Model.files().front().host()), SM(Host.getSourceManager()),
        Ctx(Host.getASTContext()), C(C), F(F), Members(Members), Diags(Diags) {}

  std::optional<LaunchGroup> run() {
    std::vector<size_t> Chosen;
    for (size_t M = 0; M < Members.size(); ++M) {
      std::optional<size_t> I = launchOf(M);
      if (!I)
        return std::nullopt;
      Chosen.push_back(*I);
    }
    const LaunchRelations &Relations = Model.graph();
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
    bool Chain = F.Mode == FusionMode::Vertical;
    if (Members.size() > 2 && Diags.errorCount() == Before)
      Chain ? checkLongChain(Chosen) : checkGroup(Relations, Chosen);
    if (Diags.errorCount() == Before)
      checkBetween(Chosen);
    if (Diags.errorCount() != Before)
      return std::nullopt;
    LaunchGroup G;
    G.Fusion = &F;
    G.Host = &Host;
    for (size_t I : Chosen) {
      G.Launches.push_back(launch(I));
      G.Statements.push_back(statementRange(launch(I)));
    }
    return G;
  }

private:
  const ProgramModel &Model;
  ASTUnit &Host;
  SourceManager &SM;
  ASTContext &Ctx;
  const Config &C;
  const FusionSpec &F;
  const std::vector<FusionMember> &Members;
  Reporter &Diags;

  const KernelLaunch &launch(size_t I) const { return Model.launch(I).Launch; }

  const std::string &name(size_t M) const { return Members[M].Model.Name; }

  /// Whether launch \p I runs member \p M's kernel, as the model resolved it.
  bool launches(size_t I, size_t M) const {
    const FunctionDecl *K = Model.launch(I).Kernel;
    return K && K->getCanonicalDecl() == Members[M].Model.Decl->getCanonicalDecl();
  }

  void reportAtConfig(ID Id, const ConfigPosition &At, std::vector<std::string> Args) {
    Diags.report({{Id, At.Line, At.Column, std::move(Args)}}, C.Path);
  }

  /// The launch member \p M's kernel entry names.
  std::optional<size_t> launchOf(size_t M) {
    const KernelSpec &K = *Members[M].Spec;
    std::vector<size_t> All, AtSite;
    std::vector<std::string> Places; ///< As precise as the site: LINE or LINE:COLUMN.
    for (size_t I = 0; I < Model.launches().size(); ++I) {
      if (!launches(I, M))
        continue;
      PresumedLoc P = SM.getPresumedLoc(launch(I).Loc);
      All.push_back(I);
      Places.push_back(std::to_string(P.getLine()) +
                       (K.Site && K.Site->Column ? ":" + std::to_string(P.getColumn()) : ""));
      if (!K.Site ||
          (P.getLine() == K.Site->Line && (K.Site->Column == 0 || P.getColumn() == K.Site->Column)))
        AtSite.push_back(I);
    }
    ConfigPosition At = K.Site ? K.Site->Position : K.Position;
    if (AtSite.empty()) {
      std::string Why = All.empty() ? "that file launches it nowhere"
                        : K.Site && K.Site->Column
                            ? "its launches in that file are at " + llvm::join(Places, ", ")
                            : "its launches in that file are on lines " + llvm::join(Places, ", ");
      reportAtConfig(ID::RewriteNoLaunch, At, {name(M), siteText(K), Why});
      return std::nullopt;
    }
    if (AtSite.size() > 1) {
      std::vector<unsigned> Ambiguous;
      for (size_t I : AtSite)
        Ambiguous.push_back(SM.getPresumedLoc(launch(I).Loc).getLine());
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
    const KernelLaunch &L = launch(Chosen[M]);
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
      if (madeByPreprocessor(E))
        Diags.report(SM.getExpansionLoc(E->getBeginLoc()), SM, ID::RewriteOperand)
            << text(E) << name(M)
            << "holds a token the preprocessor makes where it is expanded (__LINE__, "
               "__COUNTER__ or ##), which the rewrite writes elsewhere";
    for (const Expr *E : Operands)
      if (std::string Effect = sideEffect(E); !Effect.empty())
        Diags.report(SM.getExpansionLoc(E->getBeginLoc()), SM, ID::RewriteOperand)
            << text(E) << name(M)
            << "may have side effects (" + Effect +
                   "); the rewritten code evaluates the launches' operands in another order, "
                   "and again where it launches the original kernels";
  }

  /// Whether a token of \p E was spelled by the preprocessor itself.
  bool madeByPreprocessor(const Expr *E) const {
    struct Finder : RecursiveASTVisitor<Finder> {
      const SourceManager &SM;
      bool Found = false;
      explicit Finder(const SourceManager &SM) : SM(SM) {}
      bool VisitStmt(Stmt *S) {
        SourceLocation Loc = S->getBeginLoc();
        Found |= Loc.isValid() && SM.isWrittenInScratchSpace(SM.getSpellingLoc(Loc));
        return !Found;
      }
    } F(SM);
    F.TraverseStmt(const_cast<Expr *>(E));
    return F.Found;
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

  /// The later launches move up to the first: what lies between must not
  /// change what they are given, configure their kernels, or leave where a
  /// later launch would not have run.
  void checkBetween(const std::vector<size_t> &Chosen) {
    const KernelLaunch &First = launch(Chosen.front());
    const std::string &FirstName = name(0);
    checkDirectives(Chosen);
    std::set<unsigned> GroupPositions;
    for (size_t I : Chosen)
      GroupPositions.insert(launch(I).Position);
    const Stmt *Body = First.Caller->getBody();
    for (size_t M = 1; M < Chosen.size(); ++M) {
      const KernelLaunch &L = launch(Chosen[M]);
      std::vector<const Stmt *> Between;
      for (unsigned S = First.Position + 1; S < L.Position; ++S)
        if (!GroupPositions.count(S))
          Between.push_back(First.Scope->body_begin()[S]);
      for (const Stmt *B : Between)
        checkStatement(B, FirstName, name(M));
      if (Between.empty())
        continue;
      Named Given = namedBy(L.Site);
      for (const Stmt *Operand : L.Site->children())
        if (const auto *E = dyn_cast_or_null<Expr>(Operand); E && namedBy(E).Indirect) {
          Diags.report(SM.getExpansionLoc(E->getBeginLoc()), SM, ID::RewriteOperand)
              << text(E) << name(M)
              << "reads memory through a pointer, which the rewrite reads before the "
                 "statements between the launches";
          break;
        }
      for (const Stmt *B : Between)
        for (const Decl *D : declaredIn(B))
          if (const auto *V = dyn_cast<VarDecl>(D); V && Given.Variables.count(V))
            Diags.report(SM.getExpansionLoc(D->getLocation()), SM, ID::RewriteBetween)
                << "the declaration of '" + V->getNameAsString() + "'" << FirstName << name(M)
                << "the later launch is given it, and the rewrite passes it before it is declared";
      std::vector<std::string> Shared = Given.Members;
      for (const VarDecl *V : Given.Variables)
        if (!privateLocal(*V, *Body))
          Shared.push_back(V->getNameAsString());
      if (Shared.empty())
        continue;
      for (const Stmt *B : Between)
        if (std::string Write = indirectWrite(B); !Write.empty()) {
          Diags.report(L.Loc, SM, ID::RewriteOperand)
              << Shared.front() << name(M)
              << "is read where the first launch was, before " + Write + " between the launches (" +
                     launchLocation(SM, B->getBeginLoc()) +
                     ") that may change it: it is not a local only its own name reaches";
          break;
        }
    }
  }

  static std::vector<const Decl *> declaredIn(const Stmt *S) {
    std::vector<const Decl *> Out;
    if (const auto *D = dyn_cast<DeclStmt>(S))
      Out.assign(D->decl_begin(), D->decl_end());
    return Out;
  }

  /// A statement between the launches: it must not name a kernel (to set an
  /// attribute the moved launch needs) or throw past the later launch.
  void checkStatement(const Stmt *B, const std::string &A, const std::string &Later) {
    struct Finder : RecursiveASTVisitor<Finder> {
      const DeclRefExpr *Kernel = nullptr;
      const Stmt *Throws = nullptr;
      std::string Thrower;
      bool VisitDeclRefExpr(DeclRefExpr *R) {
        if (const auto *F = dyn_cast<FunctionDecl>(R->getDecl()); F && F->hasAttr<CUDAGlobalAttr>())
          Kernel = Kernel ? Kernel : R;
        return true;
      }
      bool VisitCXXTryStmt(CXXTryStmt *T) {
        Throws = Throws ? Throws : T;
        return true;
      }
      bool VisitCallExpr(CallExpr *C) {
        if (!Throws && mayThrow(C->getDirectCallee(), 3)) {
          Throws = C;
          Thrower = C->getDirectCallee()->getNameAsString();
        }
        return true;
      }
    } F;
    F.TraverseStmt(const_cast<Stmt *>(B));
    if (F.Kernel)
      Diags.report(SM.getExpansionLoc(F.Kernel->getBeginLoc()), SM, ID::RewriteBetween)
          << "'" + F.Kernel->getDecl()->getNameAsString() + "' named here" << A << Later
          << "this configures or queries a kernel whose original launch the rewrite may move "
             "above it";
    if (F.Throws)
      Diags.report(SM.getExpansionLoc(F.Throws->getBeginLoc()), SM, ID::RewriteBetween)
          << (F.Thrower.empty() ? std::string("a try block")
                                : "'" + F.Thrower + "', which may throw,")
          << A << Later
          << "where it throws, the later launch did not run, and after the rewrite it has";
  }

  /// Preprocessor directives between the first launch and the last: a macro
  /// the later launches use may mean something else above them, and code a
  /// conditional leaves out here (kfuse reads one configuration) may be
  /// what another build compiles between them.
  void checkDirectives(const std::vector<size_t> &Chosen) {
    CharSourceRange First = statementRange(launch(Chosen.front()));
    SourceLocation LastBegin = SM.getExpansionLoc(launch(Chosen.back()).Site->getBeginLoc());
    unsigned From = SM.getFileOffset(First.getEnd()), To = SM.getFileOffset(LastBegin);
    llvm::StringRef Text = SM.getBufferData(SM.getMainFileID());
    for (unsigned At = From; At < To;) {
      size_t End = std::min<size_t>(Text.find('\n', At), Text.size());
      llvm::StringRef Line = Text.slice(At, End).trim();
      if (Line.starts_with("#")) {
        Diags.report(SM.getLocForStartOfFile(SM.getMainFileID()).getLocWithOffset(At), SM,
                     ID::RewriteBetween)
            << "the directive '" + Line.str() + "'" << name(0) << name(Chosen.size() - 1)
            << "the rewrite moves the later launches above it, and a build with other macros "
               "may compile other code between them";
        return;
      }
      At = End + 1;
    }
  }

  std::string text(const Expr *E) const {
    CharSourceRange R = SM.getExpansionRange(E->getSourceRange());
    return Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str();
  }

  void checkPair(const LaunchRelations &R, const std::vector<size_t> &Chosen, size_t M) {
    size_t A = Chosen[M - 1], B = Chosen[M];
    const KernelLaunch &Second = launch(B);
    std::string Where = launchLocation(SM, launch(A).Loc);
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
    // A chain of three or more is related as a whole (checkLongChain).
    if (F.Mode == FusionMode::Vertical && Members.size() > 2)
      return;
    if (F.Mode == FusionMode::Vertical)
      checkChain(*P, M);
    else
      for (const LaunchConflict &X : P->Conflicts)
        Diags.report(Second.Loc, SM, ID::RewriteDependent)
            << name(M - 1) << name(M) << describe(X, name(M - 1), name(M), SM);
    checkAssumptions(P->Assumptions, M - 1, M, Second);
  }

  /// Reports each of \p Assumptions the config does not promise, for the
  /// launches of members \p A and \p B, at \p Second.
  void checkAssumptions(const std::vector<LaunchAssumption> &Assumptions, size_t A, size_t B,
                        const KernelLaunch &Second) {
    for (const LaunchAssumption &X : Assumptions) {
      // What callers pass and leave queued is theirs to promise.
      bool Promised =
          X.What == LaunchAssumption::DistinctBuffers || X.What == LaunchAssumption::CallersWork;
      if (X.What == LaunchAssumption::HostWaits || (Promised && F.DistinctBuffers))
        continue;
      std::string Why = describe(X, name(A), name(B), SM);
      if (Promised)
        Why = "it would rely on this: " + Why + " (add 'distinct_buffers: true' to fusion '" +
              F.Name + "' to promise it)";
      Diags.report(Second.Loc, SM, ID::RewriteUnproven) << name(A) << name(B) << Why;
    }
  }

  /// A vertical fusion of three or more launches: the launches are a chain
  /// (every two independent or a chain), and its flows, temporaries and
  /// scalars of one value are what the config says, as for two.
  void checkLongChain(const std::vector<size_t> &Chosen) {
    size_t Last = Chosen.size() - 1;
    auto Refuse = [&](const std::string &Why) {
      Diags.report(launch(Chosen[Last]).Loc, SM, ID::RewriteChain) << name(0) << name(Last) << Why;
    };
    std::string Why;
    std::optional<LaunchChain> Chain = Model.chain(Chosen, Why);
    if (!Chain)
      return Refuse(Why);
    auto MemberOf = [&](size_t Launch) {
      return static_cast<size_t>(llvm::find(Chosen, Launch) - Chosen.begin());
    };
    auto Param = [&](size_t Member, size_t I) {
      return Members[Member].Spec->Id + "." +
             Members[Member].Model.Decl->getParamDecl(I)->getNameAsString();
    };
    auto Matches = [&](const FlowSpec &Flow, const ChainFlow &X) {
      return paramOf(Flow.From, MemberOf(X.From)) == X.Flow.FromArg &&
             paramOf(Flow.To, MemberOf(X.To)) == X.Flow.ToArg;
    };
    for (const ChainFlow &X : Chain->Flows)
      if (llvm::none_of(F.Flows, [&](const FlowSpec &Flow) { return Matches(Flow, X); }))
        Refuse(launch(X.From).KernelName + " and then " + launch(X.To).KernelName + " name '" +
               X.Flow.Buffer + "', one of them writing it, and the config has no flow from " +
               Param(MemberOf(X.From), X.Flow.FromArg) + " to " +
               Param(MemberOf(X.To), X.Flow.ToArg));
    for (const FlowSpec &Flow : F.Flows) {
      auto X = llvm::find_if(Chain->Flows, [&](const ChainFlow &X) { return Matches(Flow, X); });
      if (X == Chain->Flows.end())
        Refuse("the config passes " + Flow.From.spelling() + " to " + Flow.To.spelling() +
               ", but in the program they are not one buffer that the chain passes on from the "
               "one to the other");
      else if (Flow.Temporary && !X->Flow.Dead)
        Refuse("the config makes '" + X->Flow.Buffer + "' temporary (never stored), but " +
               X->Flow.Live);
    }
    auto SameValue = [&](std::pair<size_t, size_t> A, std::pair<size_t, size_t> B) {
      return llvm::any_of(Chain->Same, [&](const auto &G) {
        return llvm::is_contained(G, A) && llvm::is_contained(G, B);
      });
    };
    for (const std::vector<ParamRef> &Group : F.Same)
      for (const ParamRef &A : Group)
        for (const ParamRef &B : Group) {
          std::optional<std::pair<size_t, size_t>> PA = findParam(A, Members),
                                                   PB = findParam(B, Members);
          if (PA && PB && PA->first < PB->first &&
              !SameValue({Chosen[PA->first], PA->second}, {Chosen[PB->first], PB->second}))
            Refuse("the config says " + A.spelling() + " and " + B.spelling() +
                   " carry one value, and the program may give them different ones");
        }
    checkAssumptions(Chain->Assumptions, 0, Last, launch(Chosen[Last]));
  }

  /// The index of parameter \p Ref of member \p M's kernel, when \p Ref
  /// names member \p M.
  std::optional<size_t> paramOf(const ParamRef &Ref, size_t M) const {
    std::optional<std::pair<size_t, size_t>> At = findParam(Ref, Members);
    if (!At || At->first != M)
      return std::nullopt;
    return At->second;
  }

  /// A vertical fusion runs member \p M after the one before it in each
  /// thread and takes what the config says passes between them: every
  /// buffer both name, one of them writing it, must be a flow of the
  /// config, and each flow, temporary and scalar of one value the config
  /// gives must be what the program does.
  void checkChain(const LaunchPair &P, size_t M) {
    const KernelLaunch &Second = launch(P.Second);
    auto Refuse = [&](const std::string &Why) {
      Diags.report(Second.Loc, SM, ID::RewriteChain) << name(M - 1) << name(M) << Why;
    };
    if (!P.independent() && !P.chainable())
      return Refuse(P.NotChainable.empty() ? describe(P.Conflicts.front(), name(M - 1), name(M), SM)
                                           : P.NotChainable);
    auto Param = [&](size_t Member, size_t I) {
      return Members[Member].Spec->Id + "." +
             Members[Member].Model.Decl->getParamDecl(I)->getNameAsString();
    };
    auto Matches = [&](const FlowSpec &Flow, const LaunchFlow &X) {
      return paramOf(Flow.From, M - 1) == X.FromArg && paramOf(Flow.To, M) == X.ToArg;
    };
    for (const LaunchFlow &X : P.Flows)
      if (llvm::none_of(F.Flows, [&](const FlowSpec &Flow) { return Matches(Flow, X); }))
        Refuse(name(M - 1) + " and " + name(M) + " both name '" + X.Buffer +
               "', one of them writing it, and the config has no flow from " +
               Param(M - 1, X.FromArg) + " to " + Param(M, X.ToArg));
    for (const FlowSpec &Flow : F.Flows) {
      if (!paramOf(Flow.From, M - 1) || !paramOf(Flow.To, M))
        continue;
      auto X = llvm::find_if(P.Flows, [&](const LaunchFlow &X) { return Matches(Flow, X); });
      if (X == P.Flows.end())
        Refuse("the config passes " + Flow.From.spelling() + " to " + Flow.To.spelling() +
               ", but the program does not give them one buffer that one of them writes");
      else if (Flow.Temporary && !X->Dead)
        Refuse("the config makes '" + X->Buffer + "' temporary (never stored), but " + X->Live);
    }
    for (const std::vector<ParamRef> &Group : F.Same)
      for (const ParamRef &A : Group)
        for (const ParamRef &B : Group) {
          std::optional<size_t> I = paramOf(A, M - 1), J = paramOf(B, M);
          if (I && J && !llvm::is_contained(P.SameArgs, std::make_pair(*I, *J)))
            Refuse("the config says " + A.spelling() + " and " + B.spelling() +
                   " carry one value, and the program may give them different ones");
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
    Diags.report(launch(Chosen.back()).Loc, SM, ID::RewriteDependent)
        << name(0) << name(Chosen.size() - 1)
        << "launches of the group that are not next to each other may depend on each other";
  }
};

} // namespace

bool rewrittenBefore(ASTUnit &Host, Reporter &Diags) {
  SourceManager &SM = Host.getSourceManager();
  FileID Main = SM.getMainFileID();
  llvm::StringRef Text = SM.getBufferData(Main);
  size_t At = Text.find(LauncherIncludeComment);
  if (At == llvm::StringRef::npos)
    return false;
  // The comment ends the #include line the rewrite adds.
  size_t Line = Text.rfind('\n', At);
  Line = Line == llvm::StringRef::npos ? 0 : Line + 1;
  if (!Text.substr(Line, At - Line).ltrim().starts_with("#include"))
    return false;
  llvm::StringRef Config = Text.substr(At).drop_front(strlen(LauncherIncludeComment));
  Config = Config.take_until([](char C) { return C == ')' || C == '\n'; });
  std::string File = SM.getFileEntryRefForID(Main)->getName().str();
  std::string Orig = File + ".orig";
  bool Kept = llvm::sys::fs::exists(Orig);
  Diags.report(SM.getComposedLoc(Main, static_cast<unsigned>(Line)), SM, ID::RewriteAgain)
      << llvm::sys::path::filename(File).str() << Config.str()
      << (Kept ? ", and '" + llvm::sys::path::filename(Orig).str() + "' beside it is the original"
               : std::string())
      << (Kept ? "restore it first (mv " + Orig + " " + File + ")"
               : "name the file as it was before kfuse rewrote it");
  return true;
}

std::optional<std::string> hostFileOf(const Config &C, const FusionSpec &F, bool Copies,
                                      Reporter &Diags) {
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
  if (Copies && isHeader(siteFile(*First))) {
    Diags.report(
        {{ID::RewriteHeader, F.Position.Line, F.Position.Column, {F.Name, siteText(*First)}}},
        C.Path);
    return std::nullopt;
  }
  return siteFile(*First);
}

std::optional<LaunchGroup> findLaunchGroup(const ProgramModel &Model, const Config &C,
                                           const FusionSpec &F,
                                           const std::vector<FusionMember> &Members,
                                           Reporter &Diags) {
  return GroupFinder(Model, C, F, Members, Diags).run();
}

std::vector<size_t> disjointGroups(const std::vector<LaunchGroup> &Groups, const std::string &Why,
                                   Reporter &Diags) {
  std::map<const Expr *, const LaunchGroup *> Owner;
  std::vector<size_t> Taken;
  for (size_t I = 0; I < Groups.size(); ++I) {
    const LaunchGroup &G = Groups[I];
    auto Shared =
        llvm::find_if(G.Launches, [&](const KernelLaunch &L) { return Owner.count(L.Site); });
    if (Shared != G.Launches.end()) {
      // An alternative that lost is what the config means it to be.
      if (!G.Fusion->Alternative)
        Diags.report(Shared->Loc, G.Host->getSourceManager(), ID::RewriteOverlap)
            << G.Fusion->Name << Shared->KernelName << Owner.at(Shared->Site)->Fusion->Name << Why;
      continue;
    }
    for (const KernelLaunch &L : G.Launches)
      Owner.emplace(L.Site, &G);
    Taken.push_back(I);
  }
  return Taken;
}

} // namespace kfuse

//===- MacroBodies.cpp - spellings the rewrite can reach, checked first ----===//
//
// Each construct the rewrite edits in a body it inlines or copies (renamed
// names, returns, calls, barriers, qualified built-ins, dynamic shared
// declarations, group queries, discarded branches) must be spelled where an
// edit reaches it. A token in the body of one of the file's own macros is
// reached by defining the macro again in the section, once for all its uses
// there, so every use in the section must need the same edit.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Analysis/Kernel/MacroBodies.h"

#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Legality.h"
#include "kfuse/Diagnostics/Reporter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace kfuse {

clang::CharSourceRange editableChars(const clang::SourceManager &SM,
                                     const clang::LangOptions &LangOpts, clang::SourceRange Range) {
  return clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(Range), SM,
                                         LangOpts);
}

bool editableRange(const clang::SourceManager &SM, const clang::LangOptions &LangOpts,
                   clang::SourceRange Range) {
  return editableChars(SM, LangOpts, Range).isValid();
}

const clang::MacroInfo *ownMacroBody(clang::Preprocessor &PP, clang::SourceLocation Loc) {
  const clang::SourceManager &SM = PP.getSourceManager();
  if (!Loc.isMacroID())
    return nullptr;
  llvm::StringRef Name = clang::Lexer::getImmediateMacroName(Loc, SM, PP.getLangOpts());
  clang::SourceLocation Spelling = SM.getSpellingLoc(Loc);
  if (Name.empty() || SM.isInSystemHeader(Spelling))
    return nullptr;
  const clang::MacroInfo *MI =
      PP.getMacroDefinitionAtLoc(PP.getIdentifierInfo(Name), SM.getExpansionLoc(Loc))
          .getMacroInfo();
  if (!MI || MI->isBuiltinMacro())
    return nullptr;
  clang::SourceLocation Begin = MI->getDefinitionLoc(), End = MI->getDefinitionEndLoc();
  if (SM.getFileID(Begin) != SM.getFileID(Spelling) ||
      SM.isBeforeInTranslationUnit(Spelling, Begin) || SM.isBeforeInTranslationUnit(End, Spelling))
    return nullptr;
  return MI;
}

std::string spelledText(const clang::SourceManager &SM, const clang::LangOptions &LangOpts,
                        clang::SourceRange Range) {
  clang::SourceLocation Begin = SM.getSpellingLoc(Range.getBegin());
  clang::SourceLocation End = SM.getSpellingLoc(Range.getEnd());
  if (SM.getFileID(Begin) == SM.getFileID(End) && !SM.isBeforeInTranslationUnit(End, Begin))
    return clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(Begin, End), SM,
                                       LangOpts)
        .str();
  llvm::SmallString<32> Buffer;
  return clang::Lexer::getSpelling(Begin, Buffer, SM, LangOpts).str();
}

void reportMacroBodyUse(Reporter &Diags, clang::SourceManager &SM,
                        const clang::LangOptions &LangOpts, clang::SourceLocation At,
                        llvm::StringRef What) {
  llvm::StringRef Macro = clang::Lexer::getImmediateMacroName(At, SM, LangOpts);
  Diags.report(SM.getExpansionLoc(At), SM, diag::ID::MacroBodyUse) << What << Macro;
}

bool editableToken(clang::Preprocessor &PP, clang::SourceLocation Loc) {
  return editableRange(PP.getSourceManager(), PP.getLangOpts(), clang::SourceRange(Loc, Loc)) ||
         ownMacroBody(PP, Loc);
}

namespace {

using diag::ID;

/// One rewritten body of the section: the kernel's, an inlined call's (each
/// call its own copy, with its own fresh names), or a section copy's (one
/// for all its calls).
struct SectionBody {
  const KernelModel *Model;
  unsigned Instance;
  std::vector<const clang::FunctionDecl *> Stack; ///< The definitions inlined, this one last.
};

/// The edits of one body, checked as the rewrite makes them.
class BodyEdits {
public:
  BodyEdits(const KernelModel &Model, bool CopyRoot, clang::Preprocessor &PP, Reporter &Diags)
      : Model(Model), CopyRoot(CopyRoot), PP(PP), SM(PP.getSourceManager()), Diags(Diags) {}

  /// Each renamed token of the body, with the name it gets from: a
  /// declaration (fresh in every copy of the body), or `this`.
  std::vector<std::pair<clang::SourceLocation, const void *>> renamedTokens() const {
    std::vector<std::pair<clang::SourceLocation, const void *>> Tokens;
    auto Renamed = [&](const clang::ValueDecl *D) {
      const auto *V = llvm::dyn_cast<clang::VarDecl>(D);
      if (!V)
        return false;
      if (const auto *P = llvm::dyn_cast<clang::ParmVarDecl>(V))
        return llvm::is_contained(Model.Params, P);
      return llvm::is_contained(Model.Locals, V) && !Model.keepsName(V);
    };
    for (const clang::VarDecl *V : Model.Locals)
      if (Renamed(V))
        Tokens.push_back({V->getLocation(), V});
    for (const clang::DeclRefExpr *Ref : Model.LocalRefs)
      if (Renamed(Ref->getDecl()))
        Tokens.push_back({Ref->getLocation(), Ref->getDecl()});
    for (const clang::LabelStmt *Label : Model.LabelStmts)
      Tokens.push_back({Label->getIdentLoc(), Label->getDecl()});
    for (const clang::GotoStmt *Goto : Model.Gotos)
      Tokens.push_back({Goto->getLabelLoc(), Goto->getLabel()});
    if (isInstanceMethod()) {
      for (const clang::CXXThisExpr *This : Model.ExplicitThis)
        Tokens.push_back({This->getLocation(), &Model});
      for (const clang::MemberExpr *M : Model.ImplicitMembers)
        Tokens.push_back({M->getMemberLoc(), &Model});
    }
    return Tokens;
  }

  /// Refuses each construct of the body no edit can reach, and each text
  /// the rewrite reads there (the body, arguments, returned values).
  void check(llvm::ArrayRef<const clang::FunctionDecl *> Stack) {
    range(Model.Decl->getBody()->getSourceRange(), Model.Decl->getName());
    for (const auto &[Loc, Source] : renamedTokens())
      if (!editableToken(PP, Loc))
        refuse(Loc, nameAt(Loc));
    for (const BuiltinUse &U : Model.Builtins)
      if (U.Ref->hasQualifier())
        range(U.Ref->getSourceRange(), U.Ref->getDecl()->getName());
    for (const Barrier &B : Model.Barriers)
      // A plain barrier or the callee of a counting one, spelled in a
      // macro, is one the section defines again for the macro's uses.
      if (B.Kind == BarrierKind::GroupSync || B.Kind == BarrierKind::Named)
        range(B.Call->getSourceRange(), B.Callee);
    std::set<const clang::Stmt *> Prefixed; // Returns a call is hoisted out of.
    for (const CallSite *C : Model.callsToInline()) {
      if (C->Effect.Rejected || callObstacle(*C, Stack))
        continue; // Refused by the calls check.
      std::string Name = C->Callee->getNameAsString();
      bool Replaced = true;
      if (C->lowering() == CallLowering::SectionCopy) {
        Replaced = range(C->Call->getSourceRange(), Name);
      } else if (C->Position == CallPosition::Statement) {
        Replaced = range(C->Site->getSourceRange(), Name);
      } else if (C->Position == CallPosition::Hoisted) {
        Replaced = range(C->Whole->getSourceRange(), Name);
        if (llvm::isa<clang::ReturnStmt>(C->Site))
          Prefixed.insert(C->Site);
        else
          Replaced &= range(C->Site->getSourceRange(), "statement");
      }
      if (!Replaced)
        continue; // One refusal for the call.
      // The arguments and the object are copied into the inlined body.
      for (const clang::Expr *Arg : C->Call->arguments())
        if (!llvm::isa<clang::CXXDefaultArgExpr>(Arg))
          read(Arg->getSourceRange());
      if (const auto *Member = llvm::dyn_cast<clang::CXXMemberCallExpr>(C->Call))
        if (const clang::Expr *Object = Member->getImplicitObjectArgument();
            Object && !llvm::isa<clang::CXXThisExpr>(Object->IgnoreParenImpCasts()))
          read(Object->getSourceRange());
    }
    // A copy's own returns stay returns, unless a call is hoisted out of them.
    for (const Return &R : Model.Returns)
      if (!CopyRoot || Prefixed.count(R.Stmt))
        if (range(R.Stmt->getSourceRange(), "return"))
          if (const clang::Expr *Value = R.Stmt->getRetValue(); Value && !CopyRoot)
            read(Value->getSourceRange());
    for (const SharedVariable &S : Model.Shared)
      if (S.Dynamic && !S.FileScope)
        range(S.Var->getSourceRange(), S.Var->getName());
    for (const GroupQueryUse &Q : Model.GroupQueries) {
      const clang::FunctionDecl *F = Q.Call->getDirectCallee();
      range(Q.Call->getSourceRange(), F ? F->getName() : "thread_rank");
    }
    for (const clang::CompoundStmt *C : Model.DiscardedBranches)
      range(C->getSourceRange(), "a discarded 'if constexpr' branch");
  }

  /// Reports \p What at \p At, once: a macro expanded once may hold
  /// several uses of one name.
  void refuse(clang::SourceLocation At, llvm::StringRef What) {
    clang::SourceLocation Expansion = SM.getExpansionLoc(At);
    if (!Reported.insert({Expansion.getRawEncoding(), What.str()}).second)
      return;
    reportMacroBodyUse(Diags, SM, PP.getLangOpts(), At, What);
  }

  llvm::StringRef nameAt(clang::SourceLocation Loc) const {
    return clang::Lexer::getSpelling(SM.getSpellingLoc(Loc), Buffer, SM, PP.getLangOpts());
  }

private:
  const KernelModel &Model;
  bool CopyRoot;
  clang::Preprocessor &PP;
  clang::SourceManager &SM;
  Reporter &Diags;
  mutable llvm::SmallString<32> Buffer;
  std::set<std::pair<unsigned, std::string>> Reported;

  bool isInstanceMethod() const {
    const auto *Method = llvm::dyn_cast<clang::CXXMethodDecl>(Model.Decl);
    return Method && Method->isInstance();
  }

  /// Whether an edit can replace \p R; refuses it when not.
  bool range(clang::SourceRange R, llvm::StringRef What) {
    if (editableRange(SM, PP.getLangOpts(), R))
      return true;
    refuse(R.getBegin(), What);
    return false;
  }

  /// Text the rewrite copies: named by how it is spelled.
  void read(clang::SourceRange R) {
    if (!editableRange(SM, PP.getLangOpts(), R))
      refuse(R.getBegin(), spelledText(SM, PP.getLangOpts(), R));
  }
};

/// The bodies the section of \p Kernel rewrites, in the rewrite's order:
/// each inlined call's body once per call, each copied callee's once.
void collectSection(const KernelModel &Model, FunctionModels &Helpers,
                    std::vector<const clang::FunctionDecl *> &Stack,
                    std::set<const clang::FunctionDecl *> &Copied,
                    std::vector<SectionBody> &Bodies) {
  Bodies.push_back({&Model, static_cast<unsigned>(Bodies.size()), Stack});
  for (const CallSite *C : Model.callsToInline()) {
    if (C->Effect.Rejected || callObstacle(*C, Stack))
      continue;
    const clang::FunctionDecl *Callee = C->Callee->getDefinition();
    if (C->lowering() == CallLowering::SectionCopy && !Copied.insert(Callee).second)
      continue;
    Stack.push_back(Callee);
    collectSection(Helpers.of(*Callee), Helpers, Stack, Copied, Bodies);
    Stack.pop_back();
  }
}

/// Where an edit lands: the copy of a body it belongs to (Section for a
/// macro body, which the section defines once for all), the file, and the
/// offsets of its first and last characters.
using Place = std::tuple<unsigned, clang::FileID, unsigned, unsigned>;
constexpr unsigned Section = ~0u;

/// The range a call the rewrite inlines replaces, if any.
std::optional<clang::SourceRange> inlinedRange(const CallSite &C) {
  if (C.lowering() != CallLowering::Inline || C.Effect.Rejected)
    return std::nullopt;
  if (C.Position == CallPosition::Statement)
    return C.Site->getSourceRange();
  if (C.Position == CallPosition::Hoisted)
    return C.Whole->getSourceRange();
  return std::nullopt;
}

/// Edits that land on the same characters must be one edit: a token of a
/// macro body, which the section defines once for the copies of all its
/// bodies, and text of the file that one body reaches twice (a macro
/// argument the macro expands twice). A macro #defined again between two
/// uses the section edits cannot be defined once for both.
void checkOneEditPerSpelling(const BodyUnderCheck &B, Reporter &Diags) {
  clang::Preprocessor &PP = B.Helpers.unit().getPreprocessor();
  const clang::LangOptions &LangOpts = PP.getLangOpts();
  std::vector<const clang::FunctionDecl *> Stack(B.Stack.begin(), B.Stack.end());
  std::set<const clang::FunctionDecl *> Copied;
  std::vector<SectionBody> Bodies;
  collectSection(B.Model, B.Helpers, Stack, Copied, Bodies);
  std::map<Place, std::pair<unsigned, const void *>> First;
  std::map<std::string, const clang::MacroInfo *> Definitions;
  for (const SectionBody &Body : Bodies) {
    BodyEdits Edits(*Body.Model, false, PP, Diags);
    auto Claim = [&](Place P, const void *Source, clang::SourceLocation At, llvm::StringRef What) {
      auto [It, New] = First.emplace(P, std::make_pair(Body.Instance, Source));
      if (!New && It->second != std::make_pair(Body.Instance, Source))
        Edits.refuse(At, What);
    };
    auto InFile = [&](clang::SourceRange R) -> std::optional<Place> {
      clang::CharSourceRange File =
          clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(R), B.SM, LangOpts);
      if (File.isInvalid())
        return std::nullopt;
      auto [Id, Begin] = B.SM.getDecomposedLoc(File.getBegin());
      return Place{Body.Instance, Id, Begin, B.SM.getFileOffset(File.getEnd())};
    };
    for (const auto &[Loc, Source] : Edits.renamedTokens()) {
      if (std::optional<Place> P = InFile({Loc, Loc})) {
        Claim(*P, Source, Loc, Edits.nameAt(Loc));
        continue;
      }
      const clang::MacroInfo *MI = ownMacroBody(PP, Loc);
      if (!MI)
        continue; // BodyEdits::check refuses it.
      llvm::StringRef Name = clang::Lexer::getImmediateMacroName(Loc, B.SM, LangOpts);
      if (Definitions.emplace(Name.str(), MI).first->second != MI) {
        Edits.refuse(Loc, Edits.nameAt(Loc));
        continue;
      }
      auto [Id, Offset] = B.SM.getDecomposedLoc(B.SM.getSpellingLoc(Loc));
      Claim({Section, Id, Offset, Offset}, Source, Loc, Edits.nameAt(Loc));
    }
    for (const CallSite *C : Body.Model->callsToInline())
      if (std::optional<clang::SourceRange> R = inlinedRange(*C);
          R && !callObstacle(*C, Body.Stack))
        if (std::optional<Place> P = InFile(*R))
          Claim(*P, C, R->getBegin(), C->Callee->getName());
  }
}

} // namespace

void checkMacroBodies(const BodyUnderCheck &B, Reporter &Diags) {
  clang::Preprocessor &PP = B.Helpers.unit().getPreprocessor();
  bool CopyRoot = false;
  if (B.Models.size() > 1)
    for (const CallSite &C : B.Models[B.Models.size() - 2]->Calls)
      if (C.Call == B.CallStack.back())
        CopyRoot = C.lowering() == CallLowering::SectionCopy;
  BodyEdits(B.Model, CopyRoot, PP, Diags).check(B.Stack);
  if (B.Models.size() == 1)
    checkOneEditPerSpelling(B, Diags);
}

} // namespace kfuse

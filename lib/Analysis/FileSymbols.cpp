//===- FileSymbols.cpp - what an input file declares at file scope --------===//

#include "kfuse/Analysis/FileSymbols.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"

#include <set>

namespace kfuse {

const clang::NamedDecl *symbolOf(const clang::NamedDecl *D) {
  if (const auto *T = llvm::dyn_cast<clang::TemplateDecl>(D))
    if (const clang::NamedDecl *Templated = T->getTemplatedDecl())
      D = Templated;
  if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(D))
    if (const clang::FunctionTemplateDecl *Primary = F->getPrimaryTemplate())
      D = Primary->getTemplatedDecl();
  if (const auto *S = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(D))
    D = S->getSpecializedTemplate()->getTemplatedDecl();
  return llvm::cast<clang::NamedDecl>(D->getCanonicalDecl());
}

bool isTypeSymbol(const clang::NamedDecl *Symbol) {
  return llvm::isa<clang::TypeDecl>(Symbol) &&
         !llvm::isa<clang::ClassTemplateSpecializationDecl>(Symbol) &&
         !(llvm::isa<clang::CXXRecordDecl>(Symbol) &&
           llvm::cast<clang::CXXRecordDecl>(Symbol)->getDescribedClassTemplate());
}

namespace {

class SpellingCollector : public clang::RecursiveASTVisitor<SpellingCollector> {
public:
  explicit SpellingCollector(clang::ASTUnit &Unit) : SM(Unit.getSourceManager()) {}

  std::vector<SymbolSpelling> Result;

  bool VisitNamedDecl(clang::NamedDecl *D) {
    if (llvm::isa<clang::FunctionDecl, clang::VarDecl, clang::TagDecl, clang::TypedefNameDecl>(D))
      add(D->getLocation(), D);
    if (const auto *C = llvm::dyn_cast<clang::CXXConstructorDecl>(D))
      add(C->getLocation(), C->getParent());
    if (const auto *C = llvm::dyn_cast<clang::CXXDestructorDecl>(D))
      add(C->getLocation(), C->getParent());
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *E) {
    add(E->getLocation(), E->getDecl());
    return true;
  }
  bool VisitUnresolvedLookupExpr(clang::UnresolvedLookupExpr *E) {
    for (const clang::NamedDecl *D : E->decls()) {
      add(E->getNameLoc(), D->getUnderlyingDecl());
      break;
    }
    return true;
  }
  bool VisitTagTypeLoc(clang::TagTypeLoc TL) {
    add(TL.getNameLoc(), TL.getDecl());
    return true;
  }
  bool VisitTypedefTypeLoc(clang::TypedefTypeLoc TL) {
    add(TL.getNameLoc(), TL.getTypedefNameDecl());
    return true;
  }
  bool VisitInjectedClassNameTypeLoc(clang::InjectedClassNameTypeLoc TL) {
    add(TL.getNameLoc(), TL.getDecl());
    return true;
  }
  bool VisitTemplateSpecializationTypeLoc(clang::TemplateSpecializationTypeLoc TL) {
    if (const clang::TemplateDecl *T =
            TL.getTypePtr()->getTemplateName().getAsTemplateDecl())
      add(TL.getTemplateNameLoc(), T);
    return true;
  }

private:
  const clang::SourceManager &SM;

  void add(clang::SourceLocation Loc, const clang::NamedDecl *D) {
    if (!D || Loc.isInvalid() || !D->getIdentifier())
      return;
    const clang::NamedDecl *Symbol = symbolOf(D);
    if (!Symbol->getDeclContext()->getRedeclContext()->isFileContext())
      return;
    if (!SM.isWrittenInMainFile(SM.getExpansionLoc(Symbol->getLocation())) ||
        !SM.isWrittenInMainFile(SM.getExpansionLoc(Loc)))
      return;
    if (Seen.insert({Loc.getRawEncoding(), Symbol}).second)
      Result.push_back({Loc, Symbol});
  }

  std::set<std::pair<unsigned, const clang::NamedDecl *>> Seen;
};

} // namespace

std::vector<SymbolSpelling> mainFileSymbolSpellings(clang::ASTUnit &Unit) {
  SpellingCollector Collector(Unit);
  Collector.TraverseDecl(Unit.getASTContext().getTranslationUnitDecl());
  return std::move(Collector.Result);
}

std::map<std::string, std::string> userMacros(clang::ASTUnit &Unit) {
  std::map<std::string, std::string> Result;
  clang::Preprocessor &PP = Unit.getPreprocessor();
  const clang::SourceManager &SM = Unit.getSourceManager();
  for (const auto &[Name, State] : PP.macros()) {
    const clang::MacroInfo *MI = PP.getMacroInfo(Name);
    if (!MI || MI->isBuiltinMacro())
      continue;
    clang::SourceLocation Begin = MI->getDefinitionLoc();
    if (Begin.isInvalid() || !SM.getFileEntryRefForID(SM.getFileID(Begin)) ||
        SM.isInSystemHeader(Begin))
      continue;
    clang::CharSourceRange Range = clang::CharSourceRange::getTokenRange(
        Begin, MI->getDefinitionEndLoc());
    Result[Name->getName().str()] =
        clang::Lexer::getSourceText(Range, SM, Unit.getLangOpts()).str();
  }
  return Result;
}

} // namespace kfuse

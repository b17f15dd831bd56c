//===- FileSymbols.cpp - what an input file declares at file scope --------===//

#include "kfuse/Analysis/Kernel/FileSymbols.h"

#include "clang/Lex/PreprocessingRecord.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/HeaderSearch.h"
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
    if (const clang::TemplateDecl *T = TL.getTypePtr()->getTemplateName().getAsTemplateDecl())
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

namespace {

/// Macro definitions compare equal when only their white space differs.
std::string normalized(llvm::StringRef Definition) {
  std::string Result;
  bool Space = false;
  for (size_t I = 0; I < Definition.size(); ++I) {
    char C = Definition[I];
    bool Continuation = C == '\\' && I + 1 < Definition.size() &&
                        (Definition[I + 1] == '\n' || Definition[I + 1] == '\r');
    if (Continuation || llvm::isSpace(C)) {
      Space = true;
      continue;
    }
    if (Space && !Result.empty())
      Result += ' ';
    Space = false;
    Result += C;
  }
  return Result;
}

std::string realPath(const clang::SourceManager &SM, clang::FileID File) {
  clang::OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
  return Entry ? Entry->getFileEntry().tryGetRealPathName().str() : "";
}

} // namespace

std::map<std::string, UserMacro> userMacros(clang::ASTUnit &Unit,
                                            std::optional<clang::SourceLocation> At) {
  std::map<std::string, UserMacro> Result;
  clang::Preprocessor &PP = Unit.getPreprocessor();
  const clang::SourceManager &SM = Unit.getSourceManager();
  clang::HeaderSearch &Headers = PP.getHeaderSearchInfo();
  for (const auto &[Name, State] : PP.macros()) {
    // A header may #undef at its end what its kernels use.
    const clang::MacroInfo *MI =
        At ? PP.getMacroDefinitionAtLoc(Name, *At).getMacroInfo() : PP.getMacroInfo(Name);
    if (!MI || MI->isBuiltinMacro())
      continue;
    clang::SourceLocation Begin = MI->getDefinitionLoc();
    clang::FileID File = Begin.isValid() ? SM.getFileID(Begin) : clang::FileID();
    clang::OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
    if (!Entry || SM.isInSystemHeader(Begin))
      continue;
    clang::CharSourceRange Range =
        clang::CharSourceRange::getTokenRange(Begin, MI->getDefinitionEndLoc());
    UserMacro M;
    M.Definition = clang::Lexer::getSourceText(Range, SM, Unit.getLangOpts()).str();
    M.Normalized = normalized(M.Definition);
    M.File = realPath(SM, File);
    M.Guard = Headers.getFileInfo(*Entry).getControllingMacro(nullptr) == Name;
    M.Loc = Begin;
    Result[Name->getName().str()] = std::move(M);
  }
  return Result;
}

std::map<std::string, UserMacro> otherPassMacros(clang::ASTUnit &Unit) {
  std::map<std::string, UserMacro> Result;
  clang::PreprocessingRecord *Record = Unit.getPreprocessor().getPreprocessingRecord();
  const clang::SourceManager &SM = Unit.getSourceManager();
  if (!Record)
    return Result;
  for (clang::SourceRange Skipped : Record->getSkippedRanges()) {
    if (SM.isInSystemHeader(Skipped.getBegin()))
      continue;
    bool Invalid = false;
    llvm::StringRef Text = clang::Lexer::getSourceText(
        clang::CharSourceRange::getCharRange(Skipped), SM, Unit.getLangOpts(), &Invalid);
    if (Invalid)
      continue;
    llvm::SmallVector<llvm::StringRef> Lines;
    Text.split(Lines, '\n');
    for (llvm::StringRef Line : Lines) {
      Line = Line.trim();
      if (!Line.consume_front("#"))
        continue;
      Line = Line.ltrim();
      if (!Line.consume_front("define"))
        continue;
      llvm::StringRef Name =
          Line.ltrim().take_while([](char C) { return clang::isAsciiIdentifierContinue(C); });
      if (Name.empty())
        continue;
      UserMacro M;
      M.File = realPath(SM, SM.getFileID(Skipped.getBegin()));
      M.Loc = Skipped.getBegin();
      M.OtherPass = true;
      Result.emplace(Name.str(), std::move(M));
    }
  }
  return Result;
}

std::set<std::string> projectFiles(clang::ASTUnit &Unit) {
  std::set<std::string> Files;
  const clang::SourceManager &SM = Unit.getSourceManager();
  for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
    clang::FileID File = SM.translateFile(It->first);
    if (File.isValid() && !SM.isInSystemHeader(SM.getLocForStartOfFile(File)))
      Files.insert(It->first.getFileEntry().tryGetRealPathName().str());
  }
  Files.erase("");
  return Files;
}

} // namespace kfuse

//===- ParamTypes.cpp - where a kernel parameter's types are declared -----===//

#include "kfuse/Analysis/Kernel/ParamTypes.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"

namespace kfuse {
namespace {

/// The declarations of the classes and enums \p T names, through
/// pointers, references, arrays and template arguments.
void namedTypeDecls(clang::QualType T, std::vector<const clang::TagDecl *> &Out) {
  T = T.getCanonicalType();
  while (true) {
    if (const auto *P = T->getAs<clang::PointerType>())
      T = P->getPointeeType();
    else if (const auto *R = T->getAs<clang::ReferenceType>())
      T = R->getPointeeType();
    else if (const clang::ArrayType *A = T->getAsArrayTypeUnsafe())
      T = A->getElementType();
    else
      break;
  }
  const clang::TagDecl *D = T->getAsTagDecl();
  if (!D)
    return;
  Out.push_back(D);
  if (const auto *S = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(D))
    for (const clang::TemplateArgument &A : S->getTemplateArgs().asArray())
      if (A.getKind() == clang::TemplateArgument::Type)
        namedTypeDecls(A.getAsType(), Out);
}

} // namespace

ParamTypeHomes paramTypeHomes(const clang::ParmVarDecl &P, clang::ASTUnit &Unit) {
  const clang::SourceManager &SM = Unit.getSourceManager();
  ParamTypeHomes Out;
  std::vector<const clang::TagDecl *> Decls;
  namedTypeDecls(P.getType(), Decls);
  for (const clang::TagDecl *D : Decls) {
    clang::SourceLocation Loc = SM.getExpansionLoc(D->getLocation());
    clang::OptionalFileEntryRef File = SM.getFileEntryRefForID(SM.getFileID(Loc));
    if (SM.isInMainFile(Loc) || !File || !D->isExternallyVisible()) {
      Out.LocalType = D->getQualifiedNameAsString();
      Out.LocalTypeFile = File ? llvm::sys::path::filename(File->getName()).str() : "";
      continue;
    }
    std::string Header;
    if (SM.isInSystemHeader(Loc)) {
      bool Angled = true;
      Header = "<" +
               Unit.getPreprocessor().getHeaderSearchInfo().suggestPathToFileForDiagnostics(
                   *File, "", &Angled) +
               ">";
    } else {
      Header = File->getFileEntry().tryGetRealPathName().str();
    }
    if (!Header.empty() && !llvm::is_contained(Out.Headers, Header))
      Out.Headers.push_back(Header);
  }
  return Out;
}

} // namespace kfuse

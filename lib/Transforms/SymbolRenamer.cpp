//===- SymbolRenamer.cpp - giving a body's symbols fresh names ------------===//

#include "kfuse/Transforms/HorizontalFuser.h"
#include "kfuse/Transforms/KernelRewrites.h"

namespace kfuse {

bool renameSymbols(const KernelModel &Model, const RenameMap &Names, EditSet &Edits) {
  bool Ok = true;
  auto NewName = [&](const clang::NamedDecl *D) -> const std::string * {
    auto It = Names.find(D);
    return It == Names.end() ? nullptr : &It->second;
  };
  for (const clang::VarDecl *Local : Model.Locals)
    if (const std::string *Name = NewName(Local))
      Ok &= Edits.replaceToken(Local->getLocation(), *Name, Local->getName());
  for (const clang::DeclRefExpr *Ref : Model.LocalRefs)
    if (const std::string *Name = NewName(Ref->getDecl()))
      Ok &= Edits.replaceToken(Ref->getLocation(), *Name, Ref->getDecl()->getName());
  // `::threadIdx` would name the fused block's; unqualified it finds the
  // view of the block the section declares.
  for (const BuiltinUse &U : Model.Builtins)
    if (U.Ref->hasQualifier())
      Ok &= Edits.replaceRange(U.Ref->getSourceRange(), U.Ref->getDecl()->getName(),
                               U.Ref->getDecl()->getName());
  for (const clang::LabelStmt *Label : Model.LabelStmts)
    if (const std::string *Name = NewName(Label->getDecl()))
      Ok &= Edits.replaceToken(Label->getIdentLoc(), *Name, Label->getName());
  for (const clang::GotoStmt *Goto : Model.Gotos)
    if (const std::string *Name = NewName(Goto->getLabel()))
      Ok &= Edits.replaceToken(Goto->getLabelLoc(), *Name, Goto->getLabel()->getName());
  return Ok;
}

bool renameFileSymbols(const FileRenames &Renames, clang::SourceRange Body,
                       const clang::SourceManager &SM, EditSet &Edits) {
  bool Ok = true;
  for (const SymbolSpelling &S : Renames.Spellings) {
    clang::SourceLocation At = SM.getExpansionLoc(S.Loc);
    if (SM.isBeforeInTranslationUnit(At, SM.getExpansionLoc(Body.getBegin())) ||
        SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Body.getEnd()), At))
      continue;
    if (S.Loc.isMacroID() && !SM.isMacroArgExpansion(S.Loc))
      continue;
    Ok &= Edits.replaceToken(S.Loc, Renames.NewNames.at(S.Symbol), S.Symbol->getName());
  }
  return Ok;
}

RenameMap freshNames(const KernelModel &Model, const std::string &Prefix, bool Params,
                     NameAllocator &Names) {
  RenameMap Result;
  auto Fresh = [&](const clang::NamedDecl *D, llvm::StringRef Fallback) {
    std::string Name = D->getIdentifier() ? D->getName().str() : Fallback.str();
    Result[D] = Names.allocate(Prefix + "_" + Name);
  };
  if (Params)
    for (const clang::ParmVarDecl *P : Model.Params)
      Fresh(P, "arg");
  for (const clang::VarDecl *V : Model.Locals)
    if (!Model.keepsName(V))
      Fresh(V, "local");
  for (const clang::LabelDecl *L : Model.Labels)
    Fresh(L, "label");
  return Result;
}

} // namespace kfuse

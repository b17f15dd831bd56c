//===- SymbolRenamer.cpp - giving each kernel's symbols fresh names -------===//

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
  for (const clang::LabelStmt *Label : Model.LabelStmts)
    if (const std::string *Name = NewName(Label->getDecl()))
      Ok &= Edits.replaceToken(Label->getIdentLoc(), *Name, Label->getName());
  for (const clang::GotoStmt *Goto : Model.Gotos)
    if (const std::string *Name = NewName(Goto->getLabel()))
      Ok &= Edits.replaceToken(Goto->getLabelLoc(), *Name, Goto->getLabel()->getName());
  return Ok;
}

} // namespace kfuse

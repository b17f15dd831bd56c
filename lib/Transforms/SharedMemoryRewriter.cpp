//===- SharedMemoryRewriter.cpp - a region of dynamic shared memory each --===//
//
// Every extern __shared__ array of a block starts at the same address, so
// two fused kernels' arrays would overlap. Each kernel's arrays become
// pointers to its own region of the fused kernel's dynamic shared memory,
// which the launcher lays out from the bytes each launch asks for.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Transforms/KernelRewrites.h"

#include "clang/AST/ASTContext.h"

namespace kfuse {
namespace {

std::string elementType(const clang::VarDecl &Var) {
  const clang::ASTContext &AST = Var.getASTContext();
  const clang::ArrayType *Array = AST.getAsArrayType(Var.getType());
  clang::QualType Element = Array ? Array->getElementType() : Var.getType();
  return Element.getAsString(AST.getPrintingPolicy());
}

unsigned alignment(const clang::VarDecl &Var) {
  return static_cast<unsigned>(Var.getASTContext().getDeclAlign(&Var).getQuantity());
}

} // namespace

bool rewriteDynamicShared(const KernelModel &Model, const RenameMap &Names, SectionContext &Ctx,
                          EditSet &Edits) {
  bool Ok = true;
  for (const SharedVariable &S : Model.Shared) {
    if (!S.Dynamic)
      continue;
    Ctx.UsesDynamicShared = true;
    Ctx.DynamicSharedAlign = std::max(Ctx.DynamicSharedAlign, alignment(*S.Var));
    std::string Type = elementType(*S.Var);
    if (S.FileScope) {
      Ctx.FileScopeDynamicShared[S.Var->getName().str()] = Type;
      continue;
    }
    auto Renamed = Names.find(S.Var);
    std::string Name = Renamed == Names.end() ? S.Var->getName().str() : Renamed->second;
    Ok &= Edits.replaceRange(S.Var->getSourceRange(),
                             Type + " *const " + Name + " = reinterpret_cast<" + Type + " *>(" +
                                 Ctx.DynamicShared + ")",
                             S.Var->getName());
  }
  return Ok;
}

} // namespace kfuse

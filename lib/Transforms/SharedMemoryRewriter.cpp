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

// `T *const Name = reinterpret_cast<T *>(Source)` for the array's element
// type T, printed by Clang so that an array of arrays (`T s[][N]`) becomes
// `T (*const s)[N]`.
std::string declaration(const clang::VarDecl &Var, const std::string &Name,
                        const std::string &Source) {
  const clang::ASTContext &AST = Var.getASTContext();
  const clang::ArrayType *Array = AST.getAsArrayType(Var.getType());
  clang::QualType Element = Array ? Array->getElementType() : Var.getType();
  clang::QualType Pointer = AST.getPointerType(Element);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  Pointer.withConst().print(OS, AST.getPrintingPolicy(), Name);
  OS << " = reinterpret_cast<" << Pointer.getAsString(AST.getPrintingPolicy()) << ">(" << Source
     << ")";
  return Text;
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
    if (S.FileScope) {
      std::string Name = S.Var->getName().str();
      Ctx.FileScopeDynamicShared[Name] = declaration(*S.Var, Name, Ctx.DynamicShared);
      continue;
    }
    auto Renamed = Names.find(S.Var);
    std::string Name = Renamed == Names.end() ? S.Var->getName().str() : Renamed->second;
    Ok &= Edits.replaceRange(S.Var->getSourceRange(), declaration(*S.Var, Name, Ctx.DynamicShared),
                             S.Var->getName());
  }
  return Ok;
}

} // namespace kfuse

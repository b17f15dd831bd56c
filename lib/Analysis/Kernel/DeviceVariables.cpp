//===- DeviceVariables.cpp - globals the fused kernels must share ---------===//

#include "kfuse/Analysis/Kernel/DeviceVariables.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <vector>

namespace kfuse {

namespace {

/// Whether \p V is declared `__managed__`: Clang 19 ignores the attribute
/// outside HIP, so the declaration's text says it.
bool spelledManaged(const clang::VarDecl &V) {
  const clang::SourceManager &SM = V.getASTContext().getSourceManager();
  clang::CharSourceRange Range = SM.getExpansionRange(V.getSourceRange());
  return clang::Lexer::getSourceText(Range, SM, V.getASTContext().getLangOpts())
      .contains("__managed__");
}

} // namespace

bool isMutableDeviceVariable(const clang::VarDecl &V) {
  if (!V.hasGlobalStorage() || V.isStaticLocal() || V.hasAttr<clang::CUDASharedAttr>() ||
      V.getType().isConstQualified() || V.isConstexpr())
    return false;
  return V.hasAttr<clang::CUDADeviceAttr>() || V.hasAttr<clang::CUDAConstantAttr>() ||
         V.hasAttr<clang::HIPManagedAttr>() || spelledManaged(V);
}

namespace {

using namespace clang;

/// Whether the reference at the top of \p Parents (innermost last) only reads
/// the variable's value: through array subscripts, member accesses and
/// dereferences down to a load.
bool onlyReads(const std::vector<const Stmt *> &Parents) {
  for (size_t I = Parents.size(); I-- > 1;) {
    const Stmt *Child = Parents[I];
    const Stmt *Parent = Parents[I - 1];
    if (isa<ParenExpr>(Parent))
      continue;
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Parent)) {
      if (Cast->getCastKind() == CK_LValueToRValue)
        return true;
      if (Cast->getCastKind() == CK_ArrayToPointerDecay || Cast->getCastKind() == CK_NoOp)
        continue;
      return false;
    }
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(Parent)) {
      if (Subscript->getBase()->IgnoreParenImpCasts() == Child || Subscript->getBase() == Child)
        continue;
      return true; // Used as the index: read.
    }
    if (const auto *Member = dyn_cast<MemberExpr>(Parent)) {
      if (isa<FieldDecl>(Member->getMemberDecl()))
        continue;
      return false; // A member function may write.
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(Parent)) {
      if (Unary->getOpcode() == UO_Deref)
        continue;
      return false; // ++, --, &: a write or an escape.
    }
    if (isa<UnaryExprOrTypeTraitExpr>(Parent))
      return true; // sizeof evaluates nothing.
    return false;
  }
  return false;
}

bool isDeviceCode(const FunctionDecl *F) {
  return F && (F->hasAttr<CUDAGlobalAttr>() || F->hasAttr<CUDADeviceAttr>());
}

/// Every reference to a variable on the device, with whether it only reads
/// and whether host code makes it.
class WriterFinder : public RecursiveASTVisitor<WriterFinder> {
public:
  explicit WriterFinder(std::map<const VarDecl *, DeviceVariable> &Variables)
      : Variables(Variables) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }

  bool TraverseFunctionDecl(FunctionDecl *F) {
    return inFunction(F, [&] { return Base::TraverseFunctionDecl(F); });
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *F) {
    return inFunction(F, [&] { return Base::TraverseCXXMethodDecl(F); });
  }
  bool TraverseCXXConstructorDecl(CXXConstructorDecl *F) {
    return inFunction(F, [&] { return Base::TraverseCXXConstructorDecl(F); });
  }
  bool TraverseCXXDestructorDecl(CXXDestructorDecl *F) {
    return inFunction(F, [&] { return Base::TraverseCXXDestructorDecl(F); });
  }
  bool TraverseCXXConversionDecl(CXXConversionDecl *F) {
    return inFunction(F, [&] { return Base::TraverseCXXConversionDecl(F); });
  }

  bool TraverseStmt(Stmt *S) {
    if (!S)
      return true;
    Parents.push_back(S);
    bool Result = Base::TraverseStmt(S);
    Parents.pop_back();
    return Result;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    auto It = V ? Variables.find(V->getCanonicalDecl()) : Variables.end();
    if (It == Variables.end() || !It->second.WrittenBy.empty())
      return true;
    const FunctionDecl *F = Functions.empty() ? nullptr : Functions.back();
    if (!isDeviceCode(F))
      It->second.WrittenBy = "host code names it";
    else if (!onlyReads(Parents))
      It->second.WrittenBy = "device code writes it or takes its address";
    else
      return true;
    It->second.Writer = E->getLocation();
    return true;
  }

private:
  using Base = RecursiveASTVisitor<WriterFinder>;
  std::map<const VarDecl *, DeviceVariable> &Variables;
  std::vector<const Stmt *> Parents;
  std::vector<const FunctionDecl *> Functions;

  template <typename Fn> bool inFunction(const FunctionDecl *F, Fn Traverse) {
    Functions.push_back(F);
    std::vector<const Stmt *> Outer;
    Outer.swap(Parents);
    bool Result = Traverse();
    Parents.swap(Outer);
    Functions.pop_back();
    return Result;
  }
};

class VariableCollector : public RecursiveASTVisitor<VariableCollector> {
public:
  explicit VariableCollector(const SourceManager &SM) : SM(SM) {}
  bool VisitVarDecl(VarDecl *V) {
    if (isMutableDeviceVariable(*V) && !SM.isInSystemHeader(V->getLocation()))
      Found.push_back(V->getCanonicalDecl());
    return true;
  }
  std::vector<const VarDecl *> Found;

private:
  const SourceManager &SM;
};

} // namespace

std::map<const VarDecl *, DeviceVariable> analyzeDeviceVariables(ASTUnit &Unit) {
  ASTContext &AST = Unit.getASTContext();
  bool Relocatable = AST.getLangOpts().GPURelocatableDeviceCode;
  VariableCollector Collector(Unit.getSourceManager());
  Collector.TraverseDecl(AST.getTranslationUnitDecl());
  std::map<const VarDecl *, DeviceVariable> Variables;
  for (const VarDecl *V : Collector.Found)
    Variables[V].Relocatable = Relocatable;
  if (Variables.empty())
    return Variables;
  WriterFinder Writers(Variables);
  Writers.TraverseDecl(AST.getTranslationUnitDecl());
  for (auto &[V, Facts] : Variables) {
    bool External = V->isExternallyVisible();
    bool Defined = V->getDefinition() != nullptr;
    if (Facts.WrittenBy.empty() && Defined && (!Relocatable || !External))
      Facts.Reach = VariableReach::Copy;
    else if (Relocatable && External)
      Facts.Reach = VariableReach::Extern;
    else
      Facts.Reach = VariableReach::SameUnit;
  }
  return Variables;
}

} // namespace kfuse

//===- LaunchArguments.cpp - does a launch spec fit its kernel? -----------===//

#include "kfuse/Analysis/Kernel/LaunchArguments.h"

#include "kfuse/Diagnostics/Reporter.h"

#include "clang/AST/ASTContext.h"

namespace kfuse {

using diag::ID;

/// The element type a scalar parameter of type \p T is passed as, if the
/// harness has one of that size and kind.
std::optional<ElementType> elementTypeOf(clang::QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *E = T->getAs<clang::EnumType>())
    T = E->getDecl()->getIntegerType().getCanonicalType();
  const auto *B = T->getAs<clang::BuiltinType>();
  if (!B)
    return std::nullopt;
  switch (B->getKind()) {
  case clang::BuiltinType::Bool:
  case clang::BuiltinType::UChar:
  case clang::BuiltinType::Char_U:
    return ElementType::U8;
  case clang::BuiltinType::SChar:
  case clang::BuiltinType::Char_S:
    return ElementType::I8;
  case clang::BuiltinType::Short:
    return ElementType::I16;
  case clang::BuiltinType::UShort:
    return ElementType::U16;
  case clang::BuiltinType::Int:
    return ElementType::I32;
  case clang::BuiltinType::UInt:
    return ElementType::U32;
  case clang::BuiltinType::Long:
  case clang::BuiltinType::LongLong:
    return ElementType::I64;
  case clang::BuiltinType::ULong:
  case clang::BuiltinType::ULongLong:
    return ElementType::U64;
  case clang::BuiltinType::Float:
    return ElementType::F32;
  case clang::BuiltinType::Double:
    return ElementType::F64;
  default:
    return std::nullopt;
  }
}

namespace {

/// Random bits in a pointer would send the kernel anywhere.
bool hasPointers(clang::ASTContext &AST, clang::QualType T) {
  T = AST.getBaseElementType(T.getCanonicalType());
  if (T->isPointerType() || T->isReferenceType())
    return true;
  if (const auto *Record = T->getAsCXXRecordDecl()) {
    for (const clang::FieldDecl *F : Record->fields())
      if (hasPointers(AST, F->getType()))
        return true;
    for (const clang::CXXBaseSpecifier &B : Record->bases())
      if (hasPointers(AST, B.getType()))
        return true;
  }
  return false;
}

/// Whether a buffer of elements of \p Bytes can stand for an array of
/// \p Pointee: a number of that size, or a vector or a struct without
/// pointers or virtual functions (uint4, half2, a node of ints) made of
/// whole elements, which the harness fills and compares element by element.
bool bufferFits(clang::ASTContext &AST, clang::QualType Pointee, unsigned Bytes) {
  if (Pointee->isVoidType())
    return true;
  if (Pointee->isIncompleteType())
    return false;
  // A pointer to rows (`const double a[][N][M]`): a buffer of their elements.
  if (const clang::ConstantArrayType *Rows = AST.getAsConstantArrayType(Pointee))
    return bufferFits(AST, AST.getBaseElementType(Rows), Bytes);
  long long Size = AST.getTypeSizeInChars(Pointee).getQuantity();
  if (Pointee->isArithmeticType())
    return Size == Bytes;
  const auto *Record = Pointee->getAsCXXRecordDecl();
  bool Plain =
      Pointee->isVectorType() || (Record && !Record->isPolymorphic() && !hasPointers(AST, Pointee));
  return Plain && Size % Bytes == 0;
}

} // namespace

std::optional<std::vector<CheckedLaunchArg>>
checkLaunchArguments(const FusionMember &M, const std::string &ConfigPath, Reporter &Diags) {
  const KernelSpec &Spec = *M.Spec;
  const std::vector<LaunchArg> &Args = Spec.Launch->Args;
  auto Problem = [&](ID Id, ConfigPosition At, std::vector<std::string> Text) {
    Diags.report({{Id, At.Line, At.Column, std::move(Text)}}, ConfigPath);
  };
  if (Args.size() != M.Model.Params.size()) {
    Problem(ID::TuneArgCount, Spec.Launch->Position,
            {Spec.Id, std::to_string(Args.size()), std::to_string(M.Model.Params.size())});
    return std::nullopt;
  }
  clang::ASTContext &AST = M.Unit->getASTContext();
  std::vector<CheckedLaunchArg> Checked;
  bool Fits = true;
  for (size_t I = 0; I < Args.size(); ++I) {
    const LaunchArg &A = Args[I];
    const clang::ParmVarDecl *P = M.Model.Params[I];
    clang::QualType T = P->getType().getCanonicalType();
    std::optional<ElementType> Type;
    if (!A.IsBuffer)
      Type = elementTypeOf(T);
    else if (T->isPointerType() && bufferFits(AST, T->getPointeeType(), elementBytes(A.Type)))
      Type = A.Type;
    if (Type) {
      Checked.push_back({&A, *Type});
      continue;
    }
    std::string What =
        A.IsBuffer ? std::string("a buffer of ") + elementSpelling(A.Type) : "the value " + A.Value;
    Problem(ID::TuneArgMismatch, A.Position,
            {std::to_string(I + 1), Spec.Id, What, P->getNameAsString(),
             P->getType().getAsString(AST.getPrintingPolicy())});
    Fits = false;
  }
  if (!Fits)
    return std::nullopt;
  return Checked;
}

bool tunable(const Config &C, const FusionSpec &F, Reporter &Diags) {
  // A chain inside a horizontal fusion is one kernel of it, which the
  // harness's variants do not model.
  if (C.kernelsOf(F) != F.Kernels) {
    Diags.report({{ID::TuneVertical, F.Position.Line, F.Position.Column, {F.Name}}}, C.Path);
    return false;
  }
  bool Ok = true;
  for (const std::string &Id : F.Kernels) {
    const KernelSpec *K = C.findKernel(Id);
    if (K->LaunchFill) {
      Diags.report({{ID::TuneLaunchFill, K->LaunchFill->Line, K->LaunchFill->Column, {Id}}},
                   C.Path);
      Ok = false;
    } else if (!K->Launch) {
      Diags.report({{ID::TuneNoLaunch, K->Position.Line, K->Position.Column, {Id}}}, C.Path);
      Ok = false;
    }
  }
  return Ok;
}

} // namespace kfuse

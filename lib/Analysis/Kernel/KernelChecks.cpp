//===- KernelChecks.cpp - the checks of one body the fused kernel runs ----===//
//
// Horizontal fusion gives each kernel a range of one block's threads and turns
// its barriers into partial barriers that count only that range. That is only
// equivalent to the original when every construct acting on "the whole
// block" is one kfuse rewrites, and when every thread of the range reaches
// each partial barrier. These checks read one body at a time: the kernel's,
// then each function inlined into it (runKernelChecks walks them).
//
//===----------------------------------------------------------------------===//

#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Legality.h"

#include "kfuse/Diagnostics/Reporter.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/Version.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <set>

namespace kfuse {
namespace {

using diag::ID;

/// The first type \p F's body names unqualified that a class declares (a
/// member's nested struct or typedef): out of the class, no name reaches it.
class ClassScopedTypes : public clang::RecursiveASTVisitor<ClassScopedTypes> {
public:
  const clang::NamedDecl *Found = nullptr;
  bool VisitElaboratedTypeLoc(clang::ElaboratedTypeLoc TL) {
    if (Found || TL.getTypePtr()->getQualifier())
      return true;
    const clang::Type *Named = TL.getNamedTypeLoc().getTypePtr();
    const clang::NamedDecl *D = nullptr;
    if (const auto *T = Named->getAs<clang::TypedefType>())
      D = T->getDecl();
    else if (const auto *S = llvm::dyn_cast<clang::TemplateSpecializationType>(Named))
      D = S->getTemplateName().getAsTemplateDecl();
    else
      D = Named->getAsTagDecl();
    if (D && llvm::isa<clang::CXXRecordDecl>(D->getDeclContext()))
      Found = D;
    return true;
  }
};

const clang::NamedDecl *classScopedType(const clang::FunctionDecl &F) {
  const clang::FunctionDecl *Definition = F.getDefinition();
  if (!Definition || !Definition->getBody() || !llvm::isa<clang::CXXMethodDecl>(Definition))
    return nullptr;
  ClassScopedTypes Visitor;
  Visitor.TraverseStmt(Definition->getBody());
  return Visitor.Found;
}

clang::DiagnosticBuilder report(const BodyUnderCheck &B, Reporter &Diags, clang::SourceLocation Loc,
                                ID Id) {
  return Diags.report(Loc, B.SM, Id);
}

/// Where a refusal inside an inlined function came from.
void noteInlinedFrom(const BodyUnderCheck &B, Reporter &Diags) {
  if (!B.CallStack.empty())
    report(B, Diags, B.CallStack.front()->getBeginLoc(), ID::NoteInlinedFrom) << B.Kernel;
}

void reportRejected(const BodyUnderCheck &B, Reporter &Diags, const clang::FunctionDecl &F,
                    const Rejection &Why) {
  report(B, Diags, Why.Loc, ID::ClangRejects)
      << B.Kernel << F.getQualifiedNameAsString() << CLANG_VERSION_STRING << (&F != B.Stack.front())
      << Why.Message;
}

void reportGroupCall(const BodyUnderCheck &B, Reporter &Diags, const clang::CallExpr &Call,
                     const GroupCall &What) {
  std::string Name = Call.getDirectCallee() ? Call.getDirectCallee()->getQualifiedNameAsString()
                                            : std::string("sync");
  if (What.Kind == GroupCallKind::GridSync)
    report(B, Diags, Call.getBeginLoc(), ID::GridSync) << Name;
  else
    report(B, Diags, Call.getBeginLoc(), ID::KernelThisThreadBlock) << Name << What.Why;
}

/// A call whose callee's own body raises a group refusal, reported where it
/// happens (checkCooperativeGroups).
bool refusedGroupCall(const CalleeEffect &E) {
  return !E.Rejected && E.GroupCall && !E.touchesBlock();
}

std::string touches(const CalleeEffect &E) {
  if (E.Synchronizes)
    return "synchronizes the threads";
  if (E.ReadsBuiltins)
    return "reads threadIdx, blockDim, blockIdx or gridDim";
  if (E.WarpSync && !E.UsesShared)
    return "synchronizes a warp";
  return "uses shared memory";
}

std::string qualifiedName(const clang::FunctionDecl *F) {
  return F ? F->getQualifiedNameAsString() : "a function pointer";
}

} // namespace

std::optional<std::string> callObstacle(const CallSite &C,
                                        llvm::ArrayRef<const clang::FunctionDecl *> Stack) {
  const clang::FunctionDecl *F = C.Callee;
  if (C.lowering() == CallLowering::SectionCopy && *C.NotCopyable)
    return std::string(C.NotCopyable);
  if (C.Effect.InSystemHeader)
    return "it belongs to the CUDA toolkit, which kfuse does not inline";
  if (!F->getDefinition())
    return "kfuse cannot see its definition";
  if (llvm::is_contained(Stack, F->getDefinition()))
    return "it calls itself, and only functions that end can be inlined";
  if (const auto *Method = llvm::dyn_cast<clang::CXXMethodDecl>(F); Method && Method->isVirtual())
    return "it is virtual, so the call may run another function";
  if (F->isVariadic())
    return "it takes a variable number of arguments";
  if (const clang::TemplateArgumentList *Args = F->getTemplateSpecializationArgs())
    for (const clang::TemplateArgument &A : Args->asArray())
      if (A.getKind() != clang::TemplateArgument::Type &&
          A.getKind() != clang::TemplateArgument::Integral)
        return "it has a template argument that is neither a type nor an integer";
  if (const clang::NamedDecl *Type = classScopedType(*F))
    return "its body names '" + Type->getNameAsString() + "', a member of '" +
           llvm::cast<clang::NamedDecl>(Type->getDeclContext())->getNameAsString() +
           "' without qualification, which the body cannot name outside its class";
  return std::nullopt;
}

void checkBodyReadable(const BodyUnderCheck &B, Reporter &Diags) {
  if (B.Model.Rejected) {
    reportRejected(B, Diags, *B.Model.Decl, *B.Model.Rejected);
    noteInlinedFrom(B, Diags);
    return;
  }
  for (const CallSite &C : B.Model.Calls)
    if (C.Effect.Rejected) {
      reportRejected(B, Diags, *C.Effect.RejectedFunction, *C.Effect.Rejected);
      report(B, Diags, C.Call->getBeginLoc(), ID::NoteCalledFrom) << qualifiedName(C.Callee);
    }
  for (const SpecialCall &C : B.Model.SpecialCalls)
    if (C.Effect.Rejected) {
      reportRejected(B, Diags, *C.Effect.RejectedFunction, *C.Effect.Rejected);
      report(B, Diags, C.Loc, ID::NoteCalledFrom) << C.Callee->getQualifiedNameAsString();
    }
}

void checkPreprocessor(const BodyUnderCheck &B, Reporter &Diags) {
  if (!B.Model.Conditionals.Unbalanced)
    return;
  report(B, Diags, *B.Model.Conditionals.Unbalanced, ID::ConditionalInKernel) << B.Model.Name;
  noteInlinedFrom(B, Diags);
}

void checkBarriers(const BodyUnderCheck &B, Reporter &Diags) {
  const KernelModel &Model = B.Model;
  bool Reported = false;
  for (const Barrier &Bar : Model.Barriers)
    if (Bar.Kind == BarrierKind::Named) {
      report(B, Diags, Bar.Call->getBeginLoc(), ID::UnsupportedBarrier) << Bar.Callee;
      Reported = true;
    }
  for (const AsmBarrier &Asm : Model.AsmBarriers)
    if (!Asm.Partial) {
      report(B, Diags, Asm.Stmt->getBeginLoc(), ID::InlineAsmBarrier) << Model.Name;
      Reported = true;
    }
  if (!Model.Gotos.empty() && !Model.Barriers.empty()) {
    report(B, Diags, Model.Gotos.front()->getBeginLoc(), ID::GotoWithBarrier) << Model.Name;
    Reported = true;
  }
  if (Reported)
    noteInlinedFrom(B, Diags);
}

void checkCooperativeGroups(const BodyUnderCheck &B, Reporter &Diags) {
  const KernelModel &Model = B.Model;
  for (const clang::CallExpr *Sync : Model.GridSyncs)
    reportGroupCall(B, Diags, *Sync, {GroupCallKind::GridSync, {}, 0, ""});
  for (const GroupRefusal &R : Model.GroupRefusals)
    reportGroupCall(B, Diags, *R.Call, {GroupCallKind::Unsupported, {}, 0, R.Why});
  if (!Model.GridSyncs.empty() || !Model.GroupRefusals.empty())
    noteInlinedFrom(B, Diags);
  // A callee kfuse does not inline: reported where it happens.
  for (const CallSite &C : Model.Calls)
    if (refusedGroupCall(C.Effect)) {
      reportGroupCall(B, Diags, *C.Effect.GroupCall, C.Effect.Group);
      report(B, Diags, C.Call->getBeginLoc(), ID::NoteCalledFrom) << qualifiedName(C.Callee);
    }
  for (const SpecialCall &C : Model.SpecialCalls)
    if (refusedGroupCall(C.Effect)) {
      reportGroupCall(B, Diags, *C.Effect.GroupCall, C.Effect.Group);
      report(B, Diags, C.Loc, ID::NoteCalledFrom) << C.Callee->getQualifiedNameAsString();
    }
}

void checkCalls(const BodyUnderCheck &B, Reporter &Diags) {
  for (const CallSite &C : B.Model.Calls) {
    if (C.Effect.Rejected || refusedGroupCall(C.Effect))
      continue;
    clang::SourceLocation Loc = C.Call->getBeginLoc();
    if (C.Effect.touchesBlock()) {
      if (std::optional<std::string> Why = callObstacle(C, B.Stack)) {
        report(B, Diags, Loc, ID::CallNotInlinable)
            << qualifiedName(C.Callee) << touches(C.Effect) << *Why;
        noteInlinedFrom(B, Diags);
      }
    } else if (C.Effect.Unknown) {
      report(B, Diags, Loc, ID::CallWithoutBody) << qualifiedName(C.Callee);
      noteInlinedFrom(B, Diags);
    }
  }
  // kfuse does not inline constructors and destructors: one that must be
  // (it reads thread indices, synchronizes or uses shared memory) stops the
  // fusion, as an unknown one does.
  for (const SpecialCall &C : B.Model.SpecialCalls) {
    if (C.Effect.Rejected || refusedGroupCall(C.Effect))
      continue;
    std::string Callee = C.Callee->getQualifiedNameAsString();
    if (C.Effect.touchesBlock() || C.Effect.WarpSync) {
      report(B, Diags, C.Loc, ID::CallNotInlinable)
          << Callee << touches(C.Effect)
          << "it constructs an object (its constructor, member initializers or destructor "
             "do this), and kfuse inlines function calls only";
      noteInlinedFrom(B, Diags);
    } else if (C.Effect.Unknown) {
      report(B, Diags, C.Loc, ID::CallWithoutBody) << Callee;
      noteInlinedFrom(B, Diags);
    }
  }
}

void checkExitBarriers(const BodyUnderCheck &B, Reporter &Diags) {
  // A return in an inlined function leaves that function, not the kernel.
  if (!B.CallStack.empty() || !needsExitAwareBarriers(B.Model))
    return;
  for (const Barrier &Bar : B.Model.Barriers)
    if (Bar.Kind == BarrierKind::SyncThreadsCount) {
      report(B, Diags, B.Model.Returns.front().Stmt->getBeginLoc(), ID::ReturnBeforeBarrier)
          << B.Model.Name << Bar.Callee;
      report(B, Diags, Bar.Call->getBeginLoc(), ID::NoteBarrierHere);
      return;
    }
}

namespace {

/// Why a name an inlined body spells would find something else where it
/// lands (the %select of kfuse-name-capture).
enum class Capture {
  KeptLocal = 0,   ///< A local a macro body spells, so no edit renames it.
  LocalKind = 1,   ///< A local type, enumerator or structured binding: never renamed.
  MacroRename = 2, ///< The macro body spelling the use is redefined with new names.
  OtherScope = 3,  ///< Found in the callee's namespace or class, not the kernel's.
};

/// A name a body spells that the inlined copy looks up again: a variable,
/// function, enumerator or type declared outside any function, or the
/// first name of a qualifier (`ns` of `ns::x`; `::x` is looked up nowhere
/// else).
struct SpelledName {
  llvm::StringRef Name;
  clang::SourceLocation Loc;
  const clang::NamedDecl *Decl; ///< What it found; null for a qualifier.
};

class SpelledNames : public clang::RecursiveASTVisitor<SpelledNames> {
public:
  std::vector<SpelledName> Found;

  bool VisitDeclRefExpr(clang::DeclRefExpr *E) {
    if (E->getDecl()->getDeclContext()->isFunctionOrMethod())
      return true;
    if (clang::NestedNameSpecifierLoc Q = E->getQualifierLoc())
      qualifier(Q);
    else if (E->getDecl()->getIdentifier())
      Found.push_back({E->getDecl()->getName(), E->getLocation(), E->getDecl()});
    return true;
  }
  bool VisitTypeLoc(clang::TypeLoc TL) {
    if (auto E = TL.getAs<clang::ElaboratedTypeLoc>()) {
      if (clang::NestedNameSpecifierLoc Q = E.getQualifierLoc()) {
        qualifier(Q);
        // The type it names is looked up in the qualifier, not where it lands.
        Qualified.insert(E.getNamedTypeLoc().getBeginLoc().getRawEncoding());
      }
      return true;
    }
    const clang::NamedDecl *D = nullptr;
    if (auto T = TL.getAs<clang::TypedefTypeLoc>())
      D = T.getTypedefNameDecl();
    else if (auto T = TL.getAs<clang::TagTypeLoc>())
      D = T.getDecl();
    if (D && D->getIdentifier() && !D->getDeclContext()->isFunctionOrMethod() &&
        !Qualified.count(TL.getBeginLoc().getRawEncoding()))
      Found.push_back({D->getName(), TL.getBeginLoc(), D});
    return true;
  }

private:
  std::set<clang::SourceLocation::UIntTy> Qualified; ///< Where qualified types begin.

  /// The first name of \p Q, unless it starts at the global namespace.
  void qualifier(clang::NestedNameSpecifierLoc Q) {
    while (clang::NestedNameSpecifierLoc Prefix = Q.getPrefix())
      Q = Prefix;
    const clang::NestedNameSpecifier *N = Q.getNestedNameSpecifier();
    const clang::NamedDecl *First = nullptr;
    if (N->getKind() == clang::NestedNameSpecifier::Namespace)
      First = N->getAsNamespace();
    else if (N->getKind() == clang::NestedNameSpecifier::NamespaceAlias)
      First = N->getAsNamespaceAlias();
    else if (const clang::Type *T = N->getAsType())
      First = T->getAsTagDecl();
    if (First && First->getIdentifier())
      Found.push_back({First->getName(), Q.getLocalBeginLoc(), nullptr});
  }
};

/// The names a body spells that its inlined copy looks up again.
std::vector<SpelledName> spelledNames(const clang::Stmt *Body) {
  SpelledNames Visitor;
  Visitor.TraverseStmt(const_cast<clang::Stmt *>(Body));
  return std::move(Visitor.Found);
}

/// Declarations of locals kfuse never renames: types, enumerators and
/// structured bindings declared in a body.
class LocalKinds : public clang::RecursiveASTVisitor<LocalKinds> {
public:
  std::vector<const clang::NamedDecl *> Found;
  bool VisitTypedefNameDecl(clang::TypedefNameDecl *D) { return add(D); }
  bool VisitTagDecl(clang::TagDecl *D) { return add(D); }
  bool VisitEnumConstantDecl(clang::EnumConstantDecl *D) { return add(D); }
  bool VisitBindingDecl(clang::BindingDecl *D) { return add(D); }

private:
  bool add(const clang::NamedDecl *D) {
    if (D->getIdentifier())
      Found.push_back(D);
    return true;
  }
};

/// A name of an enclosing body that an inlined body's spelling could find.
struct Shadow {
  llvm::StringRef Name;
  const KernelModel *Owner;
  Capture Why;
};

/// What \p Model declares that an inlined body could find instead of what
/// its spelling meant: locals that keep their names, local kinds kfuse
/// never renames, and (for spellings in macro bodies, which the section
/// redefines with the new names) every parameter and local.
std::vector<Shadow> shadowsOf(const KernelModel &Model) {
  std::vector<Shadow> Shadows;
  for (const clang::VarDecl *V : Model.Locals)
    Shadows.push_back(
        {V->getName(), &Model, Model.keepsName(V) ? Capture::KeptLocal : Capture::MacroRename});
  for (const clang::ParmVarDecl *P : Model.Params)
    if (P->getIdentifier())
      Shadows.push_back({P->getName(), &Model, Capture::MacroRename});
  LocalKinds Kinds;
  Kinds.TraverseStmt(Model.Decl->getBody());
  for (const clang::NamedDecl *D : Kinds.Found)
    Shadows.push_back({D->getName(), &Model, Capture::LocalKind});
  return Shadows;
}

/// The call site of \p Call in \p Caller.
const CallSite *siteOf(const KernelModel &Caller, const clang::CallExpr *Call) {
  for (const CallSite &C : Caller.Calls)
    if (C.Call == Call)
      return &C;
  return nullptr;
}

/// Whether the fused kernel, which stands where kernel \p Kernel is,
/// finds \p D by its unqualified name: D lies at file scope or in a
/// namespace that encloses the kernel.
bool visibleFrom(const clang::NamedDecl &D, const clang::FunctionDecl &Kernel) {
  const clang::DeclContext *Home = D.getDeclContext()->getRedeclContext();
  if (Home->isTranslationUnit())
    return true;
  return Home->isNamespace() && Home->Encloses(Kernel.getDeclContext());
}

} // namespace

void checkNameCapture(const BodyUnderCheck &B, Reporter &Diags) {
  if (B.Models.size() < 2)
    return; // The kernel's own body finds what it found.
  // The names it spells: its body's, and its default arguments', which
  // the inlined copy evaluates where the call was.
  std::vector<SpelledName> Names = spelledNames(B.Model.Decl->getBody());
  for (const clang::Expr *Arg : B.CallStack.back()->arguments())
    if (const auto *Default = llvm::dyn_cast<clang::CXXDefaultArgExpr>(Arg)) {
      std::vector<SpelledName> More = spelledNames(Default->getExpr());
      Names.insert(Names.end(), More.begin(), More.end());
    }
  // The bodies this one lands in: back to the kernel, or to the nearest
  // call of a copy the section defines (which stands where the section
  // begins, outside every body that calls it).
  size_t First = B.Models.size() - 1;
  while (First > 0) {
    const CallSite *Into = siteOf(*B.Models[First - 1], B.CallStack[First - 1]);
    if (!Into || Into->lowering() == CallLowering::SectionCopy)
      break;
    --First;
  }
  std::vector<Shadow> Shadows;
  for (size_t I = First; I + 1 < B.Models.size(); ++I) {
    std::vector<Shadow> Of = shadowsOf(*B.Models[I]);
    Shadows.insert(Shadows.end(), Of.begin(), Of.end());
  }
  const clang::FunctionDecl &Kernel = *B.Stack.front();
  for (const SpelledName &N : Names) {
    auto Report = [&](const std::string &Owner, Capture Why) {
      report(B, Diags, B.SM.getExpansionLoc(N.Loc), ID::NameCapture)
          << B.Model.Name << N.Name << Owner << static_cast<unsigned>(Why);
    };
    if (N.Decl && !visibleFrom(*N.Decl, Kernel)) {
      Report(B.Kernel, Capture::OtherScope);
      continue;
    }
    bool InMacroBody = N.Loc.isMacroID() && B.SM.isMacroBodyExpansion(N.Loc);
    for (const Shadow &S : Shadows)
      if (S.Name == N.Name && (S.Why != Capture::MacroRename || InMacroBody)) {
        Report(S.Owner->Name, S.Why);
        break;
      }
  }
}

void checkThreadExit(const BodyUnderCheck &B, Reporter &Diags) {
  bool Reported = false;
  for (const clang::GCCAsmStmt *Asm : B.Model.AsmExits) {
    report(B, Diags, Asm->getBeginLoc(), ID::AsmEndsThread)
        << B.Model.Name << threadEndingInstruction(*Asm);
    Reported = true;
  }
  // An inlined callee is checked as a body of its own; another call runs as written.
  for (const CallSite &C : B.Model.Calls)
    if (C.Effect.EndsThread && !C.Effect.touchesBlock()) {
      report(B, Diags, C.Call->getBeginLoc(), ID::AsmEndsThread)
          << qualifiedName(C.Callee) << threadEndingInstruction(*C.Effect.EndsThread);
      Reported = true;
    }
  if (Reported)
    noteInlinedFrom(B, Diags);
}

void checkStaticLocals(const BodyUnderCheck &B, Reporter &Diags) {
  bool Reported = false;
  for (const clang::VarDecl *V : B.Model.StaticLocals) {
    report(B, Diags, V->getLocation(), ID::StaticLocal) << B.Model.Name << V->getName();
    Reported = true;
  }
  // An inlined callee is checked as a body of its own; another call runs a
  // copy of its function, which the fused file holds too.
  for (const CallSite &C : B.Model.Calls)
    if (C.Effect.StaticLocal && !C.Effect.touchesBlock()) {
      report(B, Diags, C.Call->getBeginLoc(), ID::StaticLocal)
          << qualifiedName(C.Callee) << C.Effect.StaticLocal->getName();
      Reported = true;
    }
  if (Reported)
    noteInlinedFrom(B, Diags);
}

} // namespace kfuse

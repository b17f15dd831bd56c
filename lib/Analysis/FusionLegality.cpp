//===- FusionLegality.cpp - can these kernels be fused safely? ------------===//
//
// Horizontal fusion gives each kernel a range of one block's threads and turns
// its barriers into partial barriers that count only that range. That is only
// equivalent to the original when every construct acting on "the whole
// block" is one kfuse rewrites, and when every thread of the range reaches
// each partial barrier. Whatever kfuse cannot prove is refused here.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Analysis/FusionLegality.h"

#include "kfuse/Analysis/MemoryAccess.h"

#include "kfuse/Diagnostics/Reporter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/Version.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace kfuse {
namespace {

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

} // namespace

namespace {

using diag::ID;

/// Checks a kernel and, through its calls, every function inlined into it.
class MemberChecker {
public:
  MemberChecker(const FusionMember &M, Reporter &Diags)
      : M(M), SM(M.Unit->getSourceManager()), Diags(Diags) {}

  void run() {
    const KernelModel &Model = M.Model;
    checkDeviceVariables();
    checkBody(Model);
    checkReturns(Model);
    checkPadding(Model);
    if (auto [Var, Helper] = Model.dynamicShared(); Var && M.Spec->AnyBlockSize) {
      report(Model.Decl->getLocation(), ID::DynamicSharedResizable) << Model.Name;
      if (Helper)
        report(Var->getLocation(), ID::NoteDynamicSharedHere)
            << Helper->getQualifiedNameAsString() << Var->getName();
    }
  }

private:
  const FusionMember &M;
  clang::SourceManager &SM;
  Reporter &Diags;
  std::vector<const clang::FunctionDecl *> Stack; ///< Functions being inlined, outermost first.
  std::vector<const clang::CallExpr *> CallStack;

  clang::DiagnosticBuilder report(clang::SourceLocation Loc, ID Id) {
    return Diags.report(Loc, SM, Id);
  }

  /// Where an error inside an inlined function came from.
  void noteInlinedFrom() {
    if (!CallStack.empty())
      report(CallStack.front()->getBeginLoc(), ID::NoteInlinedFrom) << M.Model.Name;
  }

  /// Variables the program writes that only the same translation unit reaches.
  void checkDeviceVariables() {
    if (M.SameUnit)
      return;
    for (const clang::VarDecl *V : M.Model.reachedDeviceVariables()) {
      auto It = M.Variables->find(V);
      if (It == M.Variables->end() || It->second.Reach != VariableReach::SameUnit)
        continue;
      const DeviceVariable &Facts = It->second;
      // -rdc only joins variables of external linkage, and is already on.
      bool RdcHelps = !Facts.Relocatable && V->isExternallyVisible();
      report(V->getLocation(), ID::DeviceVariable)
          << M.Model.Name << V->getName() << M.Spec->File << !RdcHelps;
      if (Facts.Writer.isValid())
        report(Facts.Writer, ID::NoteVariableWriter) << Facts.WrittenBy;
    }
  }

  void reportGroupCall(const clang::CallExpr &Call, const GroupCall &What) {
    std::string Name = Call.getDirectCallee() ? Call.getDirectCallee()->getQualifiedNameAsString()
                                              : std::string("sync");
    if (What.Kind == GroupCallKind::GridSync)
      report(Call.getBeginLoc(), ID::GridSync) << Name;
    else
      report(Call.getBeginLoc(), ID::KernelThisThreadBlock) << Name << What.Why;
  }

  void reportRejected(const clang::FunctionDecl &F, const Rejection &Why) {
    report(Why.Loc, ID::ClangRejects)
        << M.Model.Name << F.getQualifiedNameAsString() << CLANG_VERSION_STRING
        << (&F != M.Model.Decl) << Why.Message;
  }

  void checkBody(const KernelModel &Model) {
    unsigned Before = Diags.errorCount();
    if (Model.Rejected) {
      // Nothing else about a body Clang could not read is reliable.
      reportRejected(*Model.Decl, *Model.Rejected);
      noteInlinedFrom();
      return;
    }
    Stack.push_back(Model.Decl);
    if (Model.Conditionals.Unbalanced)
      report(*Model.Conditionals.Unbalanced, ID::ConditionalInKernel) << Model.Name;
    checkBarriers(Model);
    for (const clang::CallExpr *Sync : Model.GridSyncs)
      reportGroupCall(*Sync, {GroupCallKind::GridSync, {}, 0, ""});
    for (const GroupRefusal &R : Model.GroupRefusals)
      reportGroupCall(*R.Call, {GroupCallKind::Unsupported, {}, 0, R.Why});
    if (Diags.errorCount() != Before)
      noteInlinedFrom();
    checkCalls(Model);
    checkSpecialCalls(Model);
    Stack.pop_back();
  }

  void checkBarriers(const KernelModel &Model) {
    for (const Barrier &B : Model.Barriers) {
      if (B.Kind == BarrierKind::Named)
        report(B.Call->getBeginLoc(), ID::UnsupportedBarrier) << B.Callee;
    }
    for (const AsmBarrier &Asm : Model.AsmBarriers)
      if (!Asm.Partial)
        report(Asm.Stmt->getBeginLoc(), ID::InlineAsmBarrier) << Model.Name;
    if (!Model.Gotos.empty() && !Model.Barriers.empty())
      report(Model.Gotos.front()->getBeginLoc(), ID::GotoWithBarrier) << Model.Name;
  }

  static std::string touches(const CalleeEffect &E) {
    if (E.Synchronizes)
      return "synchronizes the threads";
    if (E.ReadsBuiltins)
      return "reads threadIdx, blockDim, blockIdx or gridDim";
    if (E.WarpSync && !E.UsesShared)
      return "synchronizes a warp";
    return "uses shared memory";
  }

  /// Why \p C can be neither inlined nor called as a copy the section
  /// defines (C.lowering() says which it needs), or nothing.
  std::optional<std::string> obstacle(const CallSite &C) const {
    const clang::FunctionDecl *F = C.Callee;
    if (C.lowering() == CallLowering::SectionCopy && *C.NotCopyable)
      return std::string(C.NotCopyable);
    if (C.Effect.InSystemHeader)
      return "it belongs to the CUDA toolkit, which kfuse does not inline";
    if (!F->getDefinition())
      return "kfuse cannot see its definition";
    if (std::find(Stack.begin(), Stack.end(), F->getDefinition()) != Stack.end())
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

  /// kfuse does not inline constructors and destructors: one that must be
  /// (it reads thread indices, synchronizes or uses shared memory) stops the
  /// fusion, as an unknown one does.
  void checkSpecialCalls(const KernelModel &Model) {
    for (const SpecialCall &C : Model.SpecialCalls) {
      std::string Callee = C.Callee->getQualifiedNameAsString();
      if (C.Effect.Rejected) {
        reportRejected(*C.Effect.RejectedFunction, *C.Effect.Rejected);
        report(C.Loc, ID::NoteCalledFrom) << Callee;
      } else if (C.Effect.GroupCall && !C.Effect.touchesBlock()) {
        reportGroupCall(*C.Effect.GroupCall, C.Effect.Group);
        report(C.Loc, ID::NoteCalledFrom) << Callee;
      } else if (C.Effect.touchesBlock() || C.Effect.WarpSync) {
        report(C.Loc, ID::CallNotInlinable)
            << Callee << touches(C.Effect)
            << "it constructs an object (its constructor, member initializers or destructor "
               "do this), and kfuse inlines function calls only";
        noteInlinedFrom();
      } else if (C.Effect.Unknown) {
        report(C.Loc, ID::CallWithoutBody) << Callee;
        noteInlinedFrom();
      }
    }
  }

  void checkCalls(const KernelModel &Model) {
    for (const CallSite &C : Model.Calls) {
      std::string Callee = C.Callee ? C.Callee->getQualifiedNameAsString() : "a function pointer";
      clang::SourceLocation Loc = C.Call->getBeginLoc();
      if (C.Effect.Rejected) {
        reportRejected(*C.Effect.RejectedFunction, *C.Effect.Rejected);
        report(Loc, ID::NoteCalledFrom) << Callee;
      } else if (C.Effect.GroupCall && !C.Effect.touchesBlock()) {
        // Reported where it happens; an inlined function's own body says it below.
        reportGroupCall(*C.Effect.GroupCall, C.Effect.Group);
        report(Loc, ID::NoteCalledFrom) << Callee;
      } else if (C.Effect.touchesBlock()) {
        if (std::optional<std::string> Why = obstacle(C)) {
          report(Loc, ID::CallNotInlinable) << Callee << touches(C.Effect) << *Why;
          noteInlinedFrom();
          continue;
        }
        CallStack.push_back(C.Call);
        checkBody(M.Helpers->of(*C.Callee));
        CallStack.pop_back();
      } else if (C.Effect.Unknown) {
        report(Loc, ID::CallWithoutBody) << Callee;
        noteInlinedFrom();
      }
    }
  }

  /// A block smaller than whole warps is padded; the padding threads arrive
  /// at plain barriers only.
  void checkPadding(const KernelModel &Model) {
    unsigned Threads = M.Spec->blockThreads();
    if (M.Spec->AnyBlockSize || Threads % 32 == 0)
      return;
    // The padding lanes of the last warp run elsewhere in the fused block.
    for (const clang::CallExpr *Sync : Model.WarpSyncs)
      report(Sync->getBeginLoc(), ID::PaddedWarpSync) << Model.Name << Threads << "__syncwarp";
    for (const CallSite &C : Model.Calls)
      if (C.Effect.WarpSync && C.Callee)
        report(C.Call->getBeginLoc(), ID::PaddedWarpSync)
            << Model.Name << Threads << C.Callee->getQualifiedNameAsString();
    for (const Barrier &B : Model.Barriers)
      if (B.Kind == BarrierKind::SyncThreadsCount) {
        report(B.Call->getBeginLoc(), ID::PaddedCountBarrier) << Model.Name << Threads << B.Callee;
        return;
      }
  }

  void checkReturns(const KernelModel &Model) {
    if (!needsExitAwareBarriers(Model))
      return;
    for (const Barrier &B : Model.Barriers)
      if (B.Kind == BarrierKind::SyncThreadsCount) {
        report(Model.Returns.front().Stmt->getBeginLoc(), ID::ReturnBeforeBarrier)
            << Model.Name << B.Callee;
        report(B.Call->getBeginLoc(), ID::NoteBarrierHere);
        return;
      }
  }
};

/// Two kernels must not share memory that one fused block holds once.
void checkSharedAcrossMembers(const std::vector<FusionMember> &Members, Reporter &Diags) {
  std::map<std::pair<std::string, std::string>, const FusionMember *> FileScopeOwners;
  for (const FusionMember &M : Members) {
    clang::SourceManager &SM = M.Unit->getSourceManager();
    for (const SharedVariable &S : M.Model.Shared) {
      if (!S.FileScope || S.Dynamic)
        continue;
      auto Key = std::make_pair(M.Spec->ResolvedFile, S.Var->getNameAsString());
      auto [It, New] = FileScopeOwners.emplace(Key, &M);
      if (!New)
        Diags.report(S.Var->getLocation(), SM, ID::SharedVariableAlias)
            << It->second->Model.Name << M.Model.Name << S.Var->getName();
    }
  }
}

/// Static shared memory of \p Model and of the helpers inlined into it,
/// each variable once.
void staticShared(const KernelModel &Model, FunctionModels &Helpers,
                  std::set<const clang::VarDecl *> &Seen, uint64_t &Bytes, unsigned Depth = 0) {
  for (const SharedVariable &S : Model.Shared)
    if (!S.Dynamic && Seen.insert(S.Var).second)
      Bytes += S.Bytes;
  if (Depth > 16)
    return;
  for (const CallSite &C : Model.Calls)
    if (C.Callee && C.Effect.UsesShared && C.Callee->getDefinition())
      staticShared(Helpers.of(*C.Callee), Helpers, Seen, Bytes, Depth + 1);
}

/// The fused kernel declares every member's static shared memory: past
/// 48 KiB ptxas rejects it.
void checkStaticShared(const std::vector<FusionMember> &Members, Reporter &Diags) {
  uint64_t Bytes = 0;
  std::string Kernels;
  for (const FusionMember &M : Members) {
    std::set<const clang::VarDecl *> Seen;
    staticShared(M.Model, *M.Helpers, Seen, Bytes);
    Kernels += (Kernels.empty() ? "'" : ", '") + M.Model.Name + "'";
  }
  if (Bytes > 48 * 1024)
    Diags.report(Members.back().Model.Decl->getLocation(), Members.back().Unit->getSourceManager(),
                 ID::StaticSharedTooLarge)
        << Kernels << std::to_string(Bytes);
}

} // namespace

bool needsExitAwareBarriers(const KernelModel &Model) {
  if (Model.Returns.empty())
    return false;
  if (!Model.returnsBeforeBarriers().empty())
    return true;
  return std::any_of(Model.Calls.begin(), Model.Calls.end(),
                     [](const CallSite &C) { return C.Effect.Synchronizes; });
}

namespace {

void collectAsmBarrierIds(const KernelModel &Model, FunctionModels &Helpers,
                          std::vector<const clang::FunctionDecl *> &Visiting,
                          std::vector<unsigned> &Ids) {
  std::vector<unsigned> Own = Model.asmBarrierIds();
  Ids.insert(Ids.end(), Own.begin(), Own.end());
  Visiting.push_back(Model.Decl);
  for (const CallSite *C : Model.callsToInline()) {
    const clang::FunctionDecl *Callee = C->Callee->getDefinition();
    if (Callee && std::find(Visiting.begin(), Visiting.end(), Callee) == Visiting.end())
      collectAsmBarrierIds(Helpers.of(*Callee), Helpers, Visiting, Ids);
  }
  Visiting.pop_back();
}

} // namespace

std::vector<unsigned> reservedBarrierIds(const FusionMember &M) {
  std::vector<unsigned> Ids;
  std::vector<const clang::FunctionDecl *> Visiting;
  collectAsmBarrierIds(M.Model, *M.Helpers, Visiting, Ids);
  std::sort(Ids.begin(), Ids.end());
  Ids.erase(std::unique(Ids.begin(), Ids.end()), Ids.end());
  return Ids;
}

bool checkGridMode(const std::vector<FusionMember> &Members, GridMode Grid,
                   const std::string &Fusion, Reporter &Diags) {
  if (Grid == GridMode::AsLaunched || !pollsOtherBlocks(Members))
    return true;
  unsigned Before = Diags.errorCount();
  for (const FusionMember &M : Members) {
    clang::SourceManager &SM = M.Unit->getSourceManager();
    clang::LangOptions Lang = M.Unit->getLangOpts();
    auto Report = [&](const clang::Expr *Read) {
      llvm::StringRef Text = clang::Lexer::getSourceText(
          clang::CharSourceRange::getTokenRange(Read->getSourceRange()), SM, Lang);
      Diags.report(Read->getBeginLoc(), SM, ID::PersistentSpinWait)
          << M.Model.Name << (Text.empty() ? "memory" : Text) << gridModeName(Grid) << Fusion;
    };
    for (const clang::Expr *Read : M.Model.SpinWaits)
      Report(Read);
    for (const CallSite &Call : M.Model.Calls)
      if (Call.Effect.SpinWait) {
        Report(Call.Effect.SpinWait);
        Diags.report(Call.Call->getBeginLoc(), SM, ID::NoteCalledFrom)
            << Call.Callee->getQualifiedNameAsString();
      }
  }
  return Diags.errorCount() == Before;
}

bool pollsOtherBlocks(const std::vector<FusionMember> &Members) {
  return std::any_of(Members.begin(), Members.end(), [](const FusionMember &M) {
    return !M.Model.SpinWaits.empty() ||
           std::any_of(M.Model.Calls.begin(), M.Model.Calls.end(),
                       [](const CallSite &C) { return C.Effect.SpinWait != nullptr; });
  });
}

namespace {

/// The first access of \p M that writes (or, when \p Writes is false, any access).
const MemoryAccess *firstAccess(const MemoryAccesses &M, bool Writes) {
  for (const MemoryAccess &A : M.Accesses)
    if (!Writes || A.writes())
      return &A;
  return nullptr;
}

/// The first access of any memory of \p K that another kernel may see,
/// that writes when \p Writes.
const MemoryAccess *firstAccess(const KernelAccesses &K, bool Writes) {
  for (const auto *List : {&K.Buffers, &K.Other})
    for (const MemoryAccesses &M : *List)
      if (const MemoryAccess *A = firstAccess(M, Writes))
        return A;
  return nullptr;
}

/// Reports a __device__ variable both kernels use and one writes.
void checkVariables(const FusionMember &A, const KernelAccesses &OfA, const FusionMember &B,
                    const KernelAccesses &OfB, Reporter &Diags) {
  for (const MemoryAccesses &V : OfA.Other) {
    if (V.Kind != MemoryKind::Variable)
      continue;
    std::string Name = V.Variable->getQualifiedNameAsString();
    for (const MemoryAccesses &W : OfB.Other) {
      if (W.Kind != MemoryKind::Variable || W.Variable->getQualifiedNameAsString() != Name)
        continue;
      if (const MemoryAccess *Write = firstAccess(V, /*Writes=*/true))
        Diags.report(Write->Loc, A.Unit->getSourceManager(), ID::VariableOrder)
            << A.Spec->Id << Name << B.Spec->Id;
      else if (const MemoryAccess *Write = firstAccess(W, /*Writes=*/true))
        Diags.report(Write->Loc, B.Unit->getSourceManager(), ID::VariableOrder)
            << B.Spec->Id << Name << A.Spec->Id;
    }
  }
}

/// Reports memory \p A reaches that no argument names, when \p B may use it.
bool checkUnknown(const FusionMember &A, const KernelAccesses &OfA, const FusionMember &B,
                  const KernelAccesses &OfB, Reporter &Diags) {
  const MemoryAccesses *Unknown = OfA.unknown();
  if (!Unknown || Unknown->Accesses.empty())
    return false;
  const MemoryAccess *Mine = firstAccess(*Unknown, /*Writes=*/true);
  bool Writes = Mine != nullptr;
  if (!Mine)
    Mine = &Unknown->Accesses.front();
  const MemoryAccess *Theirs = firstAccess(OfB, /*Writes=*/!Writes);
  if (!Theirs)
    return false;
  // Where the project's code reaches it: not a line of a toolkit header.
  auto Where = [](const MemoryAccess &X) { return X.CalledAt.isValid() ? X.CalledAt : X.Loc; };
  Diags.report(Where(*Mine), A.Unit->getSourceManager(), ID::UnknownMemoryOrder)
      << A.Spec->Id << spelling(Mine->Kind) << Mine->Text << Mine->Why << B.Spec->Id
      << (Writes ? "uses" : "writes");
  Diags.report(Where(*Theirs), B.Unit->getSourceManager(), ID::NoteOtherAccess)
      << B.Spec->Id << spelling(Theirs->Kind) << Theirs->Text;
  return true;
}

} // namespace

bool checkMemoryOrder(const std::vector<FusionMember> &Members, Reporter &Diags) {
  unsigned Before = Diags.errorCount();
  std::vector<KernelAccesses> Accesses;
  for (const FusionMember &M : Members)
    Accesses.push_back(analyzeAccesses(*M.Model.Decl, M.Spec->Block));
  for (size_t I = 0; I < Members.size(); ++I)
    for (size_t J = I + 1; J < Members.size(); ++J) {
      checkVariables(Members[I], Accesses[I], Members[J], Accesses[J], Diags);
      if (!checkUnknown(Members[I], Accesses[I], Members[J], Accesses[J], Diags))
        checkUnknown(Members[J], Accesses[J], Members[I], Accesses[I], Diags);
    }
  return Diags.errorCount() == Before;
}

bool checkHorizontalFusion(const std::vector<FusionMember> &Members, Reporter &Diags) {
  unsigned Before = Diags.errorCount();
  for (const FusionMember &M : Members)
    MemberChecker(M, Diags).run();
  checkSharedAcrossMembers(Members, Diags);
  checkStaticShared(Members, Diags);
  // Memory an unseen call reaches is unknown; the call's own refusal says more.
  if (Diags.errorCount() == Before)
    checkMemoryOrder(Members, Diags);
  return Diags.errorCount() == Before;
}

const clang::FunctionDecl *resolveKernel(const KernelSpec &K, clang::ASTUnit &Unit,
                                         const std::string &ConfigPath, Reporter &Diags) {
  auto Problem = [&](ID Id, ConfigPosition At, std::vector<std::string> Args) {
    Diags.report({{Id, At.Line, At.Column, std::move(Args)}}, ConfigPath);
  };
  clang::SourceManager &SM = Unit.getSourceManager();
  // One overload among several, named with its parameter types.
  if (auto [Name, Params] = splitOverloadName(K.Kernel); Params) {
    if (const clang::FunctionDecl *F = findOverload(Unit, Name, *Params))
      return F;
    Problem(ID::KernelNotFound, K.Position, {K.Kernel, K.ResolvedFile});
    for (const clang::FunctionDecl *Other : kernelsNamed(Unit, Name))
      Diags.report(Other->getLocation(), SM, ID::NoteKernelCandidate) << overloadName(*Other);
    return nullptr;
  }
  KernelLookup Found = lookUpKernel(Unit, K.Kernel);
  if (Found.Kernel && !Found.Template) {
    // Overloads share a name: the config gives the parameter types.
    std::vector<const clang::FunctionDecl *> Named = kernelsNamed(Unit, K.Kernel);
    if (Named.size() > 1) {
      Problem(ID::KernelAmbiguous, K.Position,
              {K.Kernel, std::to_string(Named.size()), K.ResolvedFile});
      for (const clang::FunctionDecl *Other : Named)
        Diags.report(Other->getLocation(), SM, ID::NoteKernelCandidate) << overloadName(*Other);
      return nullptr;
    }
  }
  if (Found.Kernel)
    return Found.Kernel;
  if (const clang::FunctionDecl *Declared =
          Found.Template ? nullptr : findDeclaredOnlyKernel(Unit, K.Kernel)) {
    Problem(ID::KernelNotDefined, K.Position, {K.ResolvedFile, K.Kernel});
    Diags.report(Declared->getLocation(), SM, ID::NoteDeclaredHere) << K.Kernel;
    return nullptr;
  }
  if (!Found.Template) {
    Problem(ID::KernelNotFound, K.Position, {K.Kernel, K.ResolvedFile});
    for (const clang::FunctionDecl *Other : findKernels(Unit))
      Diags.report(Other->getLocation(), SM, ID::NoteKernelCandidate)
          << Other->getQualifiedNameAsString();
    return nullptr;
  }
  std::string Name = Found.Template->getQualifiedNameAsString();
  if (K.Kernel.find('<') == std::string::npos) {
    std::string Uses = Found.Instantiations.empty()
                           ? "'" + K.File + "' instantiates none"
                           : "'" + K.File + "' uses '" + Found.Instantiations.front() + "'";
    Problem(ID::TemplateNotInstantiated, K.Position, {Name, Uses});
    return nullptr;
  }
  std::string Args = K.Kernel.substr(std::min(K.Kernel.find('<') + 1, K.Kernel.size()));
  if (!Args.empty() && Args.back() == '>')
    Args.pop_back();
  Problem(ID::TemplateNeverUsed, K.Position, {Name, K.File, Args});
  for (const std::string &Spelled : Found.Instantiations)
    Diags.report(Found.Template->getLocation(), SM, ID::NoteKernelCandidate) << Spelled;
  return nullptr;
}

bool checkLaunchBounds(const std::vector<FusionMember> &Members,
                       const std::vector<unsigned> &RangeSizes, Reporter &Diags) {
  bool Ok = true;
  for (size_t I = 0; I < Members.size(); ++I) {
    const KernelModel &Model = Members[I].Model;
    if (Model.LaunchBoundsMaxThreads && RangeSizes[I] > *Model.LaunchBoundsMaxThreads) {
      Diags.report(Model.Decl->getLocation(), Members[I].Unit->getSourceManager(),
                   ID::LaunchBoundsExceeded)
          << Model.Name << RangeSizes[I] << *Model.LaunchBoundsMaxThreads;
      Ok = false;
    }
  }
  return Ok;
}

} // namespace kfuse

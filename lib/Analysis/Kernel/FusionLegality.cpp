//===- FusionLegality.cpp - can these kernels be fused safely? ------------===//
//
// The checks of a kernel as the config declares it, of a fusion's kernels
// together, of its layout and of its planned ranges (LegalityChecks.def);
// KernelChecks.cpp holds those of one body. Whatever kfuse cannot prove is
// refused here.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Analysis/Kernel/FusionLegality.h"

#include "kfuse/Analysis/Kernel/MemoryAccess.h"
#include "kfuse/Analysis/Kernel/ParamTypes.h"
#include "kfuse/Analysis/Legality.h"

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

using diag::ID;

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

void checkDeviceVariables(const FusionMember &M, Reporter &Diags) {
  // A fused file compiled in place of the kernel's file reaches them all.
  if (M.SameUnit)
    return;
  clang::SourceManager &SM = M.Unit->getSourceManager();
  for (const clang::VarDecl *V : M.Model.reachedDeviceVariables()) {
    auto It = M.Variables->find(V);
    if (It == M.Variables->end() || It->second.Reach != VariableReach::SameUnit)
      continue;
    const DeviceVariable &Facts = It->second;
    // -rdc only joins variables of external linkage, and is already on.
    bool RdcHelps = !Facts.Relocatable && V->isExternallyVisible();
    Diags.report(V->getLocation(), SM, ID::DeviceVariable)
        << M.Model.Name << V->getName() << M.Spec->File << !RdcHelps;
    if (Facts.Writer.isValid())
      Diags.report(Facts.Writer, SM, ID::NoteVariableWriter) << Facts.WrittenBy;
  }
}

namespace {

/// The lanes a collective waits for, in words.
std::string lanesNamed(const WarpCollective &W) {
  switch (W.Names) {
  case WarpCollective::Lanes::Mask: {
    char Mask[16];
    snprintf(Mask, sizeof Mask, "0x%08llx", static_cast<unsigned long long>(W.Mask));
    return std::string("the lanes of its mask ") + Mask;
  }
  case WarpCollective::Lanes::Tile:
    return "the " + std::to_string(W.TileSize) + " lanes of its tile";
  case WarpCollective::Lanes::Reaching:
  case WarpCollective::Lanes::Computed:
  case WarpCollective::Lanes::Any:
    break;
  }
  return "lanes kfuse cannot tell apart from the padding";
}

} // namespace

void checkPadding(const FusionMember &M, Reporter &Diags) {
  // A block smaller than whole warps is padded; the padding threads arrive
  // at plain barriers only.
  const KernelModel &Model = M.Model;
  unsigned Threads = M.Spec->blockThreads();
  if (M.Spec->AnyBlockSize || Threads % 32 == 0)
    return;
  clang::SourceManager &SM = M.Unit->getSourceManager();
  // The padding lanes of the last warp run elsewhere in the fused block: a
  // collective may name only the lanes below them.
  bool OneDimensional = M.Spec->Block[1] == 1 && M.Spec->Block[2] == 1;
  auto Live = [&](const WarpCollective &W) {
    return W.namesOnlyLiveLanes(Threads, OneDimensional);
  };
  for (const WarpCollective &W : Model.WarpCollectives)
    if (!Live(W))
      Diags.report(W.At->getBeginLoc(), SM, ID::PaddedWarpSync)
          << Model.Name << Threads << W.Name << lanesNamed(W);
  for (const CallSite &C : Model.Calls) {
    if (!C.Callee)
      continue;
    auto Unsafe =
        llvm::find_if(C.Effect.WarpCollectives, [&](const WarpCollective &W) { return !Live(W); });
    if (Unsafe != C.Effect.WarpCollectives.end())
      Diags.report(C.Call->getBeginLoc(), SM, ID::PaddedWarpSync)
          << Model.Name << Threads << C.Callee->getQualifiedNameAsString()
          << "the lanes that its '" + Unsafe->Name + "' names";
  }
  for (const Barrier &B : Model.Barriers)
    if (B.Kind == BarrierKind::SyncThreadsCount) {
      Diags.report(B.Call->getBeginLoc(), SM, ID::PaddedCountBarrier)
          << Model.Name << Threads << B.Callee;
      return;
    }
}

void checkDynamicShared(const FusionMember &M, Reporter &Diags) {
  auto [Var, Helper] = M.Model.dynamicShared();
  if (!Var || !M.Spec->AnyBlockSize)
    return;
  clang::SourceManager &SM = M.Unit->getSourceManager();
  Diags.report(M.Model.Decl->getLocation(), SM, ID::DynamicSharedResizable) << M.Model.Name;
  if (Helper)
    Diags.report(Var->getLocation(), SM, ID::NoteDynamicSharedHere)
        << Helper->getQualifiedNameAsString() << Var->getName();
}

void checkLauncherHeader(const FusionMember &M, Reporter &Diags) {
  if (!M.LauncherInHeader)
    return;
  clang::SourceManager &SM = M.Unit->getSourceManager();
  for (const clang::ParmVarDecl *P : M.Model.Params) {
    ParamTypeHomes Homes = paramTypeHomes(*P, *M.Unit);
    if (!Homes.LocalType.empty())
      Diags.report(SM.getExpansionLoc(P->getLocation()), SM, ID::HeaderLocalType)
          << P->getName() << M.Model.Name << Homes.LocalType << Homes.LocalTypeFile;
  }
}

void checkSharedMemory(const FusionUnderCheck &F, Reporter &Diags) {
  checkSharedAcrossMembers(F.Members, Diags);
  checkStaticShared(F.Members, Diags);
}

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

void checkGridMode(const LayoutUnderCheck &L, Reporter &Diags) {
  if (L.Grid == GridMode::AsLaunched || !pollsOtherBlocks(L.Members))
    return;
  const std::vector<FusionMember> &Members = L.Members;
  GridMode Grid = L.Grid;
  const std::string &Fusion = L.Fusion;
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
}

void checkThreadShares(const LayoutUnderCheck &L, Reporter &Diags) {
  Diags.report(shareThreads(L.Shares).Problems, L.ConfigPath);
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

void checkMemoryOrder(const FusionUnderCheck &F, Reporter &Diags) {
  // Memory an unseen call reaches is unknown; the call's own refusal says more.
  if (F.EarlierRefusals)
    return;
  const std::vector<FusionMember> &Members = F.Members;
  std::vector<KernelAccesses> Accesses;
  for (const FusionMember &M : Members)
    Accesses.push_back(analyzeAccesses(*M.Model.Decl, M.Spec->Block));
  for (size_t I = 0; I < Members.size(); ++I)
    for (size_t J = I + 1; J < Members.size(); ++J) {
      checkVariables(Members[I], Accesses[I], Members[J], Accesses[J], Diags);
      if (!checkUnknown(Members[I], Accesses[I], Members[J], Accesses[J], Diags))
        checkUnknown(Members[J], Accesses[J], Members[I], Accesses[I], Diags);
    }
}

bool checkHorizontalFusion(const std::vector<FusionMember> &Members, Reporter &Diags) {
  bool Ok = true;
  for (const FusionMember &M : Members) {
    Ok &= runKernelChecks(M.Model, *M.Helpers, M.Unit->getSourceManager(), Diags);
    Ok &= runMemberChecks(M, Diags);
  }
  return runFusionChecks({Members, !Ok}, Diags) && Ok;
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

void checkLaunchBounds(const RangesUnderCheck &R, Reporter &Diags) {
  for (size_t I = 0; I < R.Members.size(); ++I) {
    const KernelModel &Model = R.Members[I].Model;
    if (Model.LaunchBoundsMaxThreads && R.Ranges[I].Size > *Model.LaunchBoundsMaxThreads)
      Diags.report(Model.Decl->getLocation(), R.Members[I].Unit->getSourceManager(),
                   ID::LaunchBoundsExceeded)
          << Model.Name << R.Ranges[I].Size << *Model.LaunchBoundsMaxThreads;
  }
}

std::optional<std::pair<size_t, size_t>> findParam(const ParamRef &Ref,
                                                   const std::vector<FusionMember> &Members) {
  for (size_t M = 0; M < Members.size(); ++M)
    if (Members[M].Spec->Id == Ref.Kernel)
      for (size_t P = 0; P < Members[M].Model.Params.size(); ++P)
        if (Members[M].Model.Params[P]->getName() == Ref.Param)
          return std::make_pair(M, P);
  return std::nullopt;
}

void checkBarrierCounts(const RangesUnderCheck &R, Reporter &Diags) {
  // A chain's kernels share its range's barrier id, each counting its own
  // block, and bar.sync's threads must all give one count. A later kernel
  // on more threads than an earlier one: its threads outside the earlier
  // one's reach its barrier while the earlier one's threads still wait at
  // theirs. On fewer, each of its threads has passed every barrier of the
  // earlier kernel, which all of that kernel's threads then have too.
  for (size_t J = 1; J < R.Ranges.size(); ++J)
    for (size_t I = 0; I < J; ++I) {
      const ThreadRange &A = R.Ranges[I], &B = R.Ranges[J];
      if (A.BarrierId == 0 || A.BarrierId != B.BarrierId || B.Size <= A.Size ||
          !R.Members[I].Model.synchronizes() || !R.Members[J].Model.synchronizes())
        continue;
      Diags.report(
          {{ID::BarrierCounts,
            R.Fusion.Position.Line,
            R.Fusion.Position.Column,
            {R.Fusion.Name, R.Members[I].Spec->Id, R.Members[J].Spec->Id,
             std::to_string(A.BarrierId), std::to_string(A.Size), std::to_string(B.Size)}}},
          R.ConfigPath);
      return;
    }
}

void checkWarpgroupRegisters(const RangesUnderCheck &R, Reporter &Diags) {
  // setmaxnreg changes the registers of whole warpgroups of 128 threads:
  // each kernel must have whole warpgroups to itself, side by side.
  if (R.SectionRegisters == 0)
    return;
  std::string Why;
  if (R.SectionRegisters != R.Ranges.size())
    Why = "there are " + std::to_string(R.Ranges.size()) + " kernels but " +
          std::to_string(R.SectionRegisters) + " register counts";
  else if (R.Vertical || (R.Grid != GridMode::AsLaunched && R.Grid != GridMode::Persistent))
    Why = "only kernels side by side, on the grid as launched or a persistent grid, have "
          "warpgroups of their own";
  for (size_t I = 0; Why.empty() && I < R.Ranges.size(); ++I) {
    const ThreadRange &T = R.Ranges[I];
    if (T.Begin % 128 != 0 || T.Size % 128 != 0 || T.padded())
      Why = "kernel '" + R.Members[I].Spec->Id + "' runs on threads [" + std::to_string(T.Begin) +
            ", " + std::to_string(T.end()) + "), not whole warpgroups of 128";
    // A chain's kernels share their range's warpgroups.
    else if (I > 0 && T.Begin < R.Ranges[I - 1].end())
      Why = "kernels '" + R.Members[I - 1].Spec->Id + "' and '" + R.Members[I].Spec->Id +
            "' share threads [" + std::to_string(T.Begin) + ", " +
            std::to_string(std::min(T.end(), R.Ranges[I - 1].end())) + ")";
  }
  if (!Why.empty())
    Diags.report({{ID::WarpgroupRegisters,
                   R.Fusion.Position.Line,
                   R.Fusion.Position.Column,
                   {R.Fusion.Name, Why}}},
                 R.ConfigPath);
}

} // namespace kfuse

//===- ListCommand.cpp - `kfuse list FILE.cu...` --------------------------===//
//
// Shows, per kernel, what decides whether and how it can be fused, in the
// kernel model's own terms, so a user can see why kfuse accepts or refuses.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Driver/Commands.h"

#include "Support.h"

#include "kfuse/Analysis/Kernel/DeviceVariables.h"
#include "kfuse/Analysis/Kernel/Elementwise.h"
#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/MemoryAccess.h"
#include "kfuse/Analysis/Kernel/StepLoop.h"
#include "kfuse/Analysis/Legality.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Frontend/SourceParser.h"
#include "kfuse/Transforms/HorizontalFuser.h"
#include "kfuse/Transforms/PreambleExtractor.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/Version.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

namespace kfuse {

namespace {

using namespace clang;

class KernelLister {
public:
  KernelLister(ASTUnit &Unit, const RejectedCode &Rejected, Reporter &Diags, llvm::raw_ostream &OS)
      : Unit(Unit), Rejected(Rejected), Helpers(Unit, Rejected),
        Variables(analyzeDeviceVariables(Unit)), SM(Unit.getSourceManager()), Diags(Diags), OS(OS) {
  }

  /// Function bodies Clang rejects, which only matter to kernels that need them.
  void listRejected() {
    if (Rejected.empty())
      return;
    OS << "Clang " << CLANG_VERSION_STRING << " rejects these function bodies (nvcc may accept "
       << "them); kernels that need them cannot be fused:\n";
    for (const auto &[F, Why] : Rejected.all())
      OS << "  " << F->getQualifiedNameAsString() << " (" << where(Why) << ")\n";
  }

  void list(const FunctionDecl &Kernel) {
    KernelModel M = analyzeKernel(Unit, Kernel, Rejected);
    OS << "kernel " << M.Name << " (line " << line(Kernel.getLocation()) << ")\n";
    OS << "  parameters: ";
    if (M.Params.empty())
      OS << "none";
    for (size_t I = 0; I < M.Params.size(); ++I) {
      OS << (I ? ", " : "");
      M.Params[I]->getOriginalType().print(OS, Unit.getASTContext().getPrintingPolicy(),
                                           M.Params[I]->getName());
    }
    OS << "\n  block size: " << blockSize(M) << "\n";
    OS << "  built-ins: " << builtins(M) << "\n";
    OS << "  barriers: " << barriers(M) << "\n";
    OS << "  static shared memory: " << staticShared(M) << "\n";
    OS << "  dynamic shared memory: " << dynamicShared(M) << "\n";
    OS << "  early returns: " << returns(M) << "\n";
    OS << "  calls: " << calls(M) << "\n";
    OS << "  device variables: " << deviceVariables(M) << "\n";
    OS << "  grid: " << grid(M) << "\n";
    if (const FunctionTemplateDecl *T = Kernel.getDescribedFunctionTemplate())
      OS << "  instantiations: " << instantiations(*T) << "\n";
    refusals(M);
    printBuffers(Kernel, M);
  }

private:
  ASTUnit &Unit;
  const RejectedCode &Rejected;
  FunctionModels Helpers;
  std::map<const VarDecl *, DeviceVariable> Variables;
  SourceManager &SM;
  Reporter &Diags;
  llvm::raw_ostream &OS;

  /// Runs the registry's kernel checks, which refuse the kernel beside any
  /// partner: each refusal is a warning, and the list names them.
  void refusals(const KernelModel &M) {
    size_t Before = Diags.refusals().size();
    runKernelChecks(M, Helpers, SM, Diags);
    // Each check that refused, with its ids, in the order they came.
    std::vector<std::pair<llvm::StringRef, std::vector<llvm::StringRef>>> Found;
    for (size_t I = Before; I < Diags.refusals().size(); ++I) {
      diag::ID Id = Diags.refusals()[I];
      const LegalityCheck *Check = checkRaising(Id);
      llvm::StringRef Name = Check ? Check->Name : "?";
      auto It = llvm::find_if(Found, [&](const auto &F) { return F.first == Name; });
      if (It == Found.end())
        It = Found.insert(Found.end(), {Name, {}});
      if (!llvm::is_contained(It->second, diag::stableId(Id)))
        It->second.push_back(diag::stableId(Id));
    }
    if (Found.empty())
      return;
    OS << "  cannot be fused: ";
    for (size_t I = 0; I < Found.size(); ++I)
      OS << (I ? ", " : "") << Found[I].first << " [" << llvm::join(Found[I].second, ", ") << "]";
    OS << "; see the warnings\n";
  }

  unsigned line(SourceLocation Loc) const { return SM.getExpansionLineNumber(Loc); }

  std::string where(const Rejection &Why) const {
    clang::PresumedLoc P = SM.getPresumedLoc(Why.Loc);
    std::string File = P.isValid() ? llvm::sys::path::filename(P.getFilename()).str() : "";
    return File + ":" + std::to_string(line(Why.Loc)) + ": " + Why.Message;
  }

  std::string lines(const std::vector<SourceLocation> &Locs) const {
    std::string S = Locs.size() == 1 ? "line " : "lines ";
    for (size_t I = 0; I < Locs.size(); ++I)
      S += (I ? ", " : "") + std::to_string(line(Locs[I]));
    return S;
  }

  /// Each pointer parameter's accesses with their indices, which decide
  /// whether a later kernel may read what this one wrote in the same thread,
  /// then the memory the kernel reaches otherwise.
  void printBuffers(const FunctionDecl &Kernel, const KernelModel &Model) const {
    KernelAccesses A = analyzeAccesses(Kernel, std::nullopt);
    if (!A.Buffers.empty())
      OS << "  buffers:\n";
    for (const MemoryAccesses &B : A.Buffers) {
      OS << "    " << B.Param->getName() << ":" << (B.Accesses.empty() ? " never accessed" : "")
         << "\n";
      printAccesses(B);
    }
    if (!A.Other.empty()) {
      OS << "  other memory:\n";
      for (const MemoryAccesses &M : A.Other) {
        OS << "    " << M.describe() << ":\n";
        printAccesses(M);
      }
    }
    if (!A.Buffers.empty())
      printElementwise(findElementwise(Model, A, std::nullopt));
    if (ElementwiseResult Form = findElementwiseForm(Model, A, std::nullopt);
        Form.Kernel && Form.Kernel->Loop)
      printStepLoop(findStepLoop(Model, A, std::nullopt));
  }

  /// Whether a vertical chain can run its grid-stride loop in step with
  /// others', so that a temporary it passes or takes stays in a register.
  void printStepLoop(const StepLoopResult &S) const {
    OS << "  loop in step: "
       << (S.Loop ? "yes, from " + S.Loop->Init + " by " + S.Loop->Step +
                        "; a temporary it passes or takes can stay in a register"
                  : "no, " + S.WhyNot)
       << "\n";
  }

  /// Whether a persistent grid can run several of its blocks per iteration
  /// with the loads first (`coarsen:` in a config), and why not.
  void printElementwise(const ElementwiseResult &E) const {
    if (!E.Kernel) {
      OS << "  coarsen: no, " << E.WhyNot << "\n";
      return;
    }
    std::set<std::string> Loaded;
    std::string Names;
    for (const AheadRead &R : E.Kernel->Ahead)
      if (Loaded.insert(R.Buffer->getName().str()).second)
        Names += (Names.empty() ? "'" : ", '") + R.Buffer->getName().str() + "'";
    OS << "  coarsen: "
       << (E.Kernel->Loop ? "grid-stride loop (line " +
                                std::to_string(line(E.Kernel->Loop->Loop->getBeginLoc())) + ", "
                          : std::string("elementwise ("))
       << (E.Kernel->BlockStride
               ? "blocks of " + std::to_string(*E.Kernel->BlockStride) + " threads"
               : "any 1-D block")
       << "); loads " << Names << " ahead\n";
  }

  void printAccesses(const MemoryAccesses &M) const {
    for (const MemoryAccess &Access : M.Accesses) {
      OS << "      " << spelling(Access.Kind);
      if (Access.Kind == AccessKind::Unknown)
        OS << " at '" << Access.Text << "': " << Access.Why;
      else if (!Access.IndexKnown)
        OS << " at '" << Access.Text << "', elements kfuse cannot name: " << Access.Why;
      else if (Access.Width > 1)
        OS << " " << Access.Width << " elements from [" << Access.Index.str() << "]";
      else
        OS << " [" << Access.Index.str() << "]";
      OS << guardsText(Access.Guards) << (Access.InLoop ? ", in a loop" : "") << " (line "
         << line(Access.Loc) << (Access.Helper ? ", in " + Access.Helper->getNameAsString() : "")
         << ")\n";
    }
  }

  std::string blockSize(const KernelModel &M) const {
    std::string S = M.uses(BuiltinVar::BlockDim) ? "reads blockDim" : "never reads blockDim";
    if (M.LaunchBoundsMaxThreads)
      S += "; __launch_bounds__ at most " + std::to_string(*M.LaunchBoundsMaxThreads) + " threads";
    return S;
  }

  std::string builtins(const KernelModel &M) const {
    std::string S;
    for (BuiltinVar V :
         {BuiltinVar::ThreadIdx, BuiltinVar::BlockDim, BuiltinVar::BlockIdx, BuiltinVar::GridDim})
      if (M.uses(V))
        S += (S.empty() ? "" : ", ") + std::string(spelling(V));
    return S.empty() ? "none" : S;
  }

  std::string barriers(const KernelModel &M) const {
    if (M.Barriers.empty() && M.AsmBarriers.empty())
      return "none";
    std::map<std::string, std::vector<SourceLocation>> ByCallee;
    for (const Barrier &B : M.Barriers)
      ByCallee[B.Callee + "()"].push_back(B.Call->getBeginLoc());
    for (const AsmBarrier &Asm : M.AsmBarriers) {
      std::string Ids;
      for (unsigned Id : Asm.Ids)
        Ids += (Ids.empty() ? "" : ", ") + std::to_string(Id);
      ByCallee[Asm.Partial ? "inline PTX barrier with id " + Ids + " (kept, id reserved)"
                           : "inline PTX barrier over the whole block (cannot be fused)"]
          .push_back(Asm.Stmt->getBeginLoc());
    }
    std::string S;
    for (const auto &[Callee, Locs] : ByCallee)
      S += (S.empty() ? "" : "; ") + std::to_string(Locs.size()) + " x " + Callee + " (" +
           lines(Locs) + ")";
    return S;
  }

  std::string staticShared(const KernelModel &M) const {
    std::string S;
    for (const SharedVariable &V : M.Shared)
      if (!V.Dynamic)
        S += (S.empty() ? "" : ", ") + V.Var->getNameAsString() + " (" + std::to_string(V.Bytes) +
             " bytes" + (V.FileScope ? ", file scope" : "") + ")";
    return S.empty() ? "none" : std::to_string(M.staticSharedBytes()) + " bytes: " + S;
  }

  std::string dynamicShared(const KernelModel &M) const {
    auto [Var, Helper] = M.dynamicShared();
    if (!Var)
      return "none";
    return "yes, through '" + Var->getNameAsString() + "'" +
           (Helper ? " in " + Helper->getQualifiedNameAsString() : std::string()) + " (line " +
           std::to_string(line(Var->getLocation())) + ")";
  }

  std::string returns(const KernelModel &M) const {
    if (M.Returns.empty())
      return "none";
    std::string S;
    auto Hazards = M.returnsBeforeBarriers();
    for (const Return &R : M.Returns) {
      S += (S.empty() ? "line " : ", line ") + std::to_string(line(R.Stmt->getBeginLoc()));
      for (const auto &[HR, HB] : Hazards)
        if (HR == &R)
          S += " (before the barrier at line " + std::to_string(line(HB->Call->getBeginLoc())) +
               ": returned threads keep arriving at the kernel's barriers)";
    }
    return S;
  }

  std::string calls(const KernelModel &M) const {
    std::map<std::string, std::string> ByCallee;
    // How the fused kernel keeps each callee's calls: inlined, copied, or both.
    std::map<std::string, std::set<CallLowering>> Lowerings;
    for (const CallSite &C : M.Calls) {
      if (!C.Callee || SM.isInSystemHeader(C.Callee->getLocation())) {
        if (C.Effect.touchesBlock() || C.Effect.Unknown || C.Effect.GroupCall || !C.Callee)
          ByCallee[C.Callee ? C.Callee->getQualifiedNameAsString() : "(indirect)"] =
              effect(C.Effect);
        continue;
      }
      std::string Name = C.Callee->getQualifiedNameAsString();
      ByCallee[Name] = effect(C.Effect);
      if (C.Effect.touchesBlock() && !C.Effect.GroupCall)
        Lowerings[Name].insert(C.lowering());
    }
    std::string S;
    for (const auto &[Callee, Effect] : ByCallee) {
      std::string How;
      if (auto It = Lowerings.find(Callee); It != Lowerings.end())
        How = It->second.size() > 1                              ? "inlined and copied: "
              : *It->second.begin() == CallLowering::SectionCopy ? "copied: "
                                                                 : "inlined: ";
      S += (S.empty() ? "" : ", ") + Callee + " (" + How + Effect + ")";
    }
    return S.empty() ? "none" : S;
  }

  /// How a fused file in another translation unit reaches each mutable
  /// __device__/__constant__ variable the kernel reads, itself or in a call.
  std::string deviceVariables(const KernelModel &M) const {
    std::string S;
    for (const VarDecl *V : M.reachedDeviceVariables()) {
      auto It = Variables.find(V);
      if (It == Variables.end())
        continue;
      const DeviceVariable &Facts = It->second;
      std::string How;
      switch (Facts.Reach) {
      case VariableReach::Copy:
        How = "never written: the fused file copies it";
        break;
      case VariableReach::Extern:
        How = "the fused file declares it extern (relocatable device code)";
        break;
      case VariableReach::SameUnit:
        How = Facts.WrittenBy + " (line " + std::to_string(line(Facts.Writer)) +
              "): fusing needs " +
              (Facts.Relocatable || !V->isExternallyVisible()
                   ? std::string("'replace:'")
                   : std::string("-rdc=true or 'replace:'"));
        break;
      }
      S += (S.empty() ? "" : "; ") + V->getNameAsString() + " (" + How + ")";
    }
    return S.empty() ? "none" : S;
  }

  std::string grid(const KernelModel &M) const {
    bool Idx = M.uses(BuiltinVar::BlockIdx), Dim = M.uses(BuiltinVar::GridDim);
    std::string S = !Idx && !Dim ? "never reads blockIdx or gridDim"
                    : Dim        ? "reads blockIdx and gridDim (grid-stride)"
                                 : "reads blockIdx, not gridDim";
    // blockIdx * blockDim + threadIdx without a stride over the grid covers
    // exactly one element per thread: another block size covers others.
    if (Idx && !Dim && M.uses(BuiltinVar::ThreadIdx))
      S += "; one thread per element, so its block size must stay as launched";
    return S;
  }

  std::string instantiations(const FunctionTemplateDecl &T) const {
    KernelLookup Found = lookUpKernel(Unit, T.getQualifiedNameAsString());
    std::string S;
    for (const std::string &I : Found.Instantiations)
      S += (S.empty() ? "" : ", ") + I;
    return S.empty() ? "none in this file" : S;
  }

  static std::string effect(const CalleeEffect &E) {
    if (E.GroupCall)
      return "cooperative groups a fused block cannot keep";
    if (E.Synchronizes)
      return "synchronizes the block";
    if (E.ReadsBuiltins)
      return "reads the built-in indices";
    if (E.UsesShared)
      return "uses shared memory";
    if (E.Unknown)
      return "definition not visible";
    return "independent of the block";
  }
};

/// One argument per line, quoted where a shell would need it.
int printCommand(const SourceParser &Parser, const std::string &File, llvm::raw_ostream &Out) {
  llvm::SmallString<256> Absolute(File);
  llvm::sys::fs::make_absolute(Absolute);
  std::vector<std::string> Args = Parser.commandLine(std::string(Absolute));
  if (Args.empty())
    return 1;
  Out << "command for " << File << ":\n";
  for (const std::string &A : Args) {
    bool Plain = !A.empty() && llvm::all_of(A, [](char C) {
      return llvm::isAlnum(C) || llvm::StringRef("-_=+./:,@%").contains(C);
    });
    Out << "  " << (Plain ? A : "'" + llvm::StringRef(A).str() + "'") << "\n";
  }
  return 0;
}

/// Warns of what \p Units, put in one fused file in this order, define that
/// the file could not hold together, and says whether they can share one.
void listFileSymbols(const std::vector<std::pair<ASTUnit *, std::string>> &Units, Reporter &Diags,
                     llvm::raw_ostream &Out) {
  std::vector<DeviceVariables> Variables;
  Variables.reserve(Units.size());
  std::vector<std::pair<ASTUnit *, const DeviceVariables *>> Inputs;
  for (const auto &[Unit, File] : Units) {
    Variables.push_back(analyzeDeviceVariables(*Unit));
    Inputs.push_back({Unit, &Variables.back()});
  }
  NameAllocator Names;
  size_t Before = Diags.refusals().size();
  planFileRenames(Inputs, Names, Diags);
  std::vector<llvm::StringRef> Ids;
  for (size_t I = Before; I < Diags.refusals().size(); ++I)
    if (!llvm::is_contained(Ids, diag::stableId(Diags.refusals()[I])))
      Ids.push_back(diag::stableId(Diags.refusals()[I]));
  std::vector<std::string> Files;
  for (const auto &[Unit, File] : Units)
    Files.push_back(File);
  Out << "files " << llvm::join(Files, ", ") << " in one fused file: ";
  if (Ids.empty())
    Out << "what they define can be renamed or is the same\n";
  else
    Out << "cannot be fused together: file-symbols [" << llvm::join(Ids, ", ")
        << "]; see the warnings\n";
}

} // namespace

int runList(const ParseSettings &Settings, const ListRequest &Request, Reporter &Diags,
            llvm::raw_ostream &Out) {
  for (const std::string &File : Request.Files)
    if (auto [Id, Why] = unreadable(File); !Why.empty()) {
      Diags.report(Id) << File << Why;
      return 1;
    }
  std::optional<ParserOptions> Options = makeParserOptions(Settings, Diags);
  if (!Options)
    return 1;
  SourceParser Parser(*Options, Diags);
  if (Request.PrintCommand) {
    for (const std::string &File : Request.Files)
      if (int Status = printCommand(Parser, File, Out))
        return Status;
    return 0;
  }
  std::vector<std::pair<ASTUnit *, std::string>> Units;
  for (const std::string &File : Request.Files) {
    ASTUnit *Unit = Parser.parse(File);
    if (!Unit)
      return 1;
    Units.push_back({Unit, File});
  }
  // What would refuse a kernel is a warning here: listing succeeds.
  Diags.refusalsAsWarnings();
  for (const auto &[Unit, File] : Units) {
    KernelLister Lister(*Unit, Parser.rejected(*Unit), Diags, Out);
    std::vector<const FunctionDecl *> Kernels = findKernels(*Unit);
    if (Kernels.empty())
      Out << "no kernels in " << File << "\n";
    for (const FunctionDecl *K : Kernels)
      Lister.list(*K);
    Lister.listRejected();
  }
  if (Units.size() > 1)
    listFileSymbols(Units, Diags, Out);
  return 0;
}

int runListChecks(llvm::raw_ostream &Out) {
  Out << "kfuse's legality checks, in the order they run; each refusal belongs to one:\n";
  for (const LegalityCheck &C : legalityChecks()) {
    Out << "  " << C.Name << " (" << scopeName(C.Scope) << "): " << C.Summary << "\n";
    Out << "    refuses with:";
    for (diag::ID Id : C.Refusals)
      Out << " " << diag::stableId(Id);
    Out << "\n";
  }
  return 0;
}

} // namespace kfuse

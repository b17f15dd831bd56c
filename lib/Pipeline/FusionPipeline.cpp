//===- FusionPipeline.cpp - from a config's fusions to fused kernels ------===//

#include "kfuse/Pipeline/FusionPipeline.h"

#include "kfuse/Analysis/Kernel/Elementwise.h"
#include "kfuse/Analysis/Kernel/MemoryAccess.h"
#include "kfuse/Analysis/Legality.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Plan/GridChoice.h"
#include "kfuse/Plan/PartitionPlan.h"
#include "kfuse/Plan/VerticalPlan.h"
#include "kfuse/Transforms/PreambleExtractor.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cassert>
#include <filesystem>

namespace kfuse {

std::optional<std::vector<BufferTraffic>> bufferTraffic(const FusionMember &M) {
  if (!M.Spec->Launch)
    return std::nullopt;
  KernelAccesses A = analyzeAccesses(*M.Model.Decl, M.Spec->Block);
  if (!A.Other.empty())
    return std::nullopt;
  std::vector<BufferTraffic> Traffic;
  for (const MemoryAccesses &B : A.Buffers) {
    if (B.unknown())
      return std::nullopt;
    if (B.Accesses.empty())
      continue;
    unsigned Index = B.Param->getFunctionScopeIndex();
    const std::vector<LaunchArg> &Args = M.Spec->Launch->Args;
    if (Index >= Args.size() || !Args[Index].IsBuffer)
      return std::nullopt;
    Traffic.push_back({M.Spec->Id, B.Param->getName().str(),
                       Args[Index].Count * elementBytes(Args[Index].Type), B.reads(), B.writes()});
  }
  return Traffic;
}

using diag::ID;

namespace {

/// The include of a file the fused file is compiled in place of, after
/// the macros of the files above that it does not read.
std::string wholeFile(const std::string &File, const std::string &OutputDir,
                      const FileRenames &Renames) {
  std::string Text;
  for (const std::string &Name : Renames.UndefineBefore)
    Text += "#undef " + Name + "\n";
  std::filesystem::path Target = std::filesystem::absolute(File).lexically_normal();
  std::filesystem::path From = std::filesystem::absolute(OutputDir).lexically_normal();
  return Text + "#include \"" + Target.lexically_relative(From).generic_string() + "\"\n";
}

/// Why member \p J cannot run several blocks per iteration with its loads
/// first; empty when it can, and then its kernel's shape.
std::string whyNotAhead(const std::vector<FusionMember> &Members, const FusionLayoutPlan &Plan,
                        GridMode Grid, size_t J, std::optional<ElementwiseKernel> &Kernel) {
  if (Grid != GridMode::Persistent)
    return std::string("it runs on the '") + gridModeName(Grid) +
           "' grid; only a persistent one runs several of its blocks per iteration";
  auto Loop = std::find_if(Plan.Loops.begin(), Plan.Loops.end(), [&](const BlockLoop &L) {
    return J >= L.First && J < L.First + L.Count;
  });
  if (Loop == Plan.Loops.end())
    return "its range runs no loop over its blocks";
  if (Loop->Count != 1)
    return "its range runs a vertical chain";
  const FusionMember &M = Members[J];
  std::array<unsigned, 3> Block = M.Spec->Block;
  if (M.Spec->AnyBlockSize)
    Block = {Plan.Ranges.Ranges[J].Size, 1, 1};
  ElementwiseResult E = findElementwise(M.Model, analyzeAccesses(*M.Model.Decl, Block), Block);
  if (!E.Kernel)
    return "it is not elementwise: " + E.WhyNot;
  // Its own loop runs iterations at a time on any grid; a kernel of one
  // thread per element needs the range to loop over its blocks.
  if (Loop->Once && !E.Kernel->Loop)
    return "it works with any grid, so it runs once on the fused grid, and has no grid-stride "
           "loop";
  Kernel = std::move(E.Kernel);
  return "";
}

} // namespace

std::map<size_t, std::pair<ElementwiseKernel, unsigned>>
FusionPipeline::readAhead(const FusionSpec &F, const std::vector<FusionMember> &Members,
                          const FusionLayoutPlan &Plan, GridMode Grid,
                          const std::vector<unsigned> &Coarsen, bool Asked) {
  std::map<size_t, std::pair<ElementwiseKernel, unsigned>> Result;
  for (size_t J = 0; J < Members.size() && J < Coarsen.size(); ++J) {
    if (Coarsen[J] < 2)
      continue;
    std::optional<ElementwiseKernel> Kernel;
    std::string Why = whyNotAhead(Members, Plan, Grid, J, Kernel);
    if (Kernel)
      Result.emplace(J, std::make_pair(std::move(*Kernel), Coarsen[J]));
    else if (Asked)
      problem(ID::CoarsenNotApplied, F.Position,
              {Members[J].Spec->Id, F.Name, std::to_string(Coarsen[J]), Why});
  }
  return Result;
}

void FusionPipeline::load(const std::vector<const FusionSpec *> &Selected) {
  Fusions = Selected;
  for (const FusionSpec *F : Fusions) {
    std::vector<FusionMember> &Members = AllMembers.emplace_back();
    bool Ok = true;
    for (const std::string &Id : C.kernelsOf(*F)) {
      std::optional<FusionMember> M = member(*C.findKernel(Id));
      Ok &= M.has_value();
      if (M) {
        if (std::none_of(Inputs.begin(), Inputs.end(),
                         [&](const auto &In) { return In.second == M->Unit; }))
          Inputs.push_back({M->Spec, M->Unit});
        Members.push_back(std::move(*M));
      }
    }
    Resolved.push_back(Ok);
  }
  std::stable_partition(Inputs.begin(), Inputs.end(),
                        [&](const auto &In) { return C.replaces(In.first->ResolvedFile); });
  std::vector<std::pair<clang::ASTUnit *, const DeviceVariables *>> Units;
  for (const auto &[Spec, Unit] : Inputs)
    Units.push_back({Unit, Facts->DeviceVariablesOf.at(Unit).get()});
  auto Alone =
      Units.size() == 1 ? Facts->RenamesAlone.find(Units.front().first) : Facts->RenamesAlone.end();
  if (Alone != Facts->RenamesAlone.end()) {
    Renames = {{Alone->first, Alone->second}};
  } else {
    unsigned Errors = Diags.errorCount();
    Renames = planFileRenames(Units, Names, Diags);
    if (Units.size() == 1 && Diags.errorCount() == Errors &&
        Renames.at(Units.front().first)->NewNames.empty())
      Facts->RenamesAlone[Units.front().first] = Renames.at(Units.front().first);
  }
  for (std::vector<FusionMember> &Members : AllMembers)
    for (FusionMember &M : Members)
      M.Renames = Renames.at(M.Unit);
}

void FusionPipeline::problem(ID Id, ConfigPosition At, std::vector<std::string> Args) {
  Diags.report({{Id, At.Line, At.Column, std::move(Args)}}, C.Path);
}

std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> FusionPipeline::inputs() const {
  return Inputs;
}

std::optional<FusionMember> FusionPipeline::member(const KernelSpec &K) {
  if (auto [Id, Why] = unreadable(K.ResolvedFile); !Why.empty()) {
    problem(Id, K.Position, {K.ResolvedFile, Why});
    return std::nullopt;
  }
  clang::ASTUnit *Unit = Parser.parse(K.ResolvedFile);
  if (!Unit) {
    // Once per file, after the parser's own error: the config line that led there.
    if (UnparsedFiles.insert(K.ResolvedFile).second)
      problem(ID::NoteKernelEntryReads, K.Position, {K.Id, K.File});
    return std::nullopt;
  }
  const clang::FunctionDecl *&Kernel = Facts->Kernels[{Unit, K.Kernel}];
  // A name that finds no kernel is reported again for each entry giving it.
  if (!Kernel && !(Kernel = resolveKernel(K, *Unit, C.Path, Diags)))
    return std::nullopt;
  Names.reserveIdentifiersOf(*Unit);
  std::shared_ptr<FunctionModels> &Helpers = Facts->HelperModels[Unit];
  if (!Helpers)
    Helpers = std::make_shared<FunctionModels>(*Unit, Parser.rejected(*Unit));
  auto &Variables = Facts->DeviceVariablesOf[Unit];
  if (!Variables)
    Variables = std::make_shared<const std::map<const clang::VarDecl *, DeviceVariable>>(
        analyzeDeviceVariables(*Unit));
  FusionMember M{&K, Unit, analyzeKernel(*Unit, *Kernel, Parser.rejected(*Unit)), Helpers};
  M.Variables = Variables;
  M.SameUnit = C.replaces(K.ResolvedFile);
  M.LauncherInHeader = LaunchersInHeader;
  return M;
}

std::vector<FusionPipeline::MemberGroup> FusionPipeline::groupsOf(const FusionSpec &F) const {
  if (F.Mode == FusionMode::Vertical)
    return {{F.Name, 0, F.Kernels.size(), &F}};
  std::vector<MemberGroup> Groups;
  size_t First = 0;
  for (const std::string &Name : F.Kernels) {
    const FusionSpec *Chain = C.findKernel(Name) ? nullptr : C.findFusion(Name);
    size_t Count = Chain ? Chain->Kernels.size() : 1;
    Groups.push_back({Name, First, Count, Chain});
    First += Count;
  }
  return Groups;
}

bool FusionPipeline::bindChain(const MemberGroup &G, const std::vector<FusionMember> &Members,
                               VerticalPlan &Chains) {
  std::vector<const FusionMember *> Chain;
  for (size_t I = 0; I < G.Count; ++I)
    Chain.push_back(&Members[G.First + I]);
  std::optional<ChainProof> Proof = proveVerticalChain(*G.Chain, Chain, C.Path, Diags);
  if (!Proof)
    return false;
  addChain(Chains, planVerticalChain(*Proof), G.First);
  return true;
}

std::optional<FusedKernel> FusionPipeline::fuse(size_t I, const FusionLayout &Layout) {
  const FusionSpec &F = *Fusions[I];
  const std::vector<FusionMember> &Members = AllMembers[I];
  if (!Resolved[I] || !checkHorizontalFusion(Members, Diags))
    return std::nullopt;
  std::vector<MemberGroup> Groups = groupsOf(F);
  VerticalPlan Chains;
  Chains.WaitBefore.assign(Members.size(), false);
  bool HasChains = false, Ok = true;
  for (const MemberGroup &G : Groups)
    if (G.Chain) {
      HasChains = true;
      Ok &= bindChain(G, Members, Chains);
    }
  if (!Ok)
    return std::nullopt;
  const std::optional<FusedLayout> &Variant = Layout.Variant;
  GridMode Grid = Variant ? Variant->Grid : chooseGrid(C, F, pollsOtherBlocks(Members)).Mode;
  bool Vertical = Variant && Variant->Vertical;
  LayoutRequest Request;
  Request.Fusion = F.Name;
  Request.Partition = Variant ? Variant->Threads : F.Partition;
  Request.Threads = F.Threads;
  ConfigPosition At = F.Partition.empty() ? F.Position : F.PartitionPosition;
  Request.Line = At.Line;
  Request.Column = At.Column;
  Request.Grid = Grid;
  Request.Vertical = Vertical;
  for (size_t J = 0; J < Members.size(); ++J) {
    const FusionMember &M = Members[J];
    Request.Members.push_back({M.Spec->blockThreads(), M.Spec->AnyBlockSize, M.Spec->AnyGrid,
                               M.Model.synchronizes() || Chains.WaitBefore[J],
                               reservedBarrierIds(M)});
  }
  for (const MemberGroup &G : Groups)
    Request.Groups.push_back({G.Name, G.First, G.Count, G.Chain != nullptr});
  if (!Layout.MeasuredIn.empty())
    Request.Line = Request.Column = 0;
  PartitionRequest Shares = partitionRequest(Request);
  if (!runLayoutChecks({Members, F.Name, Grid, Shares, C.Path}, Diags)) {
    if (!Layout.MeasuredIn.empty() && !shareThreads(Shares).Problems.empty())
      Diags.report(ID::NoteThreadsMeasured) << Layout.MeasuredVariant << Layout.MeasuredIn;
    return std::nullopt;
  }
  LayoutResult Planned = planLayout(Request);
  // The thread-shares check accepted what the plan lays out.
  assert(Planned.Plan && "planLayout refused shares the thread-shares check accepted");
  if (!Planned.Plan)
    return std::nullopt;
  const PartitionPlan &Laid = Planned.Plan->Ranges;
  // Per-warpgroup registers: the variant's counts, or one per kernel that
  // the harness chooses.
  size_t WarpgroupCounts = 0;
  if (Variant && Variant->Registers == RegisterPolicy::PerWarpgroup)
    WarpgroupCounts = Variant->SectionRegisters.empty() ? Variant->Threads.size()
                                                        : Variant->SectionRegisters.size();
  if (!runRangesChecks({Members, F, Grid, Vertical, Laid.Ranges, WarpgroupCounts, C.Path}, Diags))
    return std::nullopt;
  ReductionStyle Reductions = Variant ? Variant->Reductions : F.Reductions;
  bool OneAfterAnother = Vertical || F.Mode == FusionMode::Vertical;
  // Several original blocks at a time: only where each fused block runs
  // every kernel's block of one index, in an order of its own.
  unsigned PerIteration = Variant ? Variant->BlocksPerIteration : F.BlocksPerIteration;
  if (!OneAfterAnother || (Grid != GridMode::AsLaunched && Grid != GridMode::Persistent))
    PerIteration = 1;
  BodyOptions Options;
  Options.OneWarpReductions = Reductions == ReductionStyle::OneWarp;
  // A config's coarsen: says where it does not apply; a measured variant's
  // was tried where it does.
  if (!OneAfterAnother)
    Options.ReadAhead = readAhead(F, Members, *Planned.Plan, Grid,
                                  Variant ? Variant->Coarsen : F.Coarsen, !Variant);
  // What the kernels run: one block per iteration where a kernel cannot.
  std::vector<unsigned> Coarsen;
  if (!Options.ReadAhead.empty())
    for (size_t J = 0; J < Members.size(); ++J) {
      auto It = Options.ReadAhead.find(J);
      Coarsen.push_back(It == Options.ReadAhead.end() ? 1 : It->second.second);
    }
  std::optional<FusedKernel> K =
      fuseHorizontally(Layout.Name.empty() ? F.Name : Layout.Name, Members, Laid, Names, Diags,
                       HasChains ? &Chains : nullptr, Options);
  if (K) {
    K->Layout = Variant.value_or(FusedLayout());
    K->Layout.Vertical = OneAfterAnother;
    K->Layout.Grid = Grid;
    K->Layout.Reductions = Reductions;
    K->Layout.BlocksPerIteration = PerIteration;
    K->Layout.Coarsen = Coarsen;
    if (Grid == GridMode::AsLaunched)
      K->Layout.Waves = 1;
    K->Loops = Planned.Plan->Loops;
    for (const BlockLoop &L : K->Loops)
      if (L.Once) {
        // Its launch's grid is replaced by the fused one, which is 1-D.
        FusedSection &S = K->Sections[L.First];
        S.OnFusedGrid = true;
        S.UnitGrid[1] = S.UnitGrid[2] = true;
      }
  }
  return K;
}

std::vector<Preamble> FusionPipeline::preambles(const std::string &OutputDir, PreambleUse Use,
                                                const HeaderMirror *Mirror) {
  std::vector<Preamble> Result;
  const FileRenames None;
  // Preambles share one file; with their kernels each is a file of its own.
  PreambleHistory Shared;
  for (const auto &[Spec, Unit] : Inputs) {
    const FileRenames &Renamed = Use == PreambleUse::Originals ? None : *Renames.at(Unit);
    if (Use == PreambleUse::Fused && C.replaces(Spec->ResolvedFile)) {
      std::string File = std::filesystem::absolute(Spec->ResolvedFile).lexically_normal().string();
      auto Copy = WholeAs.find(File);
      Result.push_back(
          {Spec->File,
           wholeFile(Copy == WholeAs.end() ? Spec->ResolvedFile : Copy->second, OutputDir, Renamed),
           true});
      continue;
    }
    PreambleHistory Alone;
    if (std::optional<ExtractedPreamble> P =
            extractPreamble(*Unit, OutputDir, Renamed, *Facts->DeviceVariablesOf.at(Unit), Diags,
                            Use == PreambleUse::Originals ? Alone : Shared, Use, Mirror))
      Result.push_back({Spec->File, std::move(P->Text)});
  }
  return Result;
}

} // namespace kfuse

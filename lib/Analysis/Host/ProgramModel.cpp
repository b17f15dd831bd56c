//===- ProgramModel.cpp - A program's files, launches and dependences -----===//

#include "kfuse/Analysis/Host/ProgramModel.h"

#include "kfuse/Frontend/SourceParser.h"

#include "clang/AST/Decl.h"
#include "clang/Frontend/ASTUnit.h"

namespace kfuse {

using namespace clang;

namespace {

/// \p C, related among one file's launches, in the program's indices:
/// that file's launches begin at \p Begin.
LaunchChain shifted(LaunchChain C, size_t Begin) {
  for (size_t &I : C.Launches)
    I += Begin;
  for (ChainFlow &Flow : C.Flows) {
    Flow.From += Begin;
    Flow.To += Begin;
  }
  for (auto &Group : C.Same)
    for (auto &[Launch, Arg] : Group)
      Launch += Begin;
  return C;
}

} // namespace

SourceFile::SourceFile(std::string Path, ASTUnit *Device, ASTUnit &Host)
    : Path(std::move(Path)), Device(Device), Host(&Host),
      Index(Device ? std::make_shared<const KernelIndex>(*Device) : nullptr) {}

const KernelIndex &SourceFile::kernels() const { return *Index; }

std::optional<ProgramModel>
ProgramModel::read(SourceParser &Parser, const std::vector<std::string> &Paths, FileStep Step) {
  ProgramModel M;
  for (const std::string &Path : Paths) {
    Step(M.Files.size(), Path);
    ASTUnit *Device = Parser.parse(Path, CompileSide::Device);
    ASTUnit *Host = Device ? Parser.parse(Path, CompileSide::Host) : nullptr;
    if (!Host)
      return std::nullopt;
    M.Files.emplace_back(Path, Device, *Host);
    for (KernelLaunch &L : findLaunches(*Host, Parser.rejected(*Host))) {
      ProgramLaunch P;
      P.Launch = std::move(L);
      P.File = M.Files.size() - 1;
      M.Launches.push_back(std::move(P));
    }
  }
  // One lookup per kernel a file launches, not per launch: the definition
  // in the launching file first; in another only a kernel other files see.
  std::map<std::pair<const FunctionDecl *, size_t>, std::optional<size_t>> Resolved;
  for (ProgramLaunch &P : M.Launches) {
    if (!P.Launch.Kernel)
      continue;
    auto [It, New] = Resolved.try_emplace({P.Launch.Kernel, P.File});
    for (size_t Pass = 0; New && Pass < 2 && !It->second; ++Pass)
      for (size_t D = 0; D < M.Files.size() && !It->second; ++D)
        if ((Pass == 0) == (D == P.File) && (Pass == 0 || P.Launch.Kernel->isExternallyVisible()) &&
            M.Files[D].kernels().same(*P.Launch.Kernel))
          It->second = D;
    if (!It->second)
      continue;
    P.KernelFile = It->second;
    P.Device = M.Files[*P.KernelFile].device();
    P.Kernel = M.Files[*P.KernelFile].kernels().same(*P.Launch.Kernel);
  }
  M.findUses(Parser);
  M.relate();
  return M;
}

ProgramModel
ProgramModel::ofHostFile(SourceParser &Parser, ASTUnit &Host,
                         const std::vector<std::pair<ASTUnit *, const FunctionDecl *>> &Kernels) {
  ProgramModel M;
  const SourceManager &SM = Host.getSourceManager();
  M.Files.emplace_back(std::string(SM.getFileEntryRefForID(SM.getMainFileID())->getName()), nullptr,
                       Host);
  for (KernelLaunch &L : findLaunches(Host, Parser.rejected(Host))) {
    if (!SM.isInMainFile(L.Loc))
      continue;
    ProgramLaunch P;
    P.Launch = std::move(L);
    for (const auto &[Unit, Kernel] : Kernels) {
      const FunctionDecl *K = P.Launch.Kernel ? findSameKernel(*Unit, *P.Launch.Kernel) : nullptr;
      if (K && K->getCanonicalDecl() == Kernel->getCanonicalDecl()) {
        P.Device = Unit;
        P.Kernel = Kernel;
        break;
      }
    }
    M.Launches.push_back(std::move(P));
  }
  M.findUses(Parser);
  M.relate();
  return M;
}

void ProgramModel::findUses(SourceParser &Parser) {
  std::map<const FunctionDecl *, KernelUses> Cache;
  for (ProgramLaunch &P : Launches) {
    if (!P.Kernel)
      continue;
    auto It = Cache.find(P.Kernel);
    if (It == Cache.end())
      It = Cache.emplace(P.Kernel, kernelUses(*P.Device, *P.Kernel, Parser.rejected(*P.Device)))
               .first;
    P.Uses = It->second;
  }
}

std::pair<size_t, size_t> ProgramModel::launchesOf(size_t File) const {
  auto In = [&](const ProgramLaunch &P) { return P.File < File; };
  size_t Begin = std::partition_point(Launches.begin(), Launches.end(), In) - Launches.begin();
  size_t End = Begin;
  while (End < Launches.size() && Launches[End].File == File)
    ++End;
  return {Begin, End};
}

std::pair<std::vector<KernelLaunch>, std::vector<std::optional<KernelUses>>>
ProgramModel::ofFile(size_t File) const {
  auto [Begin, End] = launchesOf(File);
  std::pair<std::vector<KernelLaunch>, std::vector<std::optional<KernelUses>>> Out;
  for (size_t I = Begin; I < End; ++I) {
    Out.first.push_back(Launches[I].Launch);
    Out.second.push_back(Launches[I].Uses);
  }
  return Out;
}

void ProgramModel::relate() {
  for (size_t F = 0; F < Files.size(); ++F) {
    size_t Begin = launchesOf(F).first;
    auto [Of, Uses] = ofFile(F);
    LaunchRelations R = relateLaunches(Files[F].host(), Of, Uses);
    Graph.Related += R.Related;
    for (LaunchPair &P : R.Pairs) {
      P.First += Begin;
      P.Second += Begin;
      Graph.Pairs.push_back(std::move(P));
    }
    for (std::vector<size_t> &G : R.Groups) {
      for (size_t &I : G)
        I += Begin;
      Graph.Groups.push_back(std::move(G));
    }
    for (LaunchChain &C : R.Chains)
      Graph.Chains.push_back(shifted(std::move(C), Begin));
  }
}

const SourceManager &ProgramModel::sourcesOf(size_t I) const {
  return hostOf(I).getSourceManager();
}

std::optional<LaunchChain> ProgramModel::chain(const std::vector<size_t> &Run,
                                               std::string &Why) const {
  size_t File = Launches[Run.front()].File;
  size_t Begin = launchesOf(File).first;
  std::vector<size_t> Local;
  for (size_t I : Run)
    Local.push_back(I - Begin);
  auto [Of, Uses] = ofFile(File);
  std::optional<LaunchChain> C = relateChain(Files[File].host(), Of, Uses, Local, Why);
  if (!C)
    return std::nullopt;
  return shifted(std::move(*C), Begin);
}

} // namespace kfuse

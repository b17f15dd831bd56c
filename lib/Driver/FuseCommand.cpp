//===- FuseCommand.cpp - `kfuse fuse CONFIG` ------------------------------===//

#include "kfuse/Driver/Commands.h"

#include "Support.h"

#include "kfuse/Analysis/FusionLegality.h"
#include "kfuse/Analysis/KernelAnalyzer.h"
#include "kfuse/Config/Config.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Emission/FusedFile.h"
#include "kfuse/Frontend/SourceParser.h"
#include "kfuse/Plan/PartitionPlan.h"
#include "kfuse/Transforms/HorizontalFuser.h"
#include "kfuse/Transforms/PreambleExtractor.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>

namespace kfuse {


namespace {

using diag::ID;

class FuseCommand {
public:
  FuseCommand(const ParseSettings &Settings, const FuseRequest &Request, Reporter &Diags)
      : Settings(Settings), Request(Request), Diags(Diags) {}

  int run(llvm::raw_ostream &Out) {
    std::optional<Config> C = readConfig();
    if (!C)
      return 1;
    std::vector<const FusionSpec *> Fusions = selectFusions(*C);
    if (Fusions.empty())
      return 1;
    std::optional<ParserOptions> Options = makeParserOptions(Settings, Diags);
    if (!Options)
      return 1;
    SourceParser Parser(*Options, Diags);
    std::string OutputPath = outputPath(*C);
    llvm::SmallString<256> OutputDir(OutputPath == "-" ? "." : OutputPath);
    if (OutputPath != "-")
      llvm::sys::path::remove_filename(OutputDir);
    if (OutputDir.empty())
      OutputDir = ".";

    FusedFile File;
    File.Generator = std::string("kfuse ") + Version;
    File.Config = Request.ConfigPath;
    std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> Inputs;
    std::vector<bool> Resolved;
    for (const FusionSpec *F : Fusions)
      Resolved.push_back(resolveMembers(*C, *F, Parser, Inputs));
    auto Renames = planFileRenames(inputUnits(Inputs), Names, Diags);
    for (std::vector<FusionMember> &Members : AllMembers)
      for (FusionMember &M : Members)
        M.Renames = Renames.at(M.Unit);
    for (size_t I = 0; I < Fusions.size(); ++I)
      if (Resolved[I])
        if (std::optional<FusedKernel> K = fuse(*C, *Fusions[I], AllMembers[I]))
          File.Kernels.push_back(std::move(*K));
    if (Diags.errorCount() == 0)
      File.Preambles = preambles(Inputs, Renames, std::string(OutputDir));
    if (Diags.errorCount() != 0)
      return 1;

    std::string Text = printFusedFile(File);
    if (OutputPath == "-") {
      Out << Text;
      return 0;
    }
    if (!writeAtomically(OutputPath, Text, Diags))
      return 1;
    for (const FusedKernel &K : File.Kernels)
      llvm::errs() << "kfuse: wrote fusion '" << K.Fusion << "' (" << K.Sections.size()
                   << " kernels, " << K.BlockThreads << " threads per block) to " << OutputPath
                   << "\n";
    return 0;
  }

private:
  const ParseSettings &Settings;
  const FuseRequest &Request;
  Reporter &Diags;
  NameAllocator Names;
  // Kept until printing: the models point into the parsed units.
  std::vector<std::vector<FusionMember>> AllMembers;
  std::map<clang::ASTUnit *, std::shared_ptr<FunctionModels>> HelperModels;

  void problem(const Config &C, ID Id, ConfigPosition At, std::vector<std::string> Args) {
    Diags.report({{Id, At.Line, At.Column, std::move(Args)}}, C.Path);
  }

  std::optional<Config> readConfig() {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
        llvm::MemoryBuffer::getFile(Request.ConfigPath, /*IsText=*/true);
    if (!Buffer) {
      Diags.report(ID::FileNotFound) << Request.ConfigPath << Buffer.getError().message();
      return std::nullopt;
    }
    ConfigResult R = parseConfig((*Buffer)->getBuffer().str(), Request.ConfigPath);
    Diags.report(R.Problems, Request.ConfigPath);
    return R.Value;
  }

  std::vector<const FusionSpec *> selectFusions(const Config &C) {
    if (Request.Fusion) {
      if (const FusionSpec *F = C.findFusion(*Request.Fusion))
        return {F};
      Diags.report(ID::FusionNotInConfig) << *Request.Fusion << C.Path;
      return {};
    }
    std::vector<const FusionSpec *> All;
    for (const FusionSpec &F : C.Fusions)
      All.push_back(&F);
    return All;
  }

  std::string outputPath(const Config &C) const {
    if (Request.Output)
      return *Request.Output;
    return llvm::sys::path::stem(C.Path).str() + ".fused.cu";
  }

  std::optional<FusionMember> member(const Config &C, const KernelSpec &K, SourceParser &Parser) {
    if (!llvm::sys::fs::is_regular_file(K.ResolvedFile)) {
      problem(C, ID::FileNotFound, K.Position, {K.ResolvedFile, "no such file"});
      return std::nullopt;
    }
    clang::ASTUnit *Unit = Parser.parse(K.ResolvedFile);
    if (!Unit)
      return std::nullopt;
    KernelLookup Found = lookUpKernel(*Unit, K.Kernel);
    if (!Found.Kernel) {
      reportMissingKernel(C, K, *Unit, Found);
      return std::nullopt;
    }
    Names.reserveIdentifiersOf(*Unit);
    std::shared_ptr<FunctionModels> &Helpers = HelperModels[Unit];
    if (!Helpers)
      Helpers = std::make_shared<FunctionModels>(*Unit);
    return FusionMember{&K, Unit, analyzeKernel(*Unit, *Found.Kernel), Helpers};
  }

  void reportMissingKernel(const Config &C, const KernelSpec &K, clang::ASTUnit &Unit,
                           const KernelLookup &Found) {
    clang::SourceManager &SM = Unit.getSourceManager();
    if (!Found.Template) {
      problem(C, ID::KernelNotFound, K.Position, {K.Kernel, K.ResolvedFile});
      for (const clang::FunctionDecl *Other : findKernels(Unit))
        Diags.report(Other->getLocation(), SM, ID::NoteKernelCandidate)
            << Other->getQualifiedNameAsString();
      return;
    }
    std::string Name = Found.Template->getQualifiedNameAsString();
    if (K.Kernel.find('<') == std::string::npos) {
      std::string Uses = Found.Instantiations.empty()
                             ? "'" + K.File + "' instantiates none"
                             : "'" + K.File + "' uses '" + Found.Instantiations.front() + "'";
      problem(C, ID::TemplateNotInstantiated, K.Position, {Name, Uses});
      return;
    }
    std::string Args = K.Kernel.substr(std::min(K.Kernel.find('<') + 1, K.Kernel.size()));
    if (!Args.empty() && Args.back() == '>')
      Args.pop_back();
    problem(C, ID::TemplateNeverUsed, K.Position, {Name, K.File, Args});
    for (const std::string &Spelled : Found.Instantiations)
      Diags.report(Found.Template->getLocation(), SM, ID::NoteKernelCandidate) << Spelled;
  }

  /// Parses the kernels of \p F and analyzes them; false if one is missing.
  bool resolveMembers(const Config &C, const FusionSpec &F, SourceParser &Parser,
                      std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> &Inputs) {
    std::vector<FusionMember> &Members = AllMembers.emplace_back();
    bool Ok = true;
    for (const std::string &Id : F.Kernels) {
      std::optional<FusionMember> M = member(C, *C.findKernel(Id), Parser);
      Ok &= M.has_value();
      if (M) {
        Inputs.push_back({M->Spec, M->Unit});
        Members.push_back(std::move(*M));
      }
    }
    return Ok;
  }

  static std::vector<clang::ASTUnit *>
  inputUnits(const std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> &Inputs) {
    std::vector<clang::ASTUnit *> Units;
    for (const auto &[Spec, Unit] : Inputs)
      if (std::find(Units.begin(), Units.end(), Unit) == Units.end())
        Units.push_back(Unit);
    return Units;
  }

  std::optional<FusedKernel> fuse(const Config &C, const FusionSpec &F,
                                  const std::vector<FusionMember> &Members) {
    if (!checkHorizontalFusion(Members, Diags))
      return std::nullopt;

    PartitionRequest Request;
    Request.Fusion = F.Name;
    Request.Partition = F.Partition;
    Request.Threads = F.Threads;
    ConfigPosition At = F.Partition.empty() ? F.Position : F.PartitionPosition;
    Request.Line = At.Line;
    Request.Column = At.Column;
    for (const FusionMember &M : Members)
      Request.Members.push_back({M.Spec->Id, M.Spec->blockThreads(), M.Spec->AnyBlockSize,
                                 M.Model.synchronizes(), reservedBarrierIds(M)});
    PartitionResult Plan = planPartition(Request);
    Diags.report(Plan.Problems, C.Path);
    if (!Plan.Plan || !respectsLaunchBounds(Members, *Plan.Plan))
      return std::nullopt;
    return fuseHorizontally(F.Name, Members, *Plan.Plan, Names, Diags);
  }

  /// A kernel compiled for at most N threads per block may use more
  /// registers per thread than a larger range can get.
  bool respectsLaunchBounds(const std::vector<FusionMember> &Members, const PartitionPlan &Plan) {
    bool Ok = true;
    for (size_t I = 0; I < Members.size(); ++I) {
      const KernelModel &Model = Members[I].Model;
      unsigned Size = Plan.Ranges[I].Size;
      if (Model.LaunchBoundsMaxThreads && Size > *Model.LaunchBoundsMaxThreads) {
        Diags.report(Model.Decl->getLocation(), Members[I].Unit->getSourceManager(),
                     ID::LaunchBoundsExceeded)
            << Model.Name << Size << *Model.LaunchBoundsMaxThreads;
        Ok = false;
      }
    }
    return Ok;
  }

  /// One preamble per input file, in the order the config names them.
  std::vector<Preamble>
  preambles(const std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> &Inputs,
            const std::map<const clang::ASTUnit *, std::shared_ptr<const FileRenames>> &Renames,
            const std::string &OutputDir) {
    std::vector<Preamble> Result;
    std::vector<clang::ASTUnit *> Seen;
    for (const auto &[Spec, Unit] : Inputs) {
      if (std::find(Seen.begin(), Seen.end(), Unit) != Seen.end())
        continue;
      Seen.push_back(Unit);
      if (std::optional<ExtractedPreamble> P =
              extractPreamble(*Unit, OutputDir, *Renames.at(Unit), Diags))
        Result.push_back({Spec->File, std::move(P->Text)});
    }
    return Result;
  }
};

} // namespace

int runFuse(const ParseSettings &Settings, const FuseRequest &Request, Reporter &Diags,
            llvm::raw_ostream &Out) {
  return FuseCommand(Settings, Request, Diags).run(Out);
}

} // namespace kfuse

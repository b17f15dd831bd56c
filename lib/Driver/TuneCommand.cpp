//===- TuneCommand.cpp - `kfuse tune CONFIG` ------------------------------===//
//
// Writes a bundle that measures every fused variant of each fusion against
// the native launches on a GPU machine (needing only the CUDA toolkit), and
// reads what it measured back to choose: the fastest valid variant when it
// beats native best by more than the noise, else the original launches.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Driver/Commands.h"

#include "Outputs.h"
#include "Support.h"
#include "kfuse/Pipeline/FusionPipeline.h"

#include "kfuse/Analysis/Kernel/Elementwise.h"
#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/LaunchArguments.h"
#include "kfuse/Diagnostics/InputFiles.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Emission/FusedFilePrinter.h"
#include "kfuse/Emission/TuneBundle.h"
#include "kfuse/Emission/TuningReports.h"
#include "kfuse/Tuning/Evaluation.h"
#include "kfuse/Tuning/Explanation.h"
#include "kfuse/Tuning/GpuProbe.h"
#include "kfuse/Tuning/Selection.h"
#include "kfuse/Tuning/VariantSpace.h"

#include "clang/AST/ASTContext.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>

namespace kfuse {
namespace {

/// A kernel of a fusion as the variant space sees it.
TuneMember tuneMember(const FusionMember &M) {
  TuneMember T{M.Spec->blockThreads(), M.Spec->AnyBlockSize,
               reachesTreeReduction(M.Model, *M.Helpers)};
  T.Elementwise = coarsenable(
      findElementwise(M.Model, analyzeAccesses(*M.Model.Decl, M.Spec->Block), M.Spec->Block),
      M.Spec->AnyGrid);
  return T;
}

/// A variant's source in the bundle: the harness chooses the bound (which a
/// bounded twin compiles the same source with; none for the twin itself)
/// and each warpgroup's count, from the registers the originals get.
FusionLayout emittedLayout(const FusedLayout &V, std::string Name) {
  FusionLayout Layout;
  Layout.Variant = V;
  Layout.Variant->Registers = V.Registers == RegisterPolicy::PerWarpgroup
                                  ? RegisterPolicy::PerWarpgroup
                                  : RegisterPolicy::Bounded;
  Layout.Variant->MinBlocksPerSm.reset();
  Layout.Variant->EntryRegisters.reset();
  Layout.Variant->SectionRegisters.clear();
  Layout.Name = std::move(Name);
  return Layout;
}

using diag::ID;

class TuneCommand {
public:
  TuneCommand(const ParseSettings &Settings, const TuneRequest &Request, Reporter &Diags)
      : Settings(Settings), Request(Request), Diags(Diags) {}

  int run(llvm::raw_ostream &Out) {
    // The config and the measurements as they are before the run reads them.
    for (const std::optional<std::string> &Path :
         {std::optional<std::string>(Request.ConfigPath), Request.Results})
      if (Path)
        if (InputText In = readInput(*Path); In.Buffer)
          ReadHashes[absolutePath(*Path)] = contentHash(In.Buffer->getBuffer());
    std::optional<Config> C = readConfigFile(Request.ConfigPath, Diags);
    if (!C)
      return 1;
    std::vector<const FusionSpec *> Fusions = selectFusions(*C, Request.Fusion, Diags);
    if (Fusions.empty() || !haveLaunches(*C, Fusions))
      return 1;
    std::optional<ParserOptions> Options = makeParserOptions(Settings, Diags);
    if (!Options)
      return 1;
    SourceParser Parser(*Options, Diags);
    FusionPipeline Pipeline(*C, Parser, Diags);
    Pipeline.load(Fusions);
    // No output of the run may be one of these.
    ReadFiles = runInputs(Request.ConfigPath, Request.Results, Parser);
    ReadHashes.merge(Parser.inputHashes());
    if (Request.Results)
      return select(*C, Pipeline, *Request.Results, Out);
    std::string Bundle = Request.Bundle.value_or(llvm::sys::path::stem(C->Path).str() + ".tune");
    if (!writeBundle(Pipeline, Bundle))
      return 1;
    Out << "kfuse: wrote the tuning bundle to " << Bundle << "; run " << Bundle
        << "/run.sh on the GPU machine, then kfuse tune " << Request.ConfigPath
        << " --results results.json\n";
    if (!Request.Run)
      return 0;
    // Before the harness compiles: a machine with no GPU hears so now.
    if (GpuProbe P = probeGpus(Request.CudaDriver.c_str()); P.Devices == 0) {
      Diags.report(ID::TuneNoGpu) << P.Why << Bundle << Request.ConfigPath;
      return 1;
    }
    std::string Results = Bundle + "/results.json";
    int Status = runBundle(Bundle, Results);
    if (Status != 0) {
      Diags.report(ID::TuneRun) << Status;
      return 1;
    }
    return select(*C, Pipeline, Results, Out);
  }

private:
  const ParseSettings &Settings;
  const TuneRequest &Request;
  Reporter &Diags;
  std::vector<std::string> ReadFiles; ///< What the run reads.
  /// The content each input held when the run read it (contentHash).
  std::map<std::string, uint64_t> ReadHashes;

  bool haveLaunches(const Config &C, const std::vector<const FusionSpec *> &Fusions) {
    bool Ok = true;
    for (const FusionSpec *F : Fusions)
      Ok &= tunable(C, *F, Diags);
    return Ok;
  }

  /// The harness's description of \p M, or nothing after reporting why the
  /// launch spec does not fit the kernel.
  std::optional<TuneKernel> tuneKernel(const Config &C, const FusionSpec &F,
                                       const FusionMember &M) {
    const KernelSpec &Spec = *M.Spec;
    TuneKernel K;
    K.Id = Spec.Id;
    K.Getter = "kfuse_native_" + F.Name + "_" + Spec.Id;
    // Cast to its own type: an overloaded name alone is ambiguous.
    clang::ASTContext &AST = M.Unit->getASTContext();
    K.Kernel = "static_cast<" +
               AST.getPointerType(M.Model.Decl->getType()).getAsString(AST.getPrintingPolicy()) +
               ">(&" + instantiationName(*M.Model.Decl) + ")";
    K.Grid = Spec.Launch->Grid;
    K.Block = Spec.Block;
    K.SharedBytes = Spec.Launch->SharedBytes;
    std::optional<std::vector<CheckedLaunchArg>> Args = checkLaunchArguments(M, C.Path, Diags);
    if (!Args)
      return std::nullopt;
    for (const CheckedLaunchArg &A : *Args) {
      TuneArgument Out;
      Out.Buffer = A.Spec->IsBuffer;
      Out.Type = A.Type;
      if (Out.Buffer) {
        Out.Count = A.Spec->Count;
        Out.ConstantFill = A.Spec->Fill.How == BufferFill::Constant;
        Out.Low = A.Spec->Fill.Low;
        Out.High = A.Spec->Fill.High;
      } else {
        Out.Value = A.Spec->Value;
      }
      K.Args.push_back(Out);
    }
    return K;
  }

  static std::string argumentText(const TuneArgument &A) {
    return A.Buffer ? "a buffer of " + std::to_string(A.Count) + " " + elementSpelling(A.Type)
                    : "the value " + A.Value;
  }

  /// A vertical fusion's kernels run in order on the harness's buffers:
  /// each flow's consumer is given its producer's buffer (not compared
  /// where it is a temporary), and the scalars of one value must be given
  /// one value. False after reporting launches that disagree.
  bool chainArguments(const Config &C, const FusionSpec &F,
                      const std::vector<FusionMember> &Members, TuneFusion &TF) {
    TF.Chained = true;
    bool Ok = true;
    for (const FlowSpec &Flow : F.Flows) {
      auto From = findParam(Flow.From, Members), To = findParam(Flow.To, Members);
      if (!From || !To)
        continue; // The chain's proof reports it.
      TuneArgument &Producer = TF.Kernels[From->first].Args[From->second];
      TuneArgument &Consumer = TF.Kernels[To->first].Args[To->second];
      if (!Producer.Buffer || !Consumer.Buffer || Producer.Type != Consumer.Type ||
          Producer.Count < Consumer.Count) {
        Diags.report({{diag::ID::TuneFlowArgs,
                       Flow.Position.Line,
                       Flow.Position.Column,
                       {F.Name, Flow.From.spelling(), Flow.To.spelling(), argumentText(Producer),
                        argumentText(Consumer)}}},
                     C.Path);
        Ok = false;
        continue;
      }
      Consumer.AliasKernel = static_cast<int>(From->first);
      Consumer.AliasArg = static_cast<int>(From->second);
      Producer.Temporary |= Flow.Temporary;
    }
    for (const std::vector<ParamRef> &Group : F.Same)
      for (size_t I = 1; I < Group.size(); ++I) {
        auto A = findParam(Group.front(), Members), B = findParam(Group[I], Members);
        if (!A || !B)
          continue;
        const TuneArgument &X = TF.Kernels[A->first].Args[A->second],
                           &Y = TF.Kernels[B->first].Args[B->second];
        if (X.Value == Y.Value)
          continue;
        Diags.report({{diag::ID::TuneSameValues,
                       Group[I].Position.Line,
                       Group[I].Position.Column,
                       {F.Name, Group.front().spelling(), Group[I].spelling(), argumentText(X),
                        argumentText(Y)}}},
                     C.Path);
        Ok = false;
      }
    return Ok;
  }

  /// How many parameters each member's kernel has.
  static std::vector<size_t> paramCounts(const std::vector<FusionMember> &Members) {
    std::vector<size_t> Counts;
    for (const FusionMember &M : Members)
      Counts.push_back(M.Model.Params.size());
    return Counts;
  }

  /// The grid modes the fusion asks for, less those the kernels cannot run
  /// on safely; the user hears of the ones left out. Where none is left,
  /// all stay, so that fusing reports why.
  std::vector<GridMode> gridsToTry(const Config &C, const FusionSpec &F,
                                   const std::vector<FusionMember> &Members) {
    const std::vector<GridMode> &Asked = F.Tune.Grids;
    bool Safe = !pollsOtherBlocks(Members);
    if (Safe || Asked.size() == 1 || !llvm::is_contained(Asked, GridMode::AsLaunched))
      return Asked;
    Diags.report({{diag::ID::TuneAsLaunchedOnly, F.Position.Line, F.Position.Column, {F.Name}}},
                 C.Path);
    return {GridMode::AsLaunched};
  }

  /// Names the bundle's marker lists: what an earlier bundle in the
  /// directory wrote, which the next one may replace or remove.
  static constexpr const char *BundleMarker = ".kfuse-bundle";
  /// The bundle's folder of copies of the project's files.
  static constexpr const char *SourcesFolder = "src";

  /// The folder of tune's reports: --report's, else kfuse-report/ beside
  /// the config.
  std::string reportDirectory(const Config &C) const {
    if (Request.ReportDir)
      return *Request.ReportDir;
    llvm::SmallString<256> Dir(directoryOf(C.Path));
    llvm::sys::path::append(Dir, "kfuse-report");
    return std::string(Dir);
  }

  /// Names tune's reports marker lists.
  static constexpr const char *ReportMarker = ".kfuse-report";

  /// Whether kfuse may write \p Reports into \p Dir: a folder of its own
  /// (claimOwnDirectory), where it replaces no file it did not write.
  std::optional<std::set<std::string>>
  claimReportDirectory(const std::string &Dir, const std::map<std::string, std::string> &Reports) {
    auto Refuse = [&](const std::string &Why) { Diags.report(ID::ReportDirectory) << Dir << Why; };
    std::optional<std::set<std::string>> Earlier = claimOwnDirectory(Dir, ReportMarker, {}, Refuse);
    if (!Earlier)
      return std::nullopt;
    for (const auto &[Name, Text] : Reports) {
      std::string Path = Dir + "/" + Name;
      if (!Earlier->count(Name) &&
          (llvm::sys::fs::exists(Path) || llvm::sys::fs::is_symlink_file(Path))) {
        Refuse("'" + Name +
               "' in it is not a file kfuse wrote there, and kfuse does not replace it");
        return std::nullopt;
      }
    }
    return Earlier;
  }

  /// Whether kfuse may write a bundle to \p Dir: a new or empty directory,
  /// or one whose marker says kfuse wrote it. Returns the files an earlier
  /// bundle there wrote, or nothing after reporting why not.
  std::optional<std::set<std::string>> claimBundleDirectory(const std::string &Dir) {
    auto Refuse = [&](const std::string &Why) { Diags.report(ID::BundleDirectory) << Dir << Why; };
    // The harness hands these paths to nvcc, which reads them through a shell.
    if (absolutePath(Dir).find_first_of("\"$`\\") != std::string::npos) {
      Refuse("its path holds a '\"', '$', '`' or '\\', which nvcc cannot take in the paths the "
             "harness compiles");
      return std::nullopt;
    }
    return claimOwnDirectory(Dir, BundleMarker, {SourcesFolder}, Refuse);
  }

  bool noLinksAmong(const std::string &Dir, const std::map<std::string, std::string> &Files) {
    for (const auto &[Name, Text] : Files)
      if (std::optional<std::string> Link = linkOnTheWay(Dir, Name)) {
        Diags.report(ID::BundleDirectory) << Dir
                                          << "'" + *Link +
                                                 "' in it is a symbolic link, which kfuse does "
                                                 "not follow out of its bundle";
        return false;
      }
    return true;
  }

  /// The project's files the inputs read (the kernels' files and the
  /// headers they include, not the toolkit's or the system's): real path
  /// and the text kfuse parsed.
  static std::map<std::string, std::string>
  projectFiles(const std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> &Inputs) {
    std::map<std::string, std::string> Files;
    for (const auto &[Spec, Unit] : Inputs) {
      clang::SourceManager &SM = Unit->getSourceManager();
      for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
        clang::FileEntryRef File = It->first;
        llvm::StringRef Real = File.getFileEntry().tryGetRealPathName();
        clang::FileID Entered = SM.translateFile(File);
        // Not kfuse's own shims either, which exist only in its parse.
        if (Real.empty() || !llvm::sys::fs::exists(Real) || Entered.isInvalid() ||
            SM.isInSystemHeader(SM.getLocForStartOfFile(Entered)))
          continue;
        if (std::optional<llvm::MemoryBufferRef> Text = SM.getMemoryBufferForFileOrNone(File))
          Files.emplace(std::filesystem::path(Real.str()).lexically_normal().string(),
                        Text->getBuffer().str());
      }
    }
    return Files;
  }

  /// The deepest folder holding every one of \p Paths (absolute).
  static std::string commonFolder(const std::vector<std::string> &Paths) {
    std::filesystem::path Common;
    for (const std::string &P : Paths) {
      std::filesystem::path Path(P);
      if (Common.empty()) {
        Common = Path.parent_path();
        continue;
      }
      while (Common != Common.root_path() && (Path.lexically_relative(Common).empty() ||
                                              *Path.lexically_relative(Common).begin() == ".."))
        Common = Common.parent_path();
    }
    return Common.empty() ? "/" : Common.string();
  }

  bool writeBundle(FusionPipeline &Pipeline, const std::string &Dir) {
    std::optional<std::set<std::string>> Earlier = claimBundleDirectory(Dir);
    if (!Earlier)
      return false;
    std::map<std::string, std::string> Files;
    std::vector<TuneFusion> Fusions;
    std::map<const clang::ASTUnit *, std::vector<TuneKernel>> Natives;
    // The bundle carries copies of the project's files under src/, laid out
    // as in their common folder, so the bundle alone compiles on a GPU machine.
    std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> Inputs = Pipeline.inputs();
    std::map<std::string, std::string> Sources = projectFiles(Inputs);
    std::vector<std::string> Dirs = includeDirs(Inputs);
    std::vector<std::string> Everything = Dirs;
    for (const auto &[Path, Text] : Sources)
      Everything.push_back(Path);
    HeaderMirror Mirror{commonFolder(Everything), absolutePath(Dir) + "/" + SourcesFolder};
    for (const auto &[Path, Text] : Sources)
      Files[relativePath(Mirror.map(Path), Dir)] = Text;
    std::vector<Preamble> Preambles = Pipeline.preambles(Dir, PreambleUse::Measured, &Mirror);
    // Each fusion has tens of variants to fuse: on a terminal, which one is
    // being written; nothing in a log.
    Progress Writing(llvm::errs(), "kfuse tune", Pipeline.size(), !llvm::errs().is_displayed());
    for (size_t I = 0; I < Pipeline.size(); ++I) {
      const FusionSpec &F = Pipeline.fusion(I);
      const std::vector<FusionMember> &Members = Pipeline.members(I);
      if (!Pipeline.resolved(I))
        continue;
      Writing.step(I, F.Name);
      TuneFusion TF;
      TF.Name = F.Name;
      TF.Samples = F.Tune.Samples;
      TF.Tolerance = F.Tune.Tolerance;
      std::vector<TuneMember> Shape;
      for (const FusionMember &M : Members) {
        Shape.push_back(tuneMember(M));
        std::optional<TuneKernel> K = tuneKernel(Pipeline.config(), F, M);
        if (!K)
          continue;
        TF.Kernels.push_back(*K);
        Natives[M.Unit].push_back(*K);
      }
      if (TF.Kernels.size() != Members.size())
        continue; // Reported.
      if (F.Mode == FusionMode::Vertical && !chainArguments(Pipeline.config(), F, Members, TF))
        continue;
      std::vector<size_t> Counts = paramCounts(Members);
      std::vector<GridMode> Grids = gridsToTry(Pipeline.config(), F, Members);
      for (const FusedLayout &V : F.Mode == FusionMode::Vertical
                                      ? chainSpace(Shape, Grids)
                                      : variantSpace(Shape, F.Tune.Step, Grids)) {
        unsigned Sum = 0;
        for (unsigned T : V.Threads)
          Sum += T;
        // The vertical variant is laid out from a partition of the kernels'
        // own blocks, which the planner checks against 1024 threads.
        if (V.Vertical && Sum > 1024)
          continue;
        std::string Source = F.Name + "." + V.source().name() + ".cu";
        TF.Variants.push_back({V, Source});
        TF.Variants.back().Even = isEvenSplit(V, evenSplit(Shape));
        if (!(V.source() == V))
          continue;
        std::optional<FusedKernel> K =
            Pipeline.fuse(I, emittedLayout(V, F.Name + "_" + identifierFrom(V.name())));
        if (!K)
          return false;
        TF.Variants.back().Barriers = K->BarrierIds;
        FusedFile File;
        File.Generator = std::string("kfuse ") + Version;
        File.Config = Request.ConfigPath;
        File.Preambles = Preambles;
        File.Kernels.push_back(std::move(*K));
        Files[Source] = printVariantSource(File, Counts);
      }
      // A bounded variant is its twin's source compiled with the bound.
      for (TuneVariant &V : TF.Variants)
        for (const TuneVariant &Twin : TF.Variants)
          if (!(V.Layout.source() == V.Layout) && Twin.Layout.source() == Twin.Layout &&
              Twin.Source == V.Source)
            V.Barriers = Twin.Barriers;
      Fusions.push_back(std::move(TF));
    }
    Writing.finish("fused the variants of " + std::to_string(Fusions.size()) + " fusions");
    if (Diags.errorCount() != 0)
      return false;
    std::vector<Preamble> Originals = Pipeline.preambles(Dir, PreambleUse::Originals, &Mirror);
    for (size_t I = 0; I < Inputs.size() && I < Originals.size(); ++I)
      Files["originals_" + std::to_string(I) + ".cu"] =
          printOriginalsSource(Originals[I], Natives[Inputs[I].second]);
    std::string DirLines;
    for (const std::string &D : Dirs)
      DirLines += relativePath(Mirror.map(D), Dir) + "\n";
    Files["include_dirs.txt"] = DirLines;
    Files["tune_spec.h"] = printTuneSpec(Fusions);
    Files["tune_harness.cu"] = tuneHarnessSource();
    Files["kfuse_occupancy.h"] = occupancyHeaderSource();
    Files["kfuse_json.h"] = jsonHeaderSource();
    Files["kfuse_element_types.def"] = elementTypesSource();
    Files["kfuse_candidate_kinds.def"] = candidateKindsSource();
    Files["run.sh"] = tuneRunScript();
    std::vector<std::string> Names;
    for (const auto &[Name, Text] : Files)
      Names.push_back(Name);
    std::string Marker =
        ownDirectoryMarker("kfuse tuning bundle: the files kfuse wrote here, "
                           "which the next bundle written here replaces or removes",
                           Names);
    if (!noLinksAmong(Dir, Files))
      return false;
    OutputTransaction Written(Diags);
    Written.addInputs(ReadFiles, ReadHashes);
    // The marker first: a run stopped before the rest leaves a directory
    // the next run claims.
    Written.stage(Dir + "/" + BundleMarker, Marker);
    for (const auto &[Name, Text] : Files)
      Written.stage(Dir + "/" + Name, Text);
    if (!Written.commit())
      return false;
    removeStale(Dir, *Earlier, std::set<std::string>(Names.begin(), Names.end()));
    llvm::sys::fs::setPermissions(Dir + "/run.sh", llvm::sys::fs::all_read |
                                                       llvm::sys::fs::all_exe |
                                                       llvm::sys::fs::owner_write);
    return true;
  }

  /// The inputs' own include directories (-I, -iquote), real paths, so that
  /// the harness finds `<helper_cuda.h>` in the bundle's copies as the build
  /// found it.
  static std::vector<std::string>
  includeDirs(const std::vector<std::pair<const KernelSpec *, clang::ASTUnit *>> &Inputs) {
    std::vector<std::string> Dirs;
    for (const auto &[Spec, Unit] : Inputs)
      for (const auto &E :
           Unit->getPreprocessor().getHeaderSearchInfo().getHeaderSearchOpts().UserEntries) {
        llvm::SmallString<256> Real;
        if (E.IsFramework ||
            (E.Group != clang::frontend::Angled && E.Group != clang::frontend::Quoted) ||
            llvm::sys::fs::real_path(E.Path, Real))
          continue; // A folder that does not exist holds nothing to copy.
        if (std::find(Dirs.begin(), Dirs.end(), std::string(Real)) == Dirs.end())
          Dirs.push_back(std::string(Real));
      }
    return Dirs;
  }

  int runBundle(const std::string &Dir, const std::string &Results) {
    llvm::ErrorOr<std::string> Bash = llvm::sys::findProgramByName("bash");
    if (!Bash)
      return 127;
    // An argument vector, no shell string: the paths may hold quotes or '$'.
    std::string Script = Dir + "/run.sh";
    std::vector<llvm::StringRef> Args{*Bash, Script, "--out", Results};
    if (Request.Gpus)
      Args.insert(Args.end(), {"--gpus", *Request.Gpus});
    return llvm::sys::ExecuteAndWait(*Bash, Args);
  }

  /// What the evaluation needs to know of each fusion beyond its results:
  /// the split `kfuse fuse` would emit, and the kernels it fuses (fusions of
  /// the same kernels at other sizes form one group).
  /// The bytes bound of a chain whose every kernel's traffic is known.
  static std::optional<BytesBound> chainBound(const std::vector<FusionMember> &Members,
                                              const std::vector<FlowSpec> &Flows) {
    std::vector<BufferTraffic> All;
    for (const FusionMember &M : Members) {
      std::optional<std::vector<BufferTraffic>> T = bufferTraffic(M);
      if (!T)
        return std::nullopt;
      All.insert(All.end(), T->begin(), T->end());
    }
    return bytesBound(All, Flows);
  }

  std::vector<EvaluationCase> evaluationCases(FusionPipeline &Pipeline, const TuneResults &Results,
                                              const std::vector<Verdict> &Verdicts) {
    std::vector<EvaluationCase> Cases;
    for (size_t I = 0; I < Pipeline.size(); ++I) {
      const FusionResult *R = Results.find(Pipeline.fusion(I).Name);
      EvaluationCase Case;
      Case.Result = R;
      Case.Choice = R ? &Verdicts[static_cast<size_t>(R - Results.Fusions.data())] : nullptr;
      std::vector<TuneMember> Shape;
      for (const FusionMember &M : Pipeline.members(I)) {
        Shape.push_back(tuneMember(M));
        Case.Kernels.push_back(M.Spec->Id);
        Case.Group += (Case.Group.empty() ? "" : " + ") + M.Spec->Kernel;
      }
      Case.EvenSplit = evenSplit(Shape);
      Case.Mode = Pipeline.fusion(I).Mode;
      if (Case.Mode == FusionMode::Vertical)
        Case.Bound = chainBound(Pipeline.members(I), Pipeline.fusion(I).Flows);
      Cases.push_back(std::move(Case));
    }
    return Cases;
  }

  /// Why each measured fusion gains what it gains, in the pipeline's order.
  std::vector<FusionExplanation> explanations(FusionPipeline &Pipeline, const TuneResults &Results,
                                              const std::vector<EvaluationRow> &Rows) {
    std::vector<FusionExplanation> Why;
    for (const EvaluationRow &Row : Rows)
      for (size_t I = 0; I < Pipeline.size(); ++I) {
        const FusionResult *R = Results.find(Pipeline.fusion(I).Name);
        if (!R || R->Fusion != Row.Fusion)
          continue;
        std::vector<TuneMember> Shape;
        for (const FusionMember &M : Pipeline.members(I))
          Shape.push_back(tuneMember(M));
        Why.push_back(explain(Results, *R, Row, Shape, Pipeline.fusion(I).Tune.Step));
      }
    return Why;
  }

  /// Chooses per fusion, writes the report and, for the fusions where a
  /// variant wins, the fused file with that variant.
  int select(const Config &C, FusionPipeline &Pipeline, const std::string &ResultsPath,
             llvm::raw_ostream &Out) {
    std::optional<TuneResults> Results = readTuneResults(ResultsPath, Diags);
    if (!Results)
      return 1;
    std::vector<Verdict> Verdicts;
    for (const FusionResult &F : Results->Fusions)
      Verdicts.push_back(decide(F));

    FusedFile File;
    File.Generator = std::string("kfuse ") + Version;
    File.Config = Request.ConfigPath;
    std::string Output = Request.Output.value_or(llvm::sys::path::stem(C.Path).str() + ".fused.cu");
    // With the fused file on standard output, what kfuse says goes beside it.
    const bool ToStdout = Output == "-";
    llvm::raw_ostream &Status = ToStdout ? llvm::errs() : Out;
    for (size_t I = 0; I < Pipeline.size(); ++I) {
      const FusionResult *R =
          findMeasurements(*Results, Pipeline.fusion(I).Name, ResultsPath, Diags);
      if (!R)
        return 1;
      const Verdict &V = Verdicts[static_cast<size_t>(R - Results->Fusions.data())];
      Status << "kfuse: " << R->Fusion << ": " << (V.Fuse ? "fuse" : "keep the original launches")
             << " (" << V.Reason << ")\n";
      if (!V.Fuse)
        continue;
      std::optional<FusedKernel> K = Pipeline.fuse(I, tunedLayout(V, ResultsPath));
      if (!K)
        return 1;
      File.Kernels.push_back(std::move(*K));
    }
    std::string OutputDir = directoryOf(ToStdout ? "" : Output);
    if (!File.Kernels.empty())
      File.Preambles = Pipeline.preambles(OutputDir);
    if (Diags.errorCount() != 0)
      return 1;
    // The reports and the charts, in a folder of kfuse's own.
    std::map<std::string, std::string> Reports;
    Reports["tuning.yaml"] = printTuningYaml(*Results, Verdicts);
    Reports["tuning-report.md"] = printReport(*Results, Verdicts);
    for (size_t I = 0; I < Results->Fusions.size(); ++I)
      Reports[chartFileName(Results->Fusions[I])] =
          renderChartSvg(Results->Fusions[I], Verdicts[I]);
    std::vector<EvaluationRow> Rows = evaluate(evaluationCases(Pipeline, *Results, Verdicts));
    Reports["evaluation.md"] = printEvaluation(*Results, Rows);
    std::vector<FusionExplanation> Why = explanations(Pipeline, *Results, Rows);
    Reports["why.md"] = printExplanations(*Results, Why);
    if (measuredThroughput(Why))
      Reports[ThroughputChartFileName] = renderThroughputChartSvg(Why);
    Reports[RatioChartFileName] = renderRatioChartSvg(*Results, Rows);
    Reports[SummaryChartFileName] = renderSummaryChartSvg(*Results, Rows);
    std::string ReportDir = reportDirectory(C);
    std::optional<std::set<std::string>> Earlier = claimReportDirectory(ReportDir, Reports);
    if (!Earlier)
      return 1;
    // The reports, the charts and the winning variants together, or none.
    OutputTransaction Written(Diags);
    Written.addInputs(ReadFiles, ReadHashes);
    std::vector<std::string> Names;
    for (const auto &[Name, Text] : Reports)
      Names.push_back(Name);
    Written.stage(ReportDir + "/" + ReportMarker,
                  ownDirectoryMarker("kfuse tune's reports: the files kfuse wrote here, which the "
                                     "next run that reports here replaces or removes",
                                     Names));
    for (const auto &[Name, Text] : Reports)
      Written.stage(ReportDir + "/" + Name, Text);
    // Written when no variant wins too: an earlier run's winners left in
    // place would be built as this run's.
    std::string Fused = printFusedFile(File);
    if (!ToStdout)
      Written.stage(Output, Fused);
    if (!Written.commit())
      return 1;
    removeStale(ReportDir, *Earlier, std::set<std::string>(Names.begin(), Names.end()));
    if (ToStdout)
      Out << Fused;
    Status << "kfuse: wrote " << ReportDir
           << "/tuning-report.md, evaluation.md, why.md, tuning.yaml and charts";
    Status << (File.Kernels.empty() ? "; no fused kernel (none wins) to "
                                    : "; the winning variants to ")
           << (ToStdout ? "standard output" : Output);
    Status << "\n";
    return 0;
  }
};

} // namespace

int runTune(const ParseSettings &Settings, const TuneRequest &Request, Reporter &Diags,
            llvm::raw_ostream &Out) {
  return TuneCommand(Settings, Request, Diags).run(Out);
}

} // namespace kfuse

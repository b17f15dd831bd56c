//===- SuggestCommand.cpp - `kfuse suggest FILES [--profile CSV]` ---------===//
//
// Finds the kernel launches of a program's host code, the ones that could
// run side by side, whether kfuse fuses them (kfuse check on a config it
// writes), and with a profile what fusing them could gain; prints them
// ranked and writes the config kfuse tune takes.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Driver/Commands.h"

#include "Outputs.h"
#include "Support.h"
#include "kfuse/Pipeline/FusionPipeline.h"

#include "kfuse/Analysis/Host/KernelLaunches.h"
#include "kfuse/Analysis/Host/ProgramModel.h"
#include "kfuse/Analysis/Kernel/Elementwise.h"
#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/LaunchArguments.h"
#include "kfuse/Diagnostics/InputFiles.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Emission/SuggestionPrinter.h"
#include "kfuse/Pipeline/Inputs.h"
#include "kfuse/Tuning/Estimate.h"
#include "kfuse/Tuning/Profile.h"
#include "kfuse/Tuning/Selection.h"
#include "kfuse/Tuning/Suggestions.h"

#include "clang/AST/ASTContext.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

namespace kfuse {

namespace {

/// Why kfuse check cannot take candidate \p C: a kernel's file or its block
/// is not known, at best with what the source gives instead.
std::string notChecked(const Suggestions &S, const Candidate &C) {
  for (size_t M : C.Members) {
    const SuggestedLaunch &L = S.Launches[M];
    if (!L.Block && !L.BlockSeveral.empty())
      return "not checked: the block of '" + L.Id + "' is not one value (" + L.BlockSeveral +
             "); a fused kernel is built for one block size";
  }
  return "not checked: the kernel's file or block size is not known";
}

using namespace clang;

/// "blas::axpy<float>" -> "axpy": a name the config can use.
std::string idOf(const std::string &Kernel) {
  std::string Base = Kernel.substr(0, Kernel.find('<'));
  size_t Colon = Base.rfind("::");
  if (Colon != std::string::npos)
    Base = Base.substr(Colon + 2);
  std::string Id;
  for (char C : Base)
    Id += std::isalnum(static_cast<unsigned char>(C)) ? C : '_';
  return Id.empty() ? "kernel" : Id;
}

class Suggester {
public:
  Suggester(const ParseSettings &Settings, const SuggestRequest &Request, Reporter &Diags)
      : Settings(Settings), Request(Request), Diags(Diags) {}

  int run(llvm::raw_ostream &Out) {
    std::vector<std::string> Files = distinct(sourceFiles());
    if (Files.empty()) {
      Diags.report(diag::ID::SuggestNoSources);
      return 1;
    }
    for (const std::string &F : Files)
      if (llvm::is_contained({".yaml", ".yml"}, llvm::sys::path::extension(F))) {
        Diags.report(diag::ID::SuggestGivenConfig) << F;
        return 1;
      }
    for (const std::string &F : Files)
      if (auto [Id, Why] = unreadable(F); !Why.empty()) {
        Diags.report(Id) << F << Why;
        return 1;
      }
    std::optional<ProfileResult> Profile;
    if (Request.Profile && !(Profile = readProfile(*Request.Profile)))
      return 1;
    std::optional<TuneResults> Calibration;
    if (Request.Peaks && !(Calibration = readTuneResults(*Request.Peaks, Diags)))
      return 1;
    std::optional<ParserOptions> Options = makeParserOptions(Settings, Diags);
    if (!Options)
      return 1;
    SourceParser Parser(*Options, Diags);
    if (!findAll(Parser, Files))
      return 1;
    Suggestions S = describe();
    if (Profile)
      attachProfile(S, *Profile, Calibration ? &*Calibration : nullptr, Parser);
    checkReadiness(S, Parser);
    Diags.report(diag::ID::SuggestWork)
        << std::to_string(Model->graph().Related) << std::to_string(Model->launches().size())
        << std::to_string(FusedToCheck) << std::to_string(Candidates);
    rankCandidates(S);

    std::string Table, Markdown;
    llvm::raw_string_ostream TableOut(Table), MarkdownOut(Markdown);
    printSuggestions(S, TableFormat::Terminal, TableOut);
    OutputTransaction Outputs(Diags);
    Outputs.addInputs(Parser.inputFiles(), Parser.inputHashes());
    Outputs.addInputs(Parser.commandFiles());
    if (Request.Profile)
      Outputs.addInputs({absolutePath(*Request.Profile)});
    if (Request.Peaks)
      Outputs.addInputs({absolutePath(*Request.Peaks)});
    if (Request.Markdown) {
      printSuggestions(S, TableFormat::Markdown, MarkdownOut);
      Outputs.stage(*Request.Markdown, Markdown);
    }
    bool AnyReady = llvm::any_of(S.Candidates, [](const Candidate &C) { return C.ready(); });
    // An old config left in place would pass for this run's: a build that
    // asked for one must hear that there is none, and a failed run writes
    // nothing (the markdown neither).
    // '-o -': the config is the output, for a pipe; the table goes to stderr.
    bool ToStdout = Request.Output && *Request.Output == "-";
    llvm::raw_ostream &TableStream = ToStdout ? llvm::errs() : Out;
    if (Request.Output && !AnyReady) {
      TableStream << Table;
      Diags.report(diag::ID::SuggestNoConfig) << *Request.Output;
      return 1;
    }
    std::string Config =
        Request.Output ? printSuggestedConfig(S, ConfigContent::Launches) : std::string();
    if (Request.Output && !ToStdout)
      Outputs.stage(*Request.Output, Config);
    if (!Outputs.commit())
      return 1;
    if (ToStdout) {
      TableStream << Table;
      Out << Config;
      return 0;
    }
    Out << Table;
    if (Request.Output)
      Out << "wrote " << *Request.Output << "\n";
    return 0;
  }

private:
  /// Each file once, however often or however spelled it was named: its
  /// launches are not twice as many.
  static std::vector<std::string> distinct(const std::vector<std::string> &Files) {
    std::vector<std::string> Out;
    std::set<std::string> Seen;
    for (const std::string &F : Files) {
      llvm::SmallString<256> Real;
      std::string Key = llvm::sys::fs::real_path(F, Real) ? absolutePath(F) : std::string(Real);
      if (Seen.insert(Key).second)
        Out.push_back(F);
    }
    return Out;
  }

  const ParseSettings &Settings;
  const SuggestRequest &Request;
  Reporter &Diags;
  /// The program's files, launches and their dependences.
  std::optional<ProgramModel> Model;
  // The work done, for kfuse-suggest-work: pairs of launches related,
  // candidates checked and how many of them were fused to check them.
  size_t Candidates = 0, FusedToCheck = 0;
  /// What the candidates' pipelines find of each file, found once.
  std::shared_ptr<FileFacts> Facts = std::make_shared<FileFacts>();

  std::string configPath() const {
    return Request.Output && *Request.Output != "-" ? *Request.Output
                                                    : std::string("kfuse-suggest.yaml");
  }

  /// The files named, else every CUDA file of the compilation database.
  std::vector<std::string> sourceFiles() const {
    if (!Request.Files.empty() || !Settings.BuildDir)
      return Request.Files;
    std::string Error;
    auto Database = tooling::JSONCompilationDatabase::loadFromDirectory(*Settings.BuildDir, Error);
    std::vector<std::string> Files;
    if (Database)
      for (const std::string &F : Database->getAllFiles())
        if (llvm::sys::path::extension(F) == ".cu")
          Files.push_back(F);
    return Files;
  }

  std::optional<ProfileResult> readProfile(const std::string &Path) {
    InputText In = readInput(Path);
    if (!In.Buffer) {
      Diags.report(In.Id) << Path << In.Why;
      return std::nullopt;
    }
    ProfileResult P = parseNcuCsv(In.Buffer->getBuffer().str());
    if (!P.Problems.empty()) {
      Diags.report(P.Problems, Path);
      return std::nullopt;
    }
    return P;
  }

  /// Parses each file on both sides; finds its launches, their kernels and
  /// the dependences between them.
  bool findAll(SourceParser &Parser, const std::vector<std::string> &Files) {
    Progress Reading(llvm::errs(), "kfuse suggest", Files.size(),
                     Request.Quiet || Files.size() < 2);
    Model = ProgramModel::read(Parser, Files,
                               [&](size_t I, const std::string &F) { Reading.step(I, F); });
    if (!Model)
      return false;
    Reading.finish("read " + std::to_string(Files.size()) + " files, " +
                   std::to_string(Model->launches().size()) + " launches");
    return true;
  }

  /// "../src/app.cu:118:3": where the config finds the launch again.
  std::string siteOf(const SourceManager &SM, SourceLocation Loc) const {
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
    if (P.isInvalid())
      return "";
    return relativePath(P.getFilename(), directoryOf(configPath())) + ":" +
           std::to_string(P.getLine()) + ":" + std::to_string(P.getColumn());
  }

  SuggestedArg argument(const ProgramLaunch &F, size_t I) const {
    const LaunchedValue &V = F.Launch.Args[I];
    SuggestedArg A;
    A.Text = V.Text;
    const ParmVarDecl *P =
        F.Kernel && I < F.Kernel->getNumParams() ? F.Kernel->getParamDecl(I) : nullptr;
    A.Param = P ? P->getNameAsString() : "argument " + std::to_string(I + 1);
    QualType T = P ? P->getType() : QualType();
    A.Buffer = P ? T->isPointerType() : V.IsPointer;
    A.Several = V.Several;
    if (!A.Buffer) {
      if (V.Value)
        A.Value = std::to_string(*V.Value);
      else if (V.Real)
        llvm::raw_string_ostream(A.Value.emplace()) << llvm::format("%.9g", *V.Real);
      return A;
    }
    // A pointer to rows (`const double a[][N][M]`) is a buffer of their elements.
    std::optional<ElementType> Element =
        P ? elementTypeOf(P->getASTContext().getBaseElementType(T->getPointeeType()))
          : std::nullopt;
    A.Type = Element.value_or(ElementType::U8);
    const std::optional<KernelUses> &Of = F.Uses;
    A.Written = Of && I < Of->Params.size() && writes(Of->Params[I]);
    if (V.AllocatedBytes && !V.Offset)
      A.Count = *V.AllocatedBytes / elementBytes(A.Type);
    A.AllocatedText = V.AllocatedText;
    return A;
  }

  Suggestions describe() {
    Suggestions S;
    std::map<std::string, unsigned> Ids;
    for (const ProgramLaunch &F : Model->launches()) {
      const KernelLaunch &L = F.Launch;
      const SourceManager &SM = Model->files()[F.File].host().getSourceManager();
      SuggestedLaunch Out;
      Out.Kernel = L.Kernel ? L.KernelName : "(through a pointer)";
      std::string Id = idOf(Out.Kernel);
      // One of several overloads: the config names it with its parameter types.
      if (F.KernelFile && Model->files()[*F.KernelFile].kernels().countNamed(L.KernelName) > 1)
        Out.Kernel = overloadName(*F.Kernel);
      unsigned N = ++Ids[Id];
      Out.Id = N == 1 ? Id : Id + "_" + std::to_string(N);
      if (F.KernelFile)
        Out.File = relativePath(absolutePath(Model->files()[*F.KernelFile].path()),
                                directoryOf(configPath()));
      Out.Where = launchLocation(SM, L.Loc);
      Out.Site = siteOf(SM, L.Loc);
      Out.Syntax = spelling(L.Syntax);
      Out.GridText = L.Grid.Text;
      Out.BlockText = L.Block.Text;
      Out.Grid = L.Grid.Value;
      Out.Block = L.Block.Value;
      Out.BlockSeveral = L.Block.Several;
      Out.GridSeveral = L.Grid.Several;
      Out.SharedText = L.Shared.Text;
      if (L.Shared.Text.empty())
        Out.SharedBytes = 0;
      else if (L.Shared.Value && *L.Shared.Value >= 0)
        Out.SharedBytes = static_cast<uint64_t>(*L.Shared.Value);
      Out.Stream = L.DefaultStream ? "" : L.Stream.Text;
      Out.ArgsKnown = L.ArgsKnown;
      Out.InLoop = L.InLoop;
      for (size_t I = 0; I < L.Args.size(); ++I)
        Out.Args.push_back(argument(F, I));
      S.Launches.push_back(std::move(Out));
    }
    const LaunchRelations &Graph = Model->graph();
    for (const LaunchPair &P : Graph.Pairs)
      S.Candidates.push_back(candidate(S, {P.First, P.Second}, &P, Model->sourcesOf(P.First)));
    for (const std::vector<size_t> &G : Graph.Groups)
      S.Candidates.push_back(candidate(S, G, nullptr, Model->sourcesOf(G.front())));
    for (const LaunchChain &Chain : Graph.Chains) {
      const SourceManager &SM = Model->sourcesOf(Chain.Launches.front());
      Candidate C = candidate(S, Chain.Launches, nullptr, SM);
      chain(C, S, Chain, SM);
      S.Candidates.push_back(std::move(C));
    }
    return S;
  }

  /// The vertical fusion of three or more launches: the chain's flows and
  /// scalars of one value, and what it took on trust.
  static void chain(Candidate &C, const Suggestions &S, const LaunchChain &Chain,
                    const SourceManager &SM) {
    C.Mode = FusionMode::Vertical;
    for (const ChainFlow &F : Chain.Flows) {
      const SuggestedArg &From = S.Launches[F.From].Args[F.Flow.FromArg];
      C.Flows.push_back({F.From,
                         F.To,
                         From.Param,
                         S.Launches[F.To].Args[F.Flow.ToArg].Param,
                         F.Flow.Buffer,
                         F.Flow.Dead,
                         F.Flow.Live,
                         {}});
      if (From.Buffer && From.Count)
        C.Flows.back().Bytes = *From.Count * elementBytes(From.Type);
    }
    for (const auto &Group : Chain.Same)
      for (size_t K = 1; K < Group.size(); ++K)
        C.Same.push_back({Group[0].first, Group[K].first,
                          S.Launches[Group[0].first].Args[Group[0].second].Param,
                          S.Launches[Group[K].first].Args[Group[K].second].Param});
    const std::string &First = S.Launches[Chain.Launches.front()].Id;
    const std::string &Last = S.Launches[Chain.Launches.back()].Id;
    for (const LaunchAssumption &X : Chain.Assumptions) {
      C.Assumptions.push_back(kfuse::describe(X, First, Last, SM));
      C.CallersPromise |= callersPromise(X);
    }
  }

  /// What the launching function's callers decide, which only a config's
  /// distinct_buffers promises.
  static bool callersPromise(const LaunchAssumption &X) {
    return X.What == LaunchAssumption::DistinctBuffers || X.What == LaunchAssumption::CallersWork;
  }

  Candidate candidate(const Suggestions &S, const std::vector<size_t> &Members, const LaunchPair *P,
                      const SourceManager &SM) const {
    Candidate C;
    C.Members = Members;
    for (size_t I : Members)
      C.Name += (C.Name.empty() ? "" : "_") + S.Launches[I].Id;
    if (!P)
      return C;
    const std::string &A = S.Launches[P->First].Id, &B = S.Launches[P->Second].Id;
    for (const LaunchConflict &X : P->Conflicts)
      C.Conflicts.push_back(kfuse::describe(X, A, B, SM));
    for (const LaunchAssumption &X : P->Assumptions) {
      C.Assumptions.push_back(kfuse::describe(X, A, B, SM));
      C.CallersPromise |= callersPromise(X);
    }
    if (P->chainable())
      chain(C, S, *P);
    else if (!P->NotChainable.empty() && llvm::any_of(P->Conflicts, [](const LaunchConflict &X) {
               return X.What == LaunchConflict::ReadAfterWrite ||
                      X.What == LaunchConflict::WriteAfterRead ||
                      X.What == LaunchConflict::WriteAfterWrite;
             }))
      // Only a pair that shares a buffer is a chain's shape.
      C.Conflicts.push_back("not vertically either: " + P->NotChainable);
    return C;
  }

  /// The vertical fusion of dependent launches whose every dependence is a
  /// buffer both name through one argument each.
  static void chain(Candidate &C, const Suggestions &S, const LaunchPair &P) {
    C.Mode = FusionMode::Vertical;
    const SuggestedLaunch &A = S.Launches[P.First], &B = S.Launches[P.Second];
    for (const LaunchFlow &F : P.Flows) {
      const SuggestedArg &From = A.Args[F.FromArg];
      C.Flows.push_back(
          {P.First, P.Second, From.Param, B.Args[F.ToArg].Param, F.Buffer, F.Dead, F.Live, {}});
      if (From.Buffer && From.Count)
        C.Flows.back().Bytes = *From.Count * elementBytes(From.Type);
    }
    for (auto [I, J] : P.SameArgs)
      C.Same.push_back({P.First, P.Second, A.Args[I].Param, B.Args[J].Param});
  }

  /// With \p Calibration, the estimate divides by the peaks the harness
  /// measured on the GPU; without, by the profile's shares of peak.
  void attachProfile(Suggestions &S, const ProfileResult &P, const TuneResults *Calibration,
                     SourceParser &Parser) {
    S.Profiled = true;
    std::set<std::string> Matched;
    for (SuggestedLaunch &L : S.Launches)
      for (const ProfiledKernel &K : P.Kernels)
        if (kernelNameKey(K.Name) == kernelNameKey(L.Kernel)) {
          L.Profile = K;
          Matched.insert(K.Name);
          if (!L.Grid && K.Grid[0]) {
            L.Grid = K.Grid;
            L.GridFromProfile = true;
          }
          if (!L.Block && K.Block[0]) {
            L.Block = K.Block;
            L.BlockFromProfile = true;
          }
          break;
        }
    for (const ProfiledKernel &K : P.Kernels)
      if (!Matched.count(K.Name))
        Diags.report(diag::ID::ProfileUnmatched) << K.Name;
    std::map<size_t, unsigned> Coarsen;
    for (Candidate &C : S.Candidates) {
      std::vector<KernelDemand> Of;
      for (size_t I : C.Members)
        if (S.Launches[I].Profile) {
          Of.push_back(demandOf(*S.Launches[I].Profile));
          auto [It, New] = Coarsen.try_emplace(I, 1);
          if (New)
            It->second = estimatedCoarsening(coarsenable(S.Launches[I], Model->launch(I), Parser));
          Of.back().Coarsen = It->second;
        }
      // The model is of kernels side by side; a chain is not estimated.
      if (Of.size() != C.Members.size() || C.Mode == FusionMode::Vertical)
        continue;
      DevicePeaks Peaks;
      DeviceLimits Device;
      if (Calibration && Calibration->Peaks)
        Peaks = *Calibration->Peaks;
      if (Calibration && Calibration->Limits)
        Device = *Calibration->Limits;
      // Each kernel keeps the block it is launched with.
      C.Bound = estimateFusion(Of, Device, Peaks, 32);
    }
  }

  /// Whether kfuse tune would coarsen launch \p L's kernel on the config
  /// suggest writes, which launches it with its block and never says
  /// any_grid.
  static bool coarsenable(const SuggestedLaunch &L, const ProgramLaunch &F, SourceParser &Parser) {
    if (!F.Kernel || !F.Kernel->doesThisDeclarationHaveABody() || !L.Block)
      return false;
    std::array<unsigned, 3> Block;
    for (size_t D = 0; D < 3; ++D)
      Block[D] = static_cast<unsigned>((*L.Block)[D]);
    KernelModel Kernel = analyzeKernel(*F.Device, *F.Kernel, Parser.rejected(*F.Device));
    return kfuse::coarsenable(findElementwise(Kernel, analyzeAccesses(*F.Kernel, Block), Block),
                              false);
  }

  /// kfuse check on each candidate that could run side by side: the
  /// refusals it would meet.
  void checkReadiness(Suggestions &S, SourceParser &Parser) {
    Suggestions Checkable = S;
    Checkable.Candidates.clear();
    std::vector<size_t> Index;
    for (size_t I = 0; I < S.Candidates.size(); ++I) {
      const Candidate &C = S.Candidates[I];
      bool Known = C.fusable() && llvm::all_of(C.Members, [&](size_t M) {
                     return !S.Launches[M].File.empty() && S.Launches[M].Block;
                   });
      // A launch CUDA refuses fails in the program too: nothing to fuse, and
      // the config checked here would be refused whole.
      auto Unlaunchable = llvm::find_if(C.Members, [&](size_t M) {
        return !launchable(S.Launches[M].Block, MaxBlockDims, MaxBlockThreads) ||
               !launchable(S.Launches[M].Grid, MaxGridDims, 0);
      });
      if (Known && Unlaunchable != C.Members.end()) {
        S.Candidates[I].Refusals.push_back("not checked: the launch of '" +
                                           S.Launches[*Unlaunchable].Id +
                                           "' has a grid or block CUDA does not launch");
        continue;
      }
      if (Known) {
        Checkable.Candidates.push_back(C);
        Index.push_back(I);
      } else if (C.fusable()) {
        S.Candidates[I].Refusals.push_back(notChecked(S, C));
      }
    }
    if (Index.empty())
      return;
    std::string Text = printSuggestedConfig(Checkable, ConfigContent::Kernels);
    ConfigResult Parsed = parseConfig(Text, configPath());
    if (!Parsed.Value) {
      // kfuse wrote it: a problem here is kfuse's own bug; show it.
      Diags.report(Parsed.Problems, configPath());
      return;
    }
    const Config &C = *Parsed.Value;
    std::map<std::string, Readiness> Checked;
    for (size_t K = 0; K < Index.size(); ++K) {
      Candidate &Target = S.Candidates[Index[K]];
      Target.Checked = true;
      std::string Key = readinessKey(C, C.Fusions[K]);
      auto Found = Key.empty() ? Checked.end() : Checked.find(Key);
      Readiness R = Found != Checked.end() ? Found->second.renamed(namesOf(C.Fusions[K]))
                                           : readiness(C, K, Parser);
      ++Candidates;
      if (Found == Checked.end())
        ++FusedToCheck;
      if (!Key.empty() && Found == Checked.end())
        Checked.emplace(Key, R);
      for (const auto &[Flow, Why] : R.Stored) {
        Target.Flows[Flow].Temporary = false;
        Target.Flows[Flow].Kept = Why;
      }
      if (R.Replacing)
        for (size_t M : Target.Members)
          if (!llvm::is_contained(Target.Replace, S.Launches[M].File))
            Target.Replace.push_back(S.Launches[M].File);
      Target.Refusals = R.Refusals;
    }
  }

  /// Whether CUDA launches dimensions \p D (unknown ones pass): each within
  /// \p Max, their product within \p MaxProduct unless 0.
  static bool launchable(const std::optional<std::array<uint64_t, 3>> &D,
                         std::array<uint64_t, 3> Max, uint64_t MaxProduct) {
    if (!D)
      return true;
    for (size_t I = 0; I < 3; ++I)
      if ((*D)[I] == 0 || (*D)[I] > Max[I])
        return false;
    return !MaxProduct || (*D)[0] * (*D)[1] * (*D)[2] <= MaxProduct;
  }

  /// Whether a candidate fuses, and how, or why not.
  struct Readiness {
    bool Replacing = false;            ///< Fuses with `replace:` only.
    std::vector<std::string> Refusals; ///< Empty when it fuses.
    /// Temporaries no register can hold, by their place among the flows,
    /// which fuse stored instead, and why they are stored.
    std::map<size_t, std::string> Stored;
    std::vector<std::string> Ids; ///< Its kernels' entries and its name, which refusals name.

    /// The same outcome for a candidate whose entries are \p Other.
    Readiness renamed(const std::vector<std::string> &Other) const {
      Readiness R = *this;
      R.Ids = Other;
      for (std::string &Line : R.Refusals)
        for (size_t I = 0; I < Ids.size() && I < Other.size(); ++I)
          for (size_t At = 0; (At = Line.find("'" + Ids[I] + "'", At)) != std::string::npos;
               At += Other[I].size() + 2)
            Line.replace(At, Ids[I].size() + 2, "'" + Other[I] + "'");
      return R;
    }
  };

  Readiness readiness(const Config &C, size_t K, SourceParser &Parser) {
    Readiness R;
    R.Ids = namesOf(C.Fusions[K]);
    std::vector<DiagnosticRecord> Found;
    if (fuses(C, K, Parser, Found))
      return R;
    // Kernels that read variables the program writes fuse in the place of
    // their files: the config then says `replace:`.
    if (llvm::any_of(Found,
                     [](const DiagnosticRecord &D) { return D.Id == "kfuse-device-variable"; })) {
      Config Replacing = C;
      for (const std::string &Id : C.Fusions[K].Kernels)
        Replacing.Replace.push_back(C.findKernel(Id)->ResolvedFile);
      std::vector<DiagnosticRecord> Again;
      if (fuses(Replacing, K, Parser, Again)) {
        R.Replacing = true;
        return R;
      }
    }
    if (storedInstead(C, K, Parser, Found, R))
      return R;
    R.Refusals = errorLines(Found);
    return R;
  }

  /// Where a register cannot hold some temporaries and nothing else stops
  /// the fusion: the most temporaries that stay registers while the fusion
  /// fuses, trying each again after all are stored; the others go into R.Stored.
  bool storedInstead(const Config &C, size_t K, SourceParser &Parser,
                     const std::vector<DiagnosticRecord> &Found, Readiness &R) {
    auto OnlyRegisters = llvm::all_of(Found, [](const DiagnosticRecord &D) {
      return D.Severity != "error" || D.Id == "kfuse-temporary-not-private" ||
             D.Id == "kfuse-temporary-read-elsewhere";
    });
    const std::vector<FlowSpec> &Flows = C.Fusions[K].Flows;
    if (!OnlyRegisters || llvm::none_of(Flows, [](const FlowSpec &F) { return F.Temporary; }))
      return false;
    auto Error =
        llvm::find_if(Found, [](const DiagnosticRecord &D) { return D.Severity == "error"; });
    std::string Why = "no register can hold it (" + Error->Id + " at " +
                      llvm::sys::path::filename(Error->File).str() + ":" +
                      std::to_string(Error->Line) + ")";
    Config Trial = C;
    std::vector<DiagnosticRecord> Again;
    for (FlowSpec &F : Trial.Fusions[K].Flows)
      F.Temporary = false;
    if (!fuses(Trial, K, Parser, Again))
      return false;
    for (size_t I = 0; I < Flows.size(); ++I) {
      if (!Flows[I].Temporary)
        continue;
      Trial.Fusions[K].Flows[I].Temporary = true;
      if (!fuses(Trial, K, Parser, Again)) {
        Trial.Fusions[K].Flows[I].Temporary = false;
        R.Stored[I] = Why;
      }
    }
    return true;
  }

  /// The names a refusal of \p F may give: its kernels' entries, then its own.
  static std::vector<std::string> namesOf(const FusionSpec &F) {
    std::vector<std::string> Names = F.Kernels;
    Names.push_back(F.Name);
    return Names;
  }

  /// What decides whether fusion \p F fuses, its kernels named by what
  /// their entries say rather than by id: a program that launches the same
  /// kernels a thousand times has its candidates checked once per shape.
  /// Empty when an entry refers to others by id (flows), which the key
  /// does not follow.
  static std::string readinessKey(const Config &C, const FusionSpec &F) {
    if (!F.Flows.empty() || !F.Same.empty())
      return "";
    std::string Key = std::to_string(static_cast<int>(F.Mode)) + "|" +
                      (F.Grid ? gridModeName(*F.Grid) : "-") + "|" +
                      (F.Threads ? std::to_string(*F.Threads) : "-") + "|" +
                      std::to_string(F.DistinctBuffers);
    for (unsigned T : F.Partition)
      Key += "|p" + std::to_string(T);
    for (const std::string &Id : F.Kernels) {
      const KernelSpec *K = C.findKernel(Id);
      if (!K)
        return "";
      Key += "\n" + K->ResolvedFile + "|" + K->Kernel + "|" + std::to_string(K->Block[0]) + "," +
             std::to_string(K->Block[1]) + "," + std::to_string(K->Block[2]) + "|" +
             std::to_string(K->BlockRank) + std::to_string(K->AnyBlockSize) +
             std::to_string(K->AnyGrid);
    }
    return Key;
  }

  /// Whether kfuse fuses fusion \p K of \p C; what it reported when not.
  bool fuses(const Config &C, size_t K, SourceParser &Parser,
             std::vector<DiagnosticRecord> &Found) {
    Reporter Local(llvm::nulls(), /*Remarks=*/false, DiagnosticFormat::Records);
    FusionPipeline Pipeline(C, Parser, Local, Facts);
    Pipeline.load({&C.Fusions[K]});
    bool Fuses = Pipeline.resolved(0) && Pipeline.fuse(0).has_value() && !Local.errorCount();
    Found = Local.records();
    return Fuses;
  }

  /// Each error as the table shows it: "message [id] (file:line:col)".
  static std::vector<std::string> errorLines(const std::vector<DiagnosticRecord> &Found) {
    std::vector<std::string> Lines;
    for (const DiagnosticRecord &D : Found) {
      if (D.Severity != "error")
        continue;
      std::string Text = D.Message + (D.Id.empty() ? "" : " [" + D.Id + "]");
      if (!D.File.empty())
        Text += " (" + llvm::sys::path::filename(D.File).str() + ":" + std::to_string(D.Line) +
                ":" + std::to_string(D.Column) + ")";
      Lines.push_back(Text);
    }
    if (Lines.empty())
      Lines.push_back("refused");
    return Lines;
  }
};

} // namespace

int runSuggest(const ParseSettings &Settings, const SuggestRequest &Request, Reporter &Diags,
               llvm::raw_ostream &Out) {
  return Suggester(Settings, Request, Diags).run(Out);
}

} // namespace kfuse

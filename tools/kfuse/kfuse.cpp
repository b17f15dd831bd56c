//===- kfuse.cpp - the kfuse command line ---------------------------------===//
//
//   kfuse fuse CONFIG.yaml [-o OUT.cu] [--fusion NAME] [--header OUT.h] [--depfile OUT.d]
//              [--tuning RESULTS.json] [-p BUILD_DIR] [-- ARGS]
//   kfuse check CONFIG.yaml [--fusion NAME] [--tuning RESULTS.json] [-p BUILD_DIR] [-- ARGS]
//   kfuse tune CONFIG.yaml [--fusion NAME] [--bundle DIR] [--run [--gpus LIST]] [-o OUT.cu]
//   kfuse tune CONFIG.yaml --results RESULTS.json [-o OUT.cu] [--report DIR]
//   kfuse list FILE.cu... [--print-command] [-p BUILD_DIR] [-- ARGS]
//   kfuse list --checks
//   kfuse suggest [FILES.cu] [--profile NCU.csv [--peaks RESULTS.json]] [-o CONFIG.yaml]
//                 [--markdown OUT.md]
//                 [-p BUILD_DIR] [-- ARGS]
//   kfuse --version
//
// Parses options and hands them to the library; all work happens there.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Driver/Commands.h"
#include "kfuse/Frontend/NvccCommand.h"
#include "kfuse/Frontend/ResourceDir.h"

#include "clang/Basic/Stack.h"
#include "clang/Basic/Version.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/thread.h"

#include <cstring>

using namespace llvm;

namespace {

cl::OptionCategory Category("kfuse options");
cl::SubCommand Fuse("fuse", "Fuse the kernels a config names into one kernel and a launcher");
cl::SubCommand Check("check", "Run every check and rewrite of 'fuse' and write nothing: each "
                              "refusal the fusions would meet, or that they can be fused");
cl::SubCommand List("list", "List the kernels of a .cu file and what fusing them depends on");
cl::SubCommand Suggest("suggest",
                       "Find the kernel launches of a program that could run side by side, "
                       "rank them (with a profile) and write the config for kfuse tune");
cl::SubCommand Tune("tune", "Measure the fused variants against the native launches on a GPU "
                            "and keep the fastest, or the original launches");

cl::opt<std::string> ConfigPath(cl::Positional, cl::desc("<config.yaml>"), cl::Required,
                                cl::sub(Fuse), cl::sub(Check), cl::sub(Tune), cl::cat(Category));
cl::opt<std::string> Output("o",
                            cl::desc("Output file ('-' for stdout; default: <config>.fused.cu)"),
                            cl::value_desc("file"), cl::sub(Fuse), cl::sub(Tune),
                            cl::cat(Category));
// suggest has no default: without -o it prints its table and writes no config.
cl::opt<std::string> SuggestOutput("o",
                                   cl::desc("Write the suggested config here ('-' for stdout; "
                                            "without -o, only the table is printed)"),
                                   cl::value_desc("config.yaml"), cl::sub(Suggest),
                                   cl::cat(Category));
cl::opt<std::string> FusionName("fusion", cl::desc("Only the fusions with these names (a, or a,b)"),
                                cl::value_desc("name"), cl::sub(Fuse), cl::sub(Check),
                                cl::sub(Tune), cl::cat(Category));
cl::opt<std::string> Header("header",
                            cl::desc("Also write a header declaring the launchers, for "
                                     "callers in other source files"),
                            cl::value_desc("file.h"), cl::sub(Fuse), cl::cat(Category));
cl::opt<std::string> Depfile("depfile",
                             cl::desc("Also write the files the output was made from, "
                                      "in Make syntax"),
                             cl::value_desc("file.d"), cl::sub(Fuse), cl::cat(Category));
cl::opt<std::string> Tuning("tuning",
                            cl::desc("Lay each fusion out as kfuse tune's measurements "
                                     "chose"),
                            cl::value_desc("results.json"), cl::sub(Fuse), cl::sub(Check),
                            cl::cat(Category));
cl::opt<bool> ListReplaced("list-replaced",
                           cl::desc("Only print the files the fused file is compiled in place of "
                                    "('replace:' in the config), one per line"),
                           cl::sub(Fuse), cl::cat(Category));
cl::opt<bool> ListRewritten("list-rewritten",
                            cl::desc("Only print the host files --rewrite-launches rewrites, one "
                                     "per line"),
                            cl::sub(Fuse), cl::cat(Category));
cl::opt<bool> RewriteLaunches("rewrite-launches",
                              cl::desc("Also rewrite the host code: each fusion's launches become "
                                       "one call of its launcher (fuse: needs --header; check: "
                                       "every refusal of that rewrite, writing nothing)"),
                              cl::sub(Fuse), cl::sub(Check), cl::cat(Category));
cl::opt<std::string> RewriteDir("rewrite-dir",
                                cl::desc("With --rewrite-launches: where the rewritten copies go "
                                         "(default: 'rewritten' beside -o)"),
                                cl::value_desc("dir"), cl::sub(Fuse), cl::cat(Category));
cl::opt<bool> Diff("diff",
                   cl::desc("With --rewrite-launches: print the rewrite as a unified diff "
                            "instead of writing copies"),
                   cl::sub(Fuse), cl::cat(Category));
cl::opt<bool> InPlace("i",
                      cl::desc("With --rewrite-launches: rewrite the files in place, keeping "
                               "each original as FILE.orig"),
                      cl::sub(Fuse), cl::cat(Category));
cl::opt<std::string> Bundle("bundle",
                            cl::desc("Directory for the tuning harness (default: "
                                     "<config>.tune)"),
                            cl::value_desc("dir"), cl::sub(Tune), cl::cat(Category));
cl::opt<std::string> Results("results", cl::desc("Choose from the harness's measurements"),
                             cl::value_desc("results.json"), cl::sub(Tune), cl::cat(Category));
cl::opt<std::string> ReportDir("report",
                               cl::desc("Directory for the report and charts "
                                        "(default: kfuse-report/ beside the config)"),
                               cl::value_desc("dir"), cl::sub(Tune), cl::cat(Category));
cl::opt<bool> RunHere("run", cl::desc("Run the harness on this machine's GPU, then choose"),
                      cl::sub(Tune), cl::cat(Category));
cl::opt<std::string> Gpus("gpus",
                          cl::desc("With --run: spread the fusions over these GPUs of one "
                                   "model, one harness per GPU ('0,1', 'all')"),
                          cl::value_desc("list"), cl::sub(Tune), cl::cat(Category));
cl::opt<std::string> CudaDriver("cuda-driver",
                                cl::desc("With --run: the CUDA driver library to ask for GPUs "
                                         "before compiling (default: libcuda.so.1)"),
                                cl::init("libcuda.so.1"), cl::value_desc("library"), cl::sub(Tune),
                                cl::cat(Category));
cl::list<std::string> ListFiles(cl::Positional, cl::desc("<file.cu>..."), cl::sub(List),
                                cl::cat(Category));
cl::opt<bool> ListChecks("checks",
                         cl::desc("Print every legality check and the refusals it raises, "
                                  "instead of a file's kernels"),
                         cl::sub(List), cl::cat(Category));
cl::opt<bool> PrintCommand("print-command",
                           cl::desc("Print the Clang command line the file is parsed with "
                                    "(nvcc's options translated) and stop"),
                           cl::sub(List), cl::cat(Category));
cl::list<std::string> SuggestFiles(cl::Positional, cl::desc("<file.cu>..."), cl::sub(Suggest),
                                   cl::cat(Category));
cl::opt<std::string> Profile("profile",
                             cl::desc("Nsight Compute's CSV of a run of the program (ncu --csv), "
                                      "to rank the candidates by what fusing could gain"),
                             cl::value_desc("ncu.csv"), cl::sub(Suggest), cl::cat(Category));
cl::opt<std::string> Peaks("peaks",
                           cl::desc("A results.json of kfuse tune's harness on the profiled GPU: "
                                    "its measured peaks calibrate the estimate"),
                           cl::value_desc("results.json"), cl::sub(Suggest), cl::cat(Category));
cl::opt<std::string> Markdown("markdown", cl::desc("Also write the table as Markdown"),
                              cl::value_desc("file.md"), cl::sub(Suggest), cl::cat(Category));
cl::opt<std::string> BuildDir("p", cl::desc("Build directory holding compile_commands.json"),
                              cl::value_desc("dir"), cl::sub(Fuse), cl::sub(Check), cl::sub(List),
                              cl::sub(Tune), cl::sub(Suggest), cl::cat(Category));
cl::opt<std::string> CudaPath("cuda-path",
                              cl::desc("CUDA installation to parse against "
                                       "(default: $CUDA_PATH, else /usr/local/cuda)"),
                              cl::sub(Fuse), cl::sub(Check), cl::sub(List), cl::sub(Tune),
                              cl::sub(Suggest), cl::sub(cl::SubCommand::getTopLevel()),
                              cl::cat(Category));
cl::opt<std::string> GpuArch("cuda-gpu-arch",
                             cl::desc("GPU architecture the kernels are read for "
                                      "(default: the compile command's, else sm_90)"),
                             cl::sub(Fuse), cl::sub(Check), cl::sub(List), cl::sub(Tune),
                             cl::sub(Suggest), cl::cat(Category));
cl::opt<std::string> ResourceDir(
    "resource-dir",
    cl::desc("Clang resource directory (default: ../lib/clang/" CLANG_VERSION_MAJOR_STRING
             " beside kfuse's directory, else the one it was built with)"),
    cl::sub(Fuse), cl::sub(Check), cl::sub(List), cl::sub(Tune), cl::sub(Suggest),
    cl::cat(Category));
enum class OutputFormat { Text, Json, Sarif };
cl::opt<OutputFormat> Format(
    "format",
    cl::desc("How check reports: 'text' (default), 'json' (one document on stdout: each "
             "fusion's verdict and every diagnostic, its id and place) or 'sarif' (SARIF 2.1.0, "
             "for CI systems and editors)"),
    cl::values(clEnumValN(OutputFormat::Text, "text", "as a compiler prints"),
               clEnumValN(OutputFormat::Json, "json", "one JSON document"),
               clEnumValN(OutputFormat::Sarif, "sarif", "a SARIF 2.1.0 log")),
    cl::init(OutputFormat::Text), cl::sub(Check), cl::cat(Category));
cl::opt<bool> ShowRemarks("remarks",
                          cl::desc("Also print remarks: what kfuse chose where the config is "
                                   "silent (the grid, a kernel left as launched)"),
                          cl::sub(Fuse), cl::sub(Check), cl::sub(List), cl::sub(Tune),
                          cl::sub(Suggest), cl::cat(Category));

cl::opt<bool> Quiet("quiet",
                    cl::desc("No progress and no counts on stderr (diagnostics still print)"),
                    cl::sub(Suggest), cl::cat(Category));

cl::extrahelp MoreHelp(
    "\nArguments after '--' go to Clang after the compile command's, as with other Clang tools:\n"
    "  kfuse fuse fusion.yaml -o fused.cu -- -DNDEBUG -Iinclude\n"
    "\nExit status: 0 on success, 1 after errors, 2 for a bad command line.\n");

/// The option's value when the command line gives it.
std::optional<std::string> Given(const cl::opt<std::string> &O) {
  return O.getNumOccurrences() ? std::optional<std::string>(O) : std::nullopt;
}

/// --cuda-path, else $CUDA_PATH (as CMake's FindCUDAToolkit reads it), else
/// the toolkit's usual home.
std::string cudaPath() {
  if (CudaPath.getNumOccurrences())
    return CudaPath;
  if (std::optional<std::string> Env = llvm::sys::Process::GetEnv("CUDA_PATH");
      Env && !Env->empty())
    return *Env;
  return "/usr/local/cuda";
}

/// The resource directory the command line names, else the one beside the
/// executable, else the one kfuse was built with.
std::string resourceDir(const char *Argv0) {
  if (ResourceDir.getNumOccurrences())
    return ResourceDir;
  return kfuse::defaultResourceDir(Argv0, reinterpret_cast<void *>(&resourceDir));
}

/// The parser's errors, pointing to the subcommand's own help ("Try:
/// 'kfuse fuse --help'") where it names the program's.
std::string helpForSubcommand(std::string Errors, int Argc, const char *const *Argv) {
  if (Argc < 2)
    return Errors;
  llvm::StringRef Sub = Argv[1];
  bool Known = llvm::any_of(cl::getRegisteredSubcommands(), [&](const cl::SubCommand *C) {
    return !C->getName().empty() && C->getName() == Sub;
  });
  if (!Known)
    return Errors;
  std::string Generic = "Try: '" + std::string(Argv[0]) + " --help'";
  std::string Own = "Try: 'kfuse " + Sub.str() + " --help'";
  for (size_t At = Errors.find(Generic); At != std::string::npos;
       At = Errors.find(Generic, At + Own.size()))
    Errors.replace(At, Generic.size(), Own);
  return Errors;
}

} // namespace

namespace {

/// Clang recurses once per level of nesting in what it parses; its own
/// driver runs it on a larger stack than a thread's default, and so does
/// kfuse, with Clang told where the stack begins so that it moves deep
/// template instantiation to a fresh one (clang/Basic/Stack.h).
constexpr unsigned ParserStackBytes = 256u << 20;

int runCommand(int argc, const char **argv) {
  // Arguments after "--" go to the parser, as with other Clang tools.
  int OwnArgs = argc;
  std::vector<std::string> Extra;
  for (int I = 1; I < argc; ++I)
    if (std::strcmp(argv[I], "--") == 0) {
      OwnArgs = I;
      Extra.assign(argv + I + 1, argv + argc);
      break;
    }
  // A compiler option before '--' would meet LLVM's "did you mean" for a
  // kfuse option; say where it goes instead. (-o is kfuse's own.)
  for (int I = 2; I < OwnArgs; ++I) {
    llvm::StringRef Arg = argv[I];
    if (kfuse::isCompilerOption(Arg) && !Arg.starts_with("-o") && !Arg.starts_with("--o")) {
      errs() << "kfuse: '" << Arg << "' is an option of the compiler's: give it after '--', "
             << "as in 'kfuse " << argv[1] << " ... -- " << Arg << "'\n";
      return 2;
    }
  }
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([Argv0 = argv[0]](raw_ostream &OS) {
    kfuse::ParseSettings Settings;
    Settings.CudaPath = cudaPath();
    Settings.ResourceDir = resourceDir(Argv0);
    kfuse::runVersion(Settings, OS);
  });
  // With an error stream the parser returns instead of exiting with 1: a
  // bad command line exits with 2, as documented.
  std::string Errors;
  llvm::raw_string_ostream ErrorStream(Errors);
  if (!cl::ParseCommandLineOptions(OwnArgs, argv, "kfuse: horizontal fusion of CUDA kernels\n",
                                   &ErrorStream)) {
    errs() << helpForSubcommand(Errors, OwnArgs, argv);
    return 2;
  }

  kfuse::ParseSettings Settings;
  Settings.CudaPath = cudaPath();
  Settings.GpuArch = Given(GpuArch);
  Settings.ResourceDir = resourceDir(argv[0]);
  if (!BuildDir.empty())
    Settings.BuildDir = BuildDir;
  Settings.ExtraArgs = Extra;

  kfuse::Reporter Diags(errs(), ShowRemarks,
                        Check && Format != OutputFormat::Text ? kfuse::DiagnosticFormat::Records
                                                              : kfuse::DiagnosticFormat::Text);
  if (Fuse) {
    kfuse::FuseRequest Request;
    Request.ConfigPath = ConfigPath;
    Request.Output = Given(Output);
    Request.Fusion = Given(FusionName);
    Request.Header = Given(Header);
    Request.Depfile = Given(Depfile);
    Request.Tuning = Given(Tuning);
    Request.ListReplaced = ListReplaced;
    Request.ListRewritten = ListRewritten;
    bool RewriteOption = !RewriteDir.empty() || Diff || InPlace;
    if (RewriteOption && !RewriteLaunches) {
      errs() << "kfuse: --rewrite-dir, --diff and -i go with --rewrite-launches\n";
      return 2;
    }
    if (int(!RewriteDir.empty()) + int(Diff) + int(InPlace) > 1) {
      errs() << "kfuse: give one of --rewrite-dir, --diff and -i\n";
      return 2;
    }
    if (Diff && Output == "-") {
      errs() << "kfuse: --diff prints to stdout, so the fused file needs -o FILE\n";
      return 2;
    }
    if (RewriteLaunches)
      Request.Rewrite = Diff      ? kfuse::RewriteOutput::Diff
                        : InPlace ? kfuse::RewriteOutput::InPlace
                                  : kfuse::RewriteOutput::Copies;
    Request.RewriteDir = Given(RewriteDir);
    return kfuse::runFuse(Settings, Request, Diags, outs());
  }
  if (Check) {
    kfuse::CheckRequest Request{ConfigPath, Given(FusionName), Given(Tuning)};
    Request.RewriteLaunches = RewriteLaunches;
    Request.Output = Format == OutputFormat::Json    ? kfuse::CheckOutput::Json
                     : Format == OutputFormat::Sarif ? kfuse::CheckOutput::Sarif
                                                     : kfuse::CheckOutput::Text;
    return kfuse::runCheck(Settings, Request, Diags, outs());
  }
  if (Tune) {
    kfuse::TuneRequest Request;
    Request.ConfigPath = ConfigPath;
    Request.Fusion = Given(FusionName);
    Request.Bundle = Given(Bundle);
    Request.Results = Given(Results);
    Request.Output = Given(Output);
    Request.ReportDir = Given(ReportDir);
    Request.Run = RunHere;
    Request.Gpus = Given(Gpus);
    Request.CudaDriver = CudaDriver;
    if (Request.Gpus && !RunHere) {
      errs() << "kfuse tune: --gpus needs --run; without it, give --gpus to the bundle's run.sh\n";
      return 2;
    }
    return kfuse::runTune(Settings, Request, Diags, outs());
  }
  if (Suggest) {
    kfuse::SuggestRequest Request;
    Request.Files.assign(SuggestFiles.begin(), SuggestFiles.end());
    Request.Profile = Given(Profile);
    Request.Peaks = Given(Peaks);
    Request.Output = Given(SuggestOutput);
    Request.Markdown = Given(Markdown);
    Request.Quiet = Quiet;
    return kfuse::runSuggest(Settings, Request, Diags, outs());
  }
  if (List) {
    if (ListChecks)
      return kfuse::runListChecks(outs());
    if (ListFiles.empty()) {
      errs() << "kfuse list: name a .cu file, or give --checks\n";
      return 2;
    }
    return kfuse::runList(Settings, {{ListFiles.begin(), ListFiles.end()}, PrintCommand}, Diags,
                          outs());
  }
  cl::PrintHelpMessage();
  return 2;
}

/// A standard stream that failed (a full disk, a closed pipe) is the run's
/// error, never LLVM's fatal one at exit; one that fails on stderr cannot
/// say so, but the exit status does.
int closeStreams(int Status) {
  outs().flush();
  if (outs().has_error()) {
    kfuse::Reporter Diags(errs(), /*ShowRemarks=*/false);
    Diags.report(kfuse::diag::ID::OutputStreamFailed)
        << "standard output" << outs().error().message();
    outs().clear_error();
    Status = Status ? Status : 1;
  }
  errs().flush();
  if (errs().has_error()) {
    errs().clear_error();
    Status = Status ? Status : 1;
  }
  return Status;
}

} // namespace

int main(int argc, const char **argv) {
  InitLLVM Init(argc, argv);
  int Status = 1;
  llvm::thread Worker(std::optional<unsigned>(ParserStackBytes), [&] {
    clang::noteBottomOfStack();
    Status = runCommand(argc, argv);
  });
  Worker.join();
  return closeStreams(Status);
}

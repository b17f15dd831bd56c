//===- Commands.h - what kfuse fuse, tune and list do -----------*- C++ -*-===//
//
// Each command wires the stages together: config, frontend, analysis,
// transforms, emission. The tool's main only parses options and calls these.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_DRIVER_COMMANDS_H
#define KFUSE_DRIVER_COMMANDS_H

#include "kfuse/Pipeline/Pipeline.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

class Reporter;

/// Where `kfuse fuse --rewrite-launches` puts the rewritten host files.
enum class RewriteOutput {
  Copies,  ///< Into a directory, leaving the originals alone.
  Diff,    ///< As a unified diff on stdout.
  InPlace, ///< Over the originals, each kept as FILE.orig.
};

struct FuseRequest {
  std::string ConfigPath;
  std::optional<std::string> Output; ///< "-" for stdout.
  std::optional<std::string> Fusion;
  /// Declares the launchers, which then become external functions.
  std::optional<std::string> Header;
  /// A Make-syntax list of everything the output was made from.
  std::optional<std::string> Depfile;
  /// kfuse tune's measurements: each fusion takes the variant they chose.
  std::optional<std::string> Tuning;
  /// Only print, one per line, the absolute paths of the files the fused
  /// file replaces (for a build system, before anything is built).
  bool ListReplaced = false;
  /// Only print the absolute paths of the host files --rewrite-launches
  /// rewrites.
  bool ListRewritten = false;
  /// Also rewrite the launches each fusion replaces into launcher calls.
  std::optional<RewriteOutput> Rewrite;
  std::optional<std::string> RewriteDir; ///< For Copies; default: "rewritten" beside the output.
};

/// Writes the fused source of the requested fusions; nothing is written when
/// anything is reported as an error. Returns the process exit code.
int runFuse(const ParseSettings &Settings, const FuseRequest &Request, Reporter &Diags,
            llvm::raw_ostream &Out);

enum class CheckOutput {
  Text,
  Json,  ///< kfuse's own document: verdicts and diagnostics.
  Sarif, ///< The diagnostics as a SARIF 2.1.0 log.
};

struct CheckRequest {
  std::string ConfigPath;
  std::optional<std::string> Fusion;
  std::optional<std::string> Tuning; ///< Check the layouts the measurements chose.
  /// Also the launch rewrite, as `fuse --rewrite-launches -i` would make it.
  bool RewriteLaunches = false;
  /// What goes to the output: the verdicts as text, or one document of the
  /// verdicts and the diagnostics the reporter kept as records
  /// (DiagnosticFormat::Records).
  CheckOutput Output = CheckOutput::Text;
};

/// Runs every check and rewrite of `kfuse fuse` and writes nothing: reports
/// each refusal, or says per fusion that it can be fused. Returns the
/// process exit code.
int runCheck(const ParseSettings &Settings, const CheckRequest &Request, Reporter &Diags,
             llvm::raw_ostream &Out);

struct TuneRequest {
  std::string ConfigPath;
  std::optional<std::string> Fusion;
  std::optional<std::string> Bundle;    ///< Where to write the harness bundle.
  std::optional<std::string> Results;   ///< Measurements to choose from instead.
  std::optional<std::string> Output;    ///< The fused file with the winners.
  std::optional<std::string> ReportDir; ///< Report, tuning.yaml and charts.
  bool Run = false;                     ///< Run the bundle here, then choose.
  /// With Run: the GPUs to spread the fusions over ("0,1", "all").
  std::optional<std::string> Gpus;
  /// With Run: the CUDA driver asked whether there is a GPU.
  std::string CudaDriver = "libcuda.so.1";
};

/// Writes the tuning bundle for the requested fusions, or (with Results)
/// chooses from its measurements; with Run, both, running the bundle on
/// this machine's GPU in between.
int runTune(const ParseSettings &Settings, const TuneRequest &Request, Reporter &Diags,
            llvm::raw_ostream &Out);

struct ListRequest {
  /// The files to list; a fused file would hold them in this order.
  std::vector<std::string> Files;
  bool PrintCommand = false; ///< Print the Clang command line instead.
};

/// Prints what the fuser needs to know of every kernel in the files, or the
/// command line kfuse parses each with. Warns of each refusal a kernel check
/// raises, as `kfuse fuse` would refuse the kernel beside any partner, and,
/// given several files, of what they define that one fused file could not
/// hold together (the file-symbols check).
int runList(const ParseSettings &Settings, const ListRequest &Request, Reporter &Diags,
            llvm::raw_ostream &Out);
/// Prints the legality registry: every check, its scope, what it proves and
/// the refusals it raises.
int runListChecks(llvm::raw_ostream &Out);

struct SuggestRequest {
  /// The program's CUDA files; empty: every .cu file of the compilation
  /// database (-p).
  std::vector<std::string> Files;
  std::optional<std::string> Profile; ///< Nsight Compute's CSV of a run.
  /// A results.json of kfuse tune's harness on the GPU the profile ran on:
  /// its measured peaks calibrate the estimate.
  std::optional<std::string> Peaks;
  std::optional<std::string> Output;   ///< The config for kfuse tune.
  std::optional<std::string> Markdown; ///< The table as Markdown.
  bool Quiet = false;                  ///< No progress and no count on stderr.
};

/// Finds the launches of the program's host code, which could run side by
/// side and whether kfuse fuses them; with a profile, ranks them by what
/// fusing could gain. Prints the table; writes the config and the Markdown
/// table when asked, both or neither.
int runSuggest(const ParseSettings &Settings, const SuggestRequest &Request, Reporter &Diags,
               llvm::raw_ostream &Out);

/// Prints the versions of kfuse, Clang and the CUDA toolkit found.
int runVersion(const ParseSettings &Settings, llvm::raw_ostream &Out);

} // namespace kfuse

#endif

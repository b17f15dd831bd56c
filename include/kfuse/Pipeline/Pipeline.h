//===- Pipeline.h - a config's fusions as the fused-file model -*- C++ -*-===//
//
// The pipeline `kfuse fuse` runs, for tools built on kfuse's libraries
// (kfuse/Pipeline/FusionPipeline.h builds one fusion at a time):
// read the config, parse and analyze the kernels, plan, transform, and stop
// before printing. The result is the model the transforms own
// (kfuse/Transforms/FusedFile.h); kfuse/Emission/FusedFilePrinter.h prints
// it as `kfuse fuse` writes it. Problems go to the Reporter, as the tool
// reports them.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PIPELINE_PIPELINE_H
#define KFUSE_PIPELINE_PIPELINE_H

#include "kfuse/Transforms/FusedFile.h"
#include "kfuse/Transforms/LaunchRewriter.h"
#include "kfuse/Version.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

class Reporter;

constexpr const char *Version = KFUSE_VERSION;

/// How sources are parsed, shared by every command.
struct ParseSettings {
  std::string CudaPath = "/usr/local/cuda";
  std::optional<std::string> GpuArch; ///< Default: the compile command's, else sm_90.
  std::string ResourceDir = KFUSE_CLANG_RESOURCE_DIR;
  std::optional<std::string> BuildDir;
  std::vector<std::string> ExtraArgs;
};

/// What to fuse, as `kfuse fuse` takes it.
struct FusionInput {
  std::string ConfigPath;
  std::optional<std::string> Fusion; ///< Only this fusion; by default every one.
  /// kfuse tune's measurements (results.json): each fusion takes the
  /// variant they chose, or the config's layout when the originals won.
  std::optional<std::string> Tuning;
  /// Where the fused file will be: its #include lines are relative to it.
  std::string OutputDir = ".";
  /// The header that will declare the launchers, relative to OutputDir;
  /// empty for none (the launchers are then inline).
  std::string LauncherHeader;
  /// Also rewrite the host code's launches of each fusion into calls of
  /// its launcher (`--rewrite-launches`).
  std::optional<HostRewriteTarget> RewriteLaunches;
};

struct FusionOutput {
  FusedFile File;
  /// With RewriteLaunches: each host file with its launches rewritten.
  std::vector<RewrittenHost> Hosts;
  /// Every file read, absolute: the config, the measurements, the sources
  /// and the headers they include (what a depfile lists).
  std::vector<std::string> Read;
  /// Of the sources and headers among them, the hash of what was read.
  std::map<std::string, uint64_t> ReadHashes;
};

/// What became of one fusion of the config.
struct FusionVerdict {
  std::string Fusion;
  bool Fuses = false;       ///< No error was reported for it.
  bool Alternative = false; ///< FusionSpec::Alternative.
};

/// The fused-file model of \p Input's fusions, or nothing once an error was
/// reported: then no fusion of the config is returned, as `kfuse fuse`
/// writes none. \p Verdicts, when given, gets each selected fusion's.
std::optional<FusionOutput> fuseConfig(const ParseSettings &Settings, const FusionInput &Input,
                                       Reporter &Diags,
                                       std::vector<FusionVerdict> *Verdicts = nullptr);

/// Where the rewritten copy of host file \p File goes.
std::string copyPath(const std::string &File, const HostRewriteTarget &Target);

} // namespace kfuse

#endif

//===- Inputs.cpp - what a pipeline reads and where -----------------------===//

#include "kfuse/Pipeline/Inputs.h"

#include "kfuse/Diagnostics/InputFiles.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Frontend/NvccCommand.h"
#include "kfuse/Frontend/ResourceDir.h"
#include "kfuse/Frontend/SourceParser.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <filesystem>

namespace kfuse {

std::optional<Config> readConfigFile(const std::string &Path, Reporter &Diags) {
  // A .cu given where a config goes would be read as YAML, and fail as
  // that: name the mix-up instead, and the command that starts from it.
  llvm::StringRef Extension = llvm::sys::path::extension(Path);
  if (llvm::is_contained({".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp"}, Extension)) {
    llvm::SmallString<128> Config(llvm::sys::path::filename(Path));
    llvm::sys::path::replace_extension(Config, ".yaml");
    Diags.report(diag::ID::ConfigIsSource) << Path << Config.str().str();
    return std::nullopt;
  }
  InputText In = readInput(Path);
  if (!In.Buffer) {
    Diags.report(In.Id) << Path << In.Why;
    return std::nullopt;
  }
  ConfigResult R = parseConfig(In.Buffer->getBuffer().str(), Path);
  Diags.report(R.Problems, Path);
  return R.Value;
}

std::vector<const FusionSpec *>
selectFusions(const Config &C, const std::optional<std::string> &Names, Reporter &Diags) {
  std::vector<const FusionSpec *> All;
  for (const FusionSpec &F : C.Fusions)
    All.push_back(&F);
  if (!Names)
    return All;
  llvm::SmallVector<llvm::StringRef> Wanted;
  llvm::StringRef(*Names).split(Wanted, ',');
  bool Found = true;
  for (llvm::StringRef Name : Wanted)
    if (!C.findFusion(Name.str())) {
      Diags.report(diag::ID::FusionNotInConfig) << Name << C.Path;
      Found = false;
    }
  if (!Found)
    return {};
  // In the config's order, each once.
  llvm::erase_if(All, [&](const FusionSpec *F) { return !llvm::is_contained(Wanted, F->Name); });
  return All;
}

std::optional<ParserOptions> makeParserOptions(const ParseSettings &Settings, Reporter &Diags) {
  llvm::Expected<CudaInstallation> Cuda = detectCuda(Settings.CudaPath);
  if (!Cuda) {
    Diags.report(diag::ID::CudaNotFound) << Settings.CudaPath << llvm::toString(Cuda.takeError());
    return std::nullopt;
  }
  // Clang would fail on it for every file, blaming none.
  if (Settings.GpuArch && !clangReadsGpuArch(*Settings.GpuArch)) {
    Diags.report(diag::ID::GpuArchInvalid) << *Settings.GpuArch << CLANG_VERSION_STRING;
    return std::nullopt;
  }
  if (llvm::Error E = checkResourceDir(Settings.ResourceDir)) {
    Diags.report(diag::ID::ResourceDirInvalid)
        << Settings.ResourceDir << llvm::toString(std::move(E)) << CLANG_VERSION_MAJOR;
    return std::nullopt;
  }
  ParserOptions Options;
  Options.Cuda = *Cuda;
  Options.GpuArch = Settings.GpuArch;
  Options.ResourceDir = Settings.ResourceDir;
  Options.BuildDir = Settings.BuildDir;
  TranslatedCommand Extra = translateExtraArguments(Settings.ExtraArgs);
  if (!Extra.Error.empty()) {
    Diags.report(diag::ID::ExtraArguments) << Extra.Error;
    return std::nullopt;
  }
  Options.ExtraArgs = std::move(Extra.Args);
  return Options;
}

std::optional<TuneResults> readTuneResults(const std::string &Path, Reporter &Diags) {
  InputText In = readInput(Path);
  if (!In.Buffer) {
    Diags.report(diag::ID::TuneResults) << Path << In.Why;
    return std::nullopt;
  }
  diag::Problem Problem;
  std::optional<TuneResults> Results = parseTuneResults(In.Buffer->getBuffer().str(), Problem);
  if (!Results) {
    Problem.Args[0] = Path;
    Diags.report({Problem}, Path);
  }
  return Results;
}

const FusionResult *findMeasurements(const TuneResults &Results, const std::string &Name,
                                     const std::string &Path, Reporter &Diags) {
  const FusionResult *R = Results.find(Name);
  if (!R)
    Diags.report(diag::ID::TuneResults) << Path << "no measurements of fusion '" + Name + "'";
  return R;
}

FusionLayout tunedLayout(const Verdict &V, const std::string &ResultsPath) {
  FusionLayout Layout;
  Layout.Variant = V.Fastest->Layout;
  Layout.MeasuredVariant = V.Fastest->Name;
  Layout.MeasuredIn = ResultsPath;
  return Layout;
}

std::string absolutePath(const std::string &Path) {
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

std::string relativePath(const std::string &Path, const std::string &Dir) {
  return std::filesystem::path(absolutePath(Path))
      .lexically_relative(absolutePath(Dir))
      .generic_string();
}

std::string directoryOf(const std::string &Path) {
  llvm::SmallString<256> Dir(Path);
  llvm::sys::path::remove_filename(Dir);
  return Dir.empty() ? "." : std::string(Dir);
}

std::vector<std::string> runInputs(const std::string &ConfigPath,
                                   const std::optional<std::string> &Measurements,
                                   const SourceParser &Parser) {
  std::vector<std::string> Inputs = {absolutePath(ConfigPath)};
  if (Measurements)
    Inputs.push_back(absolutePath(*Measurements));
  for (std::string &F : Parser.inputFiles())
    Inputs.push_back(std::move(F));
  for (std::string &F : Parser.commandFiles())
    Inputs.push_back(std::move(F));
  return Inputs;
}

} // namespace kfuse

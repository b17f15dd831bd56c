//===- ProgramModel.h - A program's files, launches and dependences -------===//
//
// What kfuse knows of a program, in one place: each source file's two
// parses and its kernels, the launches its host code makes, the kernel each
// runs, what that kernel reads and writes, and the dependences between the
// launches. `kfuse suggest` reads it to propose fusions, `kfuse check` and
// `fuse --rewrite-launches` to prove the launches a fusion replaces; a fix
// to how launches are related lands here once for all three.
//
//===----------------------------------------------------------------------===//

#ifndef KFUSE_ANALYSIS_PROGRAMMODEL_H
#define KFUSE_ANALYSIS_PROGRAMMODEL_H

#include "kfuse/Analysis/Host/KernelLaunches.h"
#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTUnit;
class FunctionDecl;
class SourceManager;
} // namespace clang

namespace kfuse {

class SourceParser;

/// One source file as kfuse reads it: its parse for the host and for the
/// device, and the kernels the device parse defines.
class SourceFile {
public:
  SourceFile(std::string Path, clang::ASTUnit *Device, clang::ASTUnit &Host);

  const std::string &path() const { return Path; } ///< Absolute.
  /// Null where only the host side was read (the launch rewrite's file).
  clang::ASTUnit *device() const { return Device; }
  clang::ASTUnit &host() const { return *Host; }
  /// The kernels the device parse defines, walked once; needs device().
  const KernelIndex &kernels() const;

private:
  std::string Path;
  clang::ASTUnit *Device;
  clang::ASTUnit *Host;
  std::shared_ptr<const KernelIndex> Index; ///< Built when the file is read.
};

/// A launch of the program and the kernel it runs.
struct ProgramLaunch {
  KernelLaunch Launch;
  size_t File = 0; ///< The file whose host code launches it.
  /// The device parse that defines the kernel, and that definition; null
  /// when none that kfuse read does.
  clang::ASTUnit *Device = nullptr;
  const clang::FunctionDecl *Kernel = nullptr;
  /// The file of Device, where it is one of the model's files.
  std::optional<size_t> KernelFile;
  /// What the kernel reads and writes; nothing without a body to read.
  std::optional<KernelUses> Uses;
};

class ProgramModel {
public:
  /// Called before each file is read, with how many were read before it.
  using FileStep = llvm::function_ref<void(size_t Index, const std::string &Path)>;

  /// Parses each of \p Paths for the device and the host, finds the
  /// launches, resolves their kernels (in the launching file first; in
  /// another only a kernel other files can see) and relates them. Nothing
  /// when a file cannot be parsed (the parser has reported why).
  static std::optional<ProgramModel> read(SourceParser &Parser,
                                          const std::vector<std::string> &Paths, FileStep Step);

  /// The model of the launches in the main file of \p Host, whose kernels
  /// are looked up in \p Kernels (definitions, each in its device parse)
  /// only: the launches a fusion's members run, for the launch rewrite.
  static ProgramModel
  ofHostFile(SourceParser &Parser, clang::ASTUnit &Host,
             const std::vector<std::pair<clang::ASTUnit *, const clang::FunctionDecl *>> &Kernels);

  const std::vector<SourceFile> &files() const { return Files; }
  const std::vector<ProgramLaunch> &launches() const { return Launches; }
  const ProgramLaunch &launch(size_t I) const { return Launches[I]; }
  /// The dependences between the launches, in the program's launch indices.
  const LaunchRelations &graph() const { return Graph; }
  /// The parse that launch \p I is in, and its source manager.
  clang::ASTUnit &hostOf(size_t I) const { return Files[Launches[I].File].host(); }
  const clang::SourceManager &sourcesOf(size_t I) const;

  /// The chain of launches \p Run (program indices, all in one file, in
  /// program order), or nothing with \p Why.
  std::optional<LaunchChain> chain(const std::vector<size_t> &Run, std::string &Why) const;

private:
  ProgramModel() = default;
  /// What each launch's kernel uses, from \p Parser's parses; each kernel once.
  void findUses(SourceParser &Parser);
  /// Relates the launches of each file; indices made the program's.
  void relate();
  /// The launch and kernel-use lists of file \p File, as relateLaunches
  /// takes them.
  std::pair<std::vector<KernelLaunch>, std::vector<std::optional<KernelUses>>>
  ofFile(size_t File) const;
  /// The first launch of each file, and one past the last.
  std::pair<size_t, size_t> launchesOf(size_t File) const;

  std::vector<SourceFile> Files;
  std::vector<ProgramLaunch> Launches;
  LaunchRelations Graph;
};

} // namespace kfuse

#endif

//===- SourceParser.h - parsing legacy .cu files with Clang ----*- C++ -*-===//
//
// Parses CUDA sources the way nvcc would compile their device side for one
// GPU architecture, so kernel bodies are seen with __CUDA_ARCH__ set. The
// quirks of parsing a CUDA toolkit newer than Clang stay in here.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_FRONTEND_SOURCEPARSER_H
#define KFUSE_FRONTEND_SOURCEPARSER_H

#include "kfuse/Frontend/CompileDatabase.h"
#include "kfuse/Frontend/CudaInstallation.h"
#include "kfuse/Frontend/RejectedCode.h"

#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kfuse {

class Reporter;
class BorrowingDatabase;

/// The architecture kernels are read for when neither the command line nor
/// the compile command names one Clang knows.
constexpr const char *DefaultGpuArch = "sm_90";

/// Which side of a CUDA file a parse compiles: kernels are read as the
/// device compilation sees them (__CUDA_ARCH__ set), launches as the host
/// compilation does.
enum class CompileSide { Device, Host };

struct ParserOptions {
  CudaInstallation Cuda;
  /// Given on kfuse's command line: wins over the compile command's.
  std::optional<std::string> GpuArch;
  std::string ResourceDir;             ///< Clang's resource directory.
  std::optional<std::string> BuildDir; ///< Holds compile_commands.json.
  std::vector<std::string> ExtraArgs;  ///< Appended to every command.
};

class SourceParser {
public:
  SourceParser(ParserOptions Options, Reporter &Diags);
  ~SourceParser();

  /// Parses \p File for \p Side (once; later calls return the same unit).
  /// Returns null after reporting when it does not parse; a missing file is
  /// the caller's to report, with the location that named it. Errors inside
  /// function bodies do not fail the parse: they are kept in rejected()
  /// instead.
  clang::ASTUnit *parse(const std::string &File, CompileSide Side = CompileSide::Device);

  /// The function bodies of \p Unit, a unit parse() returned, that Clang
  /// rejects.
  const RejectedCode &rejected(const clang::ASTUnit &Unit) const;

  /// Every file the parsed units read (sources and the headers they
  /// include), absolute and sorted, for a build system's dependencies.
  std::vector<std::string> inputFiles() const;
  /// The same files, each with the hash (OutputTransaction::hashOf's,
  /// xxh3) of the content the parse read: a run that writes checks them
  /// against the files before it commits.
  std::map<std::string, uint64_t> inputHashes() const;

  /// The files the compile commands came from (compile_commands.json or
  /// compile_flags.txt, and nvcc options files), absolute: inputs no output
  /// may replace, though a build does not depend on them.
  std::vector<std::string> commandFiles() const;

  /// The command line Clang sees for \p File (nvcc's options translated),
  /// for `kfuse list --print-command` and tests; empty after reporting why
  /// there is none.
  std::vector<std::string> commandLine(const std::string &File) const;

private:
  /// Calls \p Visit with each file a parsed unit read (absolute), and what
  /// Clang holds of it; the parser's own shims are left out.
  void forEachInput(
      llvm::function_ref<void(llvm::StringRef, const clang::SrcMgr::ContentCache &)> Visit) const;
  std::vector<std::string> kfuseArguments(const std::string &GpuArch, CompileSide Side) const;
  /// The cuda.h beside Clang's CUDA wrapper that forwards to the toolkit's.
  std::string wrapperCudaH() const;
  /// The compile command of \p File as kfuse parses it, or nothing after
  /// reporting why not.
  std::optional<clang::tooling::CompileCommand>
  commandFor(const std::string &File, CompileSide Side = CompileSide::Device) const;
  /// Loads the database once; false after reporting why it cannot be.
  bool loadDatabase() const;
  /// The entry of compile_commands.json whose command \p File gets, if any.
  const DatabaseEntry *entryFor(const std::string &File) const;
  /// Reports that the compile command of \p File cannot be used, at the
  /// entry of compile_commands.json that holds it when there is one.
  void reportCommand(const std::string &File, const std::string &Reason) const;

  ParserOptions Options;
  Reporter &Diags;
  std::map<std::pair<std::string, CompileSide>, std::unique_ptr<clang::ASTUnit>> Units;
  std::map<const clang::ASTUnit *, RejectedCode> Rejected;
  /// The compilation database, once loaded, and where its entries are.
  mutable std::unique_ptr<BorrowingDatabase> Database;
  mutable DatabaseIndex Index;
  mutable std::string DatabaseFile;
  mutable std::set<std::string> OptionsFiles; ///< Read by the commands translated so far.
  mutable bool DatabaseFailed = false;        ///< Reported; not tried again.
};

} // namespace kfuse

#endif

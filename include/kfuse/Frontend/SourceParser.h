//===- SourceParser.h - parsing legacy .cu files with Clang ----*- C++ -*-===//
//
// Parses CUDA sources the way nvcc would compile their device side for one
// GPU architecture, so kernel bodies are seen with __CUDA_ARCH__ set. The
// quirks of parsing a CUDA toolkit newer than Clang stay in here.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_FRONTEND_SOURCEPARSER_H
#define KFUSE_FRONTEND_SOURCEPARSER_H

#include "kfuse/Frontend/CudaInstallation.h"

#include "clang/Frontend/ASTUnit.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

class Reporter;

struct ParserOptions {
  CudaInstallation Cuda;
  std::string GpuArch = "sm_90";
  std::string ResourceDir;            ///< Clang's resource directory.
  std::optional<std::string> BuildDir; ///< Holds compile_commands.json.
  std::vector<std::string> ExtraArgs;  ///< Appended to every command.
};

class SourceParser {
public:
  SourceParser(ParserOptions Options, Reporter &Diags);
  ~SourceParser();

  /// Parses \p File (once; later calls return the same unit). Returns null
  /// after reporting when it does not parse; a missing file is the caller's
  /// to report, with the location that named it.
  clang::ASTUnit *parse(const std::string &File);

  /// The command line Clang sees for \p File, for messages and tests.
  std::vector<std::string> commandLine(const std::string &File) const;

private:
  std::vector<std::string> kfuseArguments() const;

  ParserOptions Options;
  Reporter &Diags;
  std::map<std::string, std::unique_ptr<clang::ASTUnit>> Units;
};

} // namespace kfuse

#endif

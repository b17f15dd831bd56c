//===- SourceParser.cpp - parsing legacy .cu files with Clang -------------===//

#include "kfuse/Frontend/SourceParser.h"

#include "kfuse/Diagnostics/Reporter.h"

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/Path.h"

namespace kfuse {

namespace {

/// A directory that exists only in the parser's virtual file system; it holds
/// headers a newer CUDA toolkit dropped but Clang's wrappers still include.
constexpr const char *ShimDir = "/kfuse-virtual/cuda-shims";
// ClangTool keeps mapped names by reference, so they must outlive it.
constexpr const char *ShimHeader = "/kfuse-virtual/cuda-shims/texture_fetch_functions.h";

std::unique_ptr<clang::tooling::CompilationDatabase>
loadDatabase(const ParserOptions &Options, std::string &Error) {
  using namespace clang::tooling;
  if (!Options.BuildDir)
    return std::make_unique<FixedCompilationDatabase>(".", Options.ExtraArgs);
  std::unique_ptr<CompilationDatabase> DB =
      CompilationDatabase::loadFromDirectory(*Options.BuildDir, Error);
  if (!DB)
    return nullptr;
  // A malformed compile_commands.json loads as an empty database; say so
  // rather than failing later on every file.
  if (DB->getAllFiles().empty()) {
    Error = "its compile_commands.json lists no files or is malformed";
    return nullptr;
  }
  // Files the database does not list (headers, new sources) borrow the
  // command of their nearest neighbour, as clangd does.
  return inferMissingCompileCommands(std::move(DB));
}

} // namespace

SourceParser::SourceParser(ParserOptions Options, Reporter &Diags)
    : Options(std::move(Options)), Diags(Diags) {}

SourceParser::~SourceParser() = default;

std::vector<std::string> SourceParser::kfuseArguments() const {
  // -Qunused-arguments: database commands carry -c and -o, which a parse ignores.
  std::vector<std::string> Args = {"-xcuda", "--cuda-device-only",
                                   "--cuda-gpu-arch=" + Options.GpuArch, "-Qunused-arguments"};
  if (!Options.ResourceDir.empty())
    Args.push_back("-resource-dir=" + Options.ResourceDir);
  for (std::string &A : Options.Cuda.clangArguments(ShimDir))
    Args.push_back(std::move(A));
  // Keeps include directives, macro expansions and skipped branches for the
  // analysis and the emitted preamble.
  Args.insert(Args.end(), {"-Xclang", "-detailed-preprocessing-record"});
  return Args;
}

std::vector<std::string> SourceParser::commandLine(const std::string &File) const {
  std::string Error;
  std::unique_ptr<clang::tooling::CompilationDatabase> DB = loadDatabase(Options, Error);
  if (!DB)
    return {};
  std::vector<clang::tooling::CompileCommand> Commands = DB->getCompileCommands(File);
  if (Commands.empty())
    return {};
  std::vector<std::string> Args = Commands.front().CommandLine;
  std::vector<std::string> Ours = kfuseArguments();
  Args.insert(Args.begin() + 1, Ours.begin(), Ours.end());
  if (Options.BuildDir)
    Args.insert(Args.end(), Options.ExtraArgs.begin(), Options.ExtraArgs.end());
  return Args;
}

clang::ASTUnit *SourceParser::parse(const std::string &File) {
  llvm::SmallString<256> Absolute(File);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  std::string Key(Absolute);
  auto Found = Units.find(Key);
  if (Found != Units.end())
    return Found->second.get();

  std::string Error;
  std::unique_ptr<clang::tooling::CompilationDatabase> DB = loadDatabase(Options, Error);
  if (!DB) {
    Diags.report(diag::ID::CompileDatabase) << *Options.BuildDir << llvm::StringRef(Error).trim();
    return nullptr;
  }
  clang::tooling::ClangTool Tool(*DB, {Key});
  Tool.mapVirtualFile(ShimHeader, "");
  Tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
      kfuseArguments(), clang::tooling::ArgumentInsertPosition::BEGIN));
  if (Options.BuildDir && !Options.ExtraArgs.empty())
    Tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
        Options.ExtraArgs, clang::tooling::ArgumentInsertPosition::END));
  Tool.setDiagnosticConsumer(&Diags.consumer());

  std::vector<std::unique_ptr<clang::ASTUnit>> ASTs;
  int Status = Tool.buildASTs(ASTs);
  std::unique_ptr<clang::ASTUnit> Unit = ASTs.empty() ? nullptr : std::move(ASTs.front());
  if (Status != 0 || !Unit || Unit->getDiagnostics().hasErrorOccurred()) {
    Diags.report(diag::ID::ParseFailed) << File;
    Units[Key] = nullptr;
    return nullptr;
  }
  return (Units[Key] = std::move(Unit)).get();
}

} // namespace kfuse

//===- SourceParser.cpp - parsing legacy .cu files with Clang -------------===//

#include "kfuse/Frontend/SourceParser.h"

#include "kfuse/Diagnostics/InputFiles.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Frontend/NvccCommand.h"

#include "clang/Basic/Version.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/Path.h"

#include <set>

namespace kfuse {

namespace {

/// A directory that exists only in the parser's virtual file system; it holds
/// headers a newer CUDA toolkit dropped but Clang's wrappers still include.
constexpr const char *ShimDir = "/kfuse-virtual/cuda-shims";

} // namespace

/// Files the database does not list (headers, a source the build no longer
/// compiles because kfuse's output replaces it) borrow the command of their
/// nearest neighbour, as clangd does. The command is taken as written, only
/// the file swapped: Clang's interpolation would re-read nvcc's options
/// with Clang's option table and lose their values.
class BorrowingDatabase : public clang::tooling::CompilationDatabase {
public:
  explicit BorrowingDatabase(std::unique_ptr<clang::tooling::CompilationDatabase> Inner)
      : Inner(std::move(Inner)) {}

  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef File) const override {
    std::vector<clang::tooling::CompileCommand> Own = Inner->getCompileCommands(File);
    if (!Own.empty())
      return Own;
    std::string Neighbour = nearest(File);
    std::vector<clang::tooling::CompileCommand> Borrowed = Inner->getCompileCommands(Neighbour);
    for (clang::tooling::CompileCommand &C : Borrowed) {
      for (std::string &Arg : C.CommandLine)
        if (Arg == C.Filename || absoluteIn(C.Directory, Arg) == Neighbour)
          Arg = File.str();
      C.Filename = File.str();
      C.Heuristic = "borrowed from " + Neighbour;
    }
    return Borrowed;
  }
  std::vector<std::string> getAllFiles() const override { return Inner->getAllFiles(); }

  /// The file whose command \p File gets: itself, or the neighbour it borrows from.
  std::string listedFor(llvm::StringRef File) const {
    return Inner->getCompileCommands(File).empty() ? nearest(File) : File.str();
  }

private:
  std::unique_ptr<clang::tooling::CompilationDatabase> Inner;

  static std::string absoluteIn(llvm::StringRef Dir, llvm::StringRef Path) {
    llvm::SmallString<256> Result(Path);
    if (!llvm::sys::path::is_absolute(Result))
      Result = (Dir + "/" + Path).str();
    llvm::sys::path::remove_dots(Result, /*remove_dot_dot=*/true);
    return std::string(Result);
  }

  /// The listed file sharing the longest leading part of the path, a file
  /// of the same extension first.
  std::string nearest(llvm::StringRef File) const {
    std::string Best;
    std::pair<bool, size_t> BestScore{false, 0};
    for (const std::string &Candidate : Inner->getAllFiles()) {
      size_t Common = 0;
      while (Common < Candidate.size() && Common < File.size() && Candidate[Common] == File[Common])
        ++Common;
      std::pair<bool, size_t> Score{
          llvm::sys::path::extension(Candidate) == llvm::sys::path::extension(File), Common};
      if (Best.empty() || Score > BestScore) {
        Best = Candidate;
        BestScore = Score;
      }
    }
    return Best;
  }
};

namespace {

/// The one command ClangTool runs for a file, prepared by the parser.
class PreparedCommand : public clang::tooling::CompilationDatabase {
public:
  explicit PreparedCommand(clang::tooling::CompileCommand Command) : Command(std::move(Command)) {}
  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef File) const override {
    return {Command};
  }

private:
  clang::tooling::CompileCommand Command;
};

/// Keeps a parse's diagnostics until kfuse knows which matter.
class StoringConsumer : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(Level, Info);
    Stored.emplace_back(Level, Info);
  }
  std::vector<clang::StoredDiagnostic> Stored;
};

std::string joined(const std::vector<std::string> &Items) {
  std::string Text;
  for (const std::string &I : Items)
    Text += (Text.empty() ? "" : ", ") + I;
  return Text;
}

} // namespace

SourceParser::SourceParser(ParserOptions Options, Reporter &Diags)
    : Options(std::move(Options)), Diags(Diags) {}

SourceParser::~SourceParser() = default;

std::vector<std::string> SourceParser::kfuseArguments(const std::string &GpuArch,
                                                      CompileSide Side) const {
  // -Qunused-arguments: database commands carry -c and -o, which a parse ignores.
  std::vector<std::string> Args = {
      "-xcuda", Side == CompileSide::Device ? "--cuda-device-only" : "--cuda-host-only",
      "--cuda-gpu-arch=" + GpuArch, "-Qunused-arguments", "-ferror-limit=0"};
  // The host side is read for launches only: its warnings are not kfuse's.
  if (Side == CompileSide::Host)
    Args.push_back("-w");
  if (!Options.ResourceDir.empty())
    Args.push_back("-resource-dir=" + Options.ResourceDir);
  for (std::string &A : Options.Cuda.clangArguments(ShimDir))
    Args.push_back(std::move(A));
  // Keeps include directives, macro expansions and skipped branches for the
  // analysis and the emitted preamble.
  Args.insert(Args.end(), {"-Xclang", "-detailed-preprocessing-record"});
  return Args;
}

namespace {

/// The deepest nesting of brackets kfuse lets Clang parse: each level is a
/// few recursive calls, and deeper nesting than this overflows the stack
/// kfuse gives the parser (tools/kfuse) instead of being reported.
constexpr unsigned MaxBracketDepth = 8192;

/// Why \p Args ask Clang to parse nesting deeper than kfuse can, if they do.
std::optional<std::string> tooDeepNesting(const std::vector<std::string> &Args) {
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg = Args[I];
    llvm::StringRef Value;
    if (Arg.consume_front("-fbracket-depth="))
      Value = Arg;
    else if (Arg == "-fbracket-depth" && I + 1 < Args.size())
      Value = Args[I + 1];
    else
      continue;
    unsigned Depth = 0;
    if (Value.getAsInteger(10, Depth) || Depth > MaxBracketDepth)
      return "'-fbracket-depth=" + Value.str() + "' asks Clang to parse brackets nested deeper " +
             "than kfuse can (" + std::to_string(MaxBracketDepth) + ")";
  }
  return std::nullopt;
}

} // namespace

bool SourceParser::loadDatabase() const {
  using namespace clang::tooling;
  if (Database || DatabaseFailed)
    return !DatabaseFailed;
  // Whatever happens below is said once, not once per file.
  DatabaseFailed = true;
  if (!Options.BuildDir) {
    Database = std::make_unique<BorrowingDatabase>(
        std::make_unique<FixedCompilationDatabase>(".", Options.ExtraArgs));
    DatabaseFailed = false;
    return true;
  }
  const std::string &Dir = *Options.BuildDir;
  auto Fail = [&](const std::string &Path, const std::string &Why) {
    Diags.report(diag::ID::CompileDatabase) << Path << Why;
    return false;
  };
  namespace fs = llvm::sys::fs;
  if (!fs::exists(Dir))
    return Fail(Dir, "no such directory");
  if (!fs::is_directory(Dir))
    return Fail(Dir, "it is a file; -p names the build directory that holds "
                     "compile_commands.json");
  llvm::SmallString<256> Json(Dir), Flags(Dir);
  llvm::sys::path::append(Json, "compile_commands.json");
  llvm::sys::path::append(Flags, "compile_flags.txt");
  std::string Error;
  std::unique_ptr<CompilationDatabase> Inner;
  if (fs::exists(Json)) {
    // Read by kfuse first, so that each problem has its line. The plugin
    // behind loadFromDirectory would also interpolate missing files with
    // Clang's option table, which loses nvcc's option values.
    DatabaseFile = std::string(Json);
    InputText Text = readInput(DatabaseFile, DatabaseSizeLimit);
    if (!Text.Buffer)
      return Fail(DatabaseFile, Text.Why);
    Index = indexCompileDatabase(Text.Buffer->getBuffer(), DatabaseFile);
    if (!Index.Problems.empty()) {
      Diags.report(Index.Problems, DatabaseFile);
      return false;
    }
    Inner = JSONCompilationDatabase::loadFromBuffer(Text.Buffer->getBuffer(), Error,
                                                    JSONCommandLineSyntax::AutoDetect);
  } else if (fs::exists(Flags)) {
    DatabaseFile = std::string(Flags);
    InputText Text = readInput(DatabaseFile);
    if (!Text.Buffer)
      return Fail(DatabaseFile, Text.Why);
    Inner = FixedCompilationDatabase::loadFromBuffer(Dir, Text.Buffer->getBuffer(), Error);
  } else {
    return Fail(Dir, "it holds no compile_commands.json (CMake writes one when configured "
                     "with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)");
  }
  if (!Inner)
    return Fail(Dir, llvm::StringRef(Error).trim().str());
  Database = std::make_unique<BorrowingDatabase>(std::move(Inner));
  DatabaseFailed = false;
  return true;
}

const DatabaseEntry *SourceParser::entryFor(const std::string &File) const {
  if (!Database)
    return nullptr;
  llvm::SmallString<256> Absolute(File);
  llvm::sys::fs::make_absolute(Absolute);
  std::string Listed = Database->listedFor(databaseKey("/", Absolute));
  auto Found = Index.Entries.find(databaseKey("/", Listed));
  return Found == Index.Entries.end() ? nullptr : &Found->second;
}

void SourceParser::reportCommand(const std::string &File, const std::string &Reason) const {
  const DatabaseEntry *Entry = entryFor(File);
  if (!Entry) {
    Diags.report(diag::ID::CompileCommand) << File << Reason;
    return;
  }
  Diags.report({{diag::ID::CompileCommand, Entry->Line, Entry->Column, {File, Reason}}},
               DatabaseFile);
}

std::optional<clang::tooling::CompileCommand> SourceParser::commandFor(const std::string &File,
                                                                       CompileSide Side) const {
  // Loaded once: every file of a config reads the same database.
  if (!loadDatabase())
    return std::nullopt;
  std::vector<clang::tooling::CompileCommand> Commands = Database->getCompileCommands(File);
  if (Commands.empty()) {
    Diags.report(diag::ID::CompileCommand) << File << "the database has none";
    return std::nullopt;
  }
  if (const DatabaseEntry *Entry = entryFor(File); Entry && !Entry->CommandProblem.empty()) {
    reportCommand(File, Entry->CommandProblem);
    return std::nullopt;
  }
  clang::tooling::CompileCommand Command = std::move(Commands.front());
  std::vector<std::string> &Args = Command.CommandLine;
  dropCompilerLauncher(Args);
  std::vector<std::string> Archs;
  if (isNvccCommand(Args)) {
    TranslatedCommand Clang = translateNvccCommand(Args, Command.Directory);
    OptionsFiles.insert(Clang.OptionsFiles.begin(), Clang.OptionsFiles.end());
    if (!Clang.Error.empty()) {
      reportCommand(File, Clang.Error);
      return std::nullopt;
    }
    Args = std::move(Clang.Args);
    Archs = std::move(Clang.GpuArchs);
  }
  if (Options.BuildDir)
    Args.insert(Args.end(), Options.ExtraArgs.begin(), Options.ExtraArgs.end());
  // One architecture, so the parse is one compilation: kfuse's option, else
  // the newest the command builds for that Clang knows.
  for (std::string &A : takeClangGpuArchs(Args))
    Archs.push_back(std::move(A));
  std::string Arch = DefaultGpuArch;
  if (Options.GpuArch) {
    Arch = *Options.GpuArch;
  } else if (std::optional<std::string> Newest = newestParsableArch(Archs)) {
    Arch = *Newest;
  } else if (Side == CompileSide::Device &&
             llvm::any_of(Archs, [](llvm::StringRef A) { return A.contains("_"); })) {
    // Numbered architectures Clang does not know yet; "native" and "all"
    // name none. Said once per file, for the parse that reads kernels.
    Diags.report(diag::ID::GpuArchUnknown) << File << joined(Archs) << CLANG_VERSION_STRING << Arch;
  }
  if (std::optional<std::string> Deep = tooDeepNesting(Args)) {
    reportCommand(File, *Deep);
    return std::nullopt;
  }
  std::vector<std::string> Ours = kfuseArguments(Arch, Side);
  Args.insert(Args.begin() + std::min<size_t>(1, Args.size()), Ours.begin(), Ours.end());
  return Command;
}

void SourceParser::forEachInput(
    llvm::function_ref<void(llvm::StringRef, const clang::SrcMgr::ContentCache &)> Visit) const {
  for (const auto &[Key, Unit] : Units) {
    if (!Unit)
      continue;
    const clang::SourceManager &SM = Unit->getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
      llvm::StringRef Real = Unit->getFileManager().getCanonicalName(It->first);
      // The shims exist only in the parser's virtual file system.
      if (!Real.empty() && !Real.starts_with(ShimDir) && Real != wrapperCudaH())
        Visit(Real, *It->second);
    }
  }
}

std::vector<std::string> SourceParser::inputFiles() const {
  std::set<std::string> Files;
  forEachInput(
      [&](llvm::StringRef Real, const clang::SrcMgr::ContentCache &) { Files.insert(Real.str()); });
  return {Files.begin(), Files.end()};
}

std::map<std::string, uint64_t> SourceParser::inputHashes() const {
  std::map<std::string, uint64_t> Hashes;
  forEachInput([&](llvm::StringRef Real, const clang::SrcMgr::ContentCache &Content) {
    // What the parse read: the file's buffer, loaded once.
    if (std::optional<llvm::MemoryBufferRef> Text = Content.getBufferIfLoaded())
      Hashes.emplace(Real.str(), contentHash(Text->getBuffer()));
  });
  return Hashes;
}

std::vector<std::string> SourceParser::commandFiles() const {
  std::vector<std::string> Files(OptionsFiles.begin(), OptionsFiles.end());
  if (!DatabaseFile.empty()) {
    llvm::SmallString<256> Absolute(DatabaseFile);
    llvm::sys::fs::make_absolute(Absolute);
    Files.push_back(std::string(Absolute));
  }
  return Files;
}

std::vector<std::string> SourceParser::commandLine(const std::string &File) const {
  std::optional<clang::tooling::CompileCommand> Command = commandFor(File);
  return Command ? Command->CommandLine : std::vector<std::string>();
}

clang::ASTUnit *SourceParser::parse(const std::string &File, CompileSide Side) {
  llvm::SmallString<256> Absolute(File);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  std::string Key(Absolute);
  auto Found = Units.find({Key, Side});
  if (Found != Units.end())
    return Found->second.get();

  std::optional<clang::tooling::CompileCommand> Command = commandFor(Key, Side);
  if (!Command) {
    Units[{Key, Side}] = nullptr;
    return nullptr;
  }
  PreparedCommand DB(std::move(*Command));
  clang::tooling::ClangTool Tool(DB, {Key});
  // ClangTool keeps mapped names by reference, so they live as long as it.
  std::vector<std::string> ShimPaths;
  for (const ShimFile &Shim : Options.Cuda.shims())
    ShimPaths.push_back(std::string(ShimDir) + "/" + Shim.Name);
  for (size_t I = 0; I < ShimPaths.size(); ++I)
    Tool.mapVirtualFile(ShimPaths[I], Options.Cuda.shims()[I].Text);
  // Clang's CUDA wrapper includes "cuda.h", which a project's own cuda.h on
  // -I would answer (Rodinia's does); nvcc includes no cuda.h. A quoted
  // include looks beside the includer first, so one there that forwards to
  // the toolkit's keeps the wrapper on it and user code on what it finds.
  std::string WrapperCudaH = wrapperCudaH();
  std::string ToolkitCudaH = "#include \"" + Options.Cuda.Path + "/include/cuda.h\"\n";
  if (!WrapperCudaH.empty())
    Tool.mapVirtualFile(WrapperCudaH, ToolkitCudaH);
  StoringConsumer Stored;
  Tool.setDiagnosticConsumer(&Stored);

  std::vector<std::unique_ptr<clang::ASTUnit>> ASTs;
  Tool.buildASTs(ASTs);
  std::unique_ptr<clang::ASTUnit> Unit = ASTs.empty() ? nullptr : std::move(ASTs.front());
  // Errors without a place come from the command (an unknown option or
  // architecture, no input), not from the source: blame the command.
  bool CommandFails = !Unit || llvm::any_of(Stored.Stored, [](const clang::StoredDiagnostic &D) {
    return D.getLevel() >= clang::DiagnosticsEngine::Error && !D.getLocation().isValid();
  });
  if (CommandFails) {
    Diags.replay(Stored.Stored, Unit ? &Unit->getSourceManager() : nullptr);
    reportCommand(Key, "Clang cannot run it; see the errors above");
    Units[{Key, Side}] = nullptr;
    return nullptr;
  }
  std::optional<RejectedCode> Errors = attributeErrors(*Unit, Stored.Stored);
  if (!Errors) {
    Diags.replay(Stored.Stored, Unit ? &Unit->getSourceManager() : nullptr);
    Diags.report(diag::ID::ParseFailed) << File;
    Units[{Key, Side}] = nullptr;
    return nullptr;
  }
  Diags.replay(outsideRejected(Stored.Stored, *Errors, Unit->getSourceManager()),
               &Unit->getSourceManager());
  Rejected[Unit.get()] = std::move(*Errors);
  return (Units[{Key, Side}] = std::move(Unit)).get();
}

std::string SourceParser::wrapperCudaH() const {
  return Options.ResourceDir.empty() ? "" : Options.ResourceDir + "/include/cuda.h";
}

const RejectedCode &SourceParser::rejected(const clang::ASTUnit &Unit) const {
  return Rejected.at(&Unit);
}

} // namespace kfuse

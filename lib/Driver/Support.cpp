//===- Support.cpp - what the commands share ------------------------------===//

#include "Support.h"

#include "kfuse/Diagnostics/InputFiles.h"
#include "kfuse/Diagnostics/Reporter.h"
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

int runVersion(const ParseSettings &Settings, llvm::raw_ostream &Out) {
  Out << "kfuse " << Version << "\n";
  Out << "clang " << CLANG_VERSION_STRING << " (LibTooling), resource directory "
      << Settings.ResourceDir;
  if (llvm::Error E = checkResourceDir(Settings.ResourceDir))
    Out << " (unusable: " << llvm::toString(std::move(E)) << ")";
  Out << "\n";
  llvm::Expected<CudaInstallation> Cuda = detectCuda(Settings.CudaPath);
  if (Cuda)
    Out << "CUDA " << Cuda->versionString()
        << (Cuda->StandIn ? " (the tests' stand-in headers)" : "") << " at " << Cuda->Path << "\n";
  else
    Out << "CUDA not found at " << Settings.CudaPath << ": " << llvm::toString(Cuda.takeError())
        << "\n";
  return 0;
}

void Progress::step(size_t Done, llvm::StringRef Item) {
  if (!Live)
    return;
  std::string Line = Command + ": " + std::to_string(Done + 1) + "/" + std::to_string(Total) + " " +
                     llvm::sys::path::filename(Item).str();
  OS << "\r" << Line << std::string(Width > Line.size() ? Width - Line.size() : 0, ' ');
  OS.flush();
  Width = Line.size();
}

void Progress::finish(llvm::StringRef Summary) {
  if (Quiet)
    return;
  if (Live)
    OS << "\r" << std::string(Width, ' ') << "\r";
  OS << Command << ": " << Summary << "\n";
}

bool insideOwnDirectory(llvm::StringRef Name, const std::vector<std::string> &Folders) {
  llvm::SmallVector<llvm::StringRef> Steps;
  Name.split(Steps, '/');
  if (Steps.size() > 1 && !llvm::is_contained(Folders, Steps.front()))
    return false;
  return llvm::none_of(Steps, [](llvm::StringRef S) { return S.empty() || S == "." || S == ".."; });
}

namespace {

/// Whether \p Dir holds nothing but folders and the files a killed run
/// staged: what a run stopped before its first rename leaves of a new
/// directory of kfuse's.
bool onlyLeftovers(const std::string &Dir, unsigned Depth = 0) {
  namespace fs = llvm::sys::fs;
  std::error_code EC;
  for (fs::directory_iterator It(Dir, EC), End; !EC && It != End; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.starts_with(".kfuse-tmp-"))
      continue;
    if (It->type() != fs::file_type::directory_file || Depth > 16 ||
        !onlyLeftovers(It->path(), Depth + 1))
      return false;
  }
  return !EC;
}

} // namespace

std::optional<std::set<std::string>>
claimOwnDirectory(const std::string &Dir, llvm::StringRef Marker,
                  const std::vector<std::string> &Folders,
                  llvm::function_ref<void(const std::string &Why)> Refuse) {
  namespace fs = llvm::sys::fs;
  auto No = [&](const std::string &Why) -> std::optional<std::set<std::string>> {
    Refuse(Why);
    return std::nullopt;
  };
  if (fs::is_symlink_file(Dir))
    return No("it is a symbolic link; kfuse writes into a directory of its own");
  if (!fs::exists(Dir))
    return std::set<std::string>();
  if (!fs::is_directory(Dir))
    return No("it is not a directory");
  std::string MarkerPath = Dir + "/" + Marker.str();
  if (!fs::exists(MarkerPath) && !fs::is_symlink_file(MarkerPath)) {
    if (!onlyLeftovers(Dir))
      return No("it holds files and no '" + Marker.str() +
                "' marker, so they are not kfuse's; name a new or empty directory");
    return std::set<std::string>();
  }
  InputText In = fs::is_symlink_file(MarkerPath) ? InputText() : readInput(MarkerPath);
  if (!In.Buffer)
    return No("its marker '" + MarkerPath + "' cannot be read" +
              (In.Why.empty() ? "" : ": " + In.Why));
  std::set<std::string> Earlier;
  llvm::SmallVector<llvm::StringRef> Lines;
  In.Buffer->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : llvm::drop_begin(Lines))
    if (insideOwnDirectory(Line, Folders))
      Earlier.insert(Line.str());
  return Earlier;
}

std::string ownDirectoryMarker(llvm::StringRef What, const std::vector<std::string> &Files) {
  std::string Text = What.str() + "\n";
  for (const std::string &F : Files)
    Text += F + "\n";
  return Text;
}

std::optional<std::string> linkOnTheWay(const std::string &Dir, const std::string &Name) {
  for (size_t End = Name.find('/');; End = Name.find('/', End + 1)) {
    std::string Part = Name.substr(0, End);
    if (llvm::sys::fs::is_symlink_file(Dir + "/" + Part))
      return Part;
    if (End == std::string::npos)
      return std::nullopt;
  }
}

void removeStale(const std::string &Dir, const std::set<std::string> &Earlier,
                 const std::set<std::string> &Written) {
  for (const std::string &Name : Earlier) {
    std::string Path = Dir + "/" + Name;
    if (!Written.count(Name) && !linkOnTheWay(Dir, Name) && llvm::sys::fs::is_regular_file(Path))
      llvm::sys::fs::remove(Path);
  }
}

} // namespace kfuse

//===- Outputs.cpp - a run's outputs, written together or not at all ------===//

#include "Outputs.h"

#include "kfuse/Diagnostics/Reporter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kfuse {

namespace fs = llvm::sys::fs;

OutputTransaction::~OutputTransaction() { removeTemps(); }

void OutputTransaction::addInputs(const std::vector<std::string> &Paths) {
  Inputs.insert(Inputs.end(), Paths.begin(), Paths.end());
}

void OutputTransaction::stage(const std::string &Path, std::string Text, bool MakeDirectory) {
  Outputs.push_back({Path, Path, std::move(Text), false, MakeDirectory, ""});
}

/// Finds where \p O's bytes go and whether they may go there.
bool OutputTransaction::check(Output &O) {
  auto Refuse = [&](const std::string &Why) {
    Diags.report(diag::ID::OutputUnwritable) << O.Path << Why;
    return false;
  };
  if (fs::is_symlink_file(O.Path)) {
    llvm::SmallString<256> Real;
    fs::file_status Linked;
    if (!fs::real_path(O.Path, Real)) {
      O.Target = std::string(Real);
    } else if (!fs::status(O.Path, Linked) && fs::exists(Linked) && !fs::is_directory(Linked) &&
               !fs::is_regular_file(Linked)) {
      // /dev/stdout into a pipe: a link to "pipe:[N]", which has no path
      // but can be written through the link.
      O.WriteThrough = true;
      return true;
    } else {
      return Refuse("it is a symbolic link to a file that does not exist");
    }
  }
  std::string Key = fileKey(O.Target);
  if (auto In = InputKeys.find(Key); In != InputKeys.end()) {
    Diags.report(diag::ID::OutputIsInput) << O.Path << In->second;
    return false;
  }
  if (auto [Other, New] = OutputKeys.try_emplace(Key, O.Path); !New)
    return Refuse("'" + Other->second + "', another output of this run, is the same file");
  fs::file_status Status;
  if (fs::status(O.Target, Status)) {
    llvm::StringRef Dir = llvm::sys::path::parent_path(O.Target);
    if (!Dir.empty() && !fs::is_directory(Dir) && !O.MakeDirectory)
      return Refuse(("its directory '" + Dir + "' does not exist").str());
    return true; // A new file.
  }
  if (fs::is_directory(Status))
    return Refuse("it is a directory");
  if (!fs::is_regular_file(Status)) {
    O.WriteThrough = true; // A FIFO or a device keeps being one.
    return true;
  }
  // Root may write anything: the mode says what its owner meant.
  if (fs::access(O.Target, fs::AccessMode::Write) || (Status.permissions() & fs::owner_write) == 0)
    return Refuse("it is read-only");
  if (Status.getUser() != ::geteuid())
    return Refuse("it belongs to another user, and replacing it would make it kfuse's");
  return true;
}

/// Writes a regular file's content beside it, with its permissions.
bool OutputTransaction::writeTemp(Output &O) {
  llvm::SmallString<256> Model(O.Target);
  Model += ".tmp-%%%%%%";
  llvm::SmallString<256> Temp;
  int FD = -1;
  if (std::error_code EC = fs::createUniqueFile(Model, FD, Temp)) {
    Diags.report(diag::ID::OutputUnwritable) << O.Path << EC.message();
    return false;
  }
  O.Temp = std::string(Temp);
  llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
  OS << O.Text;
  OS.close();
  if (OS.has_error()) {
    Diags.report(diag::ID::OutputUnwritable) << O.Path << OS.error().message();
    OS.clear_error();
    return false;
  }
  if (llvm::ErrorOr<fs::perms> Old = fs::getPermissions(O.Target))
    fs::setPermissions(O.Temp, *Old);
  return true;
}

/// What names one file however it is spelled: its device and inode when
/// it exists, else its absolute path. Keys make the checks of a run of
/// thousands of outputs against each other and its inputs one lookup each.
std::string OutputTransaction::fileKey(const std::string &Path) {
  fs::UniqueID ID;
  if (!fs::getUniqueID(Path, ID))
    return "#" + std::to_string(ID.getDevice()) + ":" + std::to_string(ID.getFile());
  llvm::SmallString<256> Absolute(Path);
  fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

bool OutputTransaction::commit() {
  for (const std::string &In : Inputs)
    InputKeys.try_emplace(fileKey(In), In);
  for (Output &O : Outputs)
    if (!check(O))
      return false;
  if (!makeDirectories())
    return false;
  for (Output &O : Outputs)
    if (!O.WriteThrough && !writeTemp(O)) {
      removeTemps();
      return false;
    }
  // What cannot be staged goes first: it is the part that can still fail.
  for (Output &O : Outputs) {
    if (!O.WriteThrough)
      continue;
    std::error_code EC;
    llvm::raw_fd_ostream OS(O.Target, EC, fs::OF_None);
    if (!EC) {
      OS << O.Text;
      OS.close();
      EC = OS.error();
      OS.clear_error();
    }
    if (EC) {
      Diags.report(diag::ID::OutputUnwritable) << O.Path << EC.message();
      removeTemps();
      return false;
    }
  }
  DirectoryLocks Locks = lockDirectories();
  bool Ok = true;
  for (Output &O : Outputs)
    if (!O.WriteThrough) {
      if (std::error_code EC = fs::rename(O.Temp, O.Target)) {
        Diags.report(diag::ID::OutputUnwritable) << O.Path << EC.message();
        Ok = false;
        continue;
      }
      O.Temp.clear();
    }
  MadeDirectories.clear(); // They hold the outputs now.
  removeTemps();
  return Ok;
}

OutputTransaction::DirectoryLocks::~DirectoryLocks() {
  for (int FD : Held) {
    ::flock(FD, LOCK_UN);
    ::close(FD);
  }
}

/// Two runs with the same outputs rename theirs one run after the other:
/// each holds an exclusive lock on every directory it renames into, taken
/// in path order so that two runs never wait on each other, for as long as
/// it renames. No lock file is left behind. A directory that cannot be
/// locked (a file system without flock) is renamed into unlocked.
OutputTransaction::DirectoryLocks OutputTransaction::lockDirectories() const {
  std::set<std::string> Dirs;
  for (const Output &O : Outputs)
    if (!O.WriteThrough) {
      llvm::SmallString<256> Dir(O.Target);
      llvm::sys::fs::make_absolute(Dir);
      llvm::sys::path::remove_filename(Dir);
      Dirs.insert(std::string(Dir));
    }
  DirectoryLocks Locks;
  // One directory named two ways ("d/." and "d", or a link): flock on a
  // second descriptor of it would wait for this process's own lock.
  std::set<std::pair<dev_t, ino_t>> Locked;
  for (const std::string &Dir : Dirs) {
    int FD = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (FD < 0)
      continue;
    struct stat Status;
    if (::fstat(FD, &Status) != 0 || !Locked.insert({Status.st_dev, Status.st_ino}).second) {
      ::close(FD);
      continue;
    }
    if (::flock(FD, LOCK_EX) != 0) {
      ::close(FD);
      continue;
    }
    Locks.Held.push_back(FD);
  }
  return Locks;
}

/// Creates the missing directories of the outputs that may have them.
bool OutputTransaction::makeDirectories() {
  for (const Output &O : Outputs) {
    llvm::StringRef Dir = llvm::sys::path::parent_path(O.Target);
    std::vector<std::string> Missing;
    while (O.MakeDirectory && !Dir.empty() && !fs::exists(Dir)) {
      Missing.insert(Missing.begin(), Dir.str());
      Dir = llvm::sys::path::parent_path(Dir);
    }
    for (const std::string &D : Missing) {
      if (std::error_code EC = fs::create_directory(D)) {
        Diags.report(diag::ID::OutputUnwritable) << O.Path << EC.message();
        removeTemps();
        return false;
      }
      MadeDirectories.push_back(D);
    }
  }
  return true;
}

/// Removes the staged copies, and after a failure the directories made for them.
void OutputTransaction::removeTemps() {
  for (Output &O : Outputs)
    if (!O.Temp.empty()) {
      fs::remove(O.Temp);
      O.Temp.clear();
    }
  for (auto It = MadeDirectories.rbegin(); It != MadeDirectories.rend(); ++It)
    fs::remove(*It);
  MadeDirectories.clear();
}

} // namespace kfuse

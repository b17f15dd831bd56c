//===- Outputs.cpp - a run's outputs, written together or not at all ------===//

#include "Outputs.h"

#include "kfuse/Diagnostics/InputFiles.h"
#include "kfuse/Diagnostics/Reporter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kfuse {

namespace fs = llvm::sys::fs;

namespace {

/// What begins the name of every file a commit stages beside an output:
/// hidden, and kfuse's, with the run's process id after it.
constexpr const char *StagedPrefix = ".kfuse-tmp-";

/// Whether the staged file named \p Name belongs to a run that is over.
bool stagedByEndedRun(llvm::StringRef Name) {
  if (!Name.consume_front(StagedPrefix))
    return false;
  unsigned long long Pid = 0;
  if (Name.consumeInteger(10, Pid) || Pid == 0)
    return true; // Not a name a run gives: nobody's.
  return static_cast<pid_t>(Pid) != ::getpid() && ::kill(static_cast<pid_t>(Pid), 0) != 0 &&
         errno == ESRCH;
}

/// The content of \p Path, or nothing when it cannot be read.
std::optional<uint64_t> hashOfFile(const std::string &Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  return contentHash((*Buffer)->getBuffer());
}

/// The signals that end a run at the terminal or from a build tool: they
/// wait while a commit renames, so it completes or rolls back first.
class SignalsHeld {
public:
  SignalsHeld() {
    sigset_t Held;
    sigemptyset(&Held);
    for (int S : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
      sigaddset(&Held, S);
    sigprocmask(SIG_BLOCK, &Held, &Before);
  }
  ~SignalsHeld() { sigprocmask(SIG_SETMASK, &Before, nullptr); }
  SignalsHeld(const SignalsHeld &) = delete;
  SignalsHeld &operator=(const SignalsHeld &) = delete;

private:
  sigset_t Before;
};

} // namespace

OutputTransaction::~OutputTransaction() { removeTemps(); }

void OutputTransaction::addInputs(const std::vector<std::string> &Paths,
                                  const std::map<std::string, uint64_t> &Hashes) {
  for (const std::string &P : Paths) {
    if (llvm::any_of(Inputs, [&](const Input &I) { return I.Path == P; }))
      continue; // Fingerprinted when first read.
    auto Known = Hashes.find(P);
    Inputs.push_back(
        {P, Known != Hashes.end() ? std::optional<uint64_t>(Known->second) : hashOfFile(P)});
  }
}

void OutputTransaction::stage(const std::string &Path, std::string Text) {
  Output O;
  O.Path = O.Target = Path;
  O.Text = std::move(Text);
  Outputs.push_back(std::move(O));
}

void OutputTransaction::stageBackup(const std::string &Backup, const std::string &Original,
                                    llvm::StringRef Read) {
  // The original is an input the run rewrites: it must still hold what the
  // run read, and may be an output.
  llvm::erase_if(Inputs, [&](const Input &I) { return I.Path == Original; });
  Inputs.push_back({Original, contentHash(Read)});
  Output O;
  O.Path = O.Target = Backup;
  O.BackupOf = Original;
  Outputs.push_back(std::move(O));
}

/// What names one file however it is spelled: its device and inode when
/// it exists, else its directory's real path and its name. Keys make the
/// checks of a run of thousands of outputs against each other and its
/// inputs one lookup each.
std::string OutputTransaction::fileKey(const std::string &Path) {
  fs::UniqueID ID;
  if (!fs::getUniqueID(Path, ID))
    return "#" + std::to_string(ID.getDevice()) + ":" + std::to_string(ID.getFile());
  llvm::SmallString<256> Absolute(Path);
  fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Absolute)), Real;
  if (!fs::real_path(Dir, Real))
    return (Real + llvm::sys::path::get_separator() + llvm::sys::path::filename(Absolute)).str();
  return std::string(Absolute);
}

/// Every input still holds what the run read of it.
bool OutputTransaction::inputsUnchanged() {
  bool Same = true;
  for (const Input &I : Inputs)
    if (I.Hash && hashOfFile(I.Path) != I.Hash) {
      Diags.report(diag::ID::InputChanged) << I.Path;
      Same = false;
    }
  return Same;
}

/// A save between the last check and the renames (no lock keeps an editor
/// out) went into the original's file, which is the backup now: says so,
/// as the rewrite holds what kfuse read without it.
void OutputTransaction::savedLate() {
  for (const Output &O : Outputs)
    if (!O.BackupOf.empty() && O.ReadHash && hashOfFile(O.Target) != O.ReadHash)
      Diags.report(diag::ID::InputSavedLate) << O.BackupOf << O.Path;
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
    if (!O.BackupOf.empty()) {
      // A link in place of the backup would be replaced, not followed.
    } else if (!fs::real_path(O.Path, Real)) {
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
  fs::file_status Status;
  if (!O.BackupOf.empty() && !fs::status(O.Target, Status, /*Follow=*/false) &&
      fs::exists(Status)) {
    // Only a name of the original itself, which an interrupted run left,
    // may stand where the backup goes; the commit replaces it.
    if (!fs::is_regular_file(Status) || fileKey(O.Target) != fileKey(O.BackupOf)) {
      Diags.report(diag::ID::RewriteBackupExists) << O.Path;
      return false;
    }
    // Already the backup it is to be (rename would leave a staged link).
    O.InPlace = true;
    return true;
  }
  std::string Key = fileKey(O.Target);
  if (auto In = InputKeys.find(Key); In != InputKeys.end()) {
    Diags.report(diag::ID::OutputIsInput) << O.Path << In->second;
    return false;
  }
  if (auto [Other, New] = OutputKeys.try_emplace(Key, O.Path); !New)
    return Refuse("'" + Other->second + "', another output of this run, is the same file");
  if (!O.BackupOf.empty())
    return true; // A new name.
  if (fs::status(O.Target, Status))
    return true; // A new file.
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
  O.Existed = true;
  return true;
}

/// Writes \p O's content (or, for a backup, a new name of the original)
/// to a staged file beside it, with the permissions of the file it
/// replaces, and flushed to the disk. A signal removes it.
bool OutputTransaction::writeTemp(Output &O) {
  auto Fail = [&](const std::string &Why) {
    Diags.report(diag::ID::OutputUnwritable) << O.Path << Why;
    return false;
  };
  llvm::SmallString<256> Temp(llvm::sys::path::parent_path(O.Target));
  llvm::sys::path::append(Temp, StagedPrefix + std::to_string(::getpid()) + "-" +
                                    std::to_string(++Staged) + "-" +
                                    llvm::sys::path::filename(O.Target).str());
  O.Temp = std::string(Temp);
  llvm::sys::RemoveFileOnSignal(O.Temp);
  if (!O.BackupOf.empty()) {
    // The backup is the original file under a second name, so it keeps
    // the original's mode, owner and times.
    if (::link(O.BackupOf.c_str(), O.Temp.c_str()) != 0)
      return Fail(std::string("cannot link it to '") + O.BackupOf + "': " + std::strerror(errno));
    return true;
  }
  int FD = -1;
  if (std::error_code EC = fs::openFileForWrite(O.Temp, FD, fs::CD_CreateNew))
    return Fail(EC.message());
  std::error_code Error;
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/false);
    OS << O.Text;
    OS.flush();
    if (OS.has_error()) {
      Error = OS.error();
      OS.clear_error();
    }
  }
  if (!Error && ::fsync(FD) != 0)
    Error = std::error_code(errno, std::generic_category());
  if (::close(FD) != 0 && !Error)
    Error = std::error_code(errno, std::generic_category());
  if (Error)
    return Fail(Error.message());
  if (llvm::ErrorOr<fs::perms> Old = fs::getPermissions(O.Target))
    fs::setPermissions(O.Temp, *Old);
  return true;
}

/// Keeps a second name of the file \p O replaces, to restore it from if a
/// later rename of the commit fails.
bool OutputTransaction::keepRollback(Output &O) {
  if (!O.Existed || !O.BackupOf.empty())
    return true;
  O.Rollback = O.Temp + ".was";
  if (::link(O.Target.c_str(), O.Rollback.c_str()) == 0)
    return true;
  Diags.report(diag::ID::OutputUnwritable)
      << O.Path
      << std::string("cannot keep a link to it to restore it from: ") + std::strerror(errno);
  O.Rollback.clear();
  return false;
}

/// Renames every staged file over its target: the backups first, the
/// inputs they keep last, so that a run killed between two renames (which
/// no handler sees) leaves every input as it was or with its backup; after
/// a failure, puts back what the renames before it replaced.
bool OutputTransaction::renameAll() {
  std::vector<Output *> Order;
  auto Add = [&](auto Which) {
    for (Output &O : Outputs)
      if (!O.WriteThrough && !O.InPlace && Which(O))
        Order.push_back(&O);
  };
  Add([](const Output &O) { return !O.BackupOf.empty(); });
  Add([](const Output &O) { return O.BackupOf.empty() && !O.RewritesInput; });
  Add([](const Output &O) { return O.RewritesInput; });
  for (Output *O : Order) {
    if (std::error_code EC = fs::rename(O->Temp, O->Target)) {
      Diags.report(diag::ID::OutputUnwritable)
          << O->Path << EC.message() + "; every file this run had written is back as it was";
      rollBack();
      return false;
    }
    llvm::sys::DontRemoveFileOnSignal(O->Temp);
    O->Temp.clear();
    O->Committed = true;
  }
  return true;
}

/// Restores every committed target: the file it replaced, or none.
void OutputTransaction::rollBack() {
  for (auto It = Outputs.rbegin(); It != Outputs.rend(); ++It) {
    if (!It->Committed)
      continue;
    if (!It->Rollback.empty())
      fs::rename(It->Rollback, It->Target);
    else if (!It->Existed)
      fs::remove(It->Target);
    It->Committed = false;
  }
}

bool OutputTransaction::commit() {
  for (const Input &In : Inputs)
    InputKeys.try_emplace(fileKey(In.Path), In.Path);
  // An input the run rewrites (-i) is an output too.
  for (Output &O : Outputs)
    if (!O.BackupOf.empty()) {
      for (const Input &In : Inputs)
        if (fileKey(In.Path) == fileKey(O.BackupOf))
          O.ReadHash = In.Hash;
      for (Output &P : Outputs)
        if (P.BackupOf.empty() && fileKey(P.Path) == fileKey(O.BackupOf)) {
          InputKeys.erase(fileKey(O.BackupOf));
          P.RewritesInput = true;
        }
    }
  if (!makeDirectories())
    return false;
  // Everything below sees what a run that committed before this one wrote.
  DirectoryLocks Locks = lockDirectories();
  for (Output &O : Outputs)
    if (!check(O)) {
      removeTemps();
      return false;
    }
  for (Output &O : Outputs)
    if (!O.WriteThrough && !O.InPlace && !writeTemp(O)) {
      removeTemps();
      return false;
    }
  // Last, so that an input saved while the run wrote is seen too.
  if (!inputsUnchanged()) {
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
  // A signal waits until the outputs and the links kept to restore them
  // are where they belong: all or none.
  SignalsHeld Held;
  bool Ok = true;
  for (Output &O : Outputs)
    if (!O.WriteThrough && !O.InPlace && !keepRollback(O)) {
      Ok = false;
      break;
    }
  Ok = Ok && renameAll();
  if (Ok) {
    MadeDirectories.clear(); // They hold the outputs now.
    savedLate();
  }
  removeTemps();
  return Ok;
}

OutputTransaction::DirectoryLocks::~DirectoryLocks() {
  for (int FD : Held) {
    ::flock(FD, LOCK_UN);
    ::close(FD);
  }
}

/// Two runs with the same outputs commit one after the other: each holds
/// an exclusive lock on every directory it writes into, taken in path order
/// so that two runs never wait on each other, from before it checks
/// anything until it has renamed. No lock file is left behind. A directory
/// that cannot be locked (a file system without flock) is written unlocked.
/// What an earlier run left in the staging folders is removed under it.
OutputTransaction::DirectoryLocks OutputTransaction::lockDirectories() const {
  std::set<std::string> Dirs;
  for (const Output &O : Outputs) {
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
    // What a run that was killed staged here (a signal removes the staged
    // files, SIGKILL cannot): runs stage only under this lock.
    std::error_code EC;
    for (fs::directory_iterator It(Dir, EC), End; !EC && It != End; It.increment(EC))
      if (stagedByEndedRun(llvm::sys::path::filename(It->path())))
        fs::remove(It->path());
  }
  return Locks;
}

/// Creates the missing directories of the outputs.
bool OutputTransaction::makeDirectories() {
  for (const Output &O : Outputs) {
    llvm::StringRef Dir = llvm::sys::path::parent_path(O.Target);
    std::vector<std::string> Missing;
    while (!Dir.empty() && !fs::exists(Dir) && !fs::is_symlink_file(Dir)) {
      Missing.insert(Missing.begin(), Dir.str());
      Dir = llvm::sys::path::parent_path(Dir);
    }
    if (!Dir.empty() && fs::exists(Dir) && !fs::is_directory(Dir)) {
      Diags.report(diag::ID::OutputUnwritable)
          << O.Path << "'" + Dir.str() + "' is not a directory";
      removeTemps();
      return false;
    }
    for (const std::string &D : Missing) {
      if (std::error_code EC = fs::create_directory(D)) {
        Diags.report(diag::ID::OutputUnwritable)
            << O.Path << "cannot make the directory '" + D + "': " + EC.message();
        removeTemps();
        return false;
      }
      MadeDirectories.push_back(D);
    }
  }
  return true;
}

/// Removes the staged files and the links kept to roll back, and after a
/// failure the directories made for them.
void OutputTransaction::removeTemps() {
  for (Output &O : Outputs) {
    for (std::string *Path : {&O.Temp, &O.Rollback})
      if (!Path->empty()) {
        fs::remove(*Path);
        llvm::sys::DontRemoveFileOnSignal(*Path);
        Path->clear();
      }
  }
  for (auto It = MadeDirectories.rbegin(); It != MadeDirectories.rend(); ++It)
    fs::remove(*It);
  MadeDirectories.clear();
}

} // namespace kfuse

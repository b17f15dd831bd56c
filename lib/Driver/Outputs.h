//===- Outputs.h - a run's outputs, written together or not at all ---------===//
//
// Every file a command writes is staged first; commit() writes them only
// when each can be written, so an error leaves every file as it was:
//
//  - inputs are fingerprinted (their content as the run read it) and
//    checked again just before the commit: one that changed meanwhile (a
//    save in an editor) stops the run, which then writes nothing;
//  - every output directory is locked before anything is checked, so two
//    runs that write one file commit one after the other, and the second
//    sees what the first wrote (a changed input, an existing backup);
//  - outputs are told apart by the file they are (the real directory and
//    the name; the inode where the file exists), never by spelling;
//  - each file is staged beside its target, as a hidden file named for the
//    run (".kfuse-tmp-PID-..."), and renamed over the target; a failed
//    rename rolls back the renames before it, restoring each replaced file
//    from a hard link kept for the purpose;
//  - SIGINT, SIGTERM and SIGHUP remove the staged files (a signal handler
//    can remove files, not folders: hence no folder of them), and wait
//    while the renames run; what a SIGKILL leaves, the next commit into
//    that directory removes;
//  - a backup of an input (-i's FILE.orig) is a hard link to it: the
//    original's mode, owner and times, not a new file.
//
// Internal to the driver.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_LIB_DRIVER_OUTPUTS_H
#define KFUSE_LIB_DRIVER_OUTPUTS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

class Reporter;

class OutputTransaction {
public:
  explicit OutputTransaction(Reporter &Diags) : Diags(Diags) {}
  ~OutputTransaction();
  OutputTransaction(const OutputTransaction &) = delete;
  OutputTransaction &operator=(const OutputTransaction &) = delete;

  /// Files the run reads: none of them may be an output, and each must hold
  /// at the commit what it holds now (or, with \p Hashes, the content whose
  /// contentHash() it gives, as the run read it).
  void addInputs(const std::vector<std::string> &Paths,
                 const std::map<std::string, uint64_t> &Hashes = {});
  /// Adds \p Text as the content of \p Path; the commit creates its missing
  /// directories (and removes them again if it fails).
  void stage(const std::string &Path, std::string Text);
  /// Keeps input \p Original, whose content the run read as \p Read, as
  /// \p Backup: a new name of the same file. \p Backup must not exist (but
  /// as a name of \p Original an interrupted run left).
  void stageBackup(const std::string &Backup, const std::string &Original, llvm::StringRef Read);
  /// Writes every staged file, or none after reporting why not.
  bool commit();

private:
  struct Output {
    std::string Path;   ///< As the user named it.
    std::string Target; ///< Where the bytes go: symlinks followed.
    std::string Text;
    bool WriteThrough = false;  ///< Exists and is no regular file.
    bool InPlace = false;       ///< A backup already there (an interrupted run's).
    bool RewritesInput = false; ///< Replaces an input the run keeps a backup of.
    std::string BackupOf;       ///< For a backup: the input it names again.
    std::string Temp;           ///< The staged copy of a regular file.
    std::string Rollback;       ///< A name of the file the commit replaced.
    bool Existed = false;       ///< The target existed before the commit.
    bool Committed = false;
    /// For a backup: what the run read of the input it keeps.
    std::optional<uint64_t> ReadHash;
  };
  struct Input {
    std::string Path;
    std::optional<uint64_t> Hash; ///< Of what the run read; none: unreadable.
  };

  Reporter &Diags;
  std::vector<Input> Inputs;
  /// Each file by fileKey(): the inputs, and the outputs checked so far.
  std::map<std::string, std::string> InputKeys, OutputKeys;
  std::vector<Output> Outputs;
  std::vector<std::string> MadeDirectories; ///< Outermost first.
  unsigned Staged = 0;                      ///< Names the staged files apart.

  /// Locks released when it goes.
  struct DirectoryLocks {
    std::vector<int> Held;
    DirectoryLocks() = default;
    DirectoryLocks(DirectoryLocks &&Other) noexcept : Held(std::move(Other.Held)) {
      Other.Held.clear();
    }
    DirectoryLocks(const DirectoryLocks &) = delete;
    ~DirectoryLocks();
  };

  static std::string fileKey(const std::string &Path);
  bool inputsUnchanged();
  void savedLate();
  bool check(Output &O);
  DirectoryLocks lockDirectories() const;
  bool writeTemp(Output &O);
  bool keepRollback(Output &O);
  bool renameAll();
  void rollBack();
  void removeTemps();
  bool makeDirectories();
};

} // namespace kfuse

#endif

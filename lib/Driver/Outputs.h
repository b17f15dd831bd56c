//===- Outputs.h - a run's outputs, written together or not at all ---------===//
//
// Every file a command writes is staged first; commit() writes them only
// when each can be written, so an error leaves every file as it was. Inputs
// are never outputs, and an output that is not a regular file keeps what it
// is. Internal to the driver.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_LIB_DRIVER_OUTPUTS_H
#define KFUSE_LIB_DRIVER_OUTPUTS_H

#include <map>
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

  /// Files the run reads: none of them may be an output.
  void addInputs(const std::vector<std::string> &Paths);
  /// Adds \p Text as the content of \p Path; with \p MakeDirectory the
  /// commit creates its missing directories (and removes them again if it
  /// fails).
  void stage(const std::string &Path, std::string Text, bool MakeDirectory = false);
  /// Writes every staged file, or none after reporting why not. A regular
  /// file is replaced through a temporary file in its directory; a symlink
  /// is followed; a FIFO or device is written through. Concurrent runs
  /// commit one after the other (lockDirectories()).
  bool commit();

private:
  struct Output {
    std::string Path;   ///< As the user named it.
    std::string Target; ///< Where the bytes go: symlinks followed.
    std::string Text;
    bool WriteThrough = false; ///< Exists and is no regular file.
    bool MakeDirectory = false;
    std::string Temp; ///< The staged copy of a regular file.
  };

  Reporter &Diags;
  std::vector<std::string> Inputs;
  /// Each file by fileKey(): the inputs, and the outputs checked so far.
  std::map<std::string, std::string> InputKeys, OutputKeys;
  std::vector<Output> Outputs;
  std::vector<std::string> MadeDirectories; ///< Outermost first.

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
  bool check(Output &O);
  DirectoryLocks lockDirectories() const;
  bool writeTemp(Output &O);
  void removeTemps();
  bool makeDirectories();
};

} // namespace kfuse

#endif

//===- Support.h - what the commands share (internal to the driver) -------===//
#ifndef KFUSE_LIB_DRIVER_SUPPORT_H
#define KFUSE_LIB_DRIVER_SUPPORT_H

#include "kfuse/Driver/Commands.h"
#include "kfuse/Pipeline/Inputs.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kfuse {

/// How far a long step has come, on stderr: on a terminal, one line
/// rewritten for each item; elsewhere (a log, a pipe) one count at the end,
/// so that logs stay readable; nothing at all when quiet.
class Progress {
public:
  Progress(llvm::raw_ostream &OS, std::string Command, size_t Total, bool Quiet)
      : OS(OS), Command(std::move(Command)), Total(Total), Quiet(Quiet),
        Live(!Quiet && OS.is_displayed()) {}
  /// Item \p Done of the total begins.
  void step(size_t Done, llvm::StringRef Item);
  /// The step is over: \p Summary says what it did.
  void finish(llvm::StringRef Summary);

private:
  llvm::raw_ostream &OS;
  std::string Command;
  size_t Total;
  bool Quiet, Live;
  size_t Width = 0; ///< Of the line on the terminal, to clear it.
};

/// A directory kfuse writes files of its own into (a tuning bundle, tune's
/// reports): a new or empty one, or one whose marker, a file named
/// \p Marker listing what kfuse wrote there, says kfuse wrote it. Returns
/// what the marker lists (plain names, or paths under \p Folders), or, after
/// calling \p Refuse with why not, nothing.
std::optional<std::set<std::string>>
claimOwnDirectory(const std::string &Dir, llvm::StringRef Marker,
                  const std::vector<std::string> &Folders,
                  llvm::function_ref<void(const std::string &Why)> Refuse);

/// The marker's text for \p Files, under a first line saying what it is.
std::string ownDirectoryMarker(llvm::StringRef What, const std::vector<std::string> &Files);

/// Whether \p Name is a plain name, or a path under one of \p Folders
/// without a '.' or '..' step: never a marker's licence to reach out.
bool insideOwnDirectory(llvm::StringRef Name, const std::vector<std::string> &Folders);

/// The first symbolic link among \p Name in \p Dir and the folders on the
/// way to it, or nothing: a file written through one leaves the directory.
std::optional<std::string> linkOnTheWay(const std::string &Dir, const std::string &Name);

/// Removes what an earlier run wrote in \p Dir (\p Earlier) and this one
/// did not (\p Written): never a link, never a file the marker did not name.
void removeStale(const std::string &Dir, const std::set<std::string> &Earlier,
                 const std::set<std::string> &Written);

} // namespace kfuse

#endif

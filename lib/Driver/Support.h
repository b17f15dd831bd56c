//===- Support.h - what the commands share (internal to the driver) -------===//
#ifndef KFUSE_LIB_DRIVER_SUPPORT_H
#define KFUSE_LIB_DRIVER_SUPPORT_H

#include "kfuse/Driver/Commands.h"
#include "kfuse/Pipeline/Inputs.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

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

} // namespace kfuse

#endif

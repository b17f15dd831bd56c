//===- ResourceDir.h - where Clang's resource headers are ------*- C++ -*-===//
//
// Clang parses CUDA through the wrapper headers of its resource directory.
// A packaged kfuse carries them beside itself, as clang does
// (<bin>/../lib/clang/<major>); a kfuse built against the system's LLVM uses
// the directory recorded when it was configured.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_FRONTEND_RESOURCEDIR_H
#define KFUSE_FRONTEND_RESOURCEDIR_H

#include "llvm/Support/Error.h"

#include <string>

namespace kfuse {

/// The resource directory beside the running executable when it holds
/// Clang's CUDA wrapper headers, else the one kfuse was built with.
/// \p Argv0 and \p MainAddr locate the executable, as for
/// llvm::sys::fs::getMainExecutable.
std::string defaultResourceDir(const char *Argv0, void *MainAddr);

/// Succeeds when \p Dir holds the CUDA wrapper headers Clang includes first
/// when it parses CUDA; else says which file is missing.
llvm::Error checkResourceDir(const std::string &Dir);

} // namespace kfuse

#endif

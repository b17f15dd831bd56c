//===- CompileDatabase.h - compile_commands.json, checked ------*- C++ -*-===//
//
// Clang's JSON compilation database says only that a malformed file is
// malformed, and accepts commands a shell would refuse. kfuse reads the file
// itself first, with the YAML parser Clang uses, so that each problem points
// at its line and each command's problems at the entry that holds it.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_FRONTEND_COMPILEDATABASE_H
#define KFUSE_FRONTEND_COMPILEDATABASE_H

#include "kfuse/Diagnostics/DiagnosticIds.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace kfuse {

/// One entry of compile_commands.json: where it is, and what is wrong with
/// its command before Clang reads it (empty when nothing is).
struct DatabaseEntry {
  unsigned Line = 0, Column = 0;
  std::string CommandProblem;
};

struct DatabaseIndex {
  /// Why the file is not a compilation database, each at its place
  /// (kfuse-compile-database, arguments: the file and the reason).
  std::vector<diag::Problem> Problems;
  /// The first entry of each file, by its absolute path without dots, as
  /// Clang answers a file with its first command.
  std::map<std::string, DatabaseEntry> Entries;
};

/// Reads the compile_commands.json at \p Path whose text is \p Text.
DatabaseIndex indexCompileDatabase(llvm::StringRef Text, const std::string &Path);

/// \p File absolute (relative to \p Directory) and without "." or ".."
/// parts, as entries are keyed.
std::string databaseKey(llvm::StringRef Directory, llvm::StringRef File);

} // namespace kfuse

#endif

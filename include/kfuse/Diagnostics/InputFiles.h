//===- InputFiles.h - reading the files kfuse parses itself -----*- C++ -*-===//
//
// Configs, profiles, results, compile databases and options files are read
// whole, through one bounded reader: a device or a FIFO is refused, a file
// larger than the limit is an error, never memory running out. Nesting that
// would take a recursive parser's stack is refused before it parses.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_DIAGNOSTICS_INPUTFILES_H
#define KFUSE_DIAGNOSTICS_INPUTFILES_H

#include "kfuse/Diagnostics/DiagnosticIds.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace kfuse {

/// Why \p Path cannot be read as an input file, with the diagnostic that
/// says so (kfuse-file-not-found for a missing file, kfuse-file-unreadable
/// otherwise); an empty reason when it can be read.
std::pair<diag::ID, std::string> unreadable(const std::string &Path);

/// The most kfuse reads of one input file it parses itself (configs,
/// profiles, results, options files); a compile database may be larger.
constexpr uint64_t InputSizeLimit = uint64_t(64) << 20;
constexpr uint64_t DatabaseSizeLimit = uint64_t(1) << 30;

/// An input file read whole, or why not (the id and reason unreadable()
/// gives, or that it is larger than the limit).
struct InputText {
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  diag::ID Id = diag::ID::FileNotFound;
  std::string Why;
};

/// Reads \p Path, a regular file of at most \p Limit bytes: a device or a
/// FIFO is refused, never read until memory runs out.
InputText readInput(const std::string &Path, uint64_t Limit = InputSizeLimit);

/// What kfuse fingerprints a file's content with (xxh3): a run that writes
/// checks each input it read against the file before it commits.
uint64_t contentHash(llvm::StringRef Content);

/// JSON nesting kfuse parses; real results and databases nest under ten.
constexpr unsigned JsonDepthLimit = 256;

/// Where \p Json first nests deeper than \p Limit arrays and objects (line
/// and column, from 1), or nothing: the parsers recurse once per level.
std::optional<std::pair<unsigned, unsigned>> jsonTooDeep(llvm::StringRef Json,
                                                         unsigned Limit = JsonDepthLimit);

} // namespace kfuse

#endif

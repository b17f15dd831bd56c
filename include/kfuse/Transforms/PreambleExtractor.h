//===- PreambleExtractor.h - what fused kernels need from a file -*- C++ -*-===//
//
// The fused file must compile on its own and link beside the original
// sources: it keeps an input file's includes, macros, types and device
// helpers, and leaves out its kernels, host functions and mutable globals
// (they would be defined twice). Helpers it keeps get internal linkage for
// the same reason, and quoted includes are re-pointed from the output's
// directory. A project header that itself defines what must be left out (a
// kernel, a host function, a mutable global: the kernel's own .cuh, or a .cu
// included by another) is copied in its include's place with the same
// edits; a header without an include guard that an earlier input's
// declarations already brought in is not brought in again. Symbols that an
// earlier input file also defines are renamed, and macros it defines
// differently are undefined at the end.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TRANSFORMS_PREAMBLEEXTRACTOR_H
#define KFUSE_TRANSFORMS_PREAMBLEEXTRACTOR_H

#include "kfuse/Analysis/Kernel/DeviceVariables.h"
#include "kfuse/Analysis/Kernel/FileSymbols.h"

#include "clang/Frontend/ASTUnit.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kfuse {

/// A definition a preamble keeps from one of the project's headers.
struct HeaderDefinition {
  clang::SourceLocation Loc;
  std::string File; ///< Real path of the header.
  std::string Name; ///< Qualified.
};

struct ExtractedPreamble {
  std::string Text;
  /// Functions, variables and types the main file keeps at namespace scope,
  /// by qualified name, with where they are declared; two files must not
  /// both define one.
  std::map<std::string, clang::SourceLocation> Definitions;
  /// Those the project's headers define, by what would clash ("dot(float3,
  /// float3)", "struct S"); another input's different header must not define one.
  std::map<std::string, HeaderDefinition> HeaderDefinitions;
};

class NameAllocator;
class Reporter;

/// Where a preamble goes, which decides what it keeps.
enum class PreambleUse {
  /// The fused file, linked beside the original objects: kernels, host
  /// code and what the objects define are left out; device variables are
  /// copied, declared extern or left out as analysis found.
  Fused,
  /// A module of kfuse tune's harness, alone in its program: every device
  /// variable is its own (the harness runs no host code that fills them).
  /// \p Originals keeps the kernels too.
  Measured,
  Originals,
};

/// The device variables of a file, and how a fused file reaches each.
using DeviceVariables = std::map<const clang::VarDecl *, DeviceVariable>;

/// What the preambles of earlier input files brought in, so that a later
/// one does not repeat a header without an include guard.
struct PreambleHistory {
  std::set<std::string> UnguardedHeaders; ///< Real paths.
};

/// What each input file (in the order given) renames so that the preambles
/// can stand side by side: symbols that an earlier file also defines get
/// fresh names, and macros that two files define differently are undefined
/// after each preamble and redefined around that file's kernels.
std::map<const clang::ASTUnit *, std::shared_ptr<const FileRenames>>
planFileRenames(const std::vector<std::pair<clang::ASTUnit *, const DeviceVariables *>> &Units,
                NameAllocator &Names, Reporter &Diags);

/// Where the output finds the project's files when copies of them travel
/// with it (a tuning bundle that compiles alone): a file under \p From is
/// read from the same place under \p To. Absolute, normalized paths.
struct HeaderMirror {
  std::string From, To;
  /// \p Path's place under To; \p Path itself when it is not under From.
  std::string map(const std::string &Path) const;
};

/// The preamble of \p Unit for \p Use, placed after the preambles
/// \p History describes, which it extends; null when \p Renames cannot be
/// applied (a symbol to rename is spelled in a macro of another file),
/// which is reported. Its quoted includes name the project's headers from
/// \p OutputDir, as \p Mirror places them when given.
std::optional<ExtractedPreamble> extractPreamble(clang::ASTUnit &Unit, const std::string &OutputDir,
                                                 const FileRenames &Renames,
                                                 const DeviceVariables &Variables, Reporter &Diags,
                                                 PreambleHistory &History, PreambleUse Use,
                                                 const HeaderMirror *Mirror = nullptr);

} // namespace kfuse

#endif

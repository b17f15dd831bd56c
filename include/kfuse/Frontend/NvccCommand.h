//===- NvccCommand.h - nvcc compile commands as Clang reads them -*- C++ -*-===//
//
// CMake and Make projects record nvcc's command lines in
// compile_commands.json. Clang does not understand most of nvcc's options
// (and reads some, such as -isystem=DIR or -G, differently), so before a
// command reaches the parser its options are mapped to Clang's: macros,
// include paths, the language standard and what changes the preprocessor
// (nvcc's __CUDACC_*__ macros) carry over; the GPU architectures are
// collected for the caller to choose one; options that only steer code
// generation, the host compiler or the linker are dropped.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_FRONTEND_NVCCCOMMAND_H
#define KFUSE_FRONTEND_NVCCCOMMAND_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// A compile command after translation.
struct TranslatedCommand {
  std::vector<std::string> Args; ///< argv for Clang, without a GPU architecture.
  /// The GPU architectures the command builds for, as written ("sm_90",
  /// "compute_80", "native"), in order.
  std::vector<std::string> GpuArchs;
  std::vector<std::string> Dropped;      ///< Options with no meaning for a device-side parse.
  std::string Error;                     ///< Non-empty when the command cannot be read.
  std::vector<std::string> OptionsFiles; ///< Read for --options-file, absolute.
};

/// Removes a compiler launcher (ccache, sccache) from the front of \p Args.
void dropCompilerLauncher(std::vector<std::string> &Args);

/// Whether \p Args (argv, a compiler launcher such as ccache allowed in
/// front) runs nvcc.
bool isNvccCommand(const std::vector<std::string> &Args);

/// Maps an nvcc command line to Clang's. Options files (--options-file, as
/// CMake writes for include paths) are read relative to \p Directory.
TranslatedCommand translateNvccCommand(const std::vector<std::string> &Args,
                                       llvm::StringRef Directory);

/// Whether \p Arg is an option of nvcc's (or one Clang spells the same),
/// which belongs to the compile command, not to kfuse.
bool isCompilerOption(llvm::StringRef Arg);

/// The arguments given after '--': options only nvcc spells (-arch=sm_80,
/// -gencode, --expt-relaxed-constexpr, -Xcompiler ...) translated as in a
/// compile command, the architectures as --cuda-gpu-arch=; the rest (Clang's
/// and the spellings both share) as given.
TranslatedCommand translateExtraArguments(const std::vector<std::string> &Extra);

/// Removes Clang's own GPU architecture options (--cuda-gpu-arch=,
/// --offload-arch=) from \p Args, so that one architecture can be given,
/// and returns the architectures they named.
std::vector<std::string> takeClangGpuArchs(std::vector<std::string> &Args);

/// Whether Clang can read kernels for \p Arch, a name such as "sm_90a".
bool clangReadsGpuArch(llvm::StringRef Arch);

/// The architecture to parse for among \p Archs: the newest one Clang knows
/// ("compute_80" reads as "sm_80"); none when no named architecture is
/// known to Clang.
std::optional<std::string> newestParsableArch(const std::vector<std::string> &Archs);

} // namespace kfuse

#endif

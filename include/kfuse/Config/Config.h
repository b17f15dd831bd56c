//===- Config.h - the fusion config a user writes ---------------*- C++ -*-===//
//
// A config names kernels (where they live and how they are launched) and
// fusions (which kernels to fuse and how). The YAML schema is in README.md.
// Free of Clang: the tuner reads configs too.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_CONFIG_CONFIG_H
#define KFUSE_CONFIG_CONFIG_H

#include "kfuse/Diagnostics/DiagnosticIds.h"

#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// CUDA's limits on a launch's shape, the same on every architecture since sm_30.
constexpr unsigned MaxBlockThreads = 1024;
constexpr std::array<uint64_t, 3> MaxBlockDims = {1024, 1024, 64};
constexpr std::array<uint64_t, 3> MaxGridDims = {2147483647, 65535, 65535};

/// 1-based position of an entry in the config file.
struct ConfigPosition {
  unsigned Line = 0;
  unsigned Column = 0;
};

/// Element types of the buffers and scalars a launch spec can describe.
enum class ElementType {
#define KFUSE_ELEMENT_TYPE(Id, Name, CType, Bytes, Floating) Id,
#include "kfuse/Config/ElementTypes.def"
};

/// Size in bytes, C++ spelling and enumerator name ("F32", as the tuning
/// harness's Scalar has it) of an element type.
unsigned elementBytes(ElementType T);
const char *elementSpelling(ElementType T);
const char *elementEnumerator(ElementType T);
/// The name a config gives it: "float", "uint8".
const char *elementName(ElementType T);
bool isFloating(ElementType T);

/// How a buffer starts: random values in [Low, High) (integers: whole numbers
/// in it), or every element Low.
struct BufferFill {
  enum Kind { Uniform, Constant } How = Uniform;
  double Low = -1.0, High = 1.0;
};

/// The placeholder kfuse suggest writes for a value the user must give.
constexpr const char *FillMarker = "FILL";

/// One argument of a launch: a device buffer kfuse allocates and fills, or a
/// scalar value as written.
struct LaunchArg {
  bool IsBuffer = false;
  ElementType Type = ElementType::F32;
  unsigned long long Count = 0;
  BufferFill Fill;
  std::string Value; ///< For scalars.
  ConfigPosition Position;
};

/// How the tuner launches a kernel it has never seen.
struct LaunchSpec {
  std::array<unsigned, 3> Grid{1, 1, 1};
  unsigned SharedBytes = 0;
  std::vector<LaunchArg> Args;
  ConfigPosition Position;
};

/// Where a kernel entry's launch is written: the launch `kfuse fuse
/// --rewrite-launches` replaces. kfuse suggest writes it.
struct LaunchSite {
  std::string File;         ///< As written in the config.
  std::string ResolvedFile; ///< File, relative to the config's directory.
  unsigned Line = 0;
  unsigned Column = 0; ///< 0: any launch on the line.
  ConfigPosition Position;
};

/// One original kernel: where it is and the block it was written for.
struct KernelSpec {
  std::string Id;           ///< Name of the entry; prefixes the kernel's renamed symbols.
  std::string File;         ///< As written in the config.
  std::string ResolvedFile; ///< File, relative to the config's directory.
  std::string Kernel;       ///< Function name, optionally namespace-qualified.
  std::array<unsigned, 3> Block{1, 1, 1};
  unsigned BlockRank = 1;    ///< How many block dimensions the config gave.
  bool AnyBlockSize = false; ///< Correct for every 1-D block size with the grid as launched.
  /// Correct for every 1-D grid (grid-stride loops): a persistent grid runs
  /// it once on the fused grid instead of looping over its blocks.
  bool AnyGrid = false;
  std::optional<LaunchSpec> Launch; ///< For kfuse tune.
  std::optional<LaunchSite> Site;   ///< For launch rewriting.
  /// Where the launch still says FILL (suggest's placeholder): only tune
  /// needs the launch, so only tune refuses it.
  std::optional<ConfigPosition> LaunchFill;
  ConfigPosition Position;

  unsigned blockThreads() const { return Block[0] * Block[1] * Block[2]; }
};

enum class FusionMode {
  Horizontal, ///< Kernels side by side, each on its own range of threads.
  Vertical,   ///< Every thread runs the kernels one after the other.
};

/// How the fused kernel's grid covers the original kernels' blocks.
enum class GridMode {
  AsLaunched, ///< One fused block per original block: the longest grid.
  Persistent, ///< As many blocks as fit at once; each loops over its kernels' blocks.
  Dynamic,    ///< Persistent, each block taking the next original block from a counter.
  /// Persistent, every fused block running one original block of any kernel
  /// at a time: every gridDim.x-th of a sequence of tickets that interleaves
  /// the kernels' blocks in proportion to their counts, so that they finish
  /// together.
  Proportional,
};

/// The spelling in configs, reports and tuning results: "as-launched", ...
const char *gridModeName(GridMode M);
std::optional<GridMode> parseGridMode(const std::string &Name);
/// Every grid mode, in the order the tuner tries them.
constexpr GridMode AllGridModes[] = {GridMode::AsLaunched, GridMode::Persistent, GridMode::Dynamic,
                                     GridMode::Proportional};
/// Every kernel's range starts at thread 0 of the fused block: one kernel
/// runs there at a time.
constexpr bool stacksRanges(GridMode M) { return M == GridMode::Proportional; }
/// The fused kernel takes original blocks from counters in global memory.
constexpr bool takesTickets(GridMode M) { return M == GridMode::Dynamic; }

/// How the fused kernel runs the block tree reductions kfuse recognizes
/// (kfuse/Analysis/TreeReductions.h).
enum class ReductionStyle {
  AsWritten, ///< A barrier per halving, as the kernel has it.
  OneWarp,   ///< The first warp makes the same additions; one barrier.
};
/// The spelling in configs and reports: "as-written", "one-warp".
const char *reductionStyleName(ReductionStyle S);
std::optional<ReductionStyle> parseReductionStyle(const std::string &Name);

/// A parameter of one kernel of a fusion: "kernel.param" in the config.
struct ParamRef {
  std::string Kernel;
  std::string Param;
  ConfigPosition Position;
  std::string spelling() const { return Kernel + "." + Param; }
};

/// A buffer one kernel of a vertical fusion writes and a later one reads:
/// the consumer's parameter gets the producer's pointer.
struct FlowSpec {
  ParamRef From;
  ParamRef To;
  /// Nothing else reads the buffer, so the value can stay in a register
  /// and the fused launcher does not take the buffer.
  bool Temporary = false;
  ConfigPosition Position;
};

/// What kfuse tune tries and how it measures.
struct TuneSpec {
  unsigned Step = 128;     ///< Partition granularity in threads, a warp multiple.
  unsigned Samples = 30;   ///< Timed samples per candidate (at least 20).
  double Tolerance = 1e-5; ///< Relative difference allowed between float outputs.
  /// Grid modes the variants try.
  std::vector<GridMode> Grids{std::begin(AllGridModes), std::end(AllGridModes)};
};

/// One fusion: the kernels it combines, in the order of their thread ranges
/// (horizontal) or of their execution (vertical). A horizontal fusion may
/// name a vertical fusion defined before it, which then runs as one kernel.
struct FusionSpec {
  std::string Name;
  FusionMode Mode = FusionMode::Horizontal;
  std::vector<std::string> Kernels;
  std::vector<unsigned> Partition; ///< Threads per kernel; empty means "split evenly".
  std::optional<unsigned> Threads; ///< Fused block size when no partition is given.
  /// The grid the config asks for; without one, kfuse chooses (see
  /// chooseGrid in kfuse/Plan/GridChoice.h).
  std::optional<GridMode> Grid;
  ReductionStyle Reductions = ReductionStyle::AsWritten;
  /// For vertical fusions: original blocks each fused block runs at a time.
  unsigned BlocksPerIteration = 1;
  /// For horizontal fusions on a persistent grid, per kernel: original
  /// blocks the range of an elementwise kernel runs per iteration, with
  /// their loads issued first (kfuse/Analysis/Elementwise.h); empty: one.
  std::vector<unsigned> Coarsen;
  /// For vertical fusions: buffers passed from one kernel to the next.
  std::vector<FlowSpec> Flows;
  /// For vertical fusions: scalar parameters that always carry the same
  /// value; the launcher takes each group once.
  std::vector<std::vector<ParamRef>> Same;
  TuneSpec Tune;
  /// The user promises that the host code never passes one buffer as two
  /// of the launches' pointers where kfuse cannot see it (pointers the
  /// launching function receives): launch rewriting then relies on it.
  bool DistinctBuffers = false;
  /// Shares a launch with another fusion (suggest's `alternative: true`):
  /// fuse rewrites its launches only where tuning measured it the better
  /// choice, or where it is asked for by name.
  bool Alternative = false;
  ConfigPosition Position;
  ConfigPosition PartitionPosition;
};

struct Config {
  std::string Path; ///< The config file, as given on the command line.
  std::vector<KernelSpec> Kernels;
  std::vector<FusionSpec> Fusions;
  /// Kernel files (resolved like a kernel entry's) that the fused file is
  /// compiled in place of: it includes each whole, so its kernels use the
  /// very __device__ and __constant__ variables the host code writes.
  std::vector<std::string> Replace;

  /// Whether the fused file is compiled in place of \p ResolvedFile.
  bool replaces(const std::string &ResolvedFile) const;

  const KernelSpec *findKernel(const std::string &Id) const;
  const FusionSpec *findFusion(const std::string &Name) const;
  /// The kernels a fusion runs, with the vertical fusions it names expanded.
  std::vector<std::string> kernelsOf(const FusionSpec &F) const;
};

/// The config, or the problems that stop it from being one (never both).
struct ConfigResult {
  std::optional<Config> Value;
  std::vector<diag::Problem> Problems;
};

/// Reads a config from YAML text. \p Path names the file in messages and
/// anchors the relative paths of kernel files.
ConfigResult parseConfig(const std::string &Text, const std::string &Path);

/// Whether \p S is a C identifier: what kernel and fusion names must be, as
/// they name emitted functions and the files of a fusion's report.
bool isIdentifier(const std::string &S);

} // namespace kfuse

#endif

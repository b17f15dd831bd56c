//===- TuneBundle.h - the files kfuse tune runs on the GPU machine -*- C++ -*-===//
//
// A directory that needs only the CUDA toolkit: the harness (fixed source),
// the occupancy rules it shares with kfuse, tune_spec.h saying what to
// measure, one source per fused variant and one per input file with the
// original kernels, and run.sh. The transforms fill these structures; the
// printers only print.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_EMISSION_TUNEBUNDLE_H
#define KFUSE_EMISSION_TUNEBUNDLE_H

#include "kfuse/Plan/FusedLayout.h"
#include "kfuse/Transforms/FusedFile.h"

#include <array>
#include <string>
#include <vector>

namespace kfuse {

/// One argument as the harness builds it.
struct TuneArgument {
  bool Buffer = false;
  ElementType Type = ElementType::I32; ///< A buffer's elements, or a scalar's type.
  unsigned long long Count = 0;
  bool ConstantFill = false;
  double Low = 0, High = 0;
  std::string Value = "0"; ///< For scalars, as written.
  /// A vertical fusion's flow: the buffer of argument AliasArg of kernel
  /// AliasKernel, which an earlier kernel writes; -1 for a buffer of its own.
  int AliasKernel = -1, AliasArg = -1;
  bool Temporary = false; ///< Nothing reads it after the fusion: not compared.
};

struct TuneKernel {
  std::string Id;     ///< The config entry.
  std::string Getter; ///< extern "C" function returning the original kernel.
  /// A pointer to the original kernel: "static_cast<void (*)(float *)>(&blas::axpy<float>)".
  std::string Kernel;
  std::vector<TuneArgument> Args;
  std::array<unsigned, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  unsigned SharedBytes = 0;
};

/// A variant to build and measure: its layout, whose counts the harness
/// chooses, the source it compiles and what that source's kernel uses.
struct TuneVariant {
  FusedLayout Layout;
  std::string Source;    ///< File in the bundle; bounded variants share their twin's.
  unsigned Barriers = 1; ///< Block barrier ids the fused kernel uses.
  bool Even = false;     ///< What kfuse fuse emits untuned: profiled beside the fastest.
};

struct TuneFusion {
  std::string Name;
  std::vector<TuneKernel> Kernels;
  std::vector<TuneVariant> Variants;
  unsigned Samples = 30;
  double Tolerance = 1e-5;
  bool Chained = false; ///< A vertical fusion: the kernels run in order only.
};

/// tune_spec.h: the tables the harness reads.
std::string printTuneSpec(const std::vector<TuneFusion> &Fusions);

/// A variant's source: the fused file, compiled with the bound the harness
/// passes as KFUSE_MIN_BLOCKS_PER_SM, and the two entry points the harness
/// loads. \p ParamCounts are how many parameters each original kernel
/// has, in order: the harness passes every kernel's arguments, and the
/// launcher takes those a vertical fusion does not drop, each cast to the
/// type the launcher declares it with (FusedParam::PointerType).
std::string printVariantSource(const FusedFile &File, const std::vector<size_t> &ParamCounts);

/// An input file with its kernels, and a getter for each kernel the
/// harness launches natively.
std::string printOriginalsSource(const Preamble &File, const std::vector<TuneKernel> &Kernels);

/// The fixed files of every bundle.
std::string tuneHarnessSource();
std::string occupancyHeaderSource();
/// kfuse_json.h: how the harness writes JSON strings.
std::string jsonHeaderSource();

/// kfuse's table of element types, which the harness generates its Scalar
/// from: kfuse_element_types.def beside it.
std::string elementTypesSource();
/// kfuse's table of candidate kinds, which the harness generates its Kind
/// from: kfuse_candidate_kinds.def beside it.
std::string candidateKindsSource();
std::string tuneRunScript();

} // namespace kfuse

#endif

//===- FusedFilePrinter.cpp - printing the fused source -------------------===//

#include "kfuse/Emission/FusedFilePrinter.h"

#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>

namespace kfuse {
namespace {

/// A count as the kernel is compiled with it: the number, or the macro the
/// tuning harness defines as it builds the variant.
std::string spelled(const std::optional<unsigned> &Count, const std::string &HarnessMacro) {
  return Count ? std::to_string(*Count) : HarnessMacro;
}

/// Kernel \p I's warpgroup registers: the layout's, or the harness's macro.
std::string sectionRegisters(const FusedLayout &L, size_t I) {
  return spelled(I < L.SectionRegisters.size() ? std::optional<unsigned>(L.SectionRegisters[I])
                                               : std::nullopt,
                 "KFUSE_REGISTERS_" + std::to_string(I));
}

/// How the launcher refuses a launch configuration.
constexpr llvm::StringLiteral InvalidConfiguration = "return cudaErrorInvalidConfiguration;";

std::string dims(const std::array<unsigned, 3> &D) {
  return "(" + std::to_string(D[0]) + ", " + std::to_string(D[1]) + ", " + std::to_string(D[2]) +
         ")";
}

std::string threadRange(const ThreadRange &R) {
  return "[" + std::to_string(R.Begin) + ", " + std::to_string(R.end()) + ")";
}

/// The fused kernel's parameters, as declarations or (with \p Launch) as
/// the launcher's arguments: per kernel its own, its grid, its shared
/// memory offset.
void printKernelParams(llvm::raw_ostream &OS, const FusedKernel &K, bool Launch) {
  bool First = true;
  auto Item = [&](const std::string &Text) {
    OS << (First ? "" : ", ") << Text;
    First = false;
  };
  for (const FusedSection &S : K.Sections) {
    for (const FusedParam &P : S.Params)
      Item(Launch ? P.Name : P.Declaration);
    // A kernel that works with any 1-D grid gets the fused one.
    std::string Grid =
        S.OnFusedGrid ? "dim3(static_cast<unsigned>(kfuse_blocks))" : S.LaunchName + ".grid";
    Item(Launch ? Grid : "const dim3 " + S.GridName);
    if (!S.SharedOffsetName.empty())
      Item(Launch ? S.SharedOffsetName : "const unsigned " + S.SharedOffsetName);
  }
  // Per loop, the next original block: zeroed memory of this launch alone,
  // so that launches in other streams never share a counter.
  if (takesTickets(K.Layout.Grid))
    Item(Launch ? "kfuse_tickets" : "unsigned *const kfuse_tickets");
}

/// The thread's index within the kernel's range.
std::string localThread(const FusedSection &S) {
  return S.Range.Begin == 0 ? "kfuse_tid" : "(kfuse_tid - " + std::to_string(S.Range.Begin) + "u)";
}

/// The kernel's own view of the block and the grid, under the built-in
/// names, so its body, its macros and the helpers inlined into it read them
/// unchanged.
struct BlockViewUses {
  bool ThreadIdx, BlockDim, BlockIdx, GridDim;
};

void printBlockView(llvm::raw_ostream &OS, const FusedSection &S, BlockViewUses Uses) {
  std::string Local = localThread(S);
  const auto &B = S.Block;
  if (Uses.ThreadIdx) {
    std::string X = B[1] * B[2] == 1 ? Local : Local + " % " + std::to_string(B[0]) + "u";
    std::string Y =
        B[1] == 1 ? "0u"
                  : Local + " / " + std::to_string(B[0]) + "u % " + std::to_string(B[1]) + "u";
    std::string Z = B[2] == 1 ? "0u" : Local + " / " + std::to_string(B[0] * B[1]) + "u";
    OS << "const uint3 threadIdx = make_uint3(" << X << ", " << Y << ", " << Z << ");\n";
  }
  if (Uses.BlockDim)
    OS << "const dim3 blockDim(" << B[0] << "u, " << B[1] << "u, " << B[2] << "u);\n";
  const std::string &G = S.GridName;
  // Integer division costs tens of instructions; the launcher already
  // checked the grid dimensions known to be 1.
  if (Uses.BlockIdx && S.UnitGrid[1] && S.UnitGrid[2])
    OS << "const uint3 blockIdx = make_uint3(kfuse_block, 0u, 0u);\n";
  else if (Uses.BlockIdx && S.UnitGrid[2])
    OS << "const uint3 blockIdx = make_uint3(kfuse_block % " << G << ".x, kfuse_block / " << G
       << ".x, 0u);\n";
  else if (Uses.BlockIdx)
    OS << "const uint3 blockIdx = make_uint3(kfuse_block % " << G << ".x, kfuse_block / " << G
       << ".x % " << G << ".y, kfuse_block / (" << G << ".x * " << G << ".y));\n";
  if (Uses.GridDim)
    OS << "const dim3 gridDim = " << G << ";\n";
}

void printSectionPrologue(llvm::raw_ostream &OS, const FusedSection &S) {
  printBlockView(OS, S, {S.UsesThreadIdx, S.UsesBlockDim, S.UsesBlockIdx, S.UsesGridDim});
  if (S.Barriers == BarrierStyle::ExitAware) {
    OS << "__shared__ unsigned " << S.ExitCounters << "[3];\n";
    OS << "kfuse_exit_aware_barrier<" << S.Range.BarrierId << ", " << S.Range.Size << "> "
       << S.ExitAwareBarrier << "{" << S.ExitCounters << ", kfuse_tid == " << S.Range.Begin
       << "u, 0u};\n";
    OS << S.ExitAwareBarrier << ".start();\n";
  }
  for (const std::string &D : S.Declarations)
    OS << D << "\n";
}

void printSection(llvm::raw_ostream &OS, const FusedSection &S) {
  OS << "// Kernel '" << S.KernelName << "' (" << S.Origin << "): threads " << threadRange(S.Range)
     << " as a block of " << dims(S.Block);
  if (S.Range.padded())
    OS << " (the last " << S.Range.Size - S.Range.Active << " pad it to whole warps)";
  if (S.Range.BarrierId)
    OS << ", barrier " << S.Range.BarrierId;
  if (S.Barriers == BarrierStyle::ExitAware)
    OS << " (threads that return keep arriving until all are done)";
  OS << ".\n";
  if (!S.Macros.empty())
    OS << "// Its macros as '" << S.Origin.substr(0, S.Origin.rfind(':')) << "' defines them.\n";
  for (const MacroOverride &M : S.Macros) {
    OS << "#pragma push_macro(\"" << M.Name << "\")\n#undef " << M.Name << "\n";
    if (!M.Definition.empty())
      OS << "#define " << M.Definition << "\n";
  }
  // Threads that pad a small block to whole warps run nothing; with
  // barriers they stay in the range and arrive as threads that are done.
  bool PadsWait = S.Range.padded() && S.Barriers == BarrierStyle::ExitAware;
  unsigned Last = PadsWait ? S.Range.end() : S.Range.Begin + S.Range.Active;
  OS << "if (";
  if (S.Range.Begin != 0)
    OS << "kfuse_tid >= " << S.Range.Begin << "u && ";
  OS << "kfuse_tid < " << Last << "u && kfuse_block < " << S.GridName << ".x * " << S.GridName
     << ".y * " << S.GridName << ".z) {\n";
  if (!S.WaitBefore.empty())
    OS << "// It reads what other threads of the block wrote in the kernels before it.\n"
       << S.WaitBefore << "\n";
  printSectionPrologue(OS, S);
  if (PadsWait)
    OS << "if (" << localThread(S) << " < " << S.Range.Active << "u)\n";
  OS << S.Body << "\n";
  if (!S.EndLabel.empty())
    OS << S.EndLabel << ":;\n";
  if (S.Barriers == BarrierStyle::ExitAware)
    OS << S.ExitAwareBarrier << ".finish();\n";
  OS << "}\n";
  for (const MacroOverride &M : S.Macros)
    OS << (M.Definition.empty() ? "" : "#undef " + M.Name + "\n") << "#pragma pop_macro(\""
       << M.Name << "\")\n";
}

/// One loop over the elements around sections whose loops run in step,
/// computed as the first section's loop computes it, in its view of the block.
void printSteppedSections(llvm::raw_ostream &OS, const FusedKernel &K, const SteppedSections &G) {
  const FusedSection &S = K.Sections[G.First];
  std::string Header = G.Init + " " + G.Step;
  auto Names = [&](llvm::StringRef Builtin) { return llvm::StringRef(Header).contains(Builtin); };
  // Only the threads of the sections' range loop: a kernel beside them goes on.
  OS << "// " << G.Comment << "\nif (";
  if (S.Range.Begin != 0)
    OS << "kfuse_tid >= " << S.Range.Begin << "u && ";
  OS << "kfuse_tid < " << S.Range.Begin + S.Range.Active << "u) {\n";
  printBlockView(OS, S,
                 {Names("threadIdx"), Names("blockDim"), Names("blockIdx"), Names("gridDim")});
  OS << "for (" << G.Type << " " << G.Variable << " = " << G.Init << "; " << G.Variable << " < "
     << G.Bound << "; " << G.Variable << " += " << G.Step << ") {\n";
  for (size_t I = G.First; I < G.First + G.Count; ++I)
    printSection(OS, K.Sections[I]);
  OS << "}\n}\n";
}

/// Sections [First, First + Count) one after the other, those whose loops
/// run in step inside their loop over the elements. The layouts never put a
/// group's sections in different loops: a register would not outlive one.
void printSections(llvm::raw_ostream &OS, const FusedKernel &K, size_t First, size_t Count) {
  for (size_t I = First; I < First + Count;) {
    auto Group = std::find_if(K.InStep.begin(), K.InStep.end(),
                              [&](const SteppedSections &G) { return G.First == I; });
    if (Group == K.InStep.end()) {
      printSection(OS, K.Sections[I++]);
      continue;
    }
    assert(Group->First + Group->Count <= First + Count && "a group split between loops");
    printSteppedSections(OS, K, *Group);
    I += Group->Count;
  }
}

/// With per-warpgroup registers, each range changes its allocation before
/// its section, in a branch of its own that every thread of the range takes
/// (setmaxnreg is per warpgroup, and a range that skipped it would keep the
/// registers another range waits for); on other targets than sm_90a it
/// is left out, and the section runs on the entry allocation.
void printSetRegisters(llvm::raw_ostream &OS, const FusedKernel &K, size_t I) {
  std::string Count = sectionRegisters(K.Layout, I);
  OS << "// Its warpgroups take " << Count << " registers per thread.\n";
  OS << "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
     << "kfuse_set_registers<" << Count << ", "
     << spelled(K.Layout.EntryRegisters, "KFUSE_ENTRY_REGISTERS") << ">();\n"
     << "#endif\n";
}

/// A range of the grid as launched: its guard, its registers, its section.
void printWarpgroupSection(llvm::raw_ostream &OS, const FusedKernel &K, size_t I) {
  const FusedSection &S = K.Sections[I];
  OS << "if (";
  if (S.Range.Begin != 0)
    OS << "kfuse_tid >= " << S.Range.Begin << "u && ";
  OS << "kfuse_tid < " << S.Range.end() << "u) {\n";
  printSetRegisters(OS, K, I);
  printSection(OS, S);
  OS << "}\n";
}

void printRegisters(llvm::raw_ostream &OS, const FusedKernel &K) {
  for (const RegisterValue &R : K.Registers)
    OS << "// " << R.Comment << "\n" << R.Type << " " << R.Name << "{};\n";
}

/// Waits for the loop's threads: between iterations and after the leader
/// took a block from the counter.
void printLoopBarrier(llvm::raw_ostream &OS, const FusedKernel &K, const BlockLoop &L) {
  if (L.BarrierId == 0 && L.Begin == 0 && L.Size == K.BlockThreads)
    OS << "__syncthreads();\n";
  else
    OS << "asm volatile(\"bar.sync " << L.BarrierId << ", " << L.Size << ";\" ::: \"memory\");\n";
}

/// Declares kfuse_blocks_<Index>, the original blocks the loop runs: as
/// many as the longest grid of its sections has.
std::string printLoopBlocks(llvm::raw_ostream &OS, const FusedKernel &K, const BlockLoop &L,
                            size_t Index) {
  std::string Count = "kfuse_blocks_" + std::to_string(Index);
  auto Blocks = [&](size_t I) {
    const std::string &G = K.Sections[I].GridName;
    return G + ".x * " + G + ".y * " + G + ".z";
  };
  OS << "unsigned " << Count << " = " << Blocks(L.First) << ";\n";
  for (size_t I = L.First + 1; I < L.First + L.Count; ++I)
    OS << "if (" << Blocks(I) << " > " << Count << ") " << Count << " = " << Blocks(I) << ";\n";
  return Count;
}

/// A proportional kernel's loop: all its threads run one original block of
/// one kernel (or chain) per iteration, every gridDim.x-th ticket.
void printProportionalLoop(llvm::raw_ostream &OS, const FusedKernel &K) {
  OS << "// Every fused block runs one original block at a time, every gridDim.x-th of a\n"
     << "// sequence of tickets that interleaves the kernels' blocks in proportion to their\n"
     << "// counts, so that the kernels finish together.\n{\n";
  std::string Array;
  for (size_t I = 0; I < K.Loops.size(); ++I)
    Array += (I == 0 ? "" : ", ") + printLoopBlocks(OS, K, K.Loops[I], I);
  OS << "const unsigned kfuse_blocks[" << K.Loops.size() << "] = {" << Array << "};\n"
     << "for (unsigned kfuse_ticket = blockIdx.x;; kfuse_ticket += gridDim.x) {\n"
     << "const uint2 kfuse_pick = kfuse_proportional_pick(kfuse_ticket, kfuse_blocks);\n"
     << "if (kfuse_pick.x >= " << K.Loops.size() << "u) break;\n"
     << "const unsigned kfuse_block = kfuse_pick.y;\n";
  printRegisters(OS, K);
  for (size_t I = 0; I < K.Loops.size(); ++I) {
    const BlockLoop &L = K.Loops[I];
    OS << "if (kfuse_pick.x == " << I << "u) {\n";
    printSections(OS, K, L.First, L.Count);
    OS << "}\n";
  }
  OS << "// The next iteration reuses this one's shared memory.\n"
     << "__syncthreads();\n}\n}\n";
}

/// A loop over the original blocks kfuse_first, kfuse_first + 1, ... of
/// the iteration that runs \p Sections of \p L for each, as kfuse_block.
void printPerBlockLoop(llvm::raw_ostream &OS, const FusedKernel &K, const BlockLoop &L,
                       size_t First, size_t Count) {
  unsigned Blocks = K.Layout.BlocksPerIteration;
  OS << "#pragma unroll\n"
     << "for (unsigned kfuse_j = 0; kfuse_j < " << Blocks << "u; ++kfuse_j) {\n"
     << "const unsigned kfuse_block = kfuse_first + kfuse_j;\n";
  for (const RegisterValue &R : K.Registers)
    OS << R.Type << " &" << R.Name << " = " << R.PerBlockName << "[kfuse_j];\n";
  bool Synchronizes = false;
  printSections(OS, K, First, Count);
  for (size_t I = First; I < First + Count; ++I)
    Synchronizes |= K.Sections[I].Synchronizes;
  if (Synchronizes) {
    OS << "// The next block reuses this one's barriers and shared memory.\n"
       << "if (kfuse_j + 1u < " << Blocks << "u)\n";
    printLoopBarrier(OS, K, L);
  }
  OS << "}\n";
}

/// Several original blocks per fused block at a time, from kfuse_first on:
/// the kernels before the first that synchronizes run for all of them
/// first, so that each thread has their loads in flight together; the
/// others follow block by block.
void printBlocksAtATime(llvm::raw_ostream &OS, const FusedKernel &K, const BlockLoop &L) {
  unsigned Blocks = K.Layout.BlocksPerIteration;
  size_t Ahead = 0;
  while (Ahead < L.Count && !K.Sections[L.First + Ahead].Synchronizes)
    ++Ahead;
  for (const RegisterValue &R : K.Registers)
    OS << "// " << R.Comment << " One per block.\n"
       << R.Type << " " << R.PerBlockName << "[" << Blocks << "]{};\n";
  OS << "// Original blocks kfuse_first to kfuse_first + " << Blocks - 1 << ": ";
  if (Ahead == 0 || Ahead == L.Count)
    OS << "each in turn.\n";
  else
    OS << "the kernels before the first that synchronizes run for all of them first, so that "
          "each thread has their loads in flight together, then the others block by block.\n";
  if (Ahead == 0 || Ahead == L.Count)
    return printPerBlockLoop(OS, K, L, L.First, L.Count);
  printPerBlockLoop(OS, K, L, L.First, Ahead);
  printPerBlockLoop(OS, K, L, L.First + Ahead, L.Count - Ahead);
}

/// The threads of a persistent kernel's range open, as a loop would; with
/// registers per warpgroup they change their allocation once, before the
/// loop (each loop is one kernel's then).
void printRangeGuard(llvm::raw_ostream &OS, const FusedKernel &K, const BlockLoop &L) {
  if (L.Begin == 0 && L.Size == K.BlockThreads)
    OS << "{\n";
  else if (L.Begin == 0)
    OS << "if (kfuse_tid < " << L.Size << "u) {\n";
  else
    OS << "if (kfuse_tid >= " << L.Begin << "u && kfuse_tid < " << L.Begin + L.Size << "u) {\n";
  if (K.Layout.Registers == RegisterPolicy::PerWarpgroup)
    printSetRegisters(OS, K, L.First);
}

/// Loads an elementwise kernel's values of block kfuse_block, which its
/// body then reads from kfuse_j's slots.
void printAheadLoads(llvm::raw_ostream &OS, const FusedSection &S) {
  const ReadsAhead &A = *S.Ahead;
  OS << "if (";
  if (S.Range.Begin != 0)
    OS << "kfuse_tid >= " << S.Range.Begin << "u && ";
  OS << "kfuse_tid < " << S.Range.Begin + S.Range.Active << "u && kfuse_block < " << S.GridName
     << ".x) {\n";
  // The element's index reads the thread's and the block's.
  printBlockView(OS, S, {true, false, true, false});
  OS << A.Index << "\nif (" << A.Condition << ") {\n";
  for (const AheadLoad &L : A.Loads)
    OS << L.Array << "[kfuse_j] = " << L.Buffer << "[" << A.IndexName << "];\n";
  OS << "}\n}\n";
}

/// The loop of an elementwise kernel's range that runs several of its
/// blocks per iteration: where its buffers lie apart, every block's loads
/// first, then the bodies; otherwise each block loads right before its
/// body, where the body loads.
void printCoarseLoop(llvm::raw_ostream &OS, const FusedKernel &K, const BlockLoop &L,
                     size_t Index) {
  const FusedSection &S = K.Sections[L.First];
  const ReadsAhead &A = *S.Ahead;
  OS << "// Threads [" << L.Begin << ", " << L.Begin + L.Size << ") loop over original blocks, "
     << A.Blocks << " at a time, every gridDim.x-th group: their loads first.\n";
  printRangeGuard(OS, K, L);
  std::string Count = printLoopBlocks(OS, K, L, Index);
  OS << "// Whether the buffers it writes share no element with the others, so that no block's "
        "store reaches another block's load.\n"
     << "const bool " << A.ApartName << " = " << A.Apart << ";\n"
     << "for (unsigned kfuse_first = blockIdx.x * " << A.Blocks << "u; kfuse_first < " << Count
     << "; kfuse_first += gridDim.x * " << A.Blocks << "u) {\n";
  for (const AheadLoad &Load : A.Loads)
    OS << "// " << Load.Comment << "\n"
       << Load.Type << " " << Load.Array << "[" << A.Blocks << "]{};\n";
  OS << "if (" << A.ApartName << ") {\n#pragma unroll\n"
     << "for (unsigned kfuse_j = 0; kfuse_j < " << A.Blocks << "u; ++kfuse_j) {\n"
     << "const unsigned kfuse_block = kfuse_first + kfuse_j;\n";
  printAheadLoads(OS, S);
  OS << "}\n}\n#pragma unroll\n"
     << "for (unsigned kfuse_j = 0; kfuse_j < " << A.Blocks << "u; ++kfuse_j) {\n"
     << "const unsigned kfuse_block = kfuse_first + kfuse_j;\n"
     << "if (!" << A.ApartName << ") {\n";
  printAheadLoads(OS, S);
  OS << "}\n";
  for (const AheadLoad &Load : A.Loads)
    OS << "const " << Load.Type << " &" << Load.Name << " = " << Load.Array << "[kfuse_j];\n";
  printSection(OS, S);
  OS << "}\n}\n}\n";
}

/// A kernel that works with any 1-D grid runs once on a persistent grid:
/// its grid-stride loops cover its data with the fused grid's threads.
void printOnce(llvm::raw_ostream &OS, const FusedKernel &K, const BlockLoop &L) {
  OS << "// Threads [" << L.Begin << ", " << L.Begin + L.Size << ") run once, with the fused grid "
     << "as their kernel's grid: it works with any 1-D grid.\n";
  printRangeGuard(OS, K, L);
  OS << "const unsigned kfuse_block = blockIdx.x;\n";
  printSections(OS, K, L.First, L.Count);
  OS << "}\n";
}

/// A persistent kernel's loop: its threads run one original block of each of
/// its sections per iteration, the blocks of the sections' own grids that
/// this fused block takes (every gridDim.x-th, or the next from a counter).
void printBlockLoop(llvm::raw_ostream &OS, const FusedKernel &K, const BlockLoop &L, size_t Index) {
  if (L.Once)
    return printOnce(OS, K, L);
  if (L.Count == 1 && K.Sections[L.First].Ahead && K.Layout.Grid == GridMode::Persistent)
    return printCoarseLoop(OS, K, L, Index);
  bool Dynamic = K.Layout.Grid == GridMode::Dynamic;
  OS << "// Threads [" << L.Begin << ", " << L.Begin + L.Size << ") loop over original blocks"
     << (Dynamic ? ", taking the next from a counter" : ", every gridDim.x-th") << ".\n";
  printRangeGuard(OS, K, L);
  std::string Count = printLoopBlocks(OS, K, L, Index);
  std::string Counter = "kfuse_tickets[" + std::to_string(Index) + "]";
  std::string Next = "kfuse_next_" + std::to_string(Index);
  if (Dynamic) {
    OS << "__shared__ unsigned " << Next << ";\n"
       << "for (;;) {\n"
       << "if (kfuse_tid == " << L.Begin << "u) " << Next << " = atomicAdd(&" << Counter
       << ", 1u);\n";
    printLoopBarrier(OS, K, L);
    OS << "const unsigned kfuse_block = " << Next << ";\n"
       << "if (kfuse_block >= " << Count << ") break;\n";
  } else if (K.Layout.BlocksPerIteration > 1) {
    unsigned Blocks = K.Layout.BlocksPerIteration;
    OS << "for (unsigned kfuse_first = blockIdx.x * " << Blocks << "u; kfuse_first < " << Count
       << "; kfuse_first += gridDim.x * " << Blocks << "u) {\n";
  } else {
    OS << "for (unsigned kfuse_block = blockIdx.x; kfuse_block < " << Count
       << "; kfuse_block += gridDim.x) {\n";
  }
  if (!Dynamic && K.Layout.BlocksPerIteration > 1) {
    printBlocksAtATime(OS, K, L);
  } else {
    if (L.Count > 1)
      printRegisters(OS, K);
    printSections(OS, K, L.First, L.Count);
  }
  if (L.WaitBetween) {
    OS << "// The next iteration reuses this one's barriers and shared memory.\n";
    printLoopBarrier(OS, K, L);
  }
  OS << "}\n}\n";
}

bool runsAllOnce(const FusedKernel &K) {
  return !K.Loops.empty() &&
         std::all_of(K.Loops.begin(), K.Loops.end(), [](const BlockLoop &L) { return L.Once; });
}

void printKernel(llvm::raw_ostream &OS, const FusedKernel &K) {
  bool Persistent = K.Layout.Grid != GridMode::AsLaunched;
  OS << "// Fusion '" << K.Fusion << "': " << K.Sections.size()
     << (K.Layout.Vertical             ? " kernels one after the other"
         : stacksRanges(K.Layout.Grid) ? " kernels, one at a time,"
                                       : " kernels side by side")
     << " in blocks of " << K.BlockThreads << " threads; "
     << (!Persistent      ? "fused block b runs block b of each kernel whose grid has it.\n"
         : runsAllOnce(K) ? "a persistent grid, on which each kernel runs once: every one "
                            "works with any 1-D grid.\n"
                          : "a persistent grid: each fused block loops over original blocks.\n");
  OS << "__global__ void __launch_bounds__(" << K.BlockThreads
     << (K.Layout.Registers != RegisterPolicy::Compiler
             ? ", " + spelled(K.Layout.MinBlocksPerSm, "KFUSE_MIN_BLOCKS_PER_SM")
             : "")
     << ") " << K.KernelName << "(";
  printKernelParams(OS, K, /*Launch=*/false);
  OS << ") {\n";
  OS << "const unsigned kfuse_tid = threadIdx.x;\n";
  bool AtATime = !Persistent && K.Layout.BlocksPerIteration > 1;
  if (AtATime)
    OS << "const unsigned kfuse_first = blockIdx.x * " << K.Layout.BlocksPerIteration << "u;\n";
  else if (!Persistent)
    OS << "const unsigned kfuse_block = blockIdx.x;\n";
  bool Dynamic = false;
  unsigned Align = 16;
  for (const FusedSection &S : K.Sections)
    if (!S.SharedOffsetName.empty()) {
      Dynamic = true;
      Align = std::max(Align, S.SharedAlign);
    }
  if (Dynamic)
    OS << "extern __shared__ __align__(" << Align << ") unsigned char kfuse_dynamic_shared[];\n";
  // A persistent kernel starts them afresh in every iteration.
  if (!Persistent && !AtATime)
    printRegisters(OS, K);
  if (AtATime)
    printBlocksAtATime(OS, K, BlockLoop{0, K.BlockThreads, 0, 0, K.Sections.size()});
  else if (stacksRanges(K.Layout.Grid))
    printProportionalLoop(OS, K);
  else if (Persistent)
    for (size_t I = 0; I < K.Loops.size(); ++I)
      printBlockLoop(OS, K, K.Loops[I], I);
  else if (K.Layout.Registers == RegisterPolicy::PerWarpgroup)
    for (size_t I = 0; I < K.Sections.size(); ++I)
      printWarpgroupSection(OS, K, I);
  else
    printSections(OS, K, 0, K.Sections.size());
  OS << "}\n\n";
}

/// The check a launch configuration must pass for the kernel's part.
/// \p Reject is the statement that refuses it.
void printBlockCheck(llvm::raw_ostream &OS, const FusedSection &S, llvm::StringRef Reject) {
  const std::string &L = S.LaunchName;
  if (S.Resizable) {
    OS << "// '" << S.KernelName << "' works with any 1-D block.\n";
    OS << "if (" << L << ".block.y != 1 || " << L << ".block.z != 1) " << Reject << "\n";
    return;
  }
  const auto &B = S.OriginalBlock;
  OS << "// '" << S.KernelName << "' was written for blocks of " << dims(B) << ".\n";
  OS << "if (" << L << ".block.x != " << B[0] << " || " << L << ".block.y != " << B[1] << " || "
     << L << ".block.z != " << B[2] << ") " << Reject << "\n";
}

/// A configuration CUDA itself rejects fails as the original launch did.
void printLimitsCheck(llvm::raw_ostream &OS, const FusedSection &S, llvm::StringRef Reject) {
  const std::string &L = S.LaunchName;
  OS << "// CUDA's limits, which the original launch would have failed.\n"
     << "if (1ull * " << L << ".block.x * " << L << ".block.y * " << L << ".block.z > 1024 || " << L
     << ".block.z > 64 || " << L << ".grid.x > 2147483647u || " << L << ".grid.y > 65535 || " << L
     << ".grid.z > 65535) " << Reject << "\n";
}

/// Data flows between kernels were proven for one grid shared by both.
void printGridCheck(llvm::raw_ostream &OS, const FusedSection &S, llvm::StringRef Reject) {
  const std::string &L = S.LaunchName;
  if (!S.SameGridAs.empty()) {
    const std::string &G = S.SameGridAs;
    OS << "// '" << S.KernelName << "' reads what an earlier kernel wrote, in the same thread or "
       << "block: both need one grid.\n"
       << "if (" << L << ".grid.x != " << G << ".grid.x || " << L << ".grid.y != " << G
       << ".grid.y || " << L << ".grid.z != " << G << ".grid.z) " << Reject << "\n";
  }
  static const char *const Dims[] = {"x", "y", "z"};
  std::string Unit;
  for (unsigned D = 0; D < 3; ++D)
    if (S.UnitGrid[D])
      Unit += std::string(Unit.empty() ? "" : " || ") + L + ".grid." + Dims[D] + " != 1";
  if (!Unit.empty())
    OS << (S.OnFusedGrid
               ? "// It runs on the fused grid, which is 1-D: its launch's grid must be too.\n"
               : "// Its indices do not tell apart blocks that differ in these grid "
                 "dimensions.\n")
       << "if (" << Unit << ") " << Reject << "\n";
}

/// A proportional grid has one ticket per original block of each kernel (or
/// chain: as many as its longest grid); at most 2^31 so that no ticket
/// wraps.
void printTicketCount(llvm::raw_ostream &OS, const FusedKernel &K, llvm::StringRef Reject) {
  OS << "// One ticket per original block of each kernel.\n"
     << "unsigned long long kfuse_all_blocks = 0;\n";
  for (const BlockLoop &L : K.Loops) {
    OS << "{\nunsigned long long longest = 0;\n";
    for (size_t I = L.First; I < L.First + L.Count; ++I) {
      const std::string &N = K.Sections[I].LaunchName;
      OS << "const unsigned long long blocks_" << I - L.First << " = 1ull * " << N << ".grid.x * "
         << N << ".grid.y * " << N << ".grid.z;\n"
         << "longest = blocks_" << I - L.First << " > longest ? blocks_" << I - L.First
         << " : longest;\n";
    }
    OS << "kfuse_all_blocks += longest;\n}\n";
  }
  OS << "if (kfuse_all_blocks > 0x7fffffffull) " << Reject << "\n";
  if (Reject == InvalidConfiguration)
    OS << "kfuse_blocks = kfuse_all_blocks;\n";
}

void printLauncherComment(llvm::raw_ostream &OS, const FusedKernel &K) {
  OS << "// Launches '" << K.KernelName << "' in place of ";
  for (size_t I = 0; I < K.Sections.size(); ++I)
    OS << (I == 0                       ? ""
           : I + 1 == K.Sections.size() ? " and "
                                        : ", ")
       << "'" << K.Sections[I].KernelName << "'";
  OS << ".\n// Give each kernel's launch configuration as you would have launched it; a\n"
     << "// configuration the fused kernel was not built for launches nothing and\n"
     << "// returns cudaErrorInvalidConfiguration. A launch error stays pending for\n"
     << "// cudaGetLastError(), as after the original launches.\n";
}

/// "cudaError_t name(kfuse_launch a_launch, <a's params>, ..., cudaStream_t
/// stream" without the closing parenthesis; \p Portable spells the types as
/// a header of their own can.
void printLauncherSignature(llvm::raw_ostream &OS, const FusedKernel &K, bool Portable) {
  OS << "cudaError_t " << K.LauncherName << "(";
  for (const FusedSection &S : K.Sections) {
    OS << "kfuse_launch " << S.LaunchName;
    for (const FusedParam &P : S.Params)
      OS << ", " << (Portable ? P.Portable.Declaration : P.HostDeclaration);
    OS << ", ";
  }
  OS << "cudaStream_t stream";
}

/// Every check of the launch configurations, and the fused grid's length
/// (kfuse_blocks) they need: the launcher and its _fits function make the
/// same ones, refusing with \p Reject.
void printConfigurationChecks(llvm::raw_ostream &OS, const FusedKernel &K, llvm::StringRef Reject) {
  for (const FusedSection &S : K.Sections) {
    printLimitsCheck(OS, S, Reject);
    printBlockCheck(OS, S, Reject);
    printGridCheck(OS, S, Reject);
  }
  OS << "// The fused grid is 1-D and as long as the largest grid.\n"
     << "unsigned long long kfuse_blocks = 0;\n";
  for (const FusedSection &S : K.Sections) {
    const std::string &L = S.LaunchName;
    OS << "{\nconst unsigned long long blocks = 1ull * " << L << ".grid.x * " << L << ".grid.y * "
       << L << ".grid.z;\n"
       << "if (blocks == 0) " << Reject << "\n"
       << "kfuse_blocks = blocks > kfuse_blocks ? blocks : kfuse_blocks;\n}\n";
  }
  OS << "if (kfuse_blocks > 0x7fffffffull) " << Reject << "\n";
  if (stacksRanges(K.Layout.Grid))
    printTicketCount(OS, K, Reject);
}

/// "bool name_fits(kfuse_launch a_launch, ...)": the launcher's checks of
/// the launch configurations alone, so that a caller can launch the
/// original kernels where the fused one was not built for them.
void printFitsSignature(llvm::raw_ostream &OS, const FusedKernel &K) {
  OS << "bool " << K.FitsName << "(";
  for (const FusedSection &S : K.Sections)
    OS << (&S == &K.Sections.front() ? "" : ", ") << "kfuse_launch " << S.LaunchName;
  OS << ")";
}

void printFitsComment(llvm::raw_ostream &OS, const FusedKernel &K) {
  OS << "// Whether " << K.LauncherName << " takes these launch configurations: where it\n"
     << "// does not, it launches nothing, and the original kernels can run instead.\n";
}

void printFits(llvm::raw_ostream &OS, const FusedKernel &K, const std::string &Header) {
  printFitsComment(OS, K);
  OS << (Header.empty() ? "inline " : "");
  printFitsSignature(OS, K);
  OS << " {\n";
  printConfigurationChecks(OS, K, "return false;");
  OS << "return true;\n}\n\n";
}

void printLauncher(llvm::raw_ostream &OS, const FusedKernel &K, const std::string &Header) {
  printFits(OS, K, Header);
  printLauncherComment(OS, K);
  if (Header.empty()) {
    OS << "inline ";
    printLauncherSignature(OS, K, /*Portable=*/false);
    OS << " = 0) {\n";
  } else {
    OS << "// Declared in " << Header << ".\n";
    printLauncherSignature(OS, K, /*Portable=*/false);
    OS << ") {\n";
  }
  printConfigurationChecks(OS, K, InvalidConfiguration);
  OS << "// Each kernel's dynamic shared memory gets a region of its own.\n"
     << "size_t kfuse_shared_bytes = 0;\n";
  for (const FusedSection &S : K.Sections)
    if (!S.SharedOffsetName.empty())
      OS << "const unsigned " << S.SharedOffsetName
         << " = static_cast<unsigned>((kfuse_shared_bytes + " << S.SharedAlign - 1 << ") / "
         << S.SharedAlign << " * " << S.SharedAlign << ");\n"
         << "kfuse_shared_bytes = " << S.SharedOffsetName << " + " << S.LaunchName
         << ".shared_bytes;\n";
  OS << "if (kfuse_shared_bytes > 48u * 1024u) {\n"
     << "cudaError_t err = cudaFuncSetAttribute(" << K.KernelName
     << ", cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kfuse_shared_bytes));\n"
     << "if (err != cudaSuccess) return err;\n}\n";
  if (K.Layout.Grid != GridMode::AsLaunched)
    OS << (K.Layout.Waves == 1 ? "// Persistent: no more blocks than are resident at once.\n"
                               : "// Persistent: " + std::to_string(K.Layout.Waves) +
                                     " times as many blocks as are resident at once.\n")
       << "static std::atomic<unsigned long long> kfuse_fit[KFUSE_CACHED_DEVICES];\n"
       << "if (cudaError_t err = kfuse_resident_blocks(" << K.KernelName << ", kfuse_fit, "
       << K.BlockThreads << "u, kfuse_shared_bytes, " << K.Layout.Waves
       << "u, kfuse_blocks); err != cudaSuccess)\n"
       << "return err;\n";
  bool Dynamic = takesTickets(K.Layout.Grid);
  if (Dynamic) {
    std::string Bytes = std::to_string(K.Loops.size()) + "u * sizeof(unsigned)";
    OS << "unsigned *kfuse_tickets = nullptr;\n"
       << "if (cudaError_t err = cudaMallocAsync(&kfuse_tickets, " << Bytes
       << ", stream); err != cudaSuccess)\nreturn err;\n"
       << "if (cudaError_t err = cudaMemsetAsync(kfuse_tickets, 0, " << Bytes
       << ", stream); err != cudaSuccess) {\ncudaFreeAsync(kfuse_tickets, stream);\nreturn "
          "err;\n}\n";
  }
  if (K.Layout.Grid == GridMode::AsLaunched && K.Layout.BlocksPerIteration > 1)
    OS << "// Each fused block runs " << K.Layout.BlocksPerIteration
       << " original blocks of each kernel.\n"
       << "kfuse_blocks = (kfuse_blocks + " << K.Layout.BlocksPerIteration - 1 << "u) / "
       << K.Layout.BlocksPerIteration << "u;\n";
  OS << K.KernelName << "<<<dim3(static_cast<unsigned>(kfuse_blocks)), dim3(" << K.BlockThreads
     << "u), kfuse_shared_bytes, stream>>>(";
  printKernelParams(OS, K, /*Launch=*/true);
  OS << ");\n";
  if (Dynamic)
    OS << "const cudaError_t kfuse_launched = cudaPeekAtLastError();\n"
       << "const cudaError_t kfuse_freed = cudaFreeAsync(kfuse_tickets, stream);\n"
       << "return kfuse_launched != cudaSuccess ? kfuse_launched : kfuse_freed;\n}\n\n";
  else
    OS << "return cudaPeekAtLastError();\n}\n\n";
}

/// Changes the calling warpgroup's registers per thread from Entry to Want.
void printRegisterHelper(llvm::raw_ostream &OS) {
  OS << R"(#ifndef KFUSE_SET_REGISTERS_DEFINED
#define KFUSE_SET_REGISTERS_DEFINED
// Hopper (sm_90a) gives each warpgroup of 128 threads its own registers per
// thread: a multiple of 8 in [24, 256]. Every thread of the warpgroup runs it.
template <unsigned Want, unsigned Entry> __device__ __forceinline__ void kfuse_set_registers() {
  static_assert(Want % 8 == 0 && Want >= 24 && Want <= 256, "setmaxnreg takes 24 to 256 in steps of 8");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (Want > Entry)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Want));
  else if constexpr (Want < Entry)
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Want));
#endif
}
#endif

)";
}

/// Whether the first n elements of two buffers share no byte or are the
/// same elements, for the ranges that load ahead.
void printApartHelper(llvm::raw_ostream &OS) {
  OS << R"(#ifndef KFUSE_LIE_APART_DEFINED
#define KFUSE_LIE_APART_DEFINED
// Whether elements [0, n) of a and of b share no byte, or are the same
// elements: then element i of one is never element j != i of the other.
template <typename A, typename B, typename N>
__device__ __forceinline__ bool kfuse_lie_apart(const A *a, const B *b, N n) {
if (static_cast<long long>(n) <= 0) return true;
const unsigned long long begin_a = reinterpret_cast<unsigned long long>(a);
const unsigned long long begin_b = reinterpret_cast<unsigned long long>(b);
const unsigned long long count = static_cast<unsigned long long>(n);
if (begin_a == begin_b && sizeof(A) == sizeof(B)) return true;
return begin_a + count * sizeof(A) <= begin_b || begin_b + count * sizeof(B) <= begin_a;
}
#endif

)";
}

/// The value a register temporary passes, as the consumer would have loaded
/// it: an empty volatile asm makes it opaque, so that neither nvcc nor
/// ptxas contracts the consumer's arithmetic with the producer's
/// (-fmad=true), which the original launches, storing it to memory between
/// them, never did. A plain asm stops nvcc only: ptxas still fused the
/// multiply and the add (CUDA 13.0, sm_90 SASS).
void printAsStoredHelper(llvm::raw_ostream &OS) {
  OS << R"(#ifndef KFUSE_AS_STORED_DEFINED
#define KFUSE_AS_STORED_DEFINED
// A value passed from one kernel to the next in a register, as it would have
// been loaded from memory: no multiply-add spans the two kernels.
template <typename T> __device__ __forceinline__ T kfuse_as_stored(T v) { return v; }
__device__ __forceinline__ float kfuse_as_stored(float v) {
asm volatile("" : "+f"(v));
return v;
}
__device__ __forceinline__ double kfuse_as_stored(double v) {
asm volatile("" : "+d"(v));
return v;
}
#endif

)";
}

/// Barriers over one kernel's range of threads, used by the rewritten bodies.
void printBarrierHelpers(llvm::raw_ostream &OS) {
  OS << R"(#ifndef KFUSE_BARRIERS_DEFINED
#define KFUSE_BARRIERS_DEFINED
// __syncthreads() over the Count threads that use barrier Id, where the
// barrier stands inside an expression (a for loop's increment).
template <unsigned Id, unsigned Count> __device__ __forceinline__ void kfuse_syncthreads() {
asm volatile("bar.sync %0, %1;" ::"n"(Id), "n"(Count) : "memory");
}
// __syncthreads_count/_and/_or over the Count threads that use barrier Id.
template <unsigned Id, unsigned Count> __device__ __forceinline__ int kfuse_syncthreads_count(int predicate) {
unsigned result;
asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %1, 0;\n\tbarrier.red.popc.u32 %0, %2, %3, p;\n\t}" : "=r"(result) : "r"(predicate), "n"(Id), "n"(Count) : "memory");
return static_cast<int>(result);
}
template <unsigned Id, unsigned Count> __device__ __forceinline__ int kfuse_syncthreads_and(int predicate) {
unsigned result;
asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.s32 p, %1, 0;\n\tbarrier.red.and.pred q, %2, %3, p;\n\tselp.u32 %0, 1, 0, q;\n\t}" : "=r"(result) : "r"(predicate), "n"(Id), "n"(Count) : "memory");
return static_cast<int>(result);
}
template <unsigned Id, unsigned Count> __device__ __forceinline__ int kfuse_syncthreads_or(int predicate) {
unsigned result;
asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.s32 p, %1, 0;\n\tbarrier.red.or.pred q, %2, %3, p;\n\tselp.u32 %0, 1, 0, q;\n\t}" : "=r"(result) : "r"(predicate), "n"(Id), "n"(Count) : "memory");
return static_cast<int>(result);
}
// The barrier of a kernel whose threads may return before it. A thread that
// is done (it returned or reached the end) waits in finish(), arriving at
// each phase of the barrier beside the live threads; exited[p % 3] counts
// the arrivals from finish() at phase p, and the phase at which all Count
// arrivals come from finish() is the last. Every arrival is a plain
// barrier.sync, which threads may reach from different places.
template <unsigned Id, unsigned Count> struct kfuse_exit_aware_barrier {
volatile unsigned *exited; // Three counters in shared memory.
bool leader; // The range's first thread, which arrives at every phase.
unsigned phase;
__device__ __forceinline__ void wait() {
asm volatile("barrier.sync %0, %1;" ::"n"(Id), "n"(Count) : "memory");
}
// Before the first phase, so that the counters start at zero.
__device__ __forceinline__ void start() {
if (leader) exited[0] = exited[1] = exited[2] = 0u;
wait();
}
// The counter of phase p + 1 was last read before phase p - 1 completed.
__device__ __forceinline__ void clear_next() {
if (leader) exited[(phase + 1u) % 3u] = 0u;
}
__device__ __forceinline__ void sync() {
clear_next();
wait();
++phase;
}
__device__ __forceinline__ void finish() {
for (bool all_done = false; !all_done; ++phase) {
clear_next();
atomicAdd(const_cast<unsigned *>(exited + phase % 3u), 1u);
wait();
all_done = exited[phase % 3u] == Count;
}
}
};
#endif

)";
}

/// The grid of a persistent kernel, cached per device and dynamic shared
/// memory size: the occupancy API's blocks per multiprocessor times the
/// multiprocessors, at most one fused block per original block.
void printResidentBlocks(llvm::raw_ostream &OS) {
  OS << R"(#ifndef KFUSE_PERSISTENT_DEFINED
#define KFUSE_PERSISTENT_DEFINED
#define KFUSE_CACHED_DEVICES 64
// Each cache entry holds (dynamic shared bytes + 1) << 32 | resident blocks.
template <typename Kernel>
inline cudaError_t kfuse_resident_blocks(Kernel kernel, std::atomic<unsigned long long> (&cache)[KFUSE_CACHED_DEVICES], unsigned threads, size_t shared_bytes, unsigned waves, unsigned long long &blocks) {
int device = 0;
cudaError_t err = cudaGetDevice(&device);
if (err != cudaSuccess) return err;
const unsigned long long key = (static_cast<unsigned long long>(shared_bytes) + 1ull) << 32;
unsigned long long fit = 0;
if (device < KFUSE_CACHED_DEVICES) {
const unsigned long long entry = cache[device].load(std::memory_order_relaxed);
if ((entry & ~0xffffffffull) == key) fit = entry & 0xffffffffull;
}
if (fit == 0) {
int per_sm = 0, sms = 0;
err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads), shared_bytes);
if (err != cudaSuccess) return err;
err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
if (err != cudaSuccess) return err;
// A kernel that does not fit at all fails at its launch, with the reason.
fit = per_sm > 0 && sms > 0 ? 1ull * per_sm * sms : 1ull;
if (device < KFUSE_CACHED_DEVICES) cache[device].store(key | fit, std::memory_order_relaxed);
}
fit *= waves;
#ifdef KFUSE_MAX_RESIDENT_BLOCKS
// Leaves the rest of the GPU to other work.
if (fit > KFUSE_MAX_RESIDENT_BLOCKS) fit = KFUSE_MAX_RESIDENT_BLOCKS;
#endif
blocks = blocks < fit ? blocks : fit;
return cudaSuccess;
}
// A proportional grid's ticket t goes to kernel 0 when the first t + 1 tickets
// hold more of kernel 0's share (blocks[0] of all) than the first t do, else
// to the others in the same way. Returns (kernel, its block), or (N, 0) past
// the last ticket.
template <unsigned N>
__device__ __forceinline__ uint2 kfuse_proportional_pick(unsigned ticket, const unsigned (&blocks)[N]) {
unsigned long long total = 0;
for (unsigned i = 0; i < N; ++i) total += blocks[i];
unsigned long long t = ticket;
if (t >= total) return make_uint2(N, 0u);
for (unsigned i = 0; i + 1 < N; ++i) {
const unsigned long long before = t * blocks[i] / total, through = (t + 1ull) * blocks[i] / total;
if (through > before) return make_uint2(i, static_cast<unsigned>(before));
t -= before;
total -= blocks[i];
}
return make_uint2(N - 1u, static_cast<unsigned>(t));
}
#endif

)";
}

void printLaunchStruct(llvm::raw_ostream &OS) {
  OS << "#ifndef KFUSE_LAUNCH_DEFINED\n#define KFUSE_LAUNCH_DEFINED\n"
     << "// How one original kernel would have been launched.\n"
     << "struct kfuse_launch {\ndim3 grid;\ndim3 block;\nsize_t shared_bytes;\n};\n#endif\n\n";
}

std::string format(const std::string &Code) {
  clang::format::FormatStyle Style = clang::format::getLLVMStyle();
  Style.ColumnLimit = 100;
  clang::tooling::Replacements Fixes = clang::format::reformat(
      Style, Code, {clang::tooling::Range(0, static_cast<unsigned>(Code.size()))});
  llvm::Expected<std::string> Formatted = clang::tooling::applyAllReplacements(Code, Fixes);
  if (!Formatted) {
    llvm::consumeError(Formatted.takeError());
    return Code;
  }
  return *Formatted;
}

std::string endingInOneNewline(std::string Text) {
  while (Text.size() > 1 && Text.back() == '\n' && Text[Text.size() - 2] == '\n')
    Text.pop_back();
  if (Text.empty() || Text.back() != '\n')
    Text += '\n';
  return Text;
}

} // namespace

std::string printFusedFile(const FusedFile &File) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "// Generated by " << File.Generator << " from " << File.Config << ". Do not edit:\n"
     << "// change the config or the kernels and run kfuse again.\n\n"
     << "#include <cuda_runtime.h>\n";
  bool Persistent = std::any_of(File.Kernels.begin(), File.Kernels.end(), [](const FusedKernel &K) {
    return K.Layout.Grid != GridMode::AsLaunched;
  });
  if (Persistent)
    OS << "#include <atomic>\n";
  OS << "\n";
  if (File.Kernels.empty())
    OS << "// No fused kernel: the measurements keep every fusion's original launches.\n\n";
  for (const Preamble &P : File.Preambles) {
    if (P.Whole)
      OS << "// ---- " << P.Origin << ", whole: this file is compiled in its place ----\n";
    else
      OS << "// ---- Declarations from " << P.Origin
         << ", without its kernels and host code ----\n";
    // What the fused kernels do not use of a copy is still what its file
    // declared: no warning the original did not give.
    if (!P.Whole)
      OS << "#pragma nv_diagnostic push\n#pragma nv_diag_suppress 177\n"
         << "#pragma GCC diagnostic push\n"
         << "#pragma GCC diagnostic ignored \"-Wunused-function\"\n"
         << "#pragma GCC diagnostic ignored \"-Wunused-variable\"\n";
    OS << P.Text;
    if (!P.Text.empty() && P.Text.back() != '\n')
      OS << "\n";
    if (!P.Whole)
      OS << "#pragma GCC diagnostic pop\n#pragma nv_diagnostic pop\n";
    OS << "// ---- End of " << (P.Whole ? "" : "declarations from ") << P.Origin << " ----\n\n";
  }
  std::string Generated;
  llvm::raw_string_ostream GS(Generated);
  printLaunchStruct(GS);
  printBarrierHelpers(GS);
  if (Persistent)
    printResidentBlocks(GS);
  if (std::any_of(File.Kernels.begin(), File.Kernels.end(), [](const FusedKernel &K) {
        return K.Layout.Registers == RegisterPolicy::PerWarpgroup;
      }))
    printRegisterHelper(GS);
  if (std::any_of(File.Kernels.begin(), File.Kernels.end(), [](const FusedKernel &K) {
        return std::any_of(K.Sections.begin(), K.Sections.end(),
                           [](const FusedSection &S) { return S.ChecksApart; });
      }))
    printApartHelper(GS);
  if (std::any_of(File.Kernels.begin(), File.Kernels.end(),
                  [](const FusedKernel &K) { return !K.Registers.empty(); }))
    printAsStoredHelper(GS);
  for (const FusedKernel &K : File.Kernels) {
    printKernel(GS, K);
    printLauncher(GS, K, File.LauncherHeader);
  }
  OS << format(Generated);
  return endingInOneNewline(std::move(Out));
}

std::string printLauncherHeader(const FusedFile &File, const std::string &Guard,
                                const std::vector<std::string> &Includes) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "// Generated by " << File.Generator << " from " << File.Config << ". Do not edit:\n"
     << "// change the config or the kernels and run kfuse again.\n"
     << "// Declares the launchers of the fused kernels, which replace the original\n"
     << "// launches; the kernels and launchers are compiled from the fused source.\n"
     << "#ifndef " << Guard << "\n#define " << Guard << "\n\n"
     << "#include <cuda_runtime.h>\n";
  if (!Includes.empty())
    OS << "// Headers that declare the launchers' parameter types.\n";
  for (const std::string &I : Includes)
    OS << "#include " << I << "\n";
  std::string Generated;
  llvm::raw_string_ostream GS(Generated);
  printLaunchStruct(GS);
  for (const FusedKernel &K : File.Kernels) {
    printFitsComment(GS, K);
    printFitsSignature(GS, K);
    GS << ";\n\n";
    printLauncherComment(GS, K);
    printLauncherSignature(GS, K, /*Portable=*/true);
    GS << " = 0);\n\n";
  }
  OS << "\n" << format(Generated) << "\n#endif // " << Guard << "\n";
  return endingInOneNewline(std::move(Out));
}

} // namespace kfuse

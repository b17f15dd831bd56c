//===- FusedLayout.cpp - one fused variant, typed, end to end -------------===//

#include "kfuse/Plan/FusedLayout.h"

#include "kfuse/Diagnostics/JsonFields.h"

#include "llvm/Support/JSON.h"

#include <algorithm>

namespace kfuse {

unsigned FusedLayout::blockThreads() const {
  unsigned Block = 0;
  for (unsigned T : Threads)
    Block = stacked() ? std::max(Block, T) : Block + T;
  return Block;
}

namespace {

/// What a name says of the grid: nothing for the grid as launched, nor for
/// the proportional grid, which its own name says.
const char *gridSuffix(GridMode G) {
  switch (G) {
  case GridMode::Persistent:
    return "-p";
  case GridMode::Dynamic:
    return "-d";
  case GridMode::AsLaunched:
  case GridMode::Proportional:
    return "";
  }
  return "";
}

const char *registerSuffix(RegisterPolicy R) {
  switch (R) {
  case RegisterPolicy::Compiler:
    return "";
  case RegisterPolicy::Bounded:
    return "-rb";
  case RegisterPolicy::PerWarpgroup:
    return "-wr";
  }
  return "";
}

} // namespace

std::string FusedLayout::name() const {
  std::string Name;
  if (Vertical) {
    Name = "vertical";
  } else if (stacksRanges(Grid)) {
    Name = "proportional";
  } else {
    Name = "h";
    for (size_t I = 0; I < Threads.size(); ++I)
      Name += (I ? "-" : "") + std::to_string(Threads[I]);
  }
  Name += gridSuffix(Grid);
  if (Waves > 1)
    Name += std::to_string(Waves);
  if (BlocksPerIteration > 1)
    Name += "-k" + std::to_string(BlocksPerIteration);
  if (!Coarsen.empty()) {
    Name += "-c";
    for (size_t I = 0; I < Coarsen.size(); ++I)
      Name += (I ? "x" : "") + std::to_string(Coarsen[I]);
  }
  Name += registerSuffix(Registers);
  if (Reductions == ReductionStyle::OneWarp)
    Name += "-ow";
  return Name;
}

FusedLayout FusedLayout::source() const {
  FusedLayout Twin = *this;
  if (Twin.Registers == RegisterPolicy::Bounded) {
    Twin.Registers = RegisterPolicy::Compiler;
    Twin.MinBlocksPerSm.reset();
  }
  return Twin;
}

bool FusedLayout::operator==(const FusedLayout &O) const {
  return Vertical == O.Vertical && Threads == O.Threads && Grid == O.Grid && Waves == O.Waves &&
         BlocksPerIteration == O.BlocksPerIteration && Coarsen == O.Coarsen &&
         Reductions == O.Reductions && Registers == O.Registers &&
         MinBlocksPerSm == O.MinBlocksPerSm && EntryRegisters == O.EntryRegisters &&
         SectionRegisters == O.SectionRegisters;
}

bool readLayoutFields(const llvm::json::Value &V, FusedLayout &L, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  std::vector<int64_t> Threads, WarpgroupRegisters, Coarsen;
  bool RegisterBound = false;
  unsigned MinBlocksPerSm = 0, EntryRegisters = 0;
  auto Grid = [&](const llvm::json::Value &G, GridMode &Out, llvm::json::Path At) {
    return fromName(G, Out, At, parseGridMode,
                    "expected a grid (as-launched, persistent, dynamic or proportional)");
  };
  const llvm::json::Object *Object = V.getAsObject();
  if (!O || !O.mapOptional("threads", Threads) || !O.mapOptional("register_bound", RegisterBound) ||
      !mapCount(V, P, "min_blocks_per_sm", MinBlocksPerSm) ||
      (Object && Object->get("grid") && !Grid(*Object->get("grid"), L.Grid, P.field("grid"))) ||
      !mapCount(V, P, "waves", L.Waves) ||
      !mapCount(V, P, "blocks_per_iteration", L.BlocksPerIteration) ||
      !O.mapOptional("coarsen", Coarsen) ||
      (Object && Object->get("reductions") &&
       !fromName(*Object->get("reductions"), L.Reductions, P.field("reductions"),
                 parseReductionStyle, "expected reductions (as-written or one-warp)")) ||
      !O.mapOptional("warpgroup_registers", WarpgroupRegisters) ||
      !mapCount(V, P, "entry_registers", EntryRegisters))
    return false;
  for (int64_t T : Threads) {
    if (T <= 0 || T > 1024) {
      P.field("threads").report("expected thread counts from 1 to 1024");
      return false;
    }
    L.Threads.push_back(static_cast<unsigned>(T));
  }
  for (int64_t R : WarpgroupRegisters) {
    // What setmaxnreg takes: the emitted code asserts it too.
    if (R < 24 || R > 256 || R % 8 != 0) {
      P.field("warpgroup_registers")
          .report("expected register counts from 24 to 256 in steps of 8");
      return false;
    }
    L.SectionRegisters.push_back(static_cast<unsigned>(R));
  }
  if (L.Waves == 0) {
    P.field("waves").report("expected at least one wave");
    return false;
  }
  if (L.BlocksPerIteration == 0) {
    P.field("blocks_per_iteration").report("expected at least one block");
    return false;
  }
  for (int64_t C : Coarsen) {
    if (C < 1 || C > 8) {
      P.field("coarsen").report("expected blocks per iteration from 1 to 8");
      return false;
    }
    L.Coarsen.push_back(static_cast<unsigned>(C));
  }
  // One block each is no coarsening: the layout's name has no -c.
  if (std::all_of(L.Coarsen.begin(), L.Coarsen.end(), [](unsigned C) { return C == 1; }))
    L.Coarsen.clear();
  L.Registers = !L.SectionRegisters.empty() ? RegisterPolicy::PerWarpgroup
                : RegisterBound             ? RegisterPolicy::Bounded
                                            : RegisterPolicy::Compiler;
  // Warpgroup counts start from the bound the harness compiled the variant with.
  if (L.Registers != RegisterPolicy::Compiler)
    L.MinBlocksPerSm = MinBlocksPerSm;
  if (L.Registers == RegisterPolicy::PerWarpgroup)
    L.EntryRegisters = EntryRegisters;
  return true;
}

} // namespace kfuse

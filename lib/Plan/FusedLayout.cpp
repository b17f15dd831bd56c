//===- FusedLayout.cpp - one fused variant, typed, end to end -------------===//

#include "kfuse/Plan/FusedLayout.h"

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
  return Name + registerSuffix(Registers);
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
         Registers == O.Registers && MinBlocksPerSm == O.MinBlocksPerSm &&
         EntryRegisters == O.EntryRegisters && SectionRegisters == O.SectionRegisters;
}

} // namespace kfuse

//===- HarnessJsonTest.cpp - the harness's JSON strings, read back --------===//
//
// The tuning harness writes every string of results.json through
// kfuse_json::quoted(); kfuse must read each back as it was, whatever a
// device name, a path or dlerror() holds.
//
//===----------------------------------------------------------------------===//

#include "tune_json.h"

#include "kfuse/Plan/FusedLayout.h"
#include "kfuse/Tuning/Selection.h"
#include "kfuse/Tuning/VariantSpace.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

namespace kfuse {
namespace {

const std::string Replacement = "\xef\xbf\xbd"; // U+FFFD

std::string deviceReadBack(const std::string &Name) {
  std::string Text =
      "{\"schema_version\": 1, \"device\": " + kfuse_json::quoted(Name) + ", \"fusions\": []}";
  diag::Problem Problem;
  std::optional<TuneResults> R = parseTuneResults(Text, Problem);
  EXPECT_TRUE(R.has_value()) << Text << ": " << (Problem.Args.size() > 1 ? Problem.Args[1] : "");
  return R ? R->Device : "";
}

TEST(HarnessJson, KeepsWhatJsonCanHold) {
  for (const std::string &Name :
       {std::string("NVIDIA H100 \"SXM\" <B> & [#!?{}]"), std::string("C:\\cuda\\bin"),
        std::string("tab\tnew\nline\r"), std::string("nul\0byte", 8), std::string("\x1f"),
        std::string("UTF-8: \xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80")})
    EXPECT_EQ(deviceReadBack(Name), Name);
}

TEST(HarnessJson, ReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(deviceReadBack("bad \xff byte"), "bad " + Replacement + " byte");
  // An overlong NUL, a surrogate, a sequence cut short.
  EXPECT_EQ(deviceReadBack("\xc0\x80"), Replacement + Replacement);
  EXPECT_EQ(deviceReadBack("\xed\xa0\x80"), Replacement + Replacement + Replacement);
  EXPECT_EQ(deviceReadBack("cut \xe6\xbc"), "cut " + Replacement + Replacement);
}

/// What the harness writes of a variant built from \p L: the bound and the
/// warpgroup counts it chose where the layout leaves them to it.
kfuse_json::LayoutFields harnessFields(const FusedLayout &L) {
  kfuse_json::LayoutFields F;
  F.threads = L.Threads;
  F.block_threads = L.blockThreads();
  F.bounded = L.Registers == RegisterPolicy::Bounded;
  F.min_blocks = L.Registers == RegisterPolicy::Compiler ? 0 : 2;
  F.grid = gridModeName(L.Grid);
  F.waves = L.Waves;
  F.blocks_per_iteration = L.BlocksPerIteration;
  F.coarsen = L.Coarsen;
  F.reductions = reductionStyleName(L.Reductions);
  if (L.Registers == RegisterPolicy::PerWarpgroup) {
    F.entry_registers = 64;
    for (size_t K = 0; K < L.Threads.size(); ++K)
      F.warpgroup_registers.push_back(K ? 40 : 232);
  }
  return F;
}

/// Every layout the variant space generates comes back from results.json
/// by its fields (never by its name): as it was, with the counts the harness
/// chose.
TEST(HarnessJson, LayoutsRoundTripByTheirFields) {
  std::vector<TuneMember> Members{{512, true}, {512, true, /*TreeReduction=*/true}};
  Members[0].Elementwise = true;
  std::vector<FusedLayout> Layouts = variantSpace(Members, 128, {GridMode::Persistent});
  ASSERT_TRUE(std::any_of(Layouts.begin(), Layouts.end(),
                          [](const FusedLayout &L) { return !L.Coarsen.empty(); }));
  // A vertical layout of several blocks at a time, which `kfuse fuse` emits
  // from a config (the tuner measures horizontal fusions).
  FusedLayout Blocks = Layouts.back();
  Blocks.BlocksPerIteration = 4;
  Layouts.push_back(Blocks);
  for (const FusedLayout &L : Layouts) {
    char *Buffer = nullptr;
    size_t Size = 0;
    FILE *Out = open_memstream(&Buffer, &Size);
    ASSERT_NE(Out, nullptr);
    std::fprintf(Out, "{");
    kfuse_json::writeLayoutFields(Out, harnessFields(L));
    std::fprintf(Out, "\"name\": \"x\"}");
    std::fclose(Out);
    std::string Text(Buffer, Size);
    std::free(Buffer);
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
    ASSERT_TRUE(bool(V)) << Text << ": " << llvm::toString(V.takeError());
    FusedLayout Read;
    llvm::json::Path::Root Root("candidate");
    ASSERT_TRUE(readLayoutFields(*V, Read, Root)) << Text;
    Read.Vertical = L.Vertical; // The candidate's kind says it, not a layout field.
    FusedLayout Expected = L;
    if (L.Registers != RegisterPolicy::Compiler)
      Expected.MinBlocksPerSm = 2;
    if (L.Registers == RegisterPolicy::PerWarpgroup) {
      Expected.EntryRegisters = 64;
      Expected.SectionRegisters = harnessFields(L).warpgroup_registers;
    }
    EXPECT_TRUE(Read == Expected) << L.name() << " read back as " << Read.name() << " from "
                                  << Text;
  }
}

TEST(HarnessJson, ALayoutFieldOutOfRangeIsReportedAtItsPath) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(
      R"({"threads": [256, 256], "warpgroup_registers": [20, 40], "entry_registers": 64})");
  ASSERT_TRUE(bool(V));
  FusedLayout Read;
  llvm::json::Path::Root Root("candidate");
  EXPECT_FALSE(readLayoutFields(*V, Read, Root));
  std::string Message = llvm::toString(Root.getError());
  EXPECT_NE(Message.find("expected register counts from 24 to 256 in steps of 8"),
            std::string::npos)
      << Message;
  EXPECT_NE(Message.find("warpgroup_registers"), std::string::npos) << Message;
}

} // namespace
} // namespace kfuse

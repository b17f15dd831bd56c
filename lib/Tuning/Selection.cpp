//===- Selection.cpp - reading measurements and choosing a winner ---------===//

#include "kfuse/Tuning/Selection.h"

#include "kfuse/Tuning/Format.h"

#include "kfuse/Config/Config.h"

#include "kfuse/Diagnostics/InputFiles.h"
#include "kfuse/Diagnostics/JsonFields.h"

#include "llvm/Support/JSON.h"

#include <cmath>
#include <limits>
#include <map>

namespace kfuse {

const FusionResult *TuneResults::find(const std::string &Fusion) const {
  for (const FusionResult &F : Fusions)
    if (F.Fusion == Fusion)
      return &F;
  return nullptr;
}

const CandidateResult *FusionResult::alone(size_t K) const {
  for (const CandidateResult &C : Candidates)
    if (C.alone() && C.Kernel == static_cast<int>(K) && C.Valid && C.Median > 0)
      return &C;
  return nullptr;
}

const char *candidateKindName(CandidateKind K) {
  switch (K) {
#define KFUSE_CANDIDATE_KIND(Id, Name, Native)                                                     \
  case CandidateKind::Id:                                                                          \
    return Name;
#include "kfuse/Tuning/CandidateKinds.def"
  }
  return "";
}

std::optional<CandidateKind> parseCandidateKind(const std::string &Name) {
#define KFUSE_CANDIDATE_KIND(Id, Spelling, Native)                                                 \
  if (Name == Spelling)                                                                            \
    return CandidateKind::Id;
#include "kfuse/Tuning/CandidateKinds.def"
  return std::nullopt;
}

bool isNativeKind(CandidateKind K) {
  switch (K) {
#define KFUSE_CANDIDATE_KIND(Id, Name, Native)                                                     \
  case CandidateKind::Id:                                                                          \
    return Native;
#include "kfuse/Tuning/CandidateKinds.def"
  }
  return false;
}

namespace {

/// A time or a ratio: JSON holds no infinity, but 1e999 reads as one.
bool mapFinite(const llvm::json::Value &V, llvm::json::Path P, llvm::StringLiteral Key,
               double &Out) {
  const llvm::json::Object *Object = V.getAsObject();
  const llvm::json::Value *Field = Object ? Object->get(Key) : nullptr;
  if (!Field)
    return true;
  std::optional<double> N = Field->getAsNumber();
  if (!N || !std::isfinite(*N) || *N < 0) {
    P.field(Key).report("expected a finite number, 0 or more");
    return false;
  }
  Out = *N;
  return true;
}

} // namespace

// Read with llvm::json: a wrong or missing field is reported by its path,
// "expected number at results.fusions[0].candidates[2].median_ms".
bool fromJSON(const llvm::json::Value &V, CandidateKind &K, llvm::json::Path P) {
  // Every name the table has; json::Path keeps the message, so a literal.
  return fromName(V, K, P, parseCandidateKind, "expected a candidate kind, one of:"
#define KFUSE_CANDIDATE_KIND(Id, Name, Native) " " Name
#include "kfuse/Tuning/CandidateKinds.def"
  );
}

bool fromJSON(const llvm::json::Value &V, CandidateResult &C, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  std::vector<double> Samples;
  bool Ok =
      O && O.map("name", C.Name) && O.map("kind", C.Kind) && O.mapOptional("kernel", C.Kernel) &&
      O.mapOptional("valid", C.Valid) && O.mapOptional("error", C.Error) &&
      readLayoutFields(V, C.Layout, P) && mapCount(V, P, "block_threads", C.BlockThreads) &&
      mapCount(V, P, "registers", C.Registers) && mapCount(V, P, "spill_bytes", C.SpillBytes) &&
      mapCount(V, P, "static_shared_bytes", C.StaticShared) &&
      mapCount(V, P, "blocks_per_sm", C.BlocksPerSm) &&
      mapCount(V, P, "blocks_per_sm_model", C.BlocksPerSmModel) &&
      mapFinite(V, P, "median_ms", C.Median) && mapFinite(V, P, "p25_ms", C.P25) &&
      mapFinite(V, P, "p75_ms", C.P75) && O.mapOptional("ms", Samples) &&
      mapCount(V, P, "mismatches", C.Mismatches);
  if (!Ok)
    return false;
  if (!llvm::all_of(Samples, [](double T) { return std::isfinite(T) && T >= 0; })) {
    P.field("ms").report("expected finite times, 0 or more");
    return false;
  }
  C.Samples = static_cast<unsigned>(Samples.size());
  // A horizontal variant is its split: without one, the fused file would get
  // the planner's split under the winner's name.
  if (C.Kind == CandidateKind::Horizontal && C.Layout.Threads.empty()) {
    P.field("threads").report("expected the thread count of each kernel of a horizontal variant");
    return false;
  }
  C.Layout.Vertical = C.Kind == CandidateKind::Vertical;
  return true;
}

bool fromJSON(const llvm::json::Value &V, NativeKernel &K, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  return O && O.map("kernel", K.Kernel) && mapCount(V, P, "registers", K.Registers) &&
         mapCount(V, P, "spill_bytes", K.SpillBytes) &&
         mapCount(V, P, "block_threads", K.BlockThreads) &&
         mapCount(V, P, "blocks_per_sm", K.BlocksPerSm) &&
         mapCount(V, P, "static_shared_bytes", K.StaticShared);
}

const ProfiledKernel *FusionProfile::of(const std::string &Name) const {
  if (!Error.empty())
    return nullptr;
  for (size_t I = 0; I < Launches.size() && I < Measured.Launches.size(); ++I)
    if (Launches[I] == Name)
      return &Measured.Launches[I];
  return nullptr;
}

/// A profile the harness could not take, or whose CSV kfuse cannot read,
/// is no measurement error: the report says why it has no explanation.
bool fromJSON(const llvm::json::Value &V, FusionProfile &F, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  std::string Csv;
  if (!O || !O.mapOptional("error", F.Error) || !O.mapOptional("launches", F.Launches) ||
      !O.mapOptional("csv", Csv))
    return false;
  if (!F.Error.empty())
    return true;
  F.Measured = parseNcuCsv(Csv);
  if (!F.Measured.Problems.empty()) {
    const diag::Problem &First = F.Measured.Problems.front();
    F.Error = "its CSV line " + std::to_string(First.Line) + ": " +
              (First.Args.empty() ? std::string("unreadable") : First.Args.front());
  } else if (F.Measured.Launches.size() != F.Launches.size()) {
    F.Error = "it measured " + std::to_string(F.Measured.Launches.size()) + " launches of the " +
              std::to_string(F.Launches.size()) + " it names";
  }
  return true;
}

bool fromJSON(const llvm::json::Value &V, FusionResult &F, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  return O && O.map("fusion", F.Fusion) && O.mapOptional("gpu", F.Gpu) &&
         mapFinite(V, P, "compile_seconds", F.CompileSeconds) &&
         O.mapOptional("candidates", F.Candidates) && O.mapOptional("native", F.Natives) &&
         O.mapOptional("profile", F.Profile);
}

bool fromJSON(const llvm::json::Value &V, DevicePeaks &D, llvm::json::Path P) {
  return mapFinite(V, P, "dram_bytes_per_us", D.DramBytesPerUs) &&
         mapFinite(V, P, "warp_inst_per_us", D.WarpInstsPerUs) &&
         mapCount(V, P, "issue_warps_per_sm", D.IssueWarps) &&
         mapCount(V, P, "memory_warps_per_sm", D.MemoryWarps);
}

/// The limits as cudaGetDeviceProperties gave them to the harness.
bool fromJSON(const llvm::json::Value &V, DeviceLimits &D, llvm::json::Path P) {
  return mapCount(V, P, "sms", D.Sms) && mapCount(V, P, "threads_per_sm", D.ThreadsPerSm) &&
         mapCount(V, P, "blocks_per_sm", D.BlocksPerSm) &&
         mapCount(V, P, "registers_per_sm", D.RegistersPerSm) &&
         mapCount(V, P, "shared_per_sm", D.SharedPerSm) &&
         mapCount(V, P, "reserved_shared_per_block", D.ReservedSharedPerBlock);
}

bool fromJSON(const llvm::json::Value &V, TuneResults &R, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  return O && O.map("device", R.Device) && O.map("fusions", R.Fusions) &&
         O.mapOptional("sm", R.Sm) && O.mapOptional("driver_api", R.DriverApi) &&
         O.mapOptional("runtime", R.Runtime) && O.mapOptional("gpus", R.Gpus) &&
         mapCount(V, P, "seed", R.Seed) && O.mapOptional("peaks", R.Peaks) &&
         O.mapOptional("limits", R.Limits);
}

std::optional<TuneResults> parseTuneResults(const std::string &Text, diag::Problem &Problem) {
  auto Fail = [&](unsigned Line, unsigned Column, std::string Reason) {
    Problem = {diag::ID::TuneResults, Line, Column, {"", std::move(Reason)}};
    return std::nullopt;
  };
  if (std::optional<std::pair<unsigned, unsigned>> Deep = jsonTooDeep(Text))
    return Fail(Deep->first, Deep->second,
                "arrays and objects nest more than " + std::to_string(JsonDepthLimit) +
                    " deep here; results.json nests a few");
  llvm::Expected<llvm::json::Value> Root = llvm::json::parse(Text);
  if (!Root) {
    // ParseError logs "[LINE:COLUMN, byte=OFFSET]: message" and has no accessors.
    std::string Log = llvm::toString(Root.takeError());
    unsigned Line = 0, Column = 0;
    llvm::StringRef Rest(Log);
    if (Rest.consume_front("[") && !Rest.consumeInteger(10, Line) && Rest.consume_front(":") &&
        !Rest.consumeInteger(10, Column) && Rest.consume_front(", byte=")) {
      Rest = Rest.drop_until([](char C) { return C == ' '; }).ltrim();
      return Fail(Line, Column, "malformed JSON: " + Rest.str());
    }
    return Fail(0, 0, "malformed JSON: " + Log);
  }
  // Another kind of file (a config, other JSON): say which file kfuse expected.
  const llvm::json::Object *Top = Root->getAsObject();
  for (const char *Key : {"device", "fusions"})
    if (!Top || !Top->get(Key))
      return Fail(1, 1,
                  std::string("it is not the results.json that kfuse tune's harness "
                              "writes: its top level has no key '") +
                      Key + "'");
  // Only the integer itself: "2", 1.5 or 1e30 name no version this kfuse reads.
  if (const llvm::json::Value *Version = Top->get("schema_version")) {
    std::optional<int64_t> Number = Version->getAsInteger();
    std::string Spelled;
    llvm::raw_string_ostream(Spelled) << *Version;
    if (!Number || *Number != ResultsSchemaVersion)
      return Fail(1, 1,
                  "its schema_version is " + Spelled + ", and this kfuse reads version " +
                      std::to_string(ResultsSchemaVersion));
  }
  llvm::json::Path::Root Path("results");
  TuneResults R;
  if (!fromJSON(*Root, R, Path))
    return Fail(0, 0, llvm::toString(Path.getError()));
  // Its charts and verdicts are named by the fusion: two would be one, and a
  // name that is not the config's kind ("../x", a NUL) would name a file
  // outside the report.
  std::map<std::string, size_t> Seen;
  for (size_t I = 0; I < R.Fusions.size(); ++I) {
    if (!isIdentifier(R.Fusions[I].Fusion)) {
      std::string Quoted; // As JSON spells it: a NUL or newline stays visible.
      llvm::raw_string_ostream(Quoted) << llvm::json::Value(R.Fusions[I].Fusion);
      return Fail(0, 0,
                  "results.fusions[" + std::to_string(I) + "].fusion is " + Quoted +
                      "; expected a fusion name of the config (a C identifier)");
    }
    if (auto [J, New] = Seen.try_emplace(R.Fusions[I].Fusion, I); !New)
      return Fail(0, 0,
                  "fusion '" + R.Fusions[I].Fusion + "' is measured twice (results.fusions[" +
                      std::to_string(J->second) + "] and results.fusions[" + std::to_string(I) +
                      "]); merge the runs into one file of each fusion once");
  }
  return R;
}

Verdict decide(const FusionResult &R) {
  Verdict V;
  for (const CandidateResult &C : R.Candidates) {
    if (!C.Valid || C.Median <= 0 || C.alone())
      continue;
    const CandidateResult *&Best = C.native() ? V.NativeBest : V.Fastest;
    if (!Best || C.Median < Best->Median)
      Best = &C;
  }
  if (!V.NativeBest) {
    V.Reason = "no native launch was measured";
    return V;
  }
  if (!V.Fastest) {
    V.Reason = "no fused variant was valid";
    return V;
  }
  V.Speedup = V.NativeBest->Median / V.Fastest->Median;
  V.Noise = std::max(V.NativeBest->noise(), V.Fastest->noise());
  V.Fuse = V.Fastest->Median * (1 + V.Noise) < V.NativeBest->Median;
  V.Reason = V.Fuse ? "'" + V.Fastest->Name + "' is " + fixed(V.Speedup, 3) + "x as fast as '" +
                          V.NativeBest->Name + "', beyond the noise of " + fixed(100 * V.Noise, 1) +
                          "%"
                    : "the fastest variant '" + V.Fastest->Name + "' (" + fixed(V.Speedup, 3) +
                          "x of '" + V.NativeBest->Name + "') does not beat native best by " +
                          "more than the noise of " + fixed(100 * V.Noise, 1) + "%";
  return V;
}

} // namespace kfuse

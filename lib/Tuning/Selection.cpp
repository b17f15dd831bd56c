//===- Selection.cpp - reading measurements and choosing a winner ---------===//

#include "kfuse/Tuning/Selection.h"

#include "kfuse/Tuning/Chart.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <sstream>
#include <type_traits>

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

namespace {

/// A results file that is not what the harness writes: where and why.
struct ResultsError {
  YAML::Mark Mark;
  std::string Reason;
};

template <typename T> const char *expected() {
  if constexpr (std::is_same_v<T, std::string>)
    return "a string";
  else if constexpr (std::is_same_v<T, bool>)
    return "true or false";
  else if constexpr (std::is_floating_point_v<T>)
    return "a number";
  else if constexpr (std::is_unsigned_v<T>)
    return "an integer, 0 or more";
  else
    return "an integer";
}

template <typename T> T as(const YAML::Node &N, const char *Key) {
  try {
    return N.as<T>();
  } catch (const YAML::BadConversion &) {
    throw ResultsError{N.Mark(), "'" + std::string(Key) + "' must be " + expected<T>()};
  }
}

void expectObject(const YAML::Node &N, const std::string &What) {
  if (!N.IsMap())
    throw ResultsError{N.Mark(), What + " must be an object"};
}

YAML::Node list(const YAML::Node &Map, const char *Key) {
  YAML::Node N = Map[Key];
  if (N && !N.IsSequence())
    throw ResultsError{N.Mark(), "'" + std::string(Key) + "' must be a list"};
  return N;
}

template <typename T> T required(const YAML::Node &Map, const char *Key, const std::string &What) {
  if (!Map[Key])
    throw ResultsError{Map.Mark(), What + " has no key '" + Key + "'"};
  return as<T>(Map[Key], Key);
}

template <typename T> T get(const YAML::Node &N, const char *Key, T Default) {
  return N[Key] ? as<T>(N[Key], Key) : Default;
}

CandidateResult candidate(const YAML::Node &N) {
  expectObject(N, "a candidate");
  CandidateResult C;
  C.Name = required<std::string>(N, "name", "a candidate");
  C.Kind = required<std::string>(N, "kind", "candidate '" + C.Name + "'");
  C.Kernel = get(N, "kernel", -1);
  C.Valid = get(N, "valid", false);
  C.Mismatches = get(N, "mismatches", 0ull);
  C.Error = get<std::string>(N, "error", "");
  if (list(N, "threads"))
    C.Threads = as<std::vector<unsigned>>(N["threads"], "threads");
  C.BlockThreads = get(N, "block_threads", 0u);
  C.RegisterBound = get(N, "register_bound", false);
  C.MinBlocksPerSm = get(N, "min_blocks_per_sm", 0u);
  C.Waves = get(N, "waves", 1u);
  if (C.Waves == 0)
    throw ResultsError{N["waves"].Mark(), "candidate '" + C.Name + "' has 0 waves"};
  std::string Grid = get<std::string>(N, "grid", gridModeName(GridMode::AsLaunched));
  std::optional<GridMode> Mode = parseGridMode(Grid);
  if (!Mode)
    throw ResultsError{N["grid"].Mark(),
                       "candidate '" + C.Name + "' has an unknown grid '" + Grid + "'"};
  C.Grid = *Mode;
  C.Registers = get(N, "registers", 0);
  C.SpillBytes = get(N, "spill_bytes", 0);
  C.StaticShared = get(N, "static_shared_bytes", 0);
  C.BlocksPerSm = get(N, "blocks_per_sm", 0);
  C.BlocksPerSmModel = get(N, "blocks_per_sm_model", 0);
  C.Median = get(N, "median_ms", 0.0);
  C.P25 = get(N, "p25_ms", 0.0);
  C.P75 = get(N, "p75_ms", 0.0);
  C.Samples = list(N, "ms") ? static_cast<unsigned>(N["ms"].size()) : 0;
  return C;
}

FusionResult fusion(const YAML::Node &F) {
  expectObject(F, "a fusion's results");
  FusionResult FR;
  FR.Fusion = required<std::string>(F, "fusion", "a fusion's results");
  FR.CompileSeconds = get(F, "compile_seconds", 0.0);
  for (const YAML::Node &C : list(F, "candidates"))
    FR.Candidates.push_back(candidate(C));
  for (const YAML::Node &K : list(F, "native")) {
    expectObject(K, "a native kernel");
    FR.Natives.push_back({required<std::string>(K, "kernel", "a native kernel"),
                          get(K, "registers", 0), get(K, "spill_bytes", 0),
                          get(K, "block_threads", 0), get(K, "blocks_per_sm", 0)});
  }
  return FR;
}

TuneResults results(const YAML::Node &Root) {
  // A file of another kind (a config, some other JSON) fails here: say which
  // file kfuse expected rather than which field it missed first.
  for (const char *Key : {"device", "fusions"})
    if (!Root.IsMap() || !Root[Key])
      throw ResultsError{Root.Mark(), std::string("it is not the results.json that kfuse tune's "
                                                  "harness writes: its top level has no key '") +
                                          Key + "'"};
  TuneResults R;
  R.Device = as<std::string>(Root["device"], "device");
  R.Sm = get<std::string>(Root, "sm", "");
  R.DriverApi = get(Root, "driver_api", 0);
  R.Runtime = get(Root, "runtime", 0);
  R.Seed = get(Root, "seed", 0u);
  for (const YAML::Node &F : list(Root, "fusions"))
    R.Fusions.push_back(fusion(F));
  return R;
}

std::string fixed(double V, int Digits) {
  char Buffer[64];
  std::snprintf(Buffer, sizeof Buffer, "%.*f", Digits, V);
  return Buffer;
}

/// A property of fused variants only.
std::string fused(const CandidateResult &C, int Value) {
  return C.native() || C.alone() ? "" : std::to_string(Value);
}

std::string threads(const CandidateResult &C) {
  std::string S;
  for (unsigned T : C.Threads)
    S += (S.empty() ? "" : "/") + std::to_string(T);
  return S;
}

} // namespace

std::optional<TuneResults> parseTuneResults(const std::string &Text, diag::Problem &Problem) {
  auto Fail = [&](const YAML::Mark &M, std::string Reason) {
    Problem = {diag::ID::TuneResults, M.is_null() ? 0u : static_cast<unsigned>(M.line + 1),
               M.is_null() ? 0u : static_cast<unsigned>(M.column + 1),
               {"", std::move(Reason)}};
    return std::nullopt;
  };
  try {
    return results(YAML::Load(Text));
  } catch (const ResultsError &E) {
    return Fail(E.Mark, E.Reason);
  } catch (const YAML::ParserException &E) {
    return Fail(E.mark, "malformed JSON: " + E.msg);
  } catch (const YAML::Exception &E) {
    return Fail(E.mark, E.msg);
  }
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
                          V.NativeBest->Name + "', beyond the noise of " +
                          fixed(100 * V.Noise, 1) + "%"
                    : "the fastest variant '" + V.Fastest->Name + "' (" + fixed(V.Speedup, 3) +
                          "x of '" + V.NativeBest->Name + "') does not beat native best by " +
                          "more than the noise of " + fixed(100 * V.Noise, 1) + "%";
  return V;
}

std::string printReport(const TuneResults &R, const std::vector<Verdict> &Verdicts) {
  std::ostringstream OS;
  OS << "# kfuse tune report\n\n"
     << "Device: " << R.Device << " (sm_" << R.Sm << "), CUDA driver API " << R.DriverApi
     << ", runtime " << R.Runtime << ", input seed " << R.Seed << ".\n";
  for (size_t I = 0; I < R.Fusions.size(); ++I) {
    const FusionResult &F = R.Fusions[I];
    const Verdict &V = Verdicts[I];
    OS << "\n## " << F.Fusion << "\n\n"
       << "Variants compiled in " << fixed(F.CompileSeconds, 1) << " s. Verdict: **"
       << (V.Fuse ? "fuse" : "keep the original launches") << "**: " << V.Reason << ".\n\n"
       << "![" << F.Fusion << ": median time per candidate](" << chartFileName(F) << ")\n\n"
       << "| candidate | threads | median ms | IQR/2 | vs native best | regs | spill B | "
          "blocks/SM | valid |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const CandidateResult &C : F.Candidates) {
      OS << "| " << C.Name << " | " << threads(C) << " | "
         << (C.Median > 0 ? fixed(C.Median, 4) : "-") << " | " << fixed(100 * C.noise(), 1)
         << "% | "
         << (C.Median > 0 && V.NativeBest ? fixed(V.NativeBest->Median / C.Median, 3) + "x"
                                           : "-")
         << " | " << fused(C, C.Registers) << " | " << fused(C, C.SpillBytes) << " | "
         << fused(C, C.BlocksPerSm) << " | "
         << (C.Valid ? "yes" : C.Error.empty() ? std::to_string(C.Mismatches) + " differ"
                                               : C.Error)
         << " |\n";
    }
  }
  return OS.str();
}

std::string printTuningYaml(const TuneResults &R, const std::vector<Verdict> &Verdicts) {
  YAML::Emitter E;
  E << YAML::BeginMap << YAML::Key << "device" << YAML::Value << R.Device;
  E << YAML::Key << "driver_api" << YAML::Value << R.DriverApi;
  E << YAML::Key << "runtime" << YAML::Value << R.Runtime;
  E << YAML::Key << "fusions" << YAML::Value << YAML::BeginSeq;
  for (size_t I = 0; I < R.Fusions.size(); ++I) {
    const FusionResult &F = R.Fusions[I];
    const Verdict &V = Verdicts[I];
    E << YAML::BeginMap << YAML::Key << "fusion" << YAML::Value << F.Fusion;
    E << YAML::Key << "verdict" << YAML::Value << (V.Fuse ? "fuse" : "keep-native");
    if (V.Fastest)
      E << YAML::Key << "winner" << YAML::Value << (V.Fuse ? V.Fastest->Name : V.NativeBest->Name);
    E << YAML::Key << "speedup" << YAML::Value << V.Speedup;
    E << YAML::Key << "noise" << YAML::Value << V.Noise;
    E << YAML::Key << "reason" << YAML::Value << V.Reason;
    E << YAML::Key << "candidates" << YAML::Value << YAML::BeginSeq;
    for (const CandidateResult &C : F.Candidates) {
      E << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << C.Name
        << YAML::Key << "kind" << YAML::Value << C.Kind << YAML::Key << "valid" << YAML::Value
        << C.Valid << YAML::Key << "median_ms" << YAML::Value << C.Median << YAML::Key
        << "p25_ms" << YAML::Value << C.P25 << YAML::Key << "p75_ms" << YAML::Value << C.P75;
      if (!C.native() && !C.alone())
        E << YAML::Key << "registers" << YAML::Value << C.Registers << YAML::Key << "spill_bytes"
          << YAML::Value << C.SpillBytes << YAML::Key << "blocks_per_sm" << YAML::Value
          << C.BlocksPerSm << YAML::Key << "min_blocks_per_sm" << YAML::Value
          << C.MinBlocksPerSm << YAML::Key << "grid" << YAML::Value << gridModeName(C.Grid)
          << YAML::Key << "waves" << YAML::Value << C.Waves;
      E << YAML::EndMap;
    }
    E << YAML::EndSeq << YAML::EndMap;
  }
  E << YAML::EndSeq << YAML::EndMap;
  return std::string(E.c_str()) + "\n";
}

} // namespace kfuse

//===- TuningReportPrinter.cpp - tuning-report.md and tuning.yaml ---------===//

#include "kfuse/Emission/TuningReports.h"

#include "kfuse/Tuning/Format.h"

#include "llvm/ADT/StringExtras.h"

#include <yaml-cpp/yaml.h>

#include <sstream>

namespace kfuse {

namespace {

/// A property of fused variants only.
std::string fused(const CandidateResult &C, int Value) {
  return C.native() || C.alone() ? "" : std::to_string(Value);
}

/// A variant's registers; with registers per warpgroup, the count it starts
/// with and each kernel's: "40 (32/48)".
std::string registers(const CandidateResult &C) {
  std::string S = fused(C, C.Registers);
  const std::vector<unsigned> &Counts = C.Layout.SectionRegisters;
  if (Counts.empty())
    return S;
  S += " (";
  for (size_t I = 0; I < Counts.size(); ++I)
    S += (I ? "/" : "") + std::to_string(Counts[I]);
  return S + ")";
}

std::string threads(const CandidateResult &C) {
  std::string S;
  for (unsigned T : C.Layout.Threads)
    S += (S.empty() ? "" : "/") + std::to_string(T);
  return S;
}

} // namespace

std::string printReport(const TuneResults &R, const std::vector<Verdict> &Verdicts) {
  std::ostringstream OS;
  OS << "# kfuse tune report\n\n"
     << "Device: " << R.Device << " (sm_" << R.Sm << "), CUDA driver API " << R.DriverApi
     << ", runtime " << R.Runtime << ", input seed " << R.Seed << ".\n";
  const bool Spread = R.Gpus.size() > 1;
  if (Spread)
    OS << "The fusions were spread over " << R.Gpus.size() << " GPUs of this model ("
       << llvm::join(R.Gpus, ", ") << "), one fusion per GPU at a time.\n";
  for (size_t I = 0; I < R.Fusions.size(); ++I) {
    const FusionResult &F = R.Fusions[I];
    const Verdict &V = Verdicts[I];
    OS << "\n## " << F.Fusion << "\n\n"
       << "Variants compiled in " << fixed(F.CompileSeconds, 1) << " s"
       << (Spread && !F.Gpu.empty() ? ", measured on GPU " + F.Gpu : "") << ". Verdict: **"
       << (V.Fuse ? "fuse" : "keep the original launches") << "**: " << V.Reason << ".\n\n"
       << "![" << F.Fusion << ": median time per candidate](" << chartFileName(F) << ")\n\n"
       << "| candidate | threads | median ms | IQR/2 | vs native best | regs | spill B | "
          "blocks/SM | valid |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const CandidateResult &C : F.Candidates) {
      OS << "| " << C.Name << " | " << threads(C) << " | "
         << (C.Median > 0 ? fixed(C.Median, 4) : "-") << " | " << fixed(100 * C.noise(), 1)
         << "% | "
         << (C.Median > 0 && V.NativeBest ? fixed(V.NativeBest->Median / C.Median, 3) + "x" : "-")
         << " | " << registers(C) << " | " << fused(C, C.SpillBytes) << " | "
         << fused(C, C.BlocksPerSm) << " | "
         << (C.Valid           ? "yes"
             : C.Error.empty() ? std::to_string(C.Mismatches) + " differ"
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
    // A fused variant may be measured where no native launch was.
    if (const CandidateResult *Winner = V.Fuse ? V.Fastest : V.NativeBest)
      E << YAML::Key << "winner" << YAML::Value << Winner->Name;
    E << YAML::Key << "speedup" << YAML::Value << V.Speedup;
    E << YAML::Key << "noise" << YAML::Value << V.Noise;
    E << YAML::Key << "reason" << YAML::Value << V.Reason;
    E << YAML::Key << "candidates" << YAML::Value << YAML::BeginSeq;
    for (const CandidateResult &C : F.Candidates) {
      E << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << C.Name << YAML::Key
        << "kind" << YAML::Value << candidateKindName(C.Kind) << YAML::Key << "valid" << YAML::Value
        << C.Valid << YAML::Key << "median_ms" << YAML::Value << C.Median << YAML::Key << "p25_ms"
        << YAML::Value << C.P25 << YAML::Key << "p75_ms" << YAML::Value << C.P75;
      if (!C.native() && !C.alone())
        E << YAML::Key << "registers" << YAML::Value << C.Registers << YAML::Key << "spill_bytes"
          << YAML::Value << C.SpillBytes << YAML::Key << "blocks_per_sm" << YAML::Value
          << C.BlocksPerSm << YAML::Key << "min_blocks_per_sm" << YAML::Value
          << C.Layout.MinBlocksPerSm.value_or(0) << YAML::Key << "grid" << YAML::Value
          << gridModeName(C.Layout.Grid) << YAML::Key << "waves" << YAML::Value << C.Layout.Waves;
      if (C.Layout.Registers == RegisterPolicy::PerWarpgroup)
        E << YAML::Key << "entry_registers" << YAML::Value << C.Layout.EntryRegisters.value_or(0)
          << YAML::Key << "warpgroup_registers" << YAML::Value << YAML::Flow
          << C.Layout.SectionRegisters;
      E << YAML::EndMap;
    }
    E << YAML::EndSeq << YAML::EndMap;
  }
  E << YAML::EndSeq << YAML::EndMap;
  return std::string(E.c_str()) + "\n";
}

} // namespace kfuse

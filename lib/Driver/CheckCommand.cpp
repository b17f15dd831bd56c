//===- CheckCommand.cpp - `kfuse check CONFIG` ----------------------------===//
//
// Everything `kfuse fuse` would do up to printing: every legality check and
// every rewrite, so refusals that only a rewrite finds (a name in a macro
// body, a helper whose spelling another file's macro fixes) show too, and
// with --rewrite-launches every refusal of the launch rewrite. It writes
// nothing, so a build or CI can run it in advance.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Driver/Commands.h"
#include "kfuse/Pipeline/Pipeline.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include "kfuse/Config/Config.h"

namespace kfuse {

namespace {

/// `kfuse check --format=json`: each fusion's verdict, and every diagnostic
/// with its id and place, as one document.
void printJson(const CheckRequest &Request, const FusedFile *File,
               const std::vector<FusionVerdict> &Verdicts, const Reporter &Diags,
               llvm::raw_ostream &Out) {
  llvm::json::OStream J(Out, 2);
  J.object([&] {
    J.attribute("config", Request.ConfigPath);
    J.attribute("fuses", File != nullptr);
    J.attributeArray("fusions", [&] {
      for (const FusionVerdict &V : Verdicts)
        J.object([&] {
          J.attribute("name", V.Fusion);
          // Without errors in the whole config, fuse writes it; with some,
          // whether it would fuse on its own.
          J.attribute("fuses", V.Fuses);
          J.attribute("alternative", V.Alternative);
          if (!File)
            return;
          for (const FusedKernel &K : File->Kernels)
            if (K.Fusion == V.Fusion) {
              J.attribute("kernels", static_cast<int64_t>(K.Sections.size()));
              J.attribute("threads_per_block", static_cast<int64_t>(K.BlockThreads));
              J.attribute("grid", gridModeName(K.Layout.Grid));
            }
        });
    });
    J.attributeArray("diagnostics", [&] {
      for (const DiagnosticRecord &D : Diags.records())
        J.object([&] {
          J.attribute("severity", D.Severity);
          J.attribute("id", D.Id);
          J.attribute("file", D.File);
          J.attribute("line", static_cast<int64_t>(D.Line));
          J.attribute("column", static_cast<int64_t>(D.Column));
          J.attribute("message", D.Message);
        });
    });
  });
  Out << "\n";
}

/// The diagnostics as a SARIF 2.1.0 log, as `clang -fdiagnostics-format=sarif`
/// writes one: a rule per kfuse id, a result per diagnostic, its notes as
/// related locations.
void printSarif(const Reporter &Diags, llvm::raw_ostream &Out) {
  const std::vector<DiagnosticRecord> &All = Diags.records();
  std::vector<std::string> Rules;
  for (const DiagnosticRecord &D : All)
    if (!D.Id.empty() && !llvm::is_contained(Rules, D.Id))
      Rules.push_back(D.Id);
  llvm::json::OStream J(Out, 2);
  auto Location = [&](const DiagnosticRecord &D) {
    J.object([&] {
      J.attributeObject("physicalLocation", [&] {
        J.attributeObject("artifactLocation", [&] {
          llvm::SmallString<256> Absolute(D.File);
          llvm::sys::fs::make_absolute(Absolute);
          J.attribute("uri", "file://" + std::string(Absolute));
        });
        if (D.Line)
          J.attributeObject("region", [&] {
            J.attribute("startLine", static_cast<int64_t>(D.Line));
            J.attribute("startColumn", static_cast<int64_t>(D.Column));
          });
      });
    });
  };
  auto Result = [&](size_t I) {
    const DiagnosticRecord &D = All[I];
    J.object([&] {
      if (!D.Id.empty()) {
        J.attribute("ruleId", D.Id);
        J.attribute("ruleIndex", static_cast<int64_t>(llvm::find(Rules, D.Id) - Rules.begin()));
      }
      J.attribute("level", D.Severity == "remark" ? "note" : D.Severity);
      J.attributeObject("message", [&] { J.attribute("text", D.Message); });
      J.attributeArray("locations", [&] {
        if (!D.File.empty())
          Location(D);
      });
      J.attributeArray("relatedLocations", [&] {
        for (size_t N = I + 1; N < All.size() && All[N].Severity == "note"; ++N)
          if (!All[N].File.empty())
            Location(All[N]);
      });
    });
  };
  J.object([&] {
    J.attribute(
        "$schema",
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json");
    J.attribute("version", "2.1.0");
    J.attributeArray("runs", [&] {
      J.object([&] {
        J.attributeObject("tool", [&] {
          J.attributeObject("driver", [&] {
            J.attribute("name", "kfuse");
            J.attribute("version", Version);
            J.attributeArray("rules", [&] {
              for (const std::string &Id : Rules)
                J.object([&] { J.attribute("id", Id); });
            });
          });
        });
        J.attributeArray("results", [&] {
          for (size_t I = 0; I < All.size(); ++I)
            if (All[I].Severity != "note") // With the result before it.
              Result(I);
        });
      });
    });
  });
  Out << "\n";
}

} // namespace

int runCheck(const ParseSettings &Settings, const CheckRequest &Request, Reporter &Diags,
             llvm::raw_ostream &Out) {
  FusionInput Input;
  Input.ConfigPath = Request.ConfigPath;
  Input.Fusion = Request.Fusion;
  Input.Tuning = Request.Tuning;
  if (Request.RewriteLaunches) {
    // In place, so the launches of a header count; the header's name only
    // spells the #include.
    HostRewriteTarget &Target = Input.RewriteLaunches.emplace();
    Target.Header = (llvm::sys::path::stem(Request.ConfigPath) + ".fused.h").str();
    Target.Config = Request.ConfigPath;
  }
  std::vector<FusionVerdict> Verdicts;
  std::optional<FusionOutput> Fused = fuseConfig(Settings, Input, Diags, &Verdicts);
  if (Request.Output == CheckOutput::Json) {
    printJson(Request, Fused ? &Fused->File : nullptr, Verdicts, Diags, Out);
    return Fused ? 0 : 1;
  }
  if (Request.Output == CheckOutput::Sarif) {
    printSarif(Diags, Out);
    return Fused ? 0 : 1;
  }
  if (!Fused) {
    // Which fusions the errors above stop, and which would fuse on their own.
    for (const FusionVerdict &V : Verdicts)
      Out << "kfuse: fusion '" << V.Fusion << "' "
          << (V.Fuses ? "can be fused on its own" : "cannot be fused: see the errors above")
          << "\n";
    return 1;
  }
  for (const FusedKernel &K : Fused->File.Kernels) {
    bool Alternative = llvm::any_of(
        Verdicts, [&](const FusionVerdict &V) { return V.Fusion == K.Fusion && V.Alternative; });
    Out << "kfuse: fusion '" << K.Fusion << "' can be fused: " << K.Sections.size() << " kernels, "
        << K.BlockThreads << " threads per block, grid '" << gridModeName(K.Layout.Grid) << "'"
        << (Alternative ? "; an alternative, whose launches fuse rewrites only where tuning "
                          "prefers it"
                        : "")
        << "\n";
  }
  return 0;
}

} // namespace kfuse

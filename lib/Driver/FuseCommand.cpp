//===- FuseCommand.cpp - `kfuse fuse CONFIG` ------------------------------===//

#include "kfuse/Driver/Commands.h"
#include "kfuse/Pipeline/Pipeline.h"

#include "Outputs.h"
#include "Support.h"
#include "kfuse/Pipeline/FusionPipeline.h"

#include "kfuse/Analysis/Host/KernelLaunches.h"
#include "kfuse/Analysis/Host/LaunchRewrites.h"
#include "kfuse/Analysis/Kernel/FusionLegality.h"
#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Config/Config.h"
#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Emission/Depfile.h"
#include "kfuse/Emission/FusedFilePrinter.h"
#include "kfuse/Emission/UnifiedDiff.h"
#include "kfuse/Frontend/SourceParser.h"
#include "kfuse/Plan/GridChoice.h"
#include "kfuse/Plan/PartitionPlan.h"
#include "kfuse/Transforms/HorizontalFuser.h"
#include "kfuse/Transforms/LaunchRewriter.h"
#include "kfuse/Transforms/PreambleExtractor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

namespace kfuse {
namespace {

using diag::ID;

/// The files under `replace:` that the selected fusions read, absolute.
int replacedFiles(const Config &C, const std::vector<const FusionSpec *> &Fusions,
                  llvm::raw_ostream &Out) {
  std::vector<std::string> Files;
  for (const FusionSpec *F : Fusions)
    for (const std::string &Id : C.kernelsOf(*F)) {
      const std::string &File = C.findKernel(Id)->ResolvedFile;
      std::string Path = absolutePath(File);
      if (C.replaces(File) && !llvm::is_contained(Files, Path))
        Files.push_back(Path);
    }
  for (const std::string &F : Files)
    Out << F << "\n";
  return 0;
}

class FuseCommand {
public:
  FuseCommand(const ParseSettings &Settings, const FuseRequest &Request, Reporter &Diags)
      : Settings(Settings), Request(Request), Diags(Diags) {}

  int run(llvm::raw_ostream &Out) {
    if (Request.ListReplaced || Request.ListRewritten)
      return listFiles(Out);
    // Every file or none: the header, the fused file, the depfile and the
    // rewritten host files; the config and the measurements as they are
    // before the run reads them.
    OutputTransaction Files(Diags);
    std::vector<std::string> Read = {absolutePath(Request.ConfigPath)};
    if (Request.Tuning)
      Read.push_back(absolutePath(*Request.Tuning));
    Files.addInputs(Read);
    std::string OutputPath = outputPath();
    if (Request.Depfile && OutputPath == "-") {
      Diags.report(ID::DepfileNeedsOutput);
      return 1;
    }
    FusionInput Input;
    Input.ConfigPath = Request.ConfigPath;
    Input.Fusion = Request.Fusion;
    Input.Tuning = Request.Tuning;
    Input.OutputDir = directoryOf(OutputPath == "-" ? "" : OutputPath);
    if (Request.Header)
      Input.LauncherHeader = relativePath(*Request.Header, Input.OutputDir);
    if (Request.Rewrite) {
      if (!Request.Header) {
        Diags.report(ID::RewriteNeedsHeader);
        return 1;
      }
      // The rewritten files include the header by a path relative to them.
      if (size_t Bad = Request.Header->find_first_of("\"\n\r"); Bad != std::string::npos) {
        Diags.report(ID::HeaderPathUnwritable)
            << *Request.Header << *Request.Header
            << ((*Request.Header)[Bad] == '"' ? "a double quote" : "a line break");
        return 1;
      }
      HostRewriteTarget &Target = Input.RewriteLaunches.emplace();
      Target.Header = *Request.Header;
      Target.Config = Request.ConfigPath;
      if (*Request.Rewrite == RewriteOutput::Copies)
        Target.CopyDir = Request.RewriteDir.value_or(
            (llvm::Twine(Input.OutputDir) + llvm::sys::path::get_separator() + "rewritten").str());
    }
    std::optional<FusionOutput> Fused = fuseConfig(Settings, Input, Diags);
    if (!Fused)
      return 1;
    const FusedFile &File = Fused->File;
    std::string Header;
    if (Request.Header)
      Header = launcherHeader(File, *Request.Header);
    if (Diags.errorCount() != 0)
      return 1;

    std::string Text = printFusedFile(File);
    std::string Diff;
    if (!stageHosts(*Fused, Input, Files, Diff))
      return 1;
    if (Request.Header)
      Files.stage(*Request.Header, Header);
    if (OutputPath != "-")
      Files.stage(OutputPath, Text);
    if (Request.Depfile)
      // Make syntax: the output, named as on the command line (Make matches
      // targets by name), depends on every file the run read.
      Files.stage(*Request.Depfile, printDepfile(OutputPath, Fused->Read));
    // The diff is part of what the run writes: a stream that cannot take it
    // stops the run before any file changes.
    if (!Diff.empty() && !printed(Out, Diff))
      return 1;
    if (!Files.commit())
      return 1;
    if (OutputPath == "-") {
      Out << Text;
      return 0;
    }
    for (const FusedKernel &K : File.Kernels)
      llvm::errs() << "kfuse: wrote fusion '" << K.Fusion << "' (" << K.Sections.size()
                   << " kernels, " << K.BlockThreads << " threads per block) to " << OutputPath
                   << "\n";
    return 0;
  }

private:
  const ParseSettings &Settings;
  const FuseRequest &Request;
  Reporter &Diags;

  /// Writes \p Text to \p Out, or reports why the stream took none of it.
  bool printed(llvm::raw_ostream &Out, llvm::StringRef Text) {
    Out << Text;
    Out.flush();
    // Only the stream on a file descriptor can fail (a test's string cannot).
    if (&Out != &llvm::outs())
      return true;
    llvm::raw_fd_ostream &File = llvm::outs();
    if (!File.has_error())
      return true;
    Diags.report(ID::OutputStreamFailed) << "standard output" << File.error().message();
    File.clear_error();
    return false;
  }

  std::string outputPath() const {
    if (Request.Output)
      return *Request.Output;
    return llvm::sys::path::stem(Request.ConfigPath).str() + ".fused.cu";
  }

  /// Stages each rewritten host file as the request asks, or prints its
  /// diff into \p Diff; adds the run's inputs, less the files -i rewrites.
  bool stageHosts(const FusionOutput &Fused, const FusionInput &Input, OutputTransaction &Files,
                  std::string &Diff) {
    std::vector<std::string> Inputs = Fused.Read;
    for (const RewrittenHost &H : Fused.Hosts) {
      switch (*Request.Rewrite) {
      case RewriteOutput::Copies:
        Files.stage(copyPath(H.File, *Input.RewriteLaunches), H.Text);
        break;
      case RewriteOutput::Diff:
        Diff += printUnifiedDiff(relativePath(H.File, "."), H.Original, H.Text);
        break;
      case RewriteOutput::InPlace: {
        // A link replaced by a file would no longer be a link.
        if (llvm::sys::fs::is_symlink_file(H.File)) {
          llvm::SmallString<256> Real;
          llvm::sys::fs::real_path(H.File, Real);
          Diags.report(ID::RewriteInPlaceLink) << H.File << std::string(Real);
          return false;
        }
        llvm::erase(Inputs, H.File);
        Files.stageBackup(H.File + ".orig", H.File, H.Original);
        Files.stage(H.File, H.Text);
        break;
      }
      }
    }
    Files.addInputs(Inputs, Fused.ReadHashes);
    return true;
  }

  int listFiles(llvm::raw_ostream &Out) {
    std::optional<Config> C = readConfigFile(Request.ConfigPath, Diags);
    if (!C)
      return 1;
    std::vector<const FusionSpec *> Fusions = selectFusions(*C, Request.Fusion, Diags);
    if (Fusions.empty())
      return 1;
    if (Request.ListReplaced)
      return replacedFiles(*C, Fusions, Out);
    return rewrittenFiles(*C, Fusions, Out);
  }

  /// The host files --rewrite-launches rewrites for the selected fusions,
  /// absolute.
  int rewrittenFiles(const Config &C, const std::vector<const FusionSpec *> &Fusions,
                     llvm::raw_ostream &Out) {
    std::vector<std::string> Files;
    for (const FusionSpec *F : Fusions) {
      std::optional<std::string> Host = hostFileOf(C, *F, /*Copies=*/false, Diags);
      if (!Host)
        return 1;
      std::string Path = absolutePath(*Host);
      if (!llvm::is_contained(Files, Path))
        Files.push_back(Path);
    }
    for (const std::string &F : Files)
      Out << F << "\n";
    return 0;
  }

  /// The header's text, or empty after reporting a parameter type it cannot
  /// name.
  std::string launcherHeader(const FusedFile &File, const std::string &Path) {
    std::string Dir = directoryOf(Path);
    std::vector<std::string> Includes;
    std::vector<diag::Problem> Problems;
    for (const FusedKernel &K : File.Kernels)
      for (const FusedSection &S : K.Sections)
        for (const FusedParam &P : S.Params) {
          const PortableParam &Q = P.Portable;
          for (const std::string &H : Q.Headers) {
            std::string Directive = H.front() == '<' ? H : "\"" + relativePath(H, Dir) + "\"";
            if (!llvm::is_contained(Includes, Directive))
              Includes.push_back(Directive);
          }
        }
    std::string Guard =
        "KFUSE_" + llvm::StringRef(identifierFrom(llvm::sys::path::filename(Path))).upper();
    return printLauncherHeader(File, Guard, Includes);
  }
};

} // namespace

int runFuse(const ParseSettings &Settings, const FuseRequest &Request, Reporter &Diags,
            llvm::raw_ostream &Out) {
  return FuseCommand(Settings, Request, Diags).run(Out);
}

} // namespace kfuse

//===- Reporter.h - printing kfuse diagnostics through Clang ---*- C++ -*-===//
//
// Every kfuse message goes through Clang's DiagnosticsEngine, so it looks
// like a compiler's: "file:line:col: error: message [kfuse-id]", with the
// source line and a caret. The same printer shows the parser's own errors.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_DIAGNOSTICS_REPORTER_H
#define KFUSE_DIAGNOSTICS_REPORTER_H

#include "kfuse/Diagnostics/DiagnosticIds.h"
#include "kfuse/Diagnostics/InputFiles.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kfuse {

/// A diagnostic as data, for tools (`kfuse check --format=json`).
struct DiagnosticRecord {
  std::string Severity; ///< "error", "warning", "note" or "remark".
  std::string Id;       ///< "kfuse-rewrite-overlap"; empty for Clang's own.
  std::string File;     ///< Empty for one that belongs to no file.
  unsigned Line = 0, Column = 0;
  std::string Message; ///< Without the id.
};

/// How the reporter gives what it reports: printed as Clang prints, or kept
/// as records for the caller to print.
enum class DiagnosticFormat { Text, Records };

class Reporter {
public:
  /// Remarks (what kfuse chose for the user, such as the grid) are printed
  /// only when \p Remarks asks for them, as Clang prints them only for -R.
  explicit Reporter(llvm::raw_ostream &OS, bool Remarks = false,
                    DiagnosticFormat Format = DiagnosticFormat::Text);
  ~Reporter();
  Reporter(const Reporter &) = delete;
  Reporter &operator=(const Reporter &) = delete;

  /// Starts a diagnostic at a location of any source manager (an AST's or
  /// the one holding config files). Add arguments with <<.
  clang::DiagnosticBuilder report(clang::SourceLocation Loc, clang::SourceManager &SM, diag::ID Id);
  /// Starts a diagnostic that belongs to no file.
  clang::DiagnosticBuilder report(diag::ID Id);
  /// Prints problems found in a file kfuse read itself (a config), pointing
  /// into that file when it can be read.
  void report(const std::vector<diag::Problem> &Problems, llvm::StringRef File);

  /// Prints diagnostics a parser produced earlier, whose locations belong to
  /// \p SM (null when none has a location).
  void replay(const std::vector<clang::StoredDiagnostic> &Diagnostics, clang::SourceManager *SM);

  /// The consumer that prints everything; hand it to parsers so their
  /// errors look the same.
  clang::DiagnosticConsumer &consumer();
  unsigned errorCount() const;
  /// Refusals reported so far, in order, printed as errors or as warnings.
  unsigned refusalCount() const { return static_cast<unsigned>(Refusals.size()); }
  const std::vector<diag::ID> &refusals() const { return Refusals; }
  /// Prints refusals as warnings from now on: `kfuse list` warns of what
  /// would refuse a fusion, and fails only on errors of its own.
  void refusalsAsWarnings();
  /// With DiagnosticFormat::Records: everything reported, in order.
  const std::vector<DiagnosticRecord> &records() const { return Records; }

private:
  clang::DiagnosticsEngine &engineFor(clang::SourceManager *SM);
  void beginReport();
  unsigned customId(diag::ID Id);

  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> Ids;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> Options;
  std::unique_ptr<clang::DiagnosticConsumer> Printer;
  std::map<diag::ID, unsigned> CustomIds;
  bool Remarks;
  bool RefusalWarnings = false;
  std::vector<diag::ID> Refusals;
  std::vector<DiagnosticRecord> Records;
  std::map<unsigned, const char *> StableIds; ///< By the engine's custom id.
  // Files kfuse reads itself, so their problems can point into them.
  clang::FileManager Files;
  std::unique_ptr<clang::DiagnosticsEngine> FileDiags;
  std::unique_ptr<clang::SourceManager> FileSources;
};

} // namespace kfuse

#endif

//===- Reporter.cpp - printing kfuse diagnostics through Clang ------------===//

#include "kfuse/Diagnostics/Reporter.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/Support/FileSystem.h"

#include <unistd.h>

namespace kfuse {

namespace {

/// Keeps each diagnostic as a record instead of printing it.
class RecordingConsumer : public clang::DiagnosticConsumer {
public:
  RecordingConsumer(std::vector<DiagnosticRecord> &Records,
                    const std::map<unsigned, const char *> &StableIds)
      : Records(Records), StableIds(StableIds) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info); // Counts errors.
    DiagnosticRecord R;
    R.Severity = severity(Level);
    if (auto It = StableIds.find(Info.getID()); It != StableIds.end())
      R.Id = It->second;
    llvm::SmallString<256> Message;
    Info.FormatDiagnostic(Message);
    R.Message = Message.str().str();
    std::string Suffix = " [" + R.Id + "]";
    if (!R.Id.empty() && llvm::StringRef(R.Message).ends_with(Suffix))
      R.Message.resize(R.Message.size() - Suffix.size());
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      const clang::SourceManager &SM = Info.getSourceManager();
      clang::PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Info.getLocation()));
      if (P.isValid()) {
        R.File = P.getFilename();
        R.Line = P.getLine();
        R.Column = P.getColumn();
      }
    }
    Records.push_back(std::move(R));
  }

private:
  std::vector<DiagnosticRecord> &Records;
  const std::map<unsigned, const char *> &StableIds;

  static const char *severity(clang::DiagnosticsEngine::Level Level) {
    switch (Level) {
    case clang::DiagnosticsEngine::Note:
      return "note";
    case clang::DiagnosticsEngine::Remark:
      return "remark";
    case clang::DiagnosticsEngine::Warning:
      return "warning";
    default:
      return "error";
    }
  }
};

} // namespace

Reporter::Reporter(llvm::raw_ostream &OS, bool Remarks, DiagnosticFormat Format)
    : Ids(new clang::DiagnosticIDs()), Options(new clang::DiagnosticOptions()), Remarks(Remarks),
      Files(clang::FileSystemOptions()) {
  Options->ShowColors = OS.has_colors();
  if (Format == DiagnosticFormat::Records)
    Printer = std::make_unique<RecordingConsumer>(Records, StableIds);
  else
    Printer = std::make_unique<clang::TextDiagnosticPrinter>(OS, Options.get());
  FileDiags = std::make_unique<clang::DiagnosticsEngine>(Ids, Options, Printer.get(),
                                                         /*ShouldOwnClient=*/false);
  FileSources = std::make_unique<clang::SourceManager>(*FileDiags, Files);
  Printer->BeginSourceFile(clang::LangOptions(), nullptr);
}

Reporter::~Reporter() { Printer->EndSourceFile(); }

clang::DiagnosticConsumer &Reporter::consumer() { return *Printer; }

unsigned Reporter::errorCount() const { return Printer->getNumErrors(); }

clang::DiagnosticsEngine &Reporter::engineFor(clang::SourceManager *SM) {
  // One engine for every file, so that a note follows the error it explains
  // even when they point into different files.
  if (SM)
    FileDiags->setSourceManager(SM);
  return *FileDiags;
}

namespace {

struct DiagInfo {
  clang::DiagnosticIDs::Level Level;
  const char *StableId;
  const char *Format;
};

constexpr DiagInfo Table[] = {
#define KFUSE_DIAG(Name, Level, StableId, Format) {clang::DiagnosticIDs::Level, StableId, Format},
#include "kfuse/Diagnostics/Diagnostics.def"
};

} // namespace

unsigned Reporter::customId(diag::ID Id) {
  auto It = CustomIds.find(Id);
  if (It != CustomIds.end())
    return It->second;
  const DiagInfo &Info = Table[static_cast<unsigned>(Id)];
  std::string Format = Info.Format;
  if (*Info.StableId)
    Format += std::string(" [") + Info.StableId + "]";
  clang::DiagnosticIDs::Level Level = Info.Level;
  if (Level == clang::DiagnosticIDs::Remark && !Remarks)
    Level = clang::DiagnosticIDs::Ignored;
  if (RefusalWarnings && diag::isRefusal(Id))
    Level = clang::DiagnosticIDs::Warning;
  unsigned Custom = Ids->getCustomDiagID(Level, Format);
  CustomIds[Id] = Custom;
  if (*Info.StableId)
    StableIds[Custom] = Info.StableId;
  return Custom;
}

void Reporter::beginReport() {
  // The printer remembers the last location it printed, and a parse ends its
  // source file; begin afresh so locations of another source manager are safe.
  Printer->BeginSourceFile(clang::LangOptions(), nullptr);
}

clang::DiagnosticBuilder Reporter::report(clang::SourceLocation Loc, clang::SourceManager &SM,
                                          diag::ID Id) {
  beginReport();
  if (diag::isRefusal(Id))
    Refusals.push_back(Id);
  return engineFor(&SM).Report(Loc, customId(Id));
}

clang::DiagnosticBuilder Reporter::report(diag::ID Id) {
  beginReport();
  if (diag::isRefusal(Id))
    Refusals.push_back(Id);
  return engineFor(nullptr).Report(customId(Id));
}

void Reporter::refusalsAsWarnings() {
  RefusalWarnings = true;
  CustomIds.clear();
}

void Reporter::replay(const std::vector<clang::StoredDiagnostic> &Diagnostics,
                      clang::SourceManager *SM) {
  for (const clang::StoredDiagnostic &D : Diagnostics) {
    beginReport();
    engineFor(SM).Report(D);
  }
}

void Reporter::report(const std::vector<diag::Problem> &Problems, llvm::StringRef File) {
  clang::FileID FID;
  if (llvm::Expected<clang::FileEntryRef> Entry = Files.getFileRef(File))
    FID = FileSources->getOrCreateFileID(*Entry, clang::SrcMgr::C_User);
  else
    llvm::consumeError(Entry.takeError());
  for (const diag::Problem &P : Problems) {
    clang::SourceLocation Loc;
    if (FID.isValid() && P.Line > 0)
      Loc = FileSources->translateLineCol(FID, P.Line, std::max(1u, P.Column));
    clang::DiagnosticBuilder B = Loc.isValid() ? report(Loc, *FileSources, P.Id) : report(P.Id);
    for (const std::string &A : P.Args)
      B << A;
  }
}

} // namespace kfuse

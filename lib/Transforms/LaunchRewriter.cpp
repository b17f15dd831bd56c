//===- LaunchRewriter.cpp - host code that calls the fused launchers ------===//

#include "kfuse/Transforms/LaunchRewriter.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

namespace kfuse {

using namespace clang;

namespace {

namespace fs = std::filesystem;

std::string absoluteOf(const std::string &Path) {
  return fs::absolute(fs::path(Path)).lexically_normal().generic_string();
}

std::string relativeTo(const std::string &Path, const std::string &Dir) {
  return fs::path(absoluteOf(Path)).lexically_relative(absoluteOf(Dir)).generic_string();
}

/// The whitespace that starts the line holding \p Offset.
std::string indentAt(llvm::StringRef Text, unsigned Offset) {
  size_t Start = Text.rfind('\n', Offset);
  Start = Start == llvm::StringRef::npos ? 0 : Start + 1;
  size_t End = Start;
  while (End < Text.size() && (Text[End] == ' ' || Text[End] == '\t'))
    ++End;
  return Text.substr(Start, End - Start).str();
}

/// "'a', 'b' and 'c'".
std::string listed(const std::vector<std::string> &Names) {
  std::string Out;
  for (size_t I = 0; I < Names.size(); ++I)
    Out += (I == 0 ? "" : I + 1 == Names.size() ? " and " : ", ") + ("'" + Names[I] + "'");
  return Out;
}

class FileRewriter {
public:
  FileRewriter(ASTUnit &Unit, const HostRewriteTarget &Target)
      : SM(Unit.getSourceManager()), Target(Target),
        Path(absoluteOf(SM.getFileEntryRefForID(SM.getMainFileID())->getName().str())),
        Text(SM.getBufferData(SM.getMainFileID())) {}

  void add(const LaunchGroup &G, const FusedKernel &K) {
    replaceGroup(G, K);
    const Decl *Outer = G.Launches.front().Caller;
    while (!isa<TranslationUnitDecl>(Outer->getDeclContext()))
      Outer = cast<Decl>(Outer->getDeclContext());
    unsigned Offset = SM.getFileOffset(SM.getExpansionLoc(Outer->getBeginLoc()));
    FirstCaller = std::min(FirstCaller, aboveComments(lineStart(Offset)));
  }

  RewrittenHost finish() {
    std::string Dir = rewrittenDirectory(Path, Target);
    std::string Include = "#include \"" + relativeTo(Target.Header, Dir) + "\" " +
                          LauncherIncludeComment + Target.Config + ")\n";
    Edits.push_back({FirstCaller, 0, Include});
    if (!Target.CopyDir.empty())
      repointIncludes(Dir);
    // Edits never overlap: statements, a line before a declaration and
    // include directives are apart.
    std::stable_sort(Edits.begin(), Edits.end(),
                     [](const Edit &A, const Edit &B) { return A.Offset < B.Offset; });
    std::string Out;
    unsigned At = 0;
    for (const Edit &E : Edits) {
      Out += Text.slice(At, E.Offset);
      Out += E.Text;
      At = E.Offset + E.Length;
    }
    Out += Text.substr(At);
    return {Path, Text.str(), std::move(Out)};
  }

private:
  struct Edit {
    unsigned Offset, Length;
    std::string Text;
  };

  SourceManager &SM;
  const HostRewriteTarget &Target;
  std::string Path;
  llvm::StringRef Text;
  std::vector<Edit> Edits;
  unsigned FirstCaller = ~0u;

  /// StringRef::rfind looks before its second argument.
  unsigned lineStart(unsigned Offset) const {
    size_t Start = Text.rfind('\n', Offset);
    return Start == llvm::StringRef::npos ? 0 : static_cast<unsigned>(Start + 1);
  }

  /// The start of the `//` comment lines right above the line at \p Offset,
  /// which document the declaration there.
  unsigned aboveComments(unsigned Offset) const {
    while (Offset > 0) {
      unsigned Above = lineStart(Offset - 1);
      if (!Text.slice(Above, Offset).trim().starts_with("//"))
        break;
      Offset = Above;
    }
    return Offset;
  }

  std::pair<unsigned, unsigned> offsets(CharSourceRange R) const {
    return {SM.getFileOffset(R.getBegin()), SM.getFileOffset(R.getEnd())};
  }

  llvm::StringRef source(CharSourceRange R) const {
    auto [Begin, End] = offsets(R);
    return Text.slice(Begin, End);
  }

  void replaceGroup(const LaunchGroup &G, const FusedKernel &K) {
    auto [Begin, End] = offsets(G.Statements.front());
    std::string Indent = indentAt(Text, Begin);
    std::vector<std::string> Kernels;
    for (const KernelLaunch &L : G.Launches)
      Kernels.push_back(L.KernelName);
    std::string Block;
    llvm::raw_string_ostream OS(Block);
    OS << "{ // kfuse: " << listed(Kernels) << " as one launch where it can (fusion '" << K.Fusion
       << "' of " << Target.Config << ")\n";
    std::vector<std::string> Launch;
    for (size_t I = 0; I < G.Launches.size(); ++I) {
      const KernelLaunch &L = G.Launches[I];
      Launch.push_back("kfuse_launch_" + std::to_string(I + 1));
      OS << Indent << "  const kfuse_launch " << Launch[I] << "{dim3(" << L.Grid.Text << "), dim3("
         << L.Block.Text << "), static_cast<size_t>("
         << (L.Shared.Text.empty() ? "0" : L.Shared.Text) << ")};\n";
    }
    OS << Indent << "  if (" << K.FitsName << "(";
    for (size_t I = 0; I < Launch.size(); ++I)
      OS << (I ? ", " : "") << Launch[I];
    std::string Call = K.LauncherName + "(";
    OS << "))\n" << Indent << "    " << Call;
    // One line per kernel's launch and arguments.
    std::string Continued = ",\n" + Indent + "    " + std::string(Call.size(), ' ');
    for (size_t I = 0; I < G.Launches.size(); ++I) {
      OS << (I ? Continued : "") << Launch[I];
      for (const FusedParam &P : K.Sections[I].Params)
        OS << ", " << G.Launches[I].Args[P.Position].Text;
    }
    const KernelLaunch &First = G.Launches.front();
    OS << ", " << (First.Stream.Text.empty() ? "0" : First.Stream.Text) << ");\n";
    OS << Indent << "  else {\n";
    for (const CharSourceRange &S : G.Statements)
      OS << Indent << "    " << source(S) << "\n";
    OS << Indent << "  }\n" << Indent << "}";
    Edits.push_back({Begin, End - Begin, Block});
    for (size_t I = 1; I < G.Statements.size(); ++I)
      removeStatement(G.Statements[I]);
  }

  /// Removes a statement; with its line when nothing else is on it.
  void removeStatement(CharSourceRange S) {
    auto [Begin, End] = offsets(S);
    unsigned LineBegin = lineStart(Begin);
    size_t LineEnd = Text.find('\n', End);
    bool Alone = Text.slice(LineBegin, Begin).trim().empty() &&
                 (LineEnd == llvm::StringRef::npos || Text.slice(End, LineEnd).trim().empty());
    if (Alone) {
      unsigned Stop = LineEnd == llvm::StringRef::npos ? Text.size() : LineEnd + 1;
      Edits.push_back({LineBegin, Stop - LineBegin, ""});
    } else {
      Edits.push_back({Begin, End - Begin, ""});
    }
  }

  /// A copy elsewhere finds the files it includes in quotes beside the
  /// original only through a path from its own directory.
  void repointIncludes(const std::string &Dir) {
    std::string Origin = fs::path(Path).parent_path().generic_string();
    static const std::regex Directive(R"(^([ \t]*#[ \t]*include[ \t]*")([^"]+)(".*)$)");
    size_t Offset = 0;
    while (Offset < Text.size()) {
      size_t End = Text.find('\n', Offset);
      if (End == llvm::StringRef::npos)
        End = Text.size();
      std::string Line = Text.slice(Offset, End).str();
      std::smatch M;
      if (std::regex_match(Line, M, Directive)) {
        fs::path Beside = fs::path(Origin) / M[2].str();
        std::error_code Ec;
        if (!fs::path(M[2].str()).is_absolute() && fs::is_regular_file(Beside, Ec)) {
          unsigned At = static_cast<unsigned>(Offset + M[1].length());
          Edits.push_back(
              {At, static_cast<unsigned>(M[2].length()), relativeTo(Beside.generic_string(), Dir)});
        }
      }
      Offset = End + 1;
    }
  }
};

} // namespace

std::string rewrittenDirectory(const std::string &File, const HostRewriteTarget &Target) {
  if (!Target.CopyDir.empty())
    return absoluteOf(Target.CopyDir);
  return fs::path(absoluteOf(File)).parent_path().generic_string();
}

std::vector<RewrittenHost> rewriteLaunches(const std::vector<LaunchGroup> &Groups,
                                           const std::vector<const FusedKernel *> &Kernels,
                                           const HostRewriteTarget &Target) {
  std::map<ASTUnit *, std::unique_ptr<FileRewriter>> Files;
  std::vector<ASTUnit *> Order;
  for (size_t I = 0; I < Groups.size(); ++I) {
    std::unique_ptr<FileRewriter> &F = Files[Groups[I].Host];
    if (!F) {
      F = std::make_unique<FileRewriter>(*Groups[I].Host, Target);
      Order.push_back(Groups[I].Host);
    }
    F->add(Groups[I], *Kernels[I]);
  }
  std::vector<RewrittenHost> Out;
  for (ASTUnit *U : Order)
    Out.push_back(Files[U]->finish());
  return Out;
}

} // namespace kfuse

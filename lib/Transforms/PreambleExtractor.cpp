//===- PreambleExtractor.cpp - what fused kernels need from a file --------===//

#include "kfuse/Transforms/PreambleExtractor.h"

#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Transforms/HorizontalFuser.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PreprocessingRecord.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace kfuse {
namespace {

using namespace clang;

class Extractor {
public:
  Extractor(ASTUnit &Unit, std::string OutputDir, const FileRenames &Renames, Reporter &Diags,
            bool KeepKernels)
      : Unit(Unit), SM(Unit.getSourceManager()), Rewriter(SM, Unit.getLangOpts()),
        OutputDir(std::move(OutputDir)), Renames(Renames), Diags(Diags),
        KeepKernels(KeepKernels) {}

  /// What the preamble keeps at namespace scope, without writing it.
  std::map<std::string, SourceLocation> definitions() {
    visitContext(Unit.getASTContext().getTranslationUnitDecl());
    return std::move(Result.Definitions);
  }

  std::optional<ExtractedPreamble> run() {
    visitContext(Unit.getASTContext().getTranslationUnitDecl());
    if (!renameSymbols())
      return std::nullopt;
    relocateIncludes();
    FileID Main = SM.getMainFileID();
    const clang::RewriteBuffer *Buffer = Rewriter.getRewriteBufferFor(Main);
    Result.Text = Buffer ? std::string(Buffer->begin(), Buffer->end())
                         : SM.getBufferData(Main).str();
    if (!Renames.ClashingMacros.empty()) {
      Result.Text += "\n// kfuse: another input defines these macros differently; its kernels\n"
                     "// get this file's definitions back around their sections.\n";
      for (const auto &[Name, Definition] : Renames.ClashingMacros)
        Result.Text += "#undef " + Name + "\n";
    }
    return std::move(Result);
  }

private:
  ASTUnit &Unit;
  SourceManager &SM;
  clang::Rewriter Rewriter;
  std::string OutputDir;
  const FileRenames &Renames;
  Reporter &Diags;
  bool KeepKernels;
  ExtractedPreamble Result;
  std::vector<CharSourceRange> Dropped;

  bool inDropped(SourceLocation Loc) const {
    return std::any_of(Dropped.begin(), Dropped.end(), [&](const CharSourceRange &R) {
      return !SM.isBeforeInTranslationUnit(Loc, R.getBegin()) &&
             SM.isBeforeInTranslationUnit(Loc, R.getEnd());
    });
  }

  /// Renames every spelling of the renamed symbols outside the parts left
  /// out, macro bodies of this file included.
  bool renameSymbols() {
    std::set<unsigned> Done;
    bool Ok = true;
    for (const SymbolSpelling &S : Renames.Spellings) {
      SourceLocation Spelled = SM.getSpellingLoc(S.Loc);
      const std::string &NewName = Renames.NewNames.at(S.Symbol);
      if (!SM.isWrittenInMainFile(Spelled)) {
        Diags.report(S.Loc, SM, diag::ID::HelperClash)
            << S.Symbol->getName() << NewName;
        Ok = false;
        continue;
      }
      if (inDropped(Spelled) || !Done.insert(SM.getFileOffset(Spelled)).second)
        continue;
      Rewriter.ReplaceText(Spelled, S.Symbol->getName().size(), NewName);
    }
    return Ok;
  }

  bool inMainFile(const Decl *D) const {
    return SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation()));
  }

  void visitContext(const DeclContext *DC) {
    for (const Decl *D : DC->decls()) {
      if (D->isImplicit() || !inMainFile(D))
        continue;
      if (isa<NamespaceDecl, LinkageSpecDecl>(D))
        visitContext(cast<DeclContext>(D));
      else
        visitDecl(D);
    }
  }

  void visitDecl(const Decl *D) {
    const auto *Template = dyn_cast<FunctionTemplateDecl>(D);
    const auto *F = Template ? Template->getTemplatedDecl() : dyn_cast<FunctionDecl>(D);
    if (F) {
      if (F->hasAttr<CUDAGlobalAttr>()) {
        if (KeepKernels)
          return;
        if (Template)
          dropExplicitInstantiations(*Template);
        return drop(D, "kernel '" + F->getQualifiedNameAsString() + "' left out");
      }
      if (!F->hasAttr<CUDADeviceAttr>())
        return drop(D, "host function '" + F->getQualifiedNameAsString() + "' left out");
      if (!Template)
        makeInternal(*F);
      return keep(F);
    }
    if (const auto *V = dyn_cast<VarDecl>(D)) {
      bool Shared = V->hasAttr<CUDASharedAttr>();
      if (!Shared && !V->getType().isConstQualified() && !V->isConstexpr())
        return drop(D, "mutable variable '" + V->getQualifiedNameAsString() + "' left out");
      return keep(V);
    }
    if (const auto *Named = dyn_cast<NamedDecl>(D); Named && isa<TagDecl, TypedefNameDecl,
                                                         ClassTemplateDecl>(D))
      keep(Named);
  }

  void keep(const NamedDecl *D) {
    if (D->getIdentifier())
      Result.Definitions.emplace(D->getQualifiedNameAsString(), D->getLocation());
  }

  /// The whole declaration: leading attributes such as __global__ (a macro)
  /// and a trailing semicolon included.
  CharSourceRange wholeDecl(const Decl *D) const {
    SourceLocation Begin = SM.getExpansionLoc(D->getBeginLoc());
    if (const auto *F = dyn_cast<FunctionDecl>(D->getAsFunction() ? D->getAsFunction() : D))
      for (const Attr *A : F->attrs()) {
        SourceLocation Loc = SM.getExpansionLoc(A->getLocation());
        if (Loc.isValid() && SM.isBeforeInTranslationUnit(Loc, Begin) &&
            SM.getFileID(Loc) == SM.getFileID(Begin))
          Begin = Loc;
      }
    SourceLocation End = SM.getExpansionRange(D->getEndLoc()).getEnd();
    SourceLocation AfterSemi =
        Lexer::findLocationAfterToken(End, tok::semi, SM, Unit.getLangOpts(), false);
    if (AfterSemi.isValid())
      return CharSourceRange::getCharRange(Begin, AfterSemi);
    return CharSourceRange::getTokenRange(Begin, End);
  }

  /// `template __global__ void k<float>(float *);` names a kernel that is
  /// left out, so it goes too. Clang keeps no declaration of its own for
  /// it, only the name's location: the directive runs from the `template`
  /// (or `extern`) before that to the semicolon after it.
  void dropExplicitInstantiations(const FunctionTemplateDecl &Template) {
    for (const FunctionDecl *S : Template.specializations()) {
      TemplateSpecializationKind Kind = S->getTemplateSpecializationKind();
      if (Kind != TSK_ExplicitInstantiationDefinition &&
          Kind != TSK_ExplicitInstantiationDeclaration)
        continue;
      SourceLocation Name = SM.getExpansionLoc(S->getPointOfInstantiation());
      if (Name.isInvalid() || !SM.isWrittenInMainFile(Name))
        continue;
      llvm::StringRef Text = SM.getBufferData(SM.getMainFileID());
      unsigned Offset = SM.getFileOffset(Name);
      size_t Begin = Text.substr(0, Offset).rfind("template");
      size_t End = Text.find(';', Offset);
      if (Begin == llvm::StringRef::npos || End == llvm::StringRef::npos)
        continue;
      llvm::StringRef Before = Text.substr(0, Begin).rtrim();
      if (Before.ends_with("extern"))
        Begin = Before.size() - 6;
      SourceLocation Start = SM.getLocForStartOfFile(SM.getMainFileID());
      CharSourceRange Whole = CharSourceRange::getCharRange(Start.getLocWithOffset(Begin),
                                                            Start.getLocWithOffset(End + 1));
      Dropped.push_back(Whole);
      Rewriter.ReplaceText(Whole, "// kfuse: instantiation of kernel '" +
                                      S->getQualifiedNameAsString() + "' left out.");
    }
  }

  void drop(const Decl *D, const std::string &Why) {
    CharSourceRange Whole = wholeDecl(D);
    Dropped.push_back(Whole);
    Rewriter.ReplaceText(Whole, "// kfuse: " + Why + ".");
  }

  /// A helper with external linkage would be defined twice once the fused
  /// file links beside the original; [[maybe_unused]] because inlining may
  /// leave it uncalled.
  void makeInternal(const FunctionDecl &F) {
    if (!F.isThisDeclarationADefinition() || F.isInlined() || isa<CXXMethodDecl>(F) ||
        F.getStorageClass() == SC_Static || !F.isExternallyVisible())
      return;
    Rewriter.InsertTextBefore(wholeDecl(&F).getBegin(), "[[maybe_unused]] static inline ");
  }

  void relocateIncludes() {
    PreprocessingRecord *Record = Unit.getPreprocessor().getPreprocessingRecord();
    if (!Record)
      return;
    for (PreprocessedEntity *E : *Record) {
      auto *Include = dyn_cast_or_null<InclusionDirective>(E);
      if (!Include || !Include->wasInQuotes() || !Include->getFile() ||
          !SM.isWrittenInMainFile(Include->getSourceRange().getBegin()))
        continue;
      std::filesystem::path Target(Include->getFile()->getFileEntry().tryGetRealPathName().str());
      if (Target.empty())
        continue;
      std::filesystem::path Relative =
          Target.lexically_relative(std::filesystem::absolute(OutputDir).lexically_normal());
      std::string Directive = "#include \"" + Relative.generic_string() + "\"";
      SourceRange R = Include->getSourceRange();
      Rewriter.ReplaceText(CharSourceRange::getCharRange(
                               R.getBegin(), Lexer::getLocForEndOfToken(R.getEnd(), 0, SM,
                                                                        Unit.getLangOpts())),
                           Directive);
    }
  }
};

} // namespace

namespace {

/// Macro definitions compare equal when only their white space differs.
std::string normalized(llvm::StringRef Definition) {
  std::string Result;
  bool Space = false;
  for (size_t I = 0; I < Definition.size(); ++I) {
    char C = Definition[I];
    bool Continuation = C == '\\' && I + 1 < Definition.size() &&
                        (Definition[I + 1] == '\n' || Definition[I + 1] == '\r');
    if (Continuation || llvm::isSpace(C)) {
      Space = true;
      continue;
    }
    if (Space && !Result.empty())
      Result += ' ';
    Space = false;
    Result += C;
  }
  return Result;
}

} // namespace

std::map<const ASTUnit *, std::shared_ptr<const FileRenames>>
planFileRenames(const std::vector<ASTUnit *> &Units, NameAllocator &Names, Reporter &Diags) {
  std::map<const ASTUnit *, std::shared_ptr<FileRenames>> Plan;
  std::set<std::string> Defined;
  std::map<std::string, std::set<std::string>> MacroForms; // Name to its normalized definitions.
  std::map<const ASTUnit *, std::map<std::string, std::string>> Macros;
  const FileRenames None;
  for (ASTUnit *Unit : Units) {
    auto Renames = std::make_shared<FileRenames>();
    std::set<std::string> Clashing;
    for (const auto &[Name, Loc] : Extractor(*Unit, ".", None, Diags, false).definitions())
      if (!Defined.insert(Name).second)
        Clashing.insert(Name);
    // Overloads and templates of one name keep sharing one name.
    std::map<std::string, std::string> NewNameOf;
    for (const std::string &Name : Clashing) {
      size_t Scope = Name.rfind("::");
      std::string Unqualified = Scope == std::string::npos ? Name : Name.substr(Scope + 2);
      NewNameOf[Name] = Names.allocate(
          Unqualified + "_" + identifierFrom(llvm::sys::path::stem(Unit->getMainFileName())));
    }
    if (!Clashing.empty())
      for (const SymbolSpelling &S : mainFileSymbolSpellings(*Unit)) {
        auto It = NewNameOf.find(S.Symbol->getQualifiedNameAsString());
        if (It == NewNameOf.end())
          continue;
        Renames->NewNames[S.Symbol] = It->second;
        Renames->Spellings.push_back(S);
      }
    Macros[Unit] = userMacros(*Unit);
    for (const auto &[Name, Definition] : Macros[Unit])
      MacroForms[Name].insert(normalized(Definition));
    Plan[Unit] = std::move(Renames);
  }
  for (ASTUnit *Unit : Units)
    for (const auto &[Name, Definition] : Macros[Unit])
      if (MacroForms[Name].size() > 1)
        Plan[Unit]->ClashingMacros[Name] = Definition;
  return {Plan.begin(), Plan.end()};
}

std::optional<ExtractedPreamble> extractPreamble(ASTUnit &Unit, const std::string &OutputDir,
                                                 const FileRenames &Renames, Reporter &Diags,
                                                 bool KeepKernels) {
  return Extractor(Unit, OutputDir, Renames, Diags, KeepKernels).run();
}

} // namespace kfuse

//===- PreambleExtractor.cpp - what fused kernels need from a file --------===//

#include "kfuse/Transforms/PreambleExtractor.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PreprocessingRecord.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <filesystem>

namespace kfuse {
namespace {

using namespace clang;

class Extractor {
public:
  Extractor(ASTUnit &Unit, std::string OutputDir)
      : Unit(Unit), SM(Unit.getSourceManager()), Rewriter(SM, Unit.getLangOpts()),
        OutputDir(std::move(OutputDir)) {}

  ExtractedPreamble run() {
    visitContext(Unit.getASTContext().getTranslationUnitDecl());
    relocateIncludes();
    FileID Main = SM.getMainFileID();
    const clang::RewriteBuffer *Buffer = Rewriter.getRewriteBufferFor(Main);
    Result.Text = Buffer ? std::string(Buffer->begin(), Buffer->end())
                         : SM.getBufferData(Main).str();
    return std::move(Result);
  }

private:
  ASTUnit &Unit;
  SourceManager &SM;
  clang::Rewriter Rewriter;
  std::string OutputDir;
  ExtractedPreamble Result;

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
      if (F->hasAttr<CUDAGlobalAttr>())
        return drop(D, "kernel '" + F->getQualifiedNameAsString() + "' left out");
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

  void drop(const Decl *D, const std::string &Why) {
    Rewriter.ReplaceText(wholeDecl(D), "// kfuse: " + Why + ".");
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

ExtractedPreamble extractPreamble(ASTUnit &Unit, const std::string &OutputDir) {
  return Extractor(Unit, OutputDir).run();
}

} // namespace kfuse

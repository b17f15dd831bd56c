//===- PreambleExtractor.cpp - what fused kernels need from a file --------===//

#include "kfuse/Transforms/PreambleExtractor.h"

#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Transforms/HorizontalFuser.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PreprocessingRecord.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace kfuse {
namespace {

using namespace clang;

/// One inclusion of a project file: the directive and the file it entered.
struct Inclusion {
  const InclusionDirective *Directive;
  FileID Parent, File;
};

/// What happens to a project file's inclusion in the preamble.
enum class IncludeMode {
  Keep,   ///< The directive stays (re-pointed from the output's directory).
  Copy,   ///< The file's text, edited like the main file's, replaces it.
  Repeat, ///< An earlier input's preamble brought in this unguarded header.
};

/// The free host functions and function templates (not methods) that code
/// reaches by name, and whether it launches a kernel.
class HostReferences : public RecursiveASTVisitor<HostReferences> {
public:
  std::vector<const FunctionDecl *> Found;
  bool Launches = false;

  /// The kernels it launches or names, as written (the template for an
  /// instantiation).
  std::vector<const FunctionDecl *> Kernels;

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *F = dyn_cast<FunctionDecl>(E->getDecl()))
      note(*F);
    return true;
  }
  /// A call that depends on a template argument names every candidate.
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *E) {
    for (const NamedDecl *D : E->decls()) {
      if (const auto *T = dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl()))
        note(*T->getTemplatedDecl());
      else if (const auto *F = dyn_cast<FunctionDecl>(D->getUnderlyingDecl()))
        note(*F);
    }
    return true;
  }
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *) {
    Launches = true;
    return true;
  }
  bool shouldVisitTemplateInstantiations() const { return false; }

  void note(const FunctionDecl &F) {
    // A call of a host template's instantiation keeps the template.
    const FunctionTemplateDecl *Template = F.getPrimaryTemplate();
    const FunctionDecl &Named = Template ? *Template->getTemplatedDecl() : F;
    if (isFreeHostFunction(Named))
      Found.push_back(Named.getCanonicalDecl());
    else if (F.hasAttr<CUDAGlobalAttr>()) {
      const FunctionDecl *Pattern = F.getTemplateInstantiationPattern();
      Kernels.push_back((Pattern ? Pattern : &F)->getCanonicalDecl());
    }
  }

  static bool isFreeHostFunction(const FunctionDecl &F) {
    FunctionDecl::TemplatedKind Kind = F.getTemplatedKind();
    return !isa<CXXMethodDecl>(F) &&
           (Kind == FunctionDecl::TK_NonTemplate || Kind == FunctionDecl::TK_FunctionTemplate) &&
           !F.hasAttr<CUDADeviceAttr>() && !F.hasAttr<CUDAGlobalAttr>() && !F.getBuiltinID();
  }
};

/// What a host function the preamble's code calls becomes.
enum class HostCallee {
  Prototype, ///< Its declaration: the original object defines it.
  Whole,     ///< Its definition (static or inline: no object exports it).
};

class Extractor {
public:
  Extractor(ASTUnit &Unit, std::string OutputDir, const FileRenames &Renames,
            const DeviceVariables &Variables, Reporter &Diags, PreambleUse Use,
            const HeaderMirror *Mirror = nullptr)
      : Unit(Unit), SM(Unit.getSourceManager()), Rewriter(SM, Unit.getLangOpts()),
        OutputDir(std::move(OutputDir)), Renames(Renames), Variables(Variables), Diags(Diags),
        Use(Use), Mirror(Mirror) {}

  /// What the preamble keeps at namespace scope, without writing it.
  ExtractedPreamble definitions() {
    visitContext(Unit.getASTContext().getTranslationUnitDecl());
    return std::move(Result);
  }

  std::optional<ExtractedPreamble> run(PreambleHistory &History) {
    findHostCallees();
    visitContext(Unit.getASTContext().getTranslationUnitDecl());
    if (!renameSymbols())
      return std::nullopt;
    collectInclusions();
    FileID Main = SM.getMainFileID();
    planIncludes(Main, History);
    if (!Renames.UndefineBefore.empty()) {
      Result.Text = "// kfuse: macros of the inputs above that this file does not read; their\n"
                    "// kernels get them back around their sections.\n";
      for (const std::string &Name : Renames.UndefineBefore)
        Result.Text += "#undef " + Name + "\n";
    }
    Result.Text += textOf(Main);
    rememberUnguarded(History);
    return std::move(Result);
  }

private:
  ASTUnit &Unit;
  SourceManager &SM;
  clang::Rewriter Rewriter;
  std::string OutputDir;
  const FileRenames &Renames;
  const DeviceVariables &Variables;
  Reporter &Diags;
  PreambleUse Use;
  const HeaderMirror *Mirror; ///< Where copies of the project's files travel; null: nowhere.
  ExtractedPreamble Result;
  std::vector<CharSourceRange> Dropped;
  /// Files holding a definition the fused file must leave out because the
  /// original objects define it too.
  std::set<FileID> DefinesTwice;
  std::vector<Inclusion> Inclusions;
  std::map<const InclusionDirective *, IncludeMode> Modes;
  std::map<FileID, bool> NeedsCopy;
  /// Where `static` was written, so that no declaration gets it twice.
  std::set<unsigned> Internalized;
  /// Host functions that code the preamble keeps calls (a class's inline
  /// method, a __host__ __device__ function): they cannot simply vanish.
  std::map<const FunctionDecl *, HostCallee> HostCallees;
  /// Kernels that kept code launches or names (a class's method, a static
  /// host function), by canonical declaration.
  std::set<const FunctionDecl *> KernelsNamed;

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
        Ok = false; // planFileRenames reported it (kfuse-helper-clash).
        continue;
      }
      if (inDropped(Spelled) || !Done.insert(SM.getFileOffset(Spelled)).second)
        continue;
      Rewriter.ReplaceText(Spelled, S.Symbol->getName().size(), NewName);
    }
    return Ok;
  }

  FileID fileOf(const Decl *D) const { return SM.getFileID(SM.getExpansionLoc(D->getLocation())); }

  bool inMainFile(const Decl *D) const { return fileOf(D) == SM.getMainFileID(); }

  /// The main file and the project headers it includes: what the preamble
  /// may copy.
  bool inProjectFile(const Decl *D) const {
    SourceLocation Loc = SM.getExpansionLoc(D->getLocation());
    return Loc.isValid() && !SM.isInSystemHeader(Loc) && SM.getFileEntryRefForID(SM.getFileID(Loc));
  }

  void visitContext(const DeclContext *DC) {
    for (const Decl *D : DC->decls()) {
      if (D->isImplicit() || !inProjectFile(D))
        continue;
      if (isa<NamespaceDecl, LinkageSpecDecl>(D)) {
        visitContext(cast<DeclContext>(D));
        continue;
      }
      noteHeaderDefinition(D);
      visitDecl(D);
    }
  }

  /// Whether the original object defines \p D with external linkage, so a
  /// second definition in the fused file would not link.
  static bool definedForLinker(const Decl *D) {
    if (const auto *F = D->getAsFunction()) {
      if (isa<FunctionTemplateDecl>(D) || F->isInlined() || !F->isExternallyVisible())
        return false;
      return F->isThisDeclarationADefinition();
    }
    if (const auto *V = dyn_cast<VarDecl>(D))
      return V->isThisDeclarationADefinition() == VarDecl::Definition && V->isExternallyVisible() &&
             !V->isInline();
    return false;
  }

  void visitDecl(const Decl *D) {
    const auto *Template = dyn_cast<FunctionTemplateDecl>(D);
    const auto *F = Template ? Template->getTemplatedDecl() : dyn_cast<FunctionDecl>(D);
    if (F) {
      if (F->hasAttr<CUDAGlobalAttr>()) {
        if (Use == PreambleUse::Originals)
          return;
        if (Template)
          dropExplicitInstantiations(*Template);
        if (KernelsNamed.count(F->getCanonicalDecl()))
          return keepNamedKernel(*F, Template != nullptr);
        return drop(D, "kernel '" + F->getQualifiedNameAsString() + "' left out");
      }
      if (!F->hasAttr<CUDADeviceAttr>()) {
        if (Template)
          dropExplicitInstantiations(*Template);
        if (auto It = HostCallees.find(F->getCanonicalDecl()); It != HostCallees.end())
          return keepHostCallee(*F, It->second);
        // An explicit specialization of a kept template goes with it, or
        // its callers would call the template's instantiation instead.
        if (const FunctionTemplateDecl *Primary = F->getPrimaryTemplate();
            Primary && F->getTemplateSpecializationKind() == TSK_ExplicitSpecialization &&
            HostCallees.count(Primary->getTemplatedDecl()->getCanonicalDecl()))
          return keepHostCallee(*F, F->isInlined() || !F->isExternallyVisible()
                                        ? HostCallee::Whole
                                        : HostCallee::Prototype);
        return drop(D, "host function '" + F->getQualifiedNameAsString() + "' left out");
      }
      if (!Template)
        makeInternal(*F);
      return keep(F);
    }
    if (const auto *V = dyn_cast<VarDecl>(D)) {
      // A variable template's instantiation has no text of its own: the
      // template's is kept as written.
      if (isa<VarTemplateSpecializationDecl>(V))
        return;
      if (isMutableDeviceVariable(*V))
        return deviceVariable(*V);
      bool Shared = V->hasAttr<CUDASharedAttr>();
      if (!Shared && !V->getType().isConstQualified() && !V->isConstexpr())
        return drop(D, "mutable variable '" + V->getQualifiedNameAsString() + "' left out");
      if (holdsHostFunction(*V))
        return drop(D, "constant '" + V->getQualifiedNameAsString() +
                           "' left out: it holds host functions, which device code cannot call");
      makeInternal(*V);
      return keep(V);
    }
    if (const auto *Named = dyn_cast<NamedDecl>(D);
        Named && isa<TagDecl, TypedefNameDecl, ClassTemplateDecl>(D))
      keep(Named);
  }

  /// Whether the preamble keeps \p D (before it is visited): what refers to
  /// a host function from there needs it.
  bool keptRoot(const Decl *D) const {
    const auto *Template = dyn_cast<FunctionTemplateDecl>(D);
    const auto *F = Template ? Template->getTemplatedDecl() : dyn_cast<FunctionDecl>(D);
    if (F)
      return F->hasAttr<CUDAGlobalAttr>() ? Use == PreambleUse::Originals
                                          : F->hasAttr<CUDADeviceAttr>();
    if (const auto *V = dyn_cast<VarDecl>(D))
      return V->hasAttr<CUDASharedAttr>() || isMutableDeviceVariable(*V) ||
             ((V->getType().isConstQualified() || V->isConstexpr()) && !holdsHostFunction(*V));
    return isa<TagDecl, TypedefNameDecl, ClassTemplateDecl>(D);
  }

  /// Whether \p V's initializer takes the address of a host function (a
  /// table of handlers): only host code can use it, and keeping it would
  /// keep host code that needs what the preamble leaves out.
  static bool holdsHostFunction(const VarDecl &V) {
    struct Finder : RecursiveASTVisitor<Finder> {
      bool Found = false;
      const Expr *Callee = nullptr;
      bool VisitCallExpr(CallExpr *C) {
        Callee = C->getCallee()->IgnoreParenImpCasts();
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *R) {
        const auto *F = dyn_cast<FunctionDecl>(R->getDecl());
        Found |= F && R != Callee && !F->hasAttr<CUDADeviceAttr>() && !F->hasAttr<CUDAGlobalAttr>();
        return !Found;
      }
    } Find;
    // Clang makes a host constant __constant__ implicitly for device code.
    auto Written = [&](const Attr *A) { return A && !A->isImplicit(); };
    if (Written(V.getAttr<CUDADeviceAttr>()) || Written(V.getAttr<CUDAConstantAttr>()) ||
        !V.getInit())
      return false;
    Find.TraverseStmt(const_cast<Expr *>(V.getInit()));
    return Find.Found;
  }

  void collectRoots(const DeclContext *DC, std::vector<const Decl *> &Roots) const {
    for (const Decl *D : DC->decls()) {
      if (D->isImplicit() || !inProjectFile(D))
        continue;
      if (isa<NamespaceDecl, LinkageSpecDecl>(D))
        collectRoots(cast<DeclContext>(D), Roots);
      else if (keptRoot(D))
        Roots.push_back(D);
    }
  }

  /// The host functions kept code calls, and what each becomes: an
  /// exported one is declared (its object links), a static or inline one
  /// is kept whole with what it calls in turn, unless it launches a kernel.
  void findHostCallees() {
    std::vector<const Decl *> Roots;
    collectRoots(Unit.getASTContext().getTranslationUnitDecl(), Roots);
    HostReferences Refs;
    for (const Decl *D : Roots)
      Refs.TraverseDecl(const_cast<Decl *>(D));
    KernelsNamed.insert(Refs.Kernels.begin(), Refs.Kernels.end());
    std::vector<const FunctionDecl *> Work = std::move(Refs.Found);
    while (!Work.empty()) {
      const FunctionDecl *F = Work.back();
      Work.pop_back();
      if (HostCallees.count(F) || !inProjectFile(F))
        continue;
      const FunctionDecl *Def = F->getDefinition();
      // A template is kept whole: every object that uses an instantiation
      // has a copy of its own, and only the template can declare one.
      if (F->getDescribedFunctionTemplate()) {
        HostCallees[F] = HostCallee::Whole;
        if (!Def)
          continue;
        HostReferences Body;
        Body.TraverseDecl(const_cast<FunctionDecl *>(Def));
        Work.insert(Work.end(), Body.Found.begin(), Body.Found.end());
        KernelsNamed.insert(Body.Kernels.begin(), Body.Kernels.end());
        continue;
      }
      if (!Def || (Def->isExternallyVisible() && !Def->isInlined())) {
        HostCallees[F] = HostCallee::Prototype;
        continue;
      }
      HostReferences Body;
      Body.TraverseDecl(const_cast<FunctionDecl *>(Def));
      HostCallees[F] = Body.Launches ? HostCallee::Prototype : HostCallee::Whole;
      if (!Body.Launches) {
        Work.insert(Work.end(), Body.Found.begin(), Body.Found.end());
        KernelsNamed.insert(Body.Kernels.begin(), Body.Kernels.end());
      }
    }
  }

  /// A kernel kept code launches: the original object defines it and its
  /// launch stub, so its declaration stands for it; a template or a static
  /// kernel (which no other object exports) stays whole.
  void keepNamedKernel(const FunctionDecl &F, bool Template) {
    if (Template || !F.isExternallyVisible())
      return keep(&F);
    if (F.isThisDeclarationADefinition())
      declareOnly(F,
                  "kernel '" + F.getQualifiedNameAsString() + "', which code kept here launches");
  }

  /// \p F's definition gives way to its declaration: the original object
  /// defines \p What.
  void declareOnly(const FunctionDecl &F, const std::string &What) {
    CharSourceRange Whole = wholeDecl(&F);
    SourceLocation Body = SM.getExpansionLoc(F.getBody()->getBeginLoc());
    llvm::StringRef Head = Lexer::getSourceText(
        CharSourceRange::getCharRange(Whole.getBegin(), Body), SM, Unit.getLangOpts());
    DefinesTwice.insert(fileOf(&F));
    Dropped.push_back(Whole);
    Rewriter.ReplaceText(Whole, "// kfuse: the original object defines " + What + ".\n" +
                                    Head.rtrim().str() + ";");
  }

  /// A host function kept code calls: declarations stay; a definition
  /// stays whole or gives way to its declaration.
  void keepHostCallee(const FunctionDecl &F, HostCallee As) {
    if (F.isThisDeclarationADefinition() && As == HostCallee::Prototype)
      declareOnly(F, "host function '" + F.getQualifiedNameAsString() + "'");
  }

  /// A copy (static, so the original object keeps its own), an extern
  /// declaration of the original, or nothing, as analysis found.
  void deviceVariable(const VarDecl &V) {
    if (Use != PreambleUse::Fused)
      return keep(&V); // The module's own: each harness module stands alone.
    auto It = Variables.find(V.getCanonicalDecl());
    VariableReach Reach = It == Variables.end() ? VariableReach::SameUnit : It->second.Reach;
    std::string Name = V.getQualifiedNameAsString();
    switch (Reach) {
    case VariableReach::Copy:
      makeInternal(V);
      return keep(&V);
    case VariableReach::Extern:
      return declareExtern(V);
    case VariableReach::SameUnit:
      // Only its own translation unit sees the program's writes, so kfuse
      // refuses every fused kernel that reaches it; the functions kept
      // beside them may still name it, and compile against a private copy.
      makeInternal(V);
      Rewriter.InsertTextBefore(wholeDecl(&V).getBegin(),
                                "// kfuse: a copy of '" + Name +
                                    "' that no fused kernel reads; the program writes the "
                                    "original, in its own translation unit.\n[[maybe_unused]] ");
      return keep(&V);
    }
  }

  /// `extern __constant__ float t[4];` in place of the definition: the
  /// device linker joins it to the original object's variable.
  void declareExtern(const VarDecl &V) {
    if (!V.isThisDeclarationADefinition())
      return; // Already a declaration.
    CharSourceRange Whole = wholeDecl(&V);
    SourceLocation End = Whole.getEnd();
    // A class-typed variable without an initializer has an implicit
    // construction that starts at its name, which stays.
    SourceLocation Name = SM.getExpansionLoc(V.getLocation());
    if (const Expr *Init = V.getInit();
        Init && SM.isBeforeInTranslationUnit(Name, SM.getExpansionLoc(Init->getBeginLoc())))
      End = SM.getExpansionLoc(Init->getBeginLoc());
    llvm::StringRef Text = Lexer::getSourceText(
        CharSourceRange::getCharRange(Whole.getBegin(), End), SM, Unit.getLangOpts());
    Text = Text.trim().rtrim(";").rtrim().rtrim("=").rtrim().rtrim("{").rtrim();
    std::string Declaration = (Text.starts_with("extern") ? "" : "extern ") + Text.str() + ";";
    DefinesTwice.insert(fileOf(&V));
    Rewriter.ReplaceText(Whole, "// kfuse: the original object defines '" +
                                    V.getQualifiedNameAsString() + "'.\n" + Declaration);
  }

  void keep(const NamedDecl *D) {
    if (D->getIdentifier() && inMainFile(D))
      Result.Definitions.emplace(D->getQualifiedNameAsString(), D->getLocation());
  }

  /// A header kept as an include brings all its definitions, kept or not.
  void noteHeaderDefinition(const Decl *D) {
    const auto *Template = dyn_cast<TemplateDecl>(D);
    const auto *Named = dyn_cast<NamedDecl>(
        Template && isa<FunctionTemplateDecl>(Template) ? Template->getTemplatedDecl() : D);
    if (!Named || !Named->getIdentifier() || inMainFile(D))
      return;
    if (std::optional<std::string> Key = clashKey(*Named)) {
      OptionalFileEntryRef File = SM.getFileEntryRefForID(fileOf(D));
      Result.HeaderDefinitions.emplace(
          *Key, HeaderDefinition{Named->getLocation(),
                                 File ? File->getFileEntry().tryGetRealPathName().str() : "",
                                 Named->getQualifiedNameAsString()});
    }
  }

  /// What a second definition of \p D would clash with: a function of the
  /// same signature, a class or variable of the same name. Typedefs may be
  /// repeated.
  static std::optional<std::string> clashKey(const NamedDecl &D) {
    std::string Name = D.getQualifiedNameAsString();
    if (const auto *F = dyn_cast<FunctionDecl>(&D)) {
      if (!F->isThisDeclarationADefinition())
        return std::nullopt;
      std::string Params;
      for (const ParmVarDecl *P : F->parameters())
        Params += (Params.empty() ? "" : ", ") + P->getType().getAsString();
      return Name + "(" + Params + ")";
    }
    if (const auto *T = dyn_cast<TagDecl>(&D))
      return T->isThisDeclarationADefinition() ? std::optional<std::string>("type " + Name)
                                               : std::nullopt;
    if (const auto *V = dyn_cast<VarDecl>(&D))
      return V->isThisDeclarationADefinition() ? std::optional<std::string>("variable " + Name)
                                               : std::nullopt;
    if (isa<ClassTemplateDecl>(D))
      return "type " + Name;
    return std::nullopt;
  }

  /// `extern "C" int f();` is a linkage specification without braces around
  /// its one declaration: it goes with the declaration.
  static const LinkageSpecDecl *bracelessLinkage(const Decl *D) {
    const auto *Spec = dyn_cast<LinkageSpecDecl>(D->getLexicalDeclContext());
    return Spec && !Spec->hasBraces() ? Spec : nullptr;
  }

  /// The whole declaration: leading attributes such as __global__ (a macro)
  /// and a trailing semicolon included.
  CharSourceRange wholeDecl(const Decl *D) const {
    SourceLocation Begin = SM.getExpansionLoc(D->getBeginLoc());
    if (const auto *F = dyn_cast<FunctionDecl>(D->getAsFunction() ? D->getAsFunction() : D))
      for (const Attr *A : F->attrs()) {
        if (A->isInherited())
          continue; // Written on an earlier declaration (a primary template's).
        SourceLocation Loc = SM.getExpansionLoc(A->getLocation());
        if (Loc.isValid() && SM.isBeforeInTranslationUnit(Loc, Begin) &&
            SM.getFileID(Loc) == SM.getFileID(Begin))
          Begin = Loc;
      }
    if (const LinkageSpecDecl *Spec = bracelessLinkage(D))
      Begin = SM.getExpansionLoc(Spec->getBeginLoc());
    SourceLocation End = SM.getExpansionRange(D->getEndLoc()).getEnd();
    SourceLocation AfterSemi =
        Lexer::findLocationAfterToken(End, tok::semi, SM, Unit.getLangOpts(), false);
    if (AfterSemi.isValid())
      return CharSourceRange::getCharRange(Begin, AfterSemi);
    return CharSourceRange::getTokenRange(Begin, End);
  }

  /// `template __global__ void k<float>(float *);` names a kernel (or host
  /// function) that is left out, so it goes too. Clang keeps no declaration of its own for
  /// it, only the name's location: the directive runs from the `template`
  /// (or `extern`) before that to the semicolon after it.
  /// A macro's expansion that instantiates what the preamble leaves out
  /// (gerbil's `EXPORT(1)`, a list of `template void f<1>(...);`) goes whole.
  void dropInstantiatingMacro(SourceLocation Point, bool Defines) {
    CharSourceRange Invocation = SM.getExpansionRange(Point);
    for (const CharSourceRange &R : Dropped)
      if (R.getBegin() == Invocation.getBegin())
        return; // Another instantiation of the same expansion.
    llvm::StringRef Macro = Lexer::getImmediateMacroName(Point, SM, Unit.getLangOpts());
    Dropped.push_back(Invocation);
    if (Defines)
      DefinesTwice.insert(SM.getFileID(Invocation.getBegin()));
    Rewriter.ReplaceText(Invocation,
                         "// kfuse: instantiations of macro '" + Macro.str() + "' left out.");
  }

  void dropExplicitInstantiations(const FunctionTemplateDecl &Template) {
    for (const FunctionDecl *S : Template.specializations()) {
      TemplateSpecializationKind Kind = S->getTemplateSpecializationKind();
      if (Kind != TSK_ExplicitInstantiationDefinition &&
          Kind != TSK_ExplicitInstantiationDeclaration)
        continue;
      SourceLocation Point = S->getPointOfInstantiation();
      SourceLocation Name = SM.getExpansionLoc(Point);
      if (Name.isInvalid() || SM.isInSystemHeader(Name))
        continue;
      FileID File = SM.getFileID(Name);
      if (Point.isMacroID()) {
        dropInstantiatingMacro(Point, Kind == TSK_ExplicitInstantiationDefinition);
        continue;
      }
      llvm::StringRef Text = SM.getBufferData(File);
      unsigned Offset = SM.getFileOffset(Name);
      size_t Begin = Text.substr(0, Offset).rfind("template");
      size_t End = Text.find(';', Offset);
      if (Begin == llvm::StringRef::npos || End == llvm::StringRef::npos)
        continue;
      llvm::StringRef Before = Text.substr(0, Begin).rtrim();
      if (Before.ends_with("extern"))
        Begin = Before.size() - 6;
      SourceLocation Start = SM.getLocForStartOfFile(File);
      CharSourceRange Whole = CharSourceRange::getCharRange(Start.getLocWithOffset(Begin),
                                                            Start.getLocWithOffset(End + 1));
      Dropped.push_back(Whole);
      if (Kind == TSK_ExplicitInstantiationDefinition)
        DefinesTwice.insert(File);
      std::string Spelled;
      llvm::raw_string_ostream OS(Spelled);
      S->getNameForDiagnostic(OS, S->getASTContext().getPrintingPolicy(), /*Qualified=*/true);
      Rewriter.ReplaceText(Whole, "// kfuse: instantiation of '" + Spelled + "' left out.");
    }
  }

  void drop(const Decl *D, const std::string &Why) {
    CharSourceRange Whole = wholeDecl(D);
    Dropped.push_back(Whole);
    if (definedForLinker(D))
      DefinesTwice.insert(fileOf(D));
    Rewriter.ReplaceText(Whole, "// kfuse: " + Why + "." + conditionalsIn(Whole));
  }

  /// The conditional directives inside \p R, each on a line of its own: a
  /// declaration whose head is chosen by #if/#else leaves its #if outside
  /// the range, so the rest must stay.
  std::string conditionalsIn(CharSourceRange R) const {
    bool Invalid = false;
    llvm::StringRef Text = Lexer::getSourceText(R, SM, Unit.getLangOpts(), &Invalid);
    if (Invalid)
      return "";
    std::string Kept;
    llvm::SmallVector<llvm::StringRef> Lines;
    Text.split(Lines, '\n');
    for (size_t I = 1; I < Lines.size(); ++I) {
      llvm::StringRef Line = Lines[I].trim();
      if (!Line.consume_front("#"))
        continue;
      llvm::StringRef Word =
          Line.ltrim().take_while([](char C) { return isAsciiIdentifierContinue(C); });
      if (llvm::is_contained(
              {"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"}, Word))
        Kept += "\n" + Lines[I].trim().str();
    }
    return Kept.empty() ? "" : Kept + "\n";
  }

  /// A helper with external linkage would be defined twice once the fused
  /// file links beside the original; [[maybe_unused]] because inlining may
  /// leave it uncalled.
  void makeInternal(const FunctionDecl &F) {
    if (!F.isThisDeclarationADefinition() || F.isInlined() || isa<CXXMethodDecl>(F) ||
        F.getStorageClass() == SC_Static || !F.isExternallyVisible())
      return;
    if (F.getTemplateSpecializationKind() == TSK_ExplicitSpecialization) {
      // `static` may not qualify an explicit specialization; `inline` may.
      DefinesTwice.insert(fileOf(&F));
      Rewriter.InsertTextBefore(SM.getExpansionLoc(F.getInnerLocStart()), "inline ");
      return;
    }
    // A declaration before it must say static too; one kfuse cannot edit
    // (in a system header) keeps the definition as it is.
    std::vector<const FunctionDecl *> Earlier = earlierDeclarations(F);
    if (llvm::any_of(Earlier, [&](const FunctionDecl *R) { return !inProjectFile(R); }))
      return;
    for (const FunctionDecl *R : Earlier) {
      DefinesTwice.insert(fileOf(R));
      if (const LinkageSpecDecl *Spec = bracelessLinkage(R))
        replaceLinkage(*Spec, "static ");
      else if (R->getStorageClass() != SC_Static)
        Rewriter.InsertTextBefore(wholeDecl(R).getBegin(), "static ");
    }
    DefinesTwice.insert(fileOf(&F)); // nvcc gives device functions host symbols too.
    if (const LinkageSpecDecl *Spec = bracelessLinkage(&F))
      return replaceLinkage(*Spec, "[[maybe_unused]] static inline ");
    Rewriter.InsertTextBefore(wholeDecl(&F).getBegin(), "[[maybe_unused]] static inline ");
  }

  /// The declarations of \p D before it, which do not define it.
  template <typename T> std::vector<const T *> earlierDeclarations(const T &D) const {
    std::vector<const T *> Found;
    for (const T *R : D.redecls())
      if (R != &D && !R->isThisDeclarationADefinition() && !R->isImplicit() &&
          SM.isBeforeInTranslationUnit(SM.getExpansionLoc(R->getLocation()),
                                       SM.getExpansionLoc(D.getLocation())))
        Found.push_back(R);
    return Found;
  }

  /// A constant with external linkage (extern "C" const int k = 1;) is
  /// defined by the original object too.
  void makeInternal(const VarDecl &V) {
    if (!definedForLinker(&V))
      return;
    // An extern declaration before it cannot become static without an
    // initializer: it goes, and the definition stands for both.
    std::vector<const VarDecl *> Earlier;
    for (const VarDecl *R : V.redecls())
      if (R != &V && R->isThisDeclarationADefinition() == VarDecl::DeclarationOnly &&
          SM.isBeforeInTranslationUnit(SM.getExpansionLoc(R->getLocation()),
                                       SM.getExpansionLoc(V.getLocation())))
        Earlier.push_back(R);
    if (llvm::any_of(Earlier, [&](const VarDecl *R) { return !inProjectFile(R); }))
      return;
    for (const VarDecl *R : Earlier) {
      DefinesTwice.insert(fileOf(R));
      Rewriter.ReplaceText(wholeDecl(R), "// kfuse: '" + R->getNameAsString() +
                                             "' is declared with its definition below.");
    }
    DefinesTwice.insert(fileOf(&V));
    if (const LinkageSpecDecl *Spec = bracelessLinkage(&V))
      return replaceLinkage(*Spec, "static ");
    SourceLocation Begin = wholeDecl(&V).getBegin();
    // A variable template's `static` follows its template parameters.
    if (V.getDescribedVarTemplate())
      Begin = SM.getExpansionLoc(V.getInnerLocStart());
    if (!Internalized.insert(SM.getFileOffset(Begin)).second)
      return; // Already static: a header's text is edited once.
    if (V.getStorageClass() == SC_Extern) {
      // extern const int k = 1; spells its linkage: the keyword is its first token.
      Rewriter.ReplaceText(Begin, 6, "static");
      return;
    }
    Rewriter.InsertTextBefore(Begin, "static ");
  }

  /// Replaces `extern "C"` (up to the declaration) with \p Text.
  void replaceLinkage(const LinkageSpecDecl &Spec, llvm::StringRef Text) {
    SourceLocation Begin = SM.getExpansionLoc(Spec.getBeginLoc());
    SourceLocation Decl = SM.getExpansionLoc((*Spec.decls_begin())->getBeginLoc());
    Rewriter.ReplaceText(CharSourceRange::getCharRange(Begin, Decl), Text);
  }

  /// Every inclusion of a project (not system) file, with its directive.
  void collectInclusions() {
    PreprocessingRecord *Record = Unit.getPreprocessor().getPreprocessingRecord();
    if (!Record)
      return;
    std::map<FileID, std::vector<const InclusionDirective *>> ByFile;
    for (PreprocessedEntity *E : *Record)
      if (auto *Include = dyn_cast_or_null<InclusionDirective>(E); Include && Include->getFile())
        ByFile[SM.getFileID(Include->getSourceRange().getBegin())].push_back(Include);
    for (unsigned I = 1; I < SM.local_sloc_entry_size(); ++I) {
      const SrcMgr::SLocEntry &Entry = SM.getLocalSLocEntry(I);
      if (!Entry.isFile())
        continue;
      SourceLocation IncludeLoc = Entry.getFile().getIncludeLoc();
      FileID File = SM.getFileID(SourceLocation::getFromRawEncoding(Entry.getOffset()));
      if (IncludeLoc.isInvalid() || !SM.getFileEntryRefForID(File) ||
          SM.isInSystemHeader(SM.getLocForStartOfFile(File)))
        continue;
      FileID Parent = SM.getFileID(IncludeLoc);
      unsigned Line = SM.getSpellingLineNumber(IncludeLoc);
      for (const InclusionDirective *D : ByFile[Parent])
        if (SM.getSpellingLineNumber(D->getSourceRange().getEnd()) == Line) {
          Inclusions.push_back({D, Parent, File});
          break;
        }
    }
  }

  std::string realPath(FileID File) const {
    OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
    return Entry ? Entry->getFileEntry().tryGetRealPathName().str() : "";
  }

  bool unguarded(FileID File) const {
    OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
    return Entry &&
           !Unit.getPreprocessor().getHeaderSearchInfo().isFileMultipleIncludeGuarded(*Entry);
  }

  /// How often this unit includes the file at \p Path: a header without a
  /// guard included twice is meant to be (X-macros), and stays repeated.
  unsigned timesIncluded(const std::string &Path) const {
    return static_cast<unsigned>(
        std::count_if(Inclusions.begin(), Inclusions.end(),
                      [&](const Inclusion &I) { return realPath(I.File) == Path; }));
  }

  bool repeats(const Inclusion &I, const PreambleHistory &History) const {
    std::string Path = realPath(I.File);
    return unguarded(I.File) && History.UnguardedHeaders.count(Path) && timesIncluded(Path) == 1;
  }

  /// Whether \p File must be copied: it defines what the original objects
  /// define, or includes a file that must be copied or left out.
  bool needsCopy(FileID File, const PreambleHistory &History) {
    if (auto It = NeedsCopy.find(File); It != NeedsCopy.end())
      return It->second;
    NeedsCopy[File] = false; // Provisional, for a header that includes itself.
    bool Needs = DefinesTwice.count(File) > 0;
    for (const Inclusion &I : Inclusions)
      if (I.Parent == File && (repeats(I, History) || needsCopy(I.File, History)))
        Needs = true;
    // A header this parse skipped here (its guard) that is copied: nvcc
    // would include the original from this file's text.
    for (FileID Target : skippedTargets(File))
      if (needsCopy(Target, History))
        Needs = true;
    return NeedsCopy[File] = Needs;
  }

  /// The files that #includes in \p File name but this parse skipped (a
  /// guard, #pragma once), as their first inclusion entered them.
  std::vector<FileID> skippedTargets(FileID File) const {
    std::vector<FileID> Targets;
    PreprocessingRecord *Record = Unit.getPreprocessor().getPreprocessingRecord();
    for (PreprocessedEntity *E : *Record) {
      auto *Include = dyn_cast_or_null<InclusionDirective>(E);
      if (!Include || !Include->getFile() ||
          SM.getFileID(Include->getSourceRange().getBegin()) != File || entered(*Include))
        continue;
      for (const Inclusion &I : Inclusions) {
        OptionalFileEntryRef Entry = SM.getFileEntryRefForID(I.File);
        if (Entry && Entry->getUniqueID() == Include->getFile()->getUniqueID()) {
          Targets.push_back(I.File);
          break;
        }
      }
    }
    return Targets;
  }

  void planIncludes(FileID File, const PreambleHistory &History) {
    for (const Inclusion &I : Inclusions) {
      if (I.Parent != File)
        continue;
      if (repeats(I, History)) {
        Modes[I.Directive] = IncludeMode::Repeat;
      } else if (needsCopy(I.File, History)) {
        Modes[I.Directive] = IncludeMode::Copy;
        planIncludes(I.File, History);
      }
    }
  }

  /// The text of \p File with every edit, and its inclusions kept,
  /// re-pointed, copied or left out.
  std::string textOf(FileID File) {
    PreprocessingRecord *Record = Unit.getPreprocessor().getPreprocessingRecord();
    for (PreprocessedEntity *E : *Record) {
      auto *Include = dyn_cast_or_null<InclusionDirective>(E);
      if (!Include || !Include->getFile() ||
          SM.getFileID(Include->getSourceRange().getBegin()) != File ||
          inDropped(Include->getSourceRange().getBegin()))
        continue;
      auto Mode = Modes.find(Include);
      std::string Name = Include->getFileName().str();
      if (Mode == Modes.end()) {
        // Skipped by its guard or #pragma once here: a copied header's
        // original would define everything a second time.
        if (!entered(*Include) && copied(*Include->getFile()))
          replaceDirective(*Include, "// kfuse: \"" + Name +
                                         "\" is copied above; its guard skipped it here.");
        else if (entered(*Include) || !isSystemInclusion(*Include))
          relocate(*Include); // A project file; system headers are found as before.
        continue;
      }
      if (Mode->second == IncludeMode::Repeat) {
        replaceDirective(*Include, "// kfuse: \"" + Name +
                                       "\" has no include guard, and an "
                                       "earlier input's declarations already include it.");
        continue;
      }
      for (const Inclusion &I : Inclusions)
        if (I.Directive == Include)
          replaceDirective(*Include, copiedText(I.File, Name));
    }
    const RewriteBuffer *Buffer = Rewriter.getRewriteBufferFor(File);
    std::string Text =
        Buffer ? std::string(Buffer->begin(), Buffer->end()) : SM.getBufferData(File).str();
    // Pasted into the middle of the fused file, a file's text must read as
    // it did at its start: a byte-order mark there would hide the directive
    // after it, and a last line without its newline would run into the next.
    if (llvm::StringRef(Text).starts_with("\xEF\xBB\xBF"))
      Text.erase(0, 3);
    if (!Text.empty() && Text.back() != '\n')
      Text += "\n";
    return Text;
  }

  /// A header copied in place of its include, guarded like the original.
  std::string copiedText(FileID File, const std::string &Name) {
    OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
    bool Once =
        Entry && Unit.getPreprocessor().getHeaderSearchInfo().getFileInfo(*Entry).isPragmaOnce;
    std::string Guard;
    if (Once) {
      Guard = "KFUSE_ONCE_" + identifierFrom(llvm::sys::path::stem(Name)) + "_" +
              llvm::utohexstr(llvm::xxh3_64bits(realPath(File)) & 0xffffffffu, /*LowerCase=*/true);
      commentOutPragmaOnce(File);
    }
    std::string Text = "// kfuse: \"" + Name +
                       "\" defines what the fused file leaves out; its "
                       "declarations follow, edited like this file's.\n";
    if (Once)
      Text += "#ifndef " + Guard + "\n#define " + Guard + "\n";
    Text += textOf(File);
    if (Once)
      Text += "#endif\n";
    return Text + "// kfuse: end of \"" + Name + "\".";
  }

  void commentOutPragmaOnce(FileID File) {
    llvm::StringRef Text = SM.getBufferData(File);
    for (size_t At = 0; At < Text.size();) {
      size_t End = Text.find('\n', At);
      llvm::StringRef Line = Text.slice(At, End);
      llvm::StringRef Words = Line.trim();
      bool Directive = Words.consume_front("#");
      Words = Words.ltrim();
      if (Directive && Words.consume_front("pragma") && Words.trim() == "once") {
        Rewriter.ReplaceText(SM.getLocForStartOfFile(File).getLocWithOffset(At), Line.size(),
                             "// kfuse: #pragma once became the guard around this copy.");
        return;
      }
      if (End == llvm::StringRef::npos)
        break;
      At = End + 1;
    }
  }

  void replaceDirective(const InclusionDirective &Include, const std::string &Text) {
    SourceRange R = Include.getSourceRange();
    Rewriter.ReplaceText(
        CharSourceRange::getCharRange(
            R.getBegin(), Lexer::getLocForEndOfToken(R.getEnd(), 0, SM, Unit.getLangOpts())),
        Text);
  }

  /// A quoted include, found from the output's directory.
  bool entered(const InclusionDirective &Include) const {
    return std::any_of(Inclusions.begin(), Inclusions.end(),
                       [&](const Inclusion &I) { return I.Directive == &Include; });
  }

  /// Whether an inclusion this parse entered copies \p File in its place.
  bool copied(FileEntryRef File) const {
    for (const Inclusion &I : Inclusions) {
      auto Mode = Modes.find(I.Directive);
      OptionalFileEntryRef Entry = SM.getFileEntryRefForID(I.File);
      if (Mode != Modes.end() && Mode->second == IncludeMode::Copy && Entry &&
          Entry->getUniqueID() == File.getUniqueID())
        return true;
    }
    return false;
  }

  bool isSystemInclusion(const InclusionDirective &Include) const {
    return !Include.wasInQuotes() || Unit.getPreprocessor().getHeaderSearchInfo().getFileDirFlavor(
                                         *Include.getFile()) != SrcMgr::C_User;
  }

  void relocate(const InclusionDirective &Include) {
    if (!Include.wasInQuotes())
      return;
    std::filesystem::path Target(Include.getFile()->getFileEntry().tryGetRealPathName().str());
    if (Target.empty())
      return;
    if (Mirror)
      Target = Mirror->map(Target.lexically_normal().string());
    std::filesystem::path Relative =
        Target.lexically_relative(std::filesystem::absolute(OutputDir).lexically_normal());
    replaceDirective(Include, "#include \"" + Relative.generic_string() + "\"");
  }

  /// The unguarded headers this preamble brought in, which later ones must
  /// not repeat.
  void rememberUnguarded(PreambleHistory &History) const {
    for (const Inclusion &I : Inclusions) {
      auto Mode = Modes.find(I.Directive);
      if (unguarded(I.File) && (Mode == Modes.end() || Mode->second != IncludeMode::Repeat))
        History.UnguardedHeaders.insert(realPath(I.File));
    }
  }
};

} // namespace

namespace {

/// The macros of earlier files still defined where \p Unit's declarations
/// start (\p Defined) that it does not read: defined in a file it does not
/// include. A macro from a header it includes too stays, since the header's
/// guard keeps the header from defining it again; include guards stay for
/// that reason.
bool definedBySystemHeader(ASTUnit &Unit, llvm::StringRef Name) {
  Preprocessor &PP = Unit.getPreprocessor();
  const MacroInfo *MI = PP.getMacroInfo(PP.getIdentifierInfo(Name));
  return MI && !MI->isBuiltinMacro() &&
         Unit.getSourceManager().isInSystemHeader(MI->getDefinitionLoc());
}

std::vector<std::string> macrosToUndefine(const std::map<std::string, UserMacro> &Defined,
                                          const std::set<std::string> &Files) {
  std::vector<std::string> Names;
  for (const auto &[Name, M] : Defined)
    if (!M.Guard && !Files.count(M.File))
      Names.push_back(Name);
  return Names;
}

} // namespace

std::map<const ASTUnit *, std::shared_ptr<const FileRenames>>
planFileRenames(const std::vector<std::pair<ASTUnit *, const DeviceVariables *>> &Units,
                NameAllocator &Names, Reporter &Diags) {
  std::map<const ASTUnit *, std::shared_ptr<FileRenames>> Plan;
  std::set<std::string> Defined;
  std::map<std::string, std::string> HeaderDefined; // What would clash, to its header.
  std::set<std::string> HeaderNames;
  std::map<std::string, UserMacro> Macros; // Defined after the preambles so far.
  std::set<std::string> IncludedBefore;    // The files of the preambles so far.
  const FileRenames None;
  for (const auto &[Unit, Variables] : Units) {
    auto Renames = std::make_shared<FileRenames>();
    std::set<std::string> Clashing;
    ExtractedPreamble Kept =
        Extractor(*Unit, ".", None, *Variables, Diags, PreambleUse::Fused).definitions();
    // A header's definitions cannot be renamed: another input's different
    // header, or an earlier .cu file, must not define them.
    for (const auto &[Key, Def] : Kept.HeaderDefinitions) {
      auto [It, New] = HeaderDefined.emplace(Key, Def.File);
      if (!New && It->second != Def.File)
        Diags.report(Def.Loc, Unit->getSourceManager(), diag::ID::HeaderClash)
            << Key << "'" + It->second + "', which an earlier input includes";
      else if (New && Defined.count(Def.Name))
        Diags.report(Def.Loc, Unit->getSourceManager(), diag::ID::HeaderClash)
            << Key << "an earlier input's .cu file";
    }
    for (const auto &[Name, Loc] : Kept.Definitions)
      if (!Defined.insert(Name).second || HeaderNames.count(Name))
        Clashing.insert(Name);
    for (const auto &[Key, Def] : Kept.HeaderDefinitions)
      HeaderNames.insert(Def.Name);
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
        // Another file's macro spells it: no edit of this file renames it.
        SourceManager &SM = Unit->getSourceManager();
        if (!SM.isWrittenInMainFile(SM.getSpellingLoc(S.Loc)))
          Diags.report(S.Loc, SM, diag::ID::HelperClash) << S.Symbol->getName() << It->second;
      }
    std::set<std::string> Files = projectFiles(*Unit);
    Renames->UndefineBefore = macrosToUndefine(Macros, Files);
    for (const std::string &Name : Renames->UndefineBefore)
      Macros.erase(Name);
    Renames->Macros = userMacros(*Unit);
    // Two files guarded by one macro: the fused file would skip the later.
    for (const auto &[Name, M] : Renames->Macros) {
      auto Earlier = Macros.find(Name);
      if (M.Guard && Earlier != Macros.end() && Earlier->second.Guard &&
          Earlier->second.File != M.File)
        Diags.report(M.Loc, Unit->getSourceManager(), diag::ID::GuardClash)
            << Name << Earlier->second.File;
    }
    // A header an earlier file included is skipped when this one includes
    // it again (#pragma once or its guard): its macros stay as they were,
    // undefined if a file between undefined them.
    for (const auto &[Name, M] : Renames->Macros)
      if (!IncludedBefore.count(M.File))
        Macros[Name] = M;
    // What another pass of nvcc may define here must not reach later files.
    // A name a system header defines in this pass stays (`#ifndef FLT_MAX`
    // around a fallback): no section could give it back.
    for (const auto &[Name, M] : otherPassMacros(*Unit))
      if (!Renames->Macros.count(Name) && !IncludedBefore.count(M.File) &&
          !definedBySystemHeader(*Unit, Name))
        Macros.emplace(Name, M);
    IncludedBefore.insert(Files.begin(), Files.end());
    Plan[Unit] = std::move(Renames);
  }
  auto AtKernels = std::make_shared<const std::map<std::string, UserMacro>>(std::move(Macros));
  for (auto &[Unit, Renames] : Plan)
    Renames->AtKernels = AtKernels;
  return {Plan.begin(), Plan.end()};
}

std::string HeaderMirror::map(const std::string &Path) const {
  std::filesystem::path Relative = std::filesystem::path(Path).lexically_relative(From);
  if (Relative.empty() || *Relative.begin() == "..")
    return Path;
  return (std::filesystem::path(To) / Relative).lexically_normal().string();
}

std::optional<ExtractedPreamble> extractPreamble(ASTUnit &Unit, const std::string &OutputDir,
                                                 const FileRenames &Renames,
                                                 const DeviceVariables &Variables, Reporter &Diags,
                                                 PreambleHistory &History, PreambleUse Use,
                                                 const HeaderMirror *Mirror) {
  return Extractor(Unit, OutputDir, Renames, Variables, Diags, Use, Mirror).run(History);
}

} // namespace kfuse

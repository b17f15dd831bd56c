//===- CallInliner.cpp - rewriting a body and inlining what it calls ------===//
//
// A device function that reads the built-in variables, synchronizes or uses
// shared memory would act on the whole fused block if it stayed a call, so
// its body is copied into the caller: parameters become fresh locals bound
// to the arguments, returns store the value and jump to the end of the
// copy, and its own calls are inlined the same way. The copy lands inside
// the kernel's section, where the section's declarations give it the
// kernel's view of the block.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Transforms/HorizontalFuser.h"
#include "kfuse/Transforms/KernelRewrites.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <utility>

namespace kfuse {
namespace {

std::string print(clang::QualType T, const clang::ASTContext &AST, const std::string &Name = "") {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  T.print(OS, AST.getPrintingPolicy(), Name);
  return Out;
}

std::string origin(const clang::FunctionDecl &F) {
  const clang::SourceManager &SM = F.getASTContext().getSourceManager();
  clang::SourceLocation Loc = SM.getExpansionLoc(F.getLocation());
  return llvm::sys::path::filename(SM.getFilename(Loc)).str() + ":" +
         std::to_string(SM.getExpansionLineNumber(Loc));
}

} // namespace

namespace {

/// using T = float; and constexpr int N = 256; for the arguments of
/// \p Params.
std::string argumentDeclarations(const clang::TemplateParameterList &Params,
                                 llvm::ArrayRef<clang::TemplateArgument> Args,
                                 const clang::ASTContext &AST) {
  std::string Text;
  for (unsigned I = 0; I < Params.size() && I < Args.size(); ++I) {
    const clang::NamedDecl *P = Params.getParam(I);
    const clang::TemplateArgument &A = Args[I];
    if (!P->getIdentifier())
      continue;
    if (A.getKind() == clang::TemplateArgument::Type)
      Text += "using " + P->getName().str() + " = " + print(A.getAsType(), AST) + ";\n";
    else if (A.getKind() == clang::TemplateArgument::Integral) {
      // An enumerator is printed by its value, which an enum takes only by a cast.
      std::string Value = llvm::toString(A.getAsIntegral(), 10);
      if (A.getIntegralType()->isEnumeralType())
        Value = "static_cast<" + print(A.getIntegralType(), AST) + ">(" + Value + ")";
      Text += "constexpr " + print(A.getIntegralType(), AST, P->getName().str()) + " = " + Value +
              ";\n";
    }
  }
  return Text;
}

/// The arguments of the class template a member function belongs to, which
/// its body spells by their parameters' names.
std::string classTemplateArguments(const clang::FunctionDecl &F) {
  const auto *Method = llvm::dyn_cast<clang::CXXMethodDecl>(&F);
  const auto *Spec =
      Method ? llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(Method->getParent())
             : nullptr;
  if (!Spec || Spec->isExplicitSpecialization())
    return "";
  auto From = Spec->getSpecializedTemplateOrPartial();
  if (auto *Partial = From.dyn_cast<clang::ClassTemplatePartialSpecializationDecl *>())
    return argumentDeclarations(*Partial->getTemplateParameters(),
                                Spec->getTemplateInstantiationArgs().asArray(), F.getASTContext());
  return argumentDeclarations(*From.get<clang::ClassTemplateDecl *>()->getTemplateParameters(),
                              Spec->getTemplateArgs().asArray(), F.getASTContext());
}

} // namespace

std::string templateArgumentDeclarations(const clang::FunctionDecl &F) {
  std::string Text = classTemplateArguments(F);
  const clang::FunctionTemplateDecl *Template = F.getPrimaryTemplate();
  const clang::TemplateArgumentList *Args = F.getTemplateSpecializationArgs();
  if (!Template || !Args)
    return Text;
  return Text + argumentDeclarations(*Template->getTemplateParameters(), Args->asArray(),
                                     F.getASTContext());
}

namespace {

/// Rewrites one body; inlines the calls in it through further instances.
/// A prefix for the names an inlined copy of \p F declares: the function's
/// name, after its class's for a member ("SharedMemory_op" for an operator).
std::string inlineName(const clang::FunctionDecl &F) {
  std::string Base = F.getIdentifier() ? F.getName().str() : "op";
  if (const auto *M = llvm::dyn_cast<clang::CXXMethodDecl>(&F);
      M && M->getParent()->getIdentifier())
    Base = M->getParent()->getName().str() + "_" + Base;
  return identifierFrom(Base);
}

/// The object of a member call (null when the call names none), and
/// whether the call reaches it through a pointer (`p->f()`).
std::pair<const clang::Expr *, bool> objectOf(const CallSite &C) {
  if (const auto *Member = llvm::dyn_cast<clang::CXXMemberCallExpr>(C.Call)) {
    const auto *Callee = llvm::dyn_cast<clang::MemberExpr>(Member->getCallee()->IgnoreParens());
    return {Member->getImplicitObjectArgument(), Callee && Callee->isArrow()};
  }
  if (const auto *Op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(C.Call))
    return {Op->getArg(0), false};
  return {nullptr, false};
}

class BodyRewriter {
public:
  /// \p ThisName names the pointer that stands for `this` in the body of a
  /// member function; empty otherwise.
  BodyRewriter(const KernelModel &Model, std::string Prefix, RenameMap Renames, ReturnPlan &Returns,
               SectionContext &Ctx, std::vector<const clang::FunctionDecl *> &Inlining,
               std::string ThisName = "")
      : Model(Model), Prefix(std::move(Prefix)), Renames(std::move(Renames)), Returns(Returns),
        Ctx(Ctx), Inlining(Inlining), ThisName(std::move(ThisName)),
        Edits(Ctx.Unit, Ctx.Diags, &Ctx.MacroBodies), AST(Ctx.Unit.getASTContext()) {}

  std::optional<std::string> run() {
    for (const BuiltinUse &U : Model.Builtins)
      if (!inStepHeader(*U.Ref))
        Ctx.Builtins.insert(U.Var);
    RenameMap Locals = freshNames(Model, Prefix, /*Params=*/false, Ctx.Names);
    Renames.insert(Locals.begin(), Locals.end());
    // Analysis refused a local that keeps its name where an inlined body
    // would find it instead of the name it meant (checkNameCapture).
    bool Ok = renameSymbols(Model, Renames, Edits);
    if (!ThisName.empty())
      Ok &= rewriteThis();
    Ok &= renameFileSymbols(Ctx.Renames, Model.Decl->getBody()->getSourceRange(),
                            Ctx.Unit.getSourceManager(), Edits);
    Ok &= rewriteBarriers(Model, Ctx, Edits);
    // After the renames: it spells the array and the thread as they read.
    Ok &= rewriteTreeReductions(Model, Ctx, Edits);
    Ok &= rewriteGroupQueries(Model, Ctx, Edits);
    Ok &= guardSkippedBranches(Model, Ctx, Edits);
    Ok &= rewriteDynamicShared(Model, Renames, Ctx, Edits);
    Ok &= replaceAccesses();
    for (const CallSite *C : Model.callsToInline())
      Ok &= C->lowering() == CallLowering::SectionCopy ? callCopy(*C) : inlineCall(*C);
    Ok &= placeHoisted();
    Ok &= rewriteReturns(Model, Returns, Edits);
    for (const clang::CompoundStmt *C : Model.DiscardedBranches)
      Ok &= Edits.replaceStatement(*C, "{}", "a discarded 'if constexpr' branch");
    // Last: it reads the loop's body with every other edit made.
    if (Ctx.Strides && Ctx.Strides->Loop.Variable->getDeclContext() == Model.Decl)
      Ok &= coarsenLoop(*Ctx.Strides);
    if (Ctx.InStep && Ctx.InStep->Loop.Variable->getDeclContext() == Model.Decl)
      Ok &= oneIteration(*Ctx.InStep);
    if (!Ok)
      return std::nullopt;
    std::string Text = Edits.rewrittenText(Model.Decl->getBody()->getSourceRange());
    if (Edits.failed()) // Text it read lies in a macro's body: reported.
      return std::nullopt;
    return Text;
  }

private:
  const KernelModel &Model;
  std::string Prefix; ///< Of fresh names.
  RenameMap Renames;
  ReturnPlan &Returns;
  SectionContext &Ctx;
  std::vector<const clang::FunctionDecl *> &Inlining;
  std::string ThisName;
  EditSet Edits;
  const clang::ASTContext &AST;

  std::string printed(const clang::Expr &E) const {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    E.printPretty(OS, nullptr, AST.getPrintingPolicy());
    return Text;
  }

  /// The grid-stride loop runs C.Count iterations at a time: where the
  /// buffers lie apart, every iteration's loads first; otherwise each
  /// iteration loads right before its body, where the body loads. Its
  /// variable takes the values it took, computed as it computed them.
  bool coarsenLoop(const CoarseStrides &C) {
    const clang::ForStmt &Loop = *C.Loop.Loop;
    std::string Type =
        C.Loop.Variable->getType().getCanonicalType().getUnqualifiedType().getAsString(
            AST.getPrintingPolicy());
    auto Renamed = Renames.find(C.Loop.Variable);
    std::string Var = Renamed != Renames.end() ? Renamed->second : C.Loop.Variable->getName().str();
    std::string Count = std::to_string(C.Count);
    std::string J = C.Iteration;
    auto LoadAt = [&](const std::string &At) {
      std::string T;
      for (const AheadLoad &L : C.Loads)
        T += L.Array + "[" + J + "] = " + L.Buffer + "[" + At + "];\n";
      return T;
    };
    std::string T = "{\n// " + Count +
                    " iterations of the grid-stride loop at a time, their loads first where the "
                    "buffers it writes share no element with the others.\n";
    T += "const bool " + C.ApartName + " = " + C.Apart + ";\n";
    T += "const auto " + C.Step + " = " + printed(*C.Loop.Step) + ";\n";
    T += "for (" + Type + " " + C.Next + " = " + printed(*C.Loop.Init) + "; " + C.Next + " < " +
         C.Bound + ";) {\n";
    for (const AheadLoad &L : C.Loads)
      T += "// " + L.Comment + "\n" + L.Type + " " + L.Array + "[" + Count + "]{};\n";
    T += "if (" + C.ApartName + ") {\n" + Type + " " + C.At + " = " + C.Next + ";\n";
    T += "#pragma unroll\nfor (unsigned " + J + " = 0; " + J + " < " + Count + "u && " + C.At +
         " < " + C.Bound + "; ++" + J + ", " + C.At + " += " + C.Step + ") {\n" + LoadAt(C.At) +
         "}\n}\n";
    T += "#pragma unroll\nfor (unsigned " + J + " = 0; " + J + " < " + Count + "u && " + C.Next +
         " < " + C.Bound + "; ++" + J + ", " + C.Next + " += " + C.Step + ") {\n";
    T += "if (!" + C.ApartName + ") {\n" + LoadAt(C.Next) + "}\n";
    for (const AheadLoad &L : C.Loads)
      T += "const " + L.Type + " &" + L.Name + " = " + L.Array + "[" + J + "];\n";
    T += Type + " " + Var + " = " + C.Next + ";\n";
    T += Edits.rewrittenText(Loop.getBody()->getSourceRange()) +
         (llvm::isa<clang::CompoundStmt>(Loop.getBody()) ? "" : ";") + "\n}\n}\n}";
    // With the semicolon that ends a body of one statement.
    return Edits.replaceStatement(Loop, T, "a grid-stride loop");
  }

  /// Whether \p E lies in the header of the loop that runs in step, which
  /// the loop around the sections computes instead.
  bool inStepHeader(const clang::Expr &E) const {
    if (!Ctx.InStep || Ctx.InStep->Loop.Variable->getDeclContext() != Model.Decl)
      return false;
    const clang::ForStmt &Loop = *Ctx.InStep->Loop.Loop;
    const clang::SourceManager &SM = AST.getSourceManager();
    return SM.isPointWithin(SM.getExpansionLoc(E.getBeginLoc()),
                            SM.getExpansionLoc(Loop.getBeginLoc()),
                            SM.getExpansionLoc(Loop.getRParenLoc()));
  }

  /// Whether \p Body names \p V outside the accesses that became registers.
  bool namedOutsideRegisters(const clang::VarDecl &V, const clang::Stmt &Body) const {
    struct Finder : clang::RecursiveASTVisitor<Finder> {
      const clang::VarDecl *V;
      std::vector<const clang::DeclRefExpr *> Found;
      bool VisitDeclRefExpr(clang::DeclRefExpr *R) {
        if (R->getDecl() == V)
          Found.push_back(R);
        return true;
      }
    } Find;
    Find.V = &V;
    Find.TraverseStmt(const_cast<clang::Stmt *>(&Body));
    const clang::SourceManager &SM = AST.getSourceManager();
    return llvm::any_of(Find.Found, [&](const clang::DeclRefExpr *R) {
      clang::SourceLocation At = SM.getExpansionLoc(R->getLocation());
      return llvm::none_of(Ctx.Replaced, [&](const auto &Site) {
        return SM.isPointWithin(At, SM.getExpansionLoc(Site.first->getBeginLoc()),
                                SM.getExpansionLoc(Site.first->getEndLoc()));
      });
    });
  }

  /// The grid-stride loop runs the one iteration of element S.Element: the
  /// loop over the elements stands around the sections.
  bool oneIteration(const StepIteration &S) {
    const clang::ForStmt &Loop = *S.Loop.Loop;
    std::string Type =
        S.Loop.Variable->getType().getCanonicalType().getUnqualifiedType().getAsString(
            AST.getPrintingPolicy());
    auto Renamed = Renames.find(S.Loop.Variable);
    std::string Var = Renamed != Renames.end() ? Renamed->second : S.Loop.Variable->getName().str();
    // A body whose every access became a register names it no more.
    std::string Declaration = namedOutsideRegisters(*S.Loop.Variable, *Loop.getBody())
                                  ? Type + " " + Var + " = " + S.Element + ";\n"
                                  : "";
    std::string T = "{\n// One iteration of the grid-stride loop, in step with the other "
                    "kernels' loops.\n" +
                    Declaration + Edits.rewrittenText(Loop.getBody()->getSourceRange()) +
                    (llvm::isa<clang::CompoundStmt>(Loop.getBody()) ? "" : ";") + "\n}";
    return Edits.replaceStatement(Loop, T, "a grid-stride loop");
  }

  /// `this` becomes the pointer bound to the object; a member reached
  /// through an implicit `this` becomes one reached through that pointer.
  bool rewriteThis() {
    bool Ok = true;
    for (const clang::CXXThisExpr *E : Model.ExplicitThis)
      Ok &= Edits.replaceToken(E->getLocation(), ThisName, "this");
    for (const clang::MemberExpr *M : Model.ImplicitMembers)
      Ok &= Edits.replaceToken(M->getMemberLoc(),
                               ThisName + "->" + M->getMemberNameInfo().getAsString(),
                               M->getMemberNameInfo().getAsString());
    return Ok;
  }

  /// Binds the object of a member call to a pointer named \p Pointer, as
  /// the call would have bound `this`; empty when the body never uses it
  /// (the object is still evaluated).
  std::string bindObject(const CallSite &C, const clang::CXXMethodDecl &Method,
                         const std::string &Name, const std::string &Pointer) {
    auto [Object, Arrow] = objectOf(C);
    const KernelModel &Body = Ctx.Helpers.of(Method);
    bool Used = !Body.ExplicitThis.empty() || !Body.ImplicitMembers.empty();
    std::string Text, Address;
    if (!Object || llvm::isa<clang::CXXThisExpr>(Object->IgnoreParenImpCasts())) {
      Address = ThisName; // A member calling another member of its object.
    } else if (Arrow) {
      Address = "(" + Edits.rewrittenText(Object->getSourceRange()) + ")";
    } else {
      std::string Bound = Ctx.Names.allocate(Name + "_object");
      Text = "auto &&" + Bound + " = " + Edits.rewrittenText(Object->getSourceRange()) + ";\n";
      Address = "&" + Bound;
      if (!Used)
        Text += "(void)" + Bound + ";\n";
    }
    if (Used)
      Text += print(Method.getThisType().withConst(), AST, Pointer) + " = " + Address + ";\n";
    return Text;
  }

  /// Accesses to a temporary that stays in a register become the register.
  bool replaceAccesses() {
    const clang::SourceManager &SM = Ctx.Unit.getSourceManager();
    clang::SourceRange Body = Model.Decl->getBody()->getSourceRange();
    bool Ok = true;
    for (const auto &[Access, Name] : Ctx.Replaced) {
      clang::SourceLocation At = SM.getExpansionLoc(Access->getBeginLoc());
      if (SM.isPointWithin(At, SM.getExpansionLoc(Body.getBegin()),
                           SM.getExpansionLoc(Body.getEnd())))
        Ok &= Edits.replaceRange(Access->getSourceRange(), Name, "temporary");
    }
    return Ok;
  }

  std::string argumentText(const clang::CallExpr &Call, unsigned I,
                           const clang::ParmVarDecl &Param) {
    const clang::Expr *Arg = I < Call.getNumArgs() ? Call.getArg(I) : nullptr;
    if (Arg && !llvm::isa<clang::CXXDefaultArgExpr>(Arg))
      return Edits.rewrittenText(Arg->getSourceRange());
    const clang::Expr *Default = Param.getDefaultArg();
    clang::CharSourceRange Range = clang::Lexer::makeFileCharRange(
        clang::CharSourceRange::getTokenRange(Default->getSourceRange()),
        Ctx.Unit.getSourceManager(), Ctx.Unit.getLangOpts());
    return clang::Lexer::getSourceText(Range, Ctx.Unit.getSourceManager(), Ctx.Unit.getLangOpts())
        .str();
  }

  /// The callee's body as a block: bound parameters, its rewritten body and
  /// the label its returns jump to.
  std::optional<std::string> inlinedBlock(const CallSite &C, const std::string &Result) {
    const clang::FunctionDecl &Callee = *C.Callee->getDefinition();
    const KernelModel &CalleeModel = Ctx.Helpers.of(Callee);
    std::string Name = inlineName(Callee);
    RenameMap CalleeNames;
    std::string Text =
        "{\n// Inlined '" + Callee.getQualifiedNameAsString() + "' (" + origin(Callee) + ").\n";
    std::string CalleeThis;
    if (const auto *Method = llvm::dyn_cast<clang::CXXMethodDecl>(&Callee);
        Method && Method->isInstance()) {
      CalleeThis = Ctx.Names.allocate(Name + "_this");
      Text += bindObject(C, *Method, Name, CalleeThis);
    }
    // An operator that is a member takes its object as argument 0.
    unsigned Skip = llvm::isa<clang::CXXOperatorCallExpr>(C.Call) && !CalleeThis.empty() ? 1 : 0;
    for (unsigned I = 0; I < Callee.getNumParams(); ++I) {
      const clang::ParmVarDecl *P = Callee.getParamDecl(I);
      std::string Fresh =
          Ctx.Names.allocate(Name + "_" + (P->getIdentifier() ? P->getName().str() : "arg"));
      CalleeNames[P] = Fresh;
      Text += print(P->getType(), AST, Fresh) + " = " + argumentText(*C.Call, I + Skip, *P) + ";\n";
    }
    Text += templateArgumentDeclarations(Callee);
    ReturnPlan CalleeReturns;
    CalleeReturns.EndLabel = Ctx.Names.allocate(Name + "_end");
    CalleeReturns.ResultName = Result;
    Inlining.push_back(&Callee);
    std::optional<std::string> Body =
        BodyRewriter(CalleeModel, Name, CalleeNames, CalleeReturns, Ctx, Inlining, CalleeThis)
            .run();
    Inlining.pop_back();
    if (!Body)
      return std::nullopt;
    if (CalleeModel.Returns.empty())
      return Text + *Body + "\n}";
    return Text + *Body + "\n" + CalleeReturns.EndLabel + ":;\n}";
  }

  /// The address of the object of a member call: what `this` is in the callee.
  std::string objectAddress(const CallSite &C) {
    auto [Object, Arrow] = objectOf(C);
    if (!Object || llvm::isa<clang::CXXThisExpr>(Object->IgnoreParenImpCasts()))
      return ThisName; // A member calling another member of its object.
    std::string Text = Edits.rewrittenText(Object->getSourceRange());
    return Arrow ? "(" + Text + ")" : "&(" + Text + ")";
  }

  /// The call becomes a call of the section's copy of its callee, with the
  /// same arguments (the object's address first for a member).
  bool callCopy(const CallSite &C) {
    const clang::FunctionDecl &Callee = *C.Callee->getDefinition();
    if (std::find(Inlining.begin(), Inlining.end(), &Callee) != Inlining.end())
      return false; // Reported by the legality checks.
    std::optional<std::string> Name = copyOf(Callee, C.DeclaresShared);
    if (!Name)
      return false;
    std::vector<std::string> Args;
    unsigned Skip = 0;
    if (const auto *Method = llvm::dyn_cast<clang::CXXMethodDecl>(&Callee);
        Method && Method->isInstance()) {
      Args.push_back(objectAddress(C));
      Skip = llvm::isa<clang::CXXOperatorCallExpr>(C.Call) ? 1 : 0;
    }
    for (unsigned I = 0; I < Callee.getNumParams(); ++I)
      Args.push_back(argumentText(*C.Call, I + Skip, *Callee.getParamDecl(I)));
    return Edits.replaceRange(C.Call->getSourceRange(), *Name + "(" + llvm::join(Args, ", ") + ")",
                              Callee.getNameAsString());
  }

  /// The name of the section's copy of \p Callee, a lambda that captures
  /// the section's view of the block, defined on first use: its parameters
  /// keep their types, its body is rewritten as an inlined body is, and its
  /// returns stay returns. \p OwnShared: the callee declares static shared
  /// memory, which is why it is copied rather than inlined.
  std::optional<std::string> copyOf(const clang::FunctionDecl &Callee, bool OwnShared) {
    if (auto It = Ctx.CopyNames.find(&Callee); It != Ctx.CopyNames.end())
      return It->second;
    std::string Base = inlineName(Callee);
    std::vector<std::string> Params;
    std::string CopyThis;
    if (const auto *Method = llvm::dyn_cast<clang::CXXMethodDecl>(&Callee);
        Method && Method->isInstance()) {
      CopyThis = Ctx.Names.allocate(Base + "_this");
      Params.push_back(print(Method->getThisType(), AST, CopyThis));
    }
    RenameMap Names;
    for (const clang::ParmVarDecl *P : Callee.parameters()) {
      Names[P] = Ctx.Names.allocate(Base + "_" + (P->getIdentifier() ? P->getName().str() : "arg"));
      Params.push_back(print(P->getType(), AST, Names[P]));
    }
    ReturnPlan Returns;
    Inlining.push_back(&Callee);
    std::optional<std::string> Body =
        BodyRewriter(Ctx.Helpers.of(Callee), Base, Names, Returns, Ctx, Inlining, CopyThis).run();
    Inlining.pop_back();
    if (!Body)
      return std::nullopt;
    std::string Name = Ctx.Names.allocate(Base + "_copy");
    Ctx.CopyNames[&Callee] = Name;
    Ctx.Copies.push_back("// A copy of '" + Callee.getQualifiedNameAsString() + "' (" +
                         origin(Callee) +
                         (OwnShared ? "), one for all calls, as its __shared__ memory is.\n"
                                    : "), called where its body cannot be inlined.\n") +
                         "const auto " + Name + " = [&](" + llvm::join(Params, ", ") + ") -> " +
                         print(Callee.getReturnType(), AST) + " {\n" +
                         templateArgumentDeclarations(Callee) + *Body + "\n};");
    return Name;
  }

  /// Inlined bodies to put before each statement that calls were hoisted out of.
  std::map<const clang::Stmt *, std::string> Hoisted;

  bool inlineCall(const CallSite &C) {
    const clang::FunctionDecl &Callee = *C.Callee->getDefinition();
    if (std::find(Inlining.begin(), Inlining.end(), &Callee) != Inlining.end())
      return false; // Reported by the legality checks.
    std::string What = Callee.getNameAsString();
    if (C.Position == CallPosition::Statement) {
      std::optional<std::string> Block = inlinedBlock(C, "");
      return Block && Edits.replaceStatement(*C.Site, *Block, What);
    }
    clang::QualType ResultType = Callee.getReturnType();
    bool Void = ResultType->isVoidType();
    std::string Result = Void ? "" : Ctx.Names.allocate(inlineName(Callee) + "_result");
    // The copy reads the call's object and arguments as written, so it comes
    // first; then the call becomes the variable, read where the call stood.
    std::optional<std::string> Block = inlinedBlock(C, Result);
    bool Ok =
        Block && Edits.replaceRange(C.Whole->getSourceRange(), Void ? "(void)0" : Result, What);
    if (!Ok)
      return false;
    Hoisted[C.Site] += (Void ? "" : print(ResultType, AST, Result) + ";\n") + *Block + "\n";
    return true;
  }

  /// Puts the hoisted bodies before their statements, inner statements first
  /// so that an outer one's text includes them.
  bool placeHoisted() {
    std::vector<std::pair<const clang::Stmt *, std::string>> Sites(Hoisted.begin(), Hoisted.end());
    const clang::SourceManager &SM = Ctx.Unit.getSourceManager();
    auto Length = [&](const clang::Stmt *S) {
      clang::SourceRange R = S->getSourceRange();
      return SM.getFileOffset(SM.getExpansionLoc(R.getEnd())) -
             SM.getFileOffset(SM.getExpansionLoc(R.getBegin()));
    };
    std::stable_sort(Sites.begin(), Sites.end(), [&](const auto &A, const auto &B) {
      return Length(A.first) < Length(B.first);
    });
    bool Ok = true;
    for (const auto &[Site, Prefix] : Sites) {
      if (const auto *Return = llvm::dyn_cast<clang::ReturnStmt>(Site)) {
        Returns.Prefixes[Return] = Prefix;
        continue;
      }
      std::string Text = Edits.rewrittenText(Site->getSourceRange());
      if (llvm::isa<clang::DeclStmt>(Site)) {
        // The declared name must stay visible after it, so no braces.
        Ok &= Edits.replaceRange(Site->getSourceRange(), Prefix + Text, "statement");
        continue;
      }
      if (!Text.empty() && Text.back() != '}' && Text.back() != ';')
        Text += ";";
      Ok &= Edits.replaceStatement(*Site, "{\n" + Prefix + Text + "\n}", "statement");
    }
    return Ok;
  }
};

} // namespace

std::optional<std::string> rewriteBody(const KernelModel &Model, const std::string &Prefix,
                                       RenameMap Renames, ReturnPlan &Returns, SectionContext &Ctx,
                                       std::vector<const clang::FunctionDecl *> &Inlining) {
  return BodyRewriter(Model, Prefix, std::move(Renames), Returns, Ctx, Inlining).run();
}

} // namespace kfuse

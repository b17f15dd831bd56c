//===- HorizontalFuser.cpp - several kernels side by side in one block ----===//

#include "kfuse/Transforms/HorizontalFuser.h"

#include "kfuse/Analysis/Kernel/ParamTypes.h"

#include "kfuse/Analysis/Kernel/Mutations.h"
#include "kfuse/Transforms/KernelRewrites.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/IdentifierTable.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/Path.h"

#include <set>

namespace kfuse {

void NameAllocator::reserveIdentifiersOf(clang::ASTUnit &Unit) {
  const clang::IdentifierTable *Table = &Unit.getPreprocessor().getIdentifierTable();
  if (std::find(Tables.begin(), Tables.end(), Table) == Tables.end())
    Tables.push_back(Table);
}

bool NameAllocator::taken(const std::string &Name) const {
  return Taken.count(Name) ||
         std::any_of(Tables.begin(), Tables.end(),
                     [&](const clang::IdentifierTable *T) { return T->find(Name) != T->end(); });
}

std::string identifierFrom(llvm::StringRef Text) {
  std::string Result = Text.str();
  for (char &C : Result)
    if (!llvm::isAlnum(C))
      C = '_';
  return Result;
}

std::string NameAllocator::allocate(const std::string &Wanted) {
  std::string Name = Wanted;
  for (unsigned Suffix = 1; taken(Name); ++Suffix)
    Name = Wanted + "_" + std::to_string(Suffix);
  Taken.insert(Name);
  return Name;
}

namespace {

/// A pointer to \p P's type, fully qualified (`T *` pasted to a pointer to
/// rows, `const double (*)[8][4]`, would not parse).
std::string pointerTo(const clang::ParmVarDecl &P, clang::ASTContext &AST) {
  clang::QualType T = clang::TypeName::getFullyQualifiedType(P.getType(), AST);
  return AST.getPointerType(T.getUnqualifiedType()).getAsString(AST.getPrintingPolicy());
}

/// The identifiers of \p Text, and those of the bodies of \p Macros that
/// they expand to, transitively.
std::set<std::string> identifiersIn(llvm::StringRef Text,
                                    const std::map<std::string, UserMacro> &Macros) {
  std::set<std::string> Found;
  std::vector<llvm::StringRef> Pending = {Text};
  while (!Pending.empty()) {
    llvm::StringRef Rest = Pending.back();
    Pending.pop_back();
    while (!Rest.empty()) {
      Rest = Rest.drop_until([](char C) { return clang::isAsciiIdentifierStart(C); });
      llvm::StringRef Word =
          Rest.take_while([](char C) { return clang::isAsciiIdentifierContinue(C); });
      Rest = Rest.drop_front(Word.size());
      if (Word.empty() || !Found.insert(Word.str()).second)
        continue;
      if (auto It = Macros.find(Word.str()); It != Macros.end())
        Pending.push_back(It->second.Definition);
    }
  }
  return Found;
}

/// The macros \p Text reads whose definition where the fused kernel stands
/// differs from what \p Own (the macros where the kernel is written) gives them.
std::vector<MacroOverride> macroOverrides(const FileRenames &R,
                                          const std::map<std::string, UserMacro> &Own,
                                          llvm::StringRef Text) {
  std::vector<MacroOverride> Result;
  for (const std::string &Name : identifiersIn(Text, Own)) {
    auto Found = Own.find(Name);
    auto Here = R.AtKernels->find(Name);
    const UserMacro *Mine = Found == Own.end() || Found->second.Guard ? nullptr : &Found->second;
    const UserMacro *There =
        Here == R.AtKernels->end() || Here->second.Guard || Here->second.OtherPass ? nullptr
                                                                                   : &Here->second;
    if ((!Mine && !There) || (Mine && There && Mine->Normalized == There->Normalized))
      continue;
    Result.push_back({Name, Mine ? Mine->Definition : ""});
  }
  return Result;
}

/// The macros where \p M's kernel is written: a header may #undef at its
/// end what its kernels use.
std::map<std::string, UserMacro> macrosWhereWritten(const FusionMember &M) {
  return userMacros(*M.Unit,
                    M.Unit->getSourceManager().getExpansionLoc(M.Model.Decl->getBeginLoc()));
}

std::string origin(const FusionMember &M) {
  const clang::SourceManager &SM = M.Unit->getSourceManager();
  clang::SourceLocation Loc = SM.getExpansionLoc(M.Model.Decl->getLocation());
  return M.Spec->File + ":" + std::to_string(SM.getExpansionLineNumber(Loc));
}

/// The parameter as the user declared it, under its new name. Falls back to
/// Clang's spelling of the type when the declaration comes from a macro or
/// a template.
/// \p P as Clang prints it, under \p Name. The fused kernel stands outside
/// the kernel's namespaces: its types are named from the global scope.
std::string printedDeclaration(const clang::ParmVarDecl &P, const std::string &Name,
                               const clang::ASTContext &AST) {
  clang::QualType Type = clang::TypeName::getFullyQualifiedType(P.getType(), AST);
  std::string Printed;
  llvm::raw_string_ostream OS(Printed);
  Type.print(OS, AST.getPrintingPolicy(), Name);
  return Printed;
}

/// Whether \p P is declared `__grid_constant__`. Clang 19 has no such
/// attribute (it drops the toolkit's `__attribute__((grid_constant))`), so
/// the declaration's text says it.
bool spellsGridConstant(const clang::ParmVarDecl &P, clang::ASTUnit &Unit) {
  const clang::SourceManager &SM = Unit.getSourceManager();
  clang::CharSourceRange Range = SM.getExpansionRange(P.getSourceRange());
  return clang::Lexer::getSourceText(Range, SM, Unit.getLangOpts()).contains("grid_constant");
}

std::string paramDeclaration(const clang::ParmVarDecl &P, const std::string &Name,
                             const FusionMember &M, Reporter &Diags) {
  clang::ASTUnit &Unit = *M.Unit;
  const clang::SourceManager &SM = Unit.getSourceManager();
  clang::SourceLocation NameLoc = P.getLocation();
  const auto *F = llvm::dyn_cast<clang::FunctionDecl>(P.getDeclContext());
  bool FromTemplate = F && F->isTemplateInstantiation();
  EditSet Edits(Unit, Diags);
  // Without its default argument: later parameters of the fused kernel have none.
  clang::SourceRange Range =
      P.hasDefaultArg() ? clang::SourceRange(P.getBeginLoc(), NameLoc) : P.getSourceRange();
  if (P.getIdentifier() && NameLoc.isFileID() && !FromTemplate && Edits.canEdit(Range) &&
      Edits.replaceToken(NameLoc, Name, P.getName()) &&
      renameFileSymbols(*M.Renames, Range, SM, Edits)) {
    // The kernel's signature stands outside the section's macros.
    std::string Spelled = Edits.rewrittenText(Range);
    if (macroOverrides(*M.Renames, macrosWhereWritten(M), Spelled).empty())
      return Spelled;
  }
  return printedDeclaration(P, Name, Unit.getASTContext());
}

/// The parameter as a header of its own declares it, and what that
/// header must include.
PortableParam portableParam(const clang::ParmVarDecl &P, const std::string &Name,
                            const FusionMember &M) {
  clang::ASTUnit &Unit = *M.Unit;
  clang::PrintingPolicy Policy = Unit.getASTContext().getPrintingPolicy();
  Policy.FullyQualifiedName = true;
  Policy.SuppressScope = false;
  Policy.PrintCanonicalTypes = true;
  PortableParam Out;
  llvm::raw_string_ostream OS(Out.Declaration);
  P.getType().getCanonicalType().print(OS, Policy, Name);
  // A type no header declares is the launcher-header check's refusal.
  Out.Headers = paramTypeHomes(P, Unit).Headers;
  return Out;
}

/// using namespace a; using namespace a::b; for a kernel declared in a::b,
/// so its body finds the names it found there.
std::vector<std::string> namespaceDirectives(const clang::FunctionDecl &Kernel) {
  std::vector<std::string> Result;
  for (const clang::DeclContext *DC = Kernel.getDeclContext(); DC; DC = DC->getParent()) {
    const auto *NS = llvm::dyn_cast<clang::NamespaceDecl>(DC);
    if (NS && !NS->isAnonymousNamespace())
      Result.insert(Result.begin(), "using namespace " + NS->getQualifiedNameAsString() + ";");
  }
  return Result;
}

/// A lambda under a barrier's name, for barriers that only a macro spells.
std::string barrierShadow(const SectionContext &Ctx, const std::string &Callee) {
  if (Callee == "__syncthreads")
    return "const auto __syncthreads = [&] { " + partialBarrier(Ctx, Callee) + "; };";
  return "const auto " + Callee + " = [](int predicate) { return " + partialBarrier(Ctx, Callee) +
         "(predicate); };";
}

/// What the sections built so far named, for the chains' bindings.
struct BuiltNames {
  std::map<MemberParam, std::string> Params;
  std::map<size_t, std::string> Launches;
  /// Per member: its accesses that read or write a register.
  std::map<size_t, std::map<const clang::Expr *, std::string>> Registers;
  /// Per member whose loop runs in step: the variable of the element.
  std::map<size_t, std::string> StepElement;
};

/// A copy of parameter \p P (named \p Name) the section may change. A
/// kernel receives its parameters as bytes, with no constructor or
/// destructor run on the device (those of a class may be host functions):
/// a class that is not trivially copyable and destructible is copied so.
std::string paramCopy(const clang::ParmVarDecl &P, const std::string &Name, const std::string &Copy,
                      NameAllocator &Names) {
  clang::QualType T = P.getType();
  const clang::CXXRecordDecl *Class = T->getAsCXXRecordDecl();
  if (!Class || (Class->hasTrivialDestructor() && T.isTriviallyCopyableType(P.getASTContext())))
    return "decltype(" + Name + ") " + Copy + " = " + Name + ";";
  std::string Bytes = Names.allocate(Copy + "_bytes");
  return "alignas(decltype(" + Name + ")) unsigned char " + Bytes + "[sizeof(" + Name + ")];\n" +
         "memcpy(" + Bytes + ", &" + Name + ", sizeof(" + Name + "));\n" + "auto &" + Copy +
         " = *reinterpret_cast<decltype(" + Name + ") *>(" + Bytes + ");";
}

class SectionBuilder {
public:
  SectionBuilder(const std::vector<FusionMember> &Members, size_t Index, const ThreadRange &Range,
                 NameAllocator &Names, Reporter &Diags, const VerticalPlan *Chains,
                 BuiltNames &Built, BodyOptions Options)
      : Members(Members), M(Members[Index]), Index(Index), Range(Range), Names(Names), Diags(Diags),
        Chains(Chains), Built(Built), Options(Options) {}

  std::optional<FusedSection> build() {
    const KernelModel &Model = M.Model;
    const std::string &Prefix = M.Spec->Id;
    FusedSection S;
    S.KernelId = Prefix;
    S.KernelName = Model.Name;
    S.Origin = origin(M);
    S.Range = Range;
    S.Resizable = M.Spec->AnyBlockSize;
    S.OriginalBlock = M.Spec->Block;
    S.Block = S.Resizable ? std::array<unsigned, 3>{Range.Size, 1, 1} : M.Spec->Block;
    S.LaunchName = Names.allocate(Prefix + "_launch");
    S.GridName = Names.allocate(Prefix + "_grid");
    // Threads that pad a small block to whole warps are done from the start,
    // so they must keep arriving at the kernel's barriers like returned ones.
    bool PaddedBarriers = Range.padded() && Model.synchronizes();
    S.Barriers = needsExitAwareBarriers(Model) || PaddedBarriers ? BarrierStyle::ExitAware
                                                                 : BarrierStyle::Aligned;
    std::string SharedOffset = Names.allocate(Prefix + "_shared_offset");

    RenameMap Renames;
    // A section may run once per original block it loops over (persistent,
    // dynamic and proportional grids): a parameter its body changes starts
    // from the launch's value each time, as a copy of its own.
    std::set<const clang::ParmVarDecl *> Changed = changedParams(*Model.Decl);
    std::vector<std::string> ParamCopies;
    for (const clang::ParmVarDecl *P : Model.Params) {
      MemberParam Key{Index, P};
      if (std::optional<MemberParam> Source = aliasOf(Key)) {
        Renames[P] = Built.Params.at(*Source);
        Built.Params[Key] = Renames[P];
        continue;
      }
      std::string Name =
          Names.allocate(Prefix + "_" + (P->getIdentifier() ? P->getName().str() : "arg"));
      Renames[P] = Built.Params[Key] = Name;
      if (dropped(Key))
        continue;
      // The type of the holder that writes, where this one only reads.
      MemberParam Declared = declaredAs(Key);
      const FusionMember &Of = Members[Declared.Member];
      FusedParam Param;
      Param.Declaration = paramDeclaration(*Declared.Param, Name, Of, Diags);
      Param.Name = Name;
      Param.Portable = portableParam(*Declared.Param, Name, Of);
      Param.Position = P->getFunctionScopeIndex();
      Param.PointerType = pointerTo(*Declared.Param, Of.Unit->getASTContext());
      Param.HostDeclaration = spellsGridConstant(*P, *M.Unit)
                                  ? printedDeclaration(*P, Name, M.Unit->getASTContext())
                                  : Param.Declaration;
      S.Params.push_back(std::move(Param));
    }
    for (const clang::ParmVarDecl *P : Model.Params)
      if (Changed.count(P)) {
        std::string Copy = Names.allocate(Renames[P] + "_copy");
        ParamCopies.push_back(paramCopy(*P, Renames[P], Copy, Names));
        Renames[P] = Copy;
      }
    Built.Launches[Index] = S.LaunchName;
    if (Chains) {
      if (auto It = Chains->SameGridAs.find(Index); It != Chains->SameGridAs.end())
        S.SameGridAs = Built.Launches.at(It->second);
      if (auto It = Chains->UnitGrid.find(Index); It != Chains->UnitGrid.end())
        S.UnitGrid = It->second;
    }
    ReturnPlan Returns;
    if (!Model.Returns.empty())
      Returns.EndLabel = S.EndLabel = Names.allocate(Prefix + "_end");

    if (S.Barriers == BarrierStyle::ExitAware) {
      S.ExitAwareBarrier = Names.allocate(Prefix + "_barrier");
      S.ExitCounters = Names.allocate(Prefix + "_exited");
    }
    SectionContext Ctx{Range.BarrierId,
                       Range.Size,
                       S.Barriers,
                       S.ExitAwareBarrier,
                       "kfuse_dynamic_shared + " + SharedOffset,
                       *M.Unit,
                       *M.Helpers,
                       Names,
                       Diags,
                       *M.Renames};
    Ctx.Replaced = Built.Registers[Index];
    Ctx.Block = S.Block;
    Ctx.OneWarpReductions = Options.OneWarpReductions;
    // A loop in step runs one iteration at a time: none ahead of another.
    if (const StepLoop *L = stepLoop())
      Ctx.InStep = StepIteration{L->Loop, Built.StepElement.at(Index)};
    else if (auto It = Options.ReadAhead.find(Index); It != Options.ReadAhead.end())
      readAhead(It->second.first, It->second.second, Renames, Ctx, S);
    if (Chains && Chains->WaitBefore[Index]) {
      SectionContext Plain = Ctx;
      Plain.Style = BarrierStyle::Aligned;
      S.WaitBefore = partialBarrier(Plain, "__syncthreads") + ";";
    }
    S.Synchronizes = Model.synchronizes() || !Model.AsmBarriers.empty() || !Model.Shared.empty() ||
                     !S.WaitBefore.empty() ||
                     std::any_of(Model.Calls.begin(), Model.Calls.end(),
                                 [](const CallSite &C) { return C.Effect.UsesShared; });
    std::vector<const clang::FunctionDecl *> Inlining{Model.Decl};
    std::optional<std::string> Body = rewriteBody(Model, Prefix, Renames, Returns, Ctx, Inlining);
    if (!Body)
      return std::nullopt;
    S.Body = std::move(*Body);
    S.UsesThreadIdx = Ctx.Builtins.count(BuiltinVar::ThreadIdx);
    S.UsesBlockDim = Ctx.Builtins.count(BuiltinVar::BlockDim);
    S.UsesBlockIdx = Ctx.Builtins.count(BuiltinVar::BlockIdx);
    S.UsesGridDim = Ctx.Builtins.count(BuiltinVar::GridDim);
    if (Ctx.UsesDynamicShared) {
      S.SharedOffsetName = SharedOffset;
      S.SharedAlign = Ctx.DynamicSharedAlign;
    }
    S.Declarations = namespaceDirectives(*Model.Decl);
    S.Declarations.insert(S.Declarations.end(), ParamCopies.begin(), ParamCopies.end());
    // Types kfuse prints itself (inlined parameters, template arguments)
    // carry the old names, which the section points at the renamed types.
    for (const auto &[Symbol, NewName] : M.Renames->NewNames)
      if (isTypeSymbol(Symbol))
        S.Declarations.push_back("using " + Symbol->getName().str() + " = " + NewName + ";");
    std::string TemplateArgs = templateArgumentDeclarations(*Model.Decl);
    if (!TemplateArgs.empty())
      S.Declarations.push_back(TemplateArgs.substr(0, TemplateArgs.size() - 1));
    for (const auto &[Name, Declaration] : Ctx.FileScopeDynamicShared)
      S.Declarations.push_back(Declaration + ";");
    for (const std::string &Callee : Ctx.BarriersInMacros)
      S.Declarations.push_back(barrierShadow(Ctx, Callee));
    // After every name they may read: the view of the block, the shadows.
    S.Declarations.insert(S.Declarations.end(), Ctx.Copies.begin(), Ctx.Copies.end());
    std::string Text = S.Body;
    for (const std::string &D : S.Declarations)
      Text += "\n" + D;
    S.Macros = macroOverrides(*M.Renames, macrosWhereWritten(M), Text);
    // Macros whose bodies spell a renamed name: the section's own definition.
    for (const auto &[Name, Definition] : Ctx.MacroBodies.definitions()) {
      auto It = std::find_if(S.Macros.begin(), S.Macros.end(),
                             [&](const MacroOverride &O) { return O.Name == Name; });
      if (It == S.Macros.end())
        S.Macros.push_back({Name, Definition});
      else
        It->Definition = Definition;
    }
    return S;
  }

private:
  const std::vector<FusionMember> &Members;
  const FusionMember &M;
  size_t Index;
  const ThreadRange &Range;
  NameAllocator &Names;
  Reporter &Diags;
  const VerticalPlan *Chains;
  BuiltNames &Built;
  BodyOptions Options;

  /// An elementwise kernel runs \p Count of its blocks, or of its
  /// grid-stride loop's iterations, at a time, its loads first.
  void readAhead(const ElementwiseKernel &E, unsigned Count, RenameMap &Renames,
                 SectionContext &Ctx, FusedSection &S) {
    S.ChecksApart = true;
    // Its indices do not tell apart blocks of other rows of a 2-D grid.
    S.UnitGrid[1] = S.UnitGrid[2] = true;
    if (E.Loop)
      Ctx.Strides = coarseStrides(E, Count, Renames, Ctx);
    else
      S.Ahead = readsAhead(E, Count, Renames, Ctx, S);
  }

  /// Each buffer's element once, in a variable the body reads instead, and
  /// whether the buffers written lie apart from the others (\p Apart). \p Per
  /// ends the name of the array of one value per block or iteration.
  std::vector<AheadLoad> aheadLoads(const ElementwiseKernel &E, const std::string &Element,
                                    const std::string &Where, const std::string &Per,
                                    RenameMap &Renames, SectionContext &Ctx, std::string &Apart) {
    std::vector<AheadLoad> Loads;
    std::map<const clang::ParmVarDecl *, std::string> Loaded;
    for (const AheadRead &R : E.Ahead) {
      const std::string &Buffer = Renames.at(R.Buffer);
      auto [Slot, New] = Loaded.try_emplace(R.Buffer, "");
      if (New) {
        Slot->second = Names.allocate(Buffer + "_ahead");
        Loads.push_back({"Element " + Element + " of '" + R.Buffer->getName().str() + "' " + Where,
                         R.Element.getAsString(R.Buffer->getASTContext().getPrintingPolicy()),
                         Slot->second, Names.allocate(Buffer + Per), Buffer});
      }
      Ctx.Replaced[R.Site] = Slot->second;
    }
    const std::string &Bound = Renames.at(E.Bound);
    for (size_t W = 0; W < E.Buffers.size(); ++W)
      for (size_t O = 0; O < E.Buffers.size(); ++O)
        if (E.Buffers[W].Writes && O != W && (!E.Buffers[O].Writes || O > W))
          Apart += std::string(Apart.empty() ? "" : " && ") + "kfuse_lie_apart(" +
                   Renames.at(E.Buffers[W].Param) + ", " + Renames.at(E.Buffers[O].Param) + ", " +
                   Bound + ")";
    if (Apart.empty())
      Apart = "true";
    return Loads;
  }

  /// The loads of an elementwise body that go ahead of its blocks' bodies.
  ReadsAhead readsAhead(const ElementwiseKernel &E, unsigned Blocks, RenameMap &Renames,
                        SectionContext &Ctx, FusedSection &S) {
    const std::string &Prefix = M.Spec->Id;
    ReadsAhead A;
    A.Blocks = Blocks;
    std::string I = A.IndexName = Names.allocate(Prefix + "_i");
    A.Index = "const long long " + I + " = static_cast<long long>(blockIdx.x) * " +
              std::to_string(E.BlockStride.value_or(S.Block[0])) + " + threadIdx.x;";
    A.Condition = I + " < static_cast<long long>(" + Renames.at(E.Bound) + ")";
    A.Loads = aheadLoads(E, I, "in each block, loaded before the bodies.", "_per_block", Renames,
                         Ctx, A.Apart);
    A.ApartName = Names.allocate(Prefix + "_apart");
    return A;
  }

  /// The loads of a grid-stride loop that go ahead of its iterations.
  CoarseStrides coarseStrides(const ElementwiseKernel &E, unsigned Count, RenameMap &Renames,
                              SectionContext &Ctx) {
    const std::string &Prefix = M.Spec->Id;
    CoarseStrides C;
    C.Loop = *E.Loop;
    C.Count = Count;
    C.Bound = Renames.at(E.Bound);
    C.Step = Names.allocate(Prefix + "_step");
    C.Next = Names.allocate(Prefix + "_next");
    C.At = Names.allocate(Prefix + "_at");
    C.Iteration = Names.allocate(Prefix + "_iteration");
    C.Loads = aheadLoads(E, "'" + E.Loop->Variable->getName().str() + "'",
                         "in each iteration, loaded before the bodies.", "_per_iteration", Renames,
                         Ctx, C.Apart);
    C.ApartName = Names.allocate(Prefix + "_apart");
    return C;
  }

  std::optional<MemberParam> aliasOf(const MemberParam &P) const {
    if (!Chains)
      return std::nullopt;
    auto It = Chains->Aliases.find(P);
    if (It == Chains->Aliases.end())
      return std::nullopt;
    return It->second;
  }

  MemberParam declaredAs(const MemberParam &P) const {
    if (!Chains)
      return P;
    auto It = Chains->DeclaredAs.find(P);
    return It == Chains->DeclaredAs.end() ? P : It->second;
  }

  const StepLoop *stepLoop() const {
    if (Chains)
      for (const StepGroup &G : Chains->InStep)
        if (Index >= G.First && Index < G.First + G.Loops.size())
          return &G.Loops[Index - G.First];
    return nullptr;
  }

  bool dropped(const MemberParam &P) const {
    return Chains && std::count(Chains->Dropped.begin(), Chains->Dropped.end(), P);
  }
};

/// A variable per temporary, declared before the sections, that its
/// accesses read and write instead of memory.
void declareRegisters(const VerticalPlan &Chains, FusedKernel &K, NameAllocator &Names,
                      BuiltNames &Built) {
  for (const RegisterTemporary &R : Chains.Registers) {
    std::string Name = Names.allocate(identifierFrom(R.Name) + "_value");
    K.Registers.push_back(
        {"'" + R.Name + "' passes to '" + R.ToName + "' in a register, never through memory.",
         R.ElementType, Name, Names.allocate(identifierFrom(R.Name) + "_per_block")});
    for (const auto &[Member, Accesses] : R.Accesses)
      for (const clang::Expr *E : Accesses)
        Built.Registers[Member][E] = R.Reads.count(E) ? "kfuse_as_stored(" + Name + ")" : Name;
  }
}

/// The loop over the elements around each group of sections whose loops
/// run in step, and the variable each section's iteration takes. Its bound
/// is the first section's name for it, filled once the sections are built.
void declareSteps(const VerticalPlan &Chains, const std::vector<FusionMember> &Members,
                  FusedKernel &K, NameAllocator &Names, BuiltNames &Built) {
  for (const StepGroup &G : Chains.InStep) {
    const GridStrideLoop &Loop = G.Loops.front().Loop;
    clang::ASTContext &AST = Loop.Variable->getASTContext();
    SteppedSections S;
    S.First = G.First;
    S.Count = G.Loops.size();
    std::string Ids;
    for (size_t I = 0; I < S.Count; ++I)
      Ids += (I == 0 ? "'" : I + 1 == S.Count ? "' and '" : "', '") + Members[G.First + I].Spec->Id;
    S.Comment = "Kernels " + Ids +
                "' run their grid-stride loops in step: each element's iteration of every "
                "kernel, then the next element's, so the values they pass stay in registers.";
    S.Type = Loop.Variable->getType().getCanonicalType().getUnqualifiedType().getAsString(
        AST.getPrintingPolicy());
    S.Variable = Names.allocate(Members[G.First].Spec->Id + "_element");
    // Spelled to mean the same outside the kernel's section (StepLoop).
    S.Init = G.Loops.front().Init;
    S.Step = G.Loops.front().Step;
    for (size_t I = 0; I < S.Count; ++I)
      Built.StepElement[G.First + I] = S.Variable;
    K.InStep.push_back(std::move(S));
  }
}

} // namespace

std::optional<FusedKernel> fuseHorizontally(const std::string &Fusion,
                                            const std::vector<FusionMember> &Members,
                                            const PartitionPlan &Plan, NameAllocator &Names,
                                            Reporter &Diags, const VerticalPlan *Chains,
                                            BodyOptions Options) {
  FusedKernel K;
  K.Fusion = Fusion;
  K.KernelName = Fusion + "_fused";
  K.LauncherName = Fusion + "_launch";
  K.FitsName = Fusion + "_fits";
  K.BlockThreads = Plan.BlockThreads;
  K.BarrierIds = Plan.BarrierIds;
  Names.reserve(K.KernelName);
  Names.reserve(K.LauncherName);
  Names.reserve(K.FitsName);
  for (const char *Generated :
       {"kfuse_tid", "kfuse_block", "kfuse_dynamic_shared", "kfuse_blocks", "kfuse_shared_bytes"})
    Names.reserve(Generated);
  BuiltNames Built;
  if (Chains) {
    declareRegisters(*Chains, K, Names, Built);
    declareSteps(*Chains, Members, K, Names, Built);
  }
  bool Ok = true;
  for (size_t I = 0; I < Members.size(); ++I) {
    std::optional<FusedSection> S =
        SectionBuilder(Members, I, Plan.Ranges[I], Names, Diags, Chains, Built, Options).build();
    Ok &= S.has_value();
    if (S)
      K.Sections.push_back(std::move(*S));
  }
  if (!Ok)
    return std::nullopt;
  for (size_t G = 0; Chains && G < K.InStep.size(); ++G) {
    const StepGroup &Group = Chains->InStep[G];
    K.InStep[G].Bound = Built.Params.at({Group.First, Group.Loops.front().Bound});
  }
  return K;
}

} // namespace kfuse

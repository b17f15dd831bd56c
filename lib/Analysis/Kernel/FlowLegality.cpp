//===- FlowLegality.cpp - may data pass from one kernel to the next? ------===//

#include "kfuse/Analysis/Kernel/FlowLegality.h"

#include "kfuse/Diagnostics/Reporter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <algorithm>
#include <set>

namespace kfuse {

using diag::ID;

namespace {

const Symbol ThreadDigits[] = {Symbol::builtin("threadIdx.x"), Symbol::builtin("threadIdx.y"),
                               Symbol::builtin("threadIdx.z")};
const Symbol BlockDigits[] = {Symbol::builtin("blockIdx.x"), Symbol::builtin("blockIdx.y"),
                              Symbol::builtin("blockIdx.z")};
const Symbol GridSizes[] = {Symbol::builtin("gridDim.x"), Symbol::builtin("gridDim.y"),
                            Symbol::builtin("gridDim.z")};

/// One access in the symbols shared by the whole chain.
struct Side {
  const MemoryAccess *Access = nullptr;
  size_t Member = 0;
  IndexExpr Index;
  std::vector<IndexCondition> Guards;
  std::string Kernel; ///< The config's id, for messages.
};

/// The proofs over one chain: the block is shared by all its kernels.
class ChainProver {
public:
  explicit ChainProver(std::array<unsigned, 3> Block) : Block(Block) {}

  /// What the symbols of a digit range over, and every guard. Loop
  /// iteration counts in \p Guards and \p Also are at least zero.
  Facts factsOf(const std::vector<IndexCondition> &Guards,
                std::vector<const IndexExpr *> Also = {}) const {
    Facts F;
    for (const IndexCondition &C : Guards)
      Also.push_back(&C.Expr);
    for (const IndexExpr *E : Also)
      for (const auto &[M, C] : E->terms())
        for (const Symbol &S : M)
          if (S.isIteration())
            F.assumeNonNegative(S);
    for (unsigned D = 0; D < 3; ++D) {
      F.assumeRange(ThreadDigits[D], IndexExpr::constant(Block[D]));
      F.assumeRange(BlockDigits[D], IndexExpr::symbol(GridSizes[D]));
      F.assumeNonNegative(GridSizes[D]);
    }
    for (const IndexCondition &C : Guards)
      F.assume(C);
    return F;
  }

  std::vector<Symbol> digitsOf(const IndexExpr &E) const {
    std::set<Symbol> Found;
    for (const auto &[M, C] : E.terms())
      for (const Symbol &S : M)
        if (isDigit(S))
          Found.insert(S);
    return {Found.begin(), Found.end()};
  }

  static bool isDigit(const Symbol &S) {
    for (unsigned D = 0; D < 3; ++D)
      if (S == ThreadDigits[D] || S == BlockDigits[D])
        return true;
    return S.isIteration();
  }

  /// Whether no two threads (or loop iterations) satisfying \p Guards
  /// compute the same \p Index: a mixed-radix number whose digits are the
  /// thread, block and iteration indices. Sets \p Why when not, and marks
  /// in \p UnitGrid block dimensions assumed to be 1.
  bool injective(const IndexExpr &Index, const std::vector<IndexCondition> &Guards,
                 std::string &Why, std::array<bool, 3> &UnitGrid) const {
    Facts F = factsOf(Guards, {&Index});
    std::vector<Symbol> Digits = digitsOf(Index);
    std::map<Symbol, IndexExpr> Coefficient;
    for (const Symbol &D : Digits) {
      std::optional<IndexExpr> C = Index.linearCoefficient(D);
      if (!C || !digitsOf(*C).empty()) {
        Why = "the index multiplies thread or block indices together";
        return false;
      }
      Coefficient[D] = *C;
    }
    for (unsigned D = 0; D < 3; ++D) {
      bool Absent = !Coefficient.count(ThreadDigits[D]);
      if (Absent && Block[D] > 1 && !F.proves(IndexExpr() - IndexExpr::symbol(ThreadDigits[D]))) {
        Why =
            "all threads that differ only in " + ThreadDigits[D].str() + " would write one element";
        return false;
      }
      if (!Coefficient.count(BlockDigits[D])) {
        if (D == 0) {
          Why = "all blocks would write the same elements";
          return false;
        }
        UnitGrid[D] = true;
      }
    }
    // Digits in increasing weight: each weight is the span of the ones below.
    IndexExpr Span = IndexExpr::constant(1), Combined;
    std::vector<Symbol> Left = Digits;
    while (!Left.empty()) {
      auto Next = std::find_if(Left.begin(), Left.end(), [&](const Symbol &D) {
        const IndexExpr &C = Coefficient[D];
        return C == Span || C == IndexExpr() - Span || isPinned(D, F);
      });
      if (Next == Left.end()) {
        Why = "its digits overlap (the weights do not grow as " + Span.str() +
              " where the lower digits end)";
        return false;
      }
      Symbol D = *Next;
      Left.erase(Next);
      if (isPinned(D, F))
        continue;
      Combined = Combined + Coefficient[D] * IndexExpr::symbol(D);
      Span = spanAfter(D, Span, Combined, Left, Coefficient, F);
    }
    return true;
  }

  /// Shifts d (per thread dimension) with Later = Earlier at thread + d, or
  /// nothing when the difference is no such shift.
  std::optional<std::array<int64_t, 3>> shiftBetween(const IndexExpr &Earlier,
                                                     const IndexExpr &Later) const {
    IndexExpr Delta = Later - Earlier;
    std::array<int64_t, 3> Shift{0, 0, 0};
    // Thread dimensions by decreasing weight; a symbolic weight first.
    std::vector<std::pair<unsigned, IndexExpr>> Weights;
    for (unsigned D = 0; D < 3; ++D)
      if (std::optional<IndexExpr> C = Earlier.linearCoefficient(ThreadDigits[D]);
          C && *C != IndexExpr())
        Weights.push_back({D, *C});
    std::stable_sort(Weights.begin(), Weights.end(), [](const auto &A, const auto &B) {
      std::optional<int64_t> CA = A.second.asConstant(), CB = B.second.asConstant();
      if (!CA || !CB)
        return !CA && CB;
      return std::llabs(*CA) > std::llabs(*CB);
    });
    for (const auto &[D, W] : Weights) {
      if (W.terms().size() != 1)
        continue;
      const auto &[Monomial, Coef] = *W.terms().begin();
      if (Monomial.empty()) {
        std::optional<int64_t> Rest = Delta.asConstant();
        if (!Rest)
          return std::nullopt;
        // Round to the nearest multiple, so a small shift stays small.
        int64_t N =
            (*Rest >= 0 ? *Rest + std::llabs(Coef) / 2 : *Rest - std::llabs(Coef) / 2) / Coef;
        Shift[D] = N;
        Delta = Delta - IndexExpr::constant(N * Coef);
        continue;
      }
      auto It = Delta.terms().find(Monomial);
      if (It == Delta.terms().end())
        continue;
      if (It->second % Coef != 0)
        return std::nullopt;
      Shift[D] = It->second / Coef;
      Delta = Delta - W * IndexExpr::constant(Shift[D]);
    }
    if (Delta != IndexExpr())
      return std::nullopt;
    return Shift;
  }

  /// \p E at the thread shifted by \p Shift.
  static IndexExpr shifted(const IndexExpr &E, const std::array<int64_t, 3> &Shift) {
    IndexExpr R = E;
    for (unsigned D = 0; D < 3; ++D)
      if (Shift[D])
        R = R.substituted(ThreadDigits[D],
                          IndexExpr::symbol(ThreadDigits[D]) + IndexExpr::constant(Shift[D]));
    return R;
  }

  /// Whether a thread satisfying \p Facts, shifted by \p Shift, stays in
  /// the block and satisfies \p Guards there. Sets \p CrossBlock when the
  /// shifted thread may leave the block.
  bool impliesShifted(const std::vector<IndexCondition> &Have,
                      const std::vector<IndexCondition> &Need, const std::array<int64_t, 3> &Shift,
                      bool &CrossBlock, std::string &Why) const {
    std::vector<const IndexExpr *> Needed;
    for (const IndexCondition &C : Need)
      Needed.push_back(&C.Expr);
    Facts F = factsOf(Have, Needed);
    for (unsigned D = 0; D < 3; ++D) {
      if (!Shift[D])
        continue;
      IndexExpr T = IndexExpr::symbol(ThreadDigits[D]) + IndexExpr::constant(Shift[D]);
      if (!F.proves(T) || !F.proves(IndexExpr::constant(Block[D] - 1) - T)) {
        CrossBlock = true;
        Why = "nothing keeps " + ThreadDigits[D].str() + " + " + std::to_string(Shift[D]) +
              " inside the block of " + std::to_string(Block[D]);
        return false;
      }
    }
    for (const IndexCondition &C : Need) {
      IndexCondition S = C;
      S.Expr = shifted(C.Expr, Shift);
      if (!F.proves(S)) {
        Why = "its conditions do not imply '" + C.Text + "'" +
              (Shift == std::array<int64_t, 3>{0, 0, 0} ? "" : " at the shifted thread") +
              ", under which the other access runs";
        return false;
      }
    }
    return true;
  }

private:
  std::array<unsigned, 3> Block;

  bool isPinned(const Symbol &D, const Facts &F) const {
    return F.proves(IndexExpr() - IndexExpr::symbol(D));
  }

  /// The weight the next digit must have after \p D: the span of all
  /// digits so far, from the block shape, the grid, or a guard bounding them.
  IndexExpr spanAfter(const Symbol &D, const IndexExpr &Span, const IndexExpr &Combined,
                      const std::vector<Symbol> &Left, std::map<Symbol, IndexExpr> &Coefficient,
                      const Facts &F) const {
    std::vector<IndexExpr> Candidates;
    for (unsigned I = 0; I < 3; ++I) {
      if (D == ThreadDigits[I])
        Candidates.push_back(Span * IndexExpr::constant(Block[I]));
      if (D == BlockDigits[I])
        Candidates.push_back(Span * IndexExpr::symbol(GridSizes[I]));
    }
    if (F.proves(Combined))
      if (std::optional<IndexExpr> Bound = F.boundOf(Combined))
        Candidates.push_back(*Bound);
    for (const IndexExpr &C : Candidates)
      for (const Symbol &Next : Left)
        if (Coefficient[Next] == C || Coefficient[Next] == IndexExpr() - C)
          return C;
    return Candidates.empty() ? Span : Candidates.front();
  }
};

/// The chain's parameters, flows and the accesses of each member.
class ChainChecker {
public:
  ChainChecker(const FusionSpec &F, const std::vector<const FusionMember *> &Members,
               const std::string &ConfigPath, Reporter &Diags)
      : F(F), Members(Members), ConfigPath(ConfigPath), Diags(Diags),
        Prover(Members.front()->Spec->Block) {}

  std::optional<ChainProof> run() {
    Proof.Members = Members.size();
    for (const FusionMember *M : Members)
      Accesses.push_back(analyzeAccesses(*M->Model.Decl, M->Spec->Block));
    bool Ok = resolveSame();
    for (const FlowSpec &Flow : F.Flows)
      Ok &= checkFlow(Flow);
    if (!Ok)
      return std::nullopt;
    return std::move(Proof);
  }

private:
  const FusionSpec &F;
  const std::vector<const FusionMember *> &Members;
  const std::string &ConfigPath;
  Reporter &Diags;
  ChainProver Prover;
  std::vector<KernelAccesses> Accesses;
  ChainProof Proof;
  /// Parameters that hold an earlier member's value or buffer.
  std::map<MemberParam, MemberParam> Aliases;
  /// Scalar parameters' symbols in the chain's shared naming.
  std::map<MemberParam, Symbol> SameSymbol;
  /// Why the members' loops cannot run in step, once asked: empty if they can.
  std::optional<std::string> NotInStep;

  /// Whether every member is one grid-stride loop (StepLoop.h) over the
  /// same elements as the first's: the same block, variable type, bound,
  /// and start and step spelled alike (so computed in the same types); fills
  /// Proof.InStep when they are.
  /// Such members touch their element alone, so no flow among them is
  /// shifted and none waits for its block inside the loop.
  const std::string &whyNotInStep() {
    if (NotInStep)
      return *NotInStep;
    std::vector<StepLoop> Loops;
    for (size_t I = 0; I < Members.size() && !NotInStep; ++I) {
      const FusionMember &M = *Members[I];
      StepLoopResult R = findStepLoop(M.Model, Accesses[I], M.Spec->Block);
      if (!R.Loop) {
        NotInStep = "'" + M.Spec->Id + "' cannot run its loop in step: " + R.WhyNot;
        break;
      }
      Loops.push_back(*R.Loop);
      const StepLoop &First = Loops.front();
      std::string Id0 = Members[0]->Spec->Id;
      if (M.Spec->Block != Members[0]->Spec->Block)
        NotInStep = "'" + Id0 + "' and '" + M.Spec->Id + "' run with different blocks";
      else if (typeText(R.Loop->Loop.Variable->getType()) !=
               typeText(First.Loop.Variable->getType()))
        NotInStep = "'" + Id0 + "' counts in '" + typeText(First.Loop.Variable->getType()) +
                    "' and '" + M.Spec->Id + "' in '" + typeText(R.Loop->Loop.Variable->getType()) +
                    "'";
      else if (R.Loop->Init != First.Init || R.Loop->Step != First.Step)
        NotInStep = "'" + Id0 + "' starts its loop at " + First.Init + " and steps by " +
                    First.Step + ", '" + M.Spec->Id + "' at " + R.Loop->Init + " by " +
                    R.Loop->Step + ": they may compute them in other types";
      else if (boundSymbol(I, *R.Loop) != boundSymbol(0, First))
        NotInStep = "'" + Id0 + "' loops up to '" + boundSymbol(0, First).str() + "' and '" +
                    M.Spec->Id + "' up to '" + boundSymbol(I, *R.Loop).str() +
                    "', which the config does not give the same value ('same:')";
    }
    if (!NotInStep) {
      NotInStep = "";
      Proof.InStep = std::move(Loops);
    }
    return *NotInStep;
  }

  IndexExpr boundSymbol(size_t Member, const StepLoop &L) const {
    return shared(Member, IndexExpr::symbol(Symbol::param(L.Bound->getName().str())));
  }

  void configProblem(ID Id, ConfigPosition At, std::vector<std::string> Args) {
    Diags.report({{Id, At.Line, At.Column, std::move(Args)}}, ConfigPath);
  }

  size_t memberOf(const std::string &Kernel) const {
    for (size_t I = 0; I < Members.size(); ++I)
      if (Members[I]->Spec->Id == Kernel)
        return I;
    return Members.size();
  }

  std::optional<MemberParam> param(const ParamRef &R, bool Pointer) {
    size_t I = memberOf(R.Kernel);
    if (I < Members.size())
      for (const clang::ParmVarDecl *P : Members[I]->Model.Params)
        if (P->getName() == R.Param &&
            (Pointer ? P->getType()->isPointerType() : P->getType()->isIntegralOrEnumerationType()))
          return MemberParam{I, P};
    configProblem(ID::FlowParam, R.Position,
                  {R.spelling(), Pointer ? "pointer" : "integer", R.Kernel});
    return std::nullopt;
  }

  static std::string typeText(clang::QualType T) {
    return T.getCanonicalType().getUnqualifiedType().getAsString();
  }

  /// Each group takes the parameter of its earliest kernel; the others
  /// become it. Two parameters of one kernel stay apart: the launcher
  /// could not make them equal.
  bool resolveSame() {
    bool Ok = true;
    for (const std::vector<ParamRef> &Group : F.Same) {
      std::vector<std::pair<const ParamRef *, MemberParam>> Found;
      for (const ParamRef &R : Group) {
        if (std::optional<MemberParam> P = param(R, /*Pointer=*/false))
          Found.push_back({&R, *P});
        else
          Ok = false;
      }
      if (Found.empty())
        continue;
      auto First = std::min_element(Found.begin(), Found.end(), [](const auto &A, const auto &B) {
        return A.second.Member < B.second.Member;
      });
      const MemberParam Rep = First->second;
      const Symbol Shared = Symbol::param(First->first->spelling());
      for (const auto &[Ref, P] : Found) {
        if (typeText(P.Param->getType()) != typeText(Rep.Param->getType())) {
          configProblem(ID::FlowTypeMismatch, Ref->Position,
                        {Ref->spelling(), typeText(P.Param->getType()), First->first->spelling(),
                         typeText(Rep.Param->getType())});
          Ok = false;
          continue;
        }
        if (P.Member == Rep.Member && !(P == Rep))
          continue;
        if (!(P == Rep))
          Proof.SameValue[P] = Aliases[P] = Rep;
        SameSymbol.insert({P, Shared});
      }
    }
    return Ok;
  }

  /// A member's index or condition in the chain's symbols: scalar
  /// parameters by their group, loops by their start and step.
  IndexExpr shared(size_t Member, const IndexExpr &E) const {
    const FusionMember &M = *Members[Member];
    const KernelAccesses &A = Accesses[Member];
    std::function<Symbol(const Symbol &)> Rename = [&](const Symbol &S) {
      if (S.kind() == SymbolKind::Param) {
        for (const clang::ParmVarDecl *P : M.Model.Params)
          if (P->getName() == S.name())
            if (auto It = SameSymbol.find({Member, P}); It != SameSymbol.end())
              return It->second;
        return Symbol::param(M.Spec->Id + "." + S.name());
      }
      if (S.kind() == SymbolKind::Loop) {
        const LoopShape &L = A.Loops.at(S);
        return Symbol::chainLoop(L.Init.renamed(Rename).str() + " step " +
                                 L.Step.renamed(Rename).str());
      }
      return S;
    };
    return E.renamed(Rename);
  }

  Side sideOf(size_t Member, const MemoryAccess &A) const {
    Side S;
    S.Access = &A;
    S.Member = Member;
    S.Index = shared(Member, A.Index);
    for (IndexCondition C : A.Guards) {
      if (C.Known)
        C.Expr = shared(Member, C.Expr);
      S.Guards.push_back(C);
    }
    S.Kernel = Members[Member]->Spec->Id;
    return S;
  }

  clang::SourceManager &sourcesOf(size_t Member) const {
    return Members[Member]->Unit->getSourceManager();
  }

  void noteAccess(const Side &S) {
    Diags.report(S.Access->Loc, sourcesOf(S.Member), ID::NoteFlowAccess)
        << S.Kernel << S.Index.str() << guardsText(S.Guards);
  }

  bool sameLaunch(size_t Producer, size_t Consumer, const FlowSpec &Flow) {
    const KernelSpec &P = *Members[Producer]->Spec, &C = *Members[Consumer]->Spec;
    auto Dims = [](const std::array<unsigned, 3> &D) {
      return "(" + std::to_string(D[0]) + ", " + std::to_string(D[1]) + ", " +
             std::to_string(D[2]) + ")";
    };
    std::string Why;
    if (P.Block != C.Block)
      Why = "their blocks are " + Dims(P.Block) + " and " + Dims(C.Block);
    else if (P.Launch && C.Launch && P.Launch->Grid != C.Launch->Grid)
      Why = "their launch grids are " + Dims(P.Launch->Grid) + " and " + Dims(C.Launch->Grid);
    if (Why.empty())
      return true;
    configProblem(ID::VerticalGridMismatch, Flow.Position, {P.Id, C.Id, Why});
    return false;
  }

  /// Members whose accesses a buffer reaches: the producer's parameter
  /// and every parameter that aliases it.
  std::vector<MemberParam> holders(const MemberParam &Root) const {
    std::vector<MemberParam> R{Root};
    for (bool Grew = true; Grew;) {
      Grew = false;
      for (const auto &[From, To] : Aliases)
        if (std::count(R.begin(), R.end(), To) && !std::count(R.begin(), R.end(), From)) {
          R.push_back(From);
          Grew = true;
        }
    }
    return R;
  }

  /// Whether \p P's kernel reaches memory no parameter names (through
  /// pointers its arguments hold, or some way kfuse cannot follow) that
  /// may be the flow's buffer: a write there, or any access when the chain
  /// writes the buffer.
  bool reachesUnnamed(const MemberParam &P, const FlowSpec &Flow, bool Written) {
    for (const MemoryAccesses &M : Accesses[P.Member].Other) {
      if (M.Kind != MemoryKind::Reached && M.Kind != MemoryKind::Unknown)
        continue;
      for (const MemoryAccess &A : M.Accesses)
        if (A.writes() || Written) {
          Diags.report(A.Loc, sourcesOf(P.Member), ID::VerticalUnnamedMemory)
              << Members[P.Member]->Spec->Id << spelling(A.Kind) << A.Text << A.Why
              << Flow.From.spelling();
          return true;
        }
    }
    return false;
  }

  /// Whether a use of \p P's buffer is one kfuse does not classify.
  bool escapes(const MemberParam &P) {
    const MemoryAccess *A = Accesses[P.Member].find(P.Param->getName())->unknown();
    if (!A)
      return false;
    Diags.report(A->Loc, sourcesOf(P.Member), ID::VerticalEscape)
        << P.Param->getName() << Members[P.Member]->Spec->Id << A->Text << A->Why;
    return true;
  }

  bool checkFlow(const FlowSpec &Flow) {
    std::optional<MemberParam> From = param(Flow.From, /*Pointer=*/true);
    std::optional<MemberParam> To = param(Flow.To, /*Pointer=*/true);
    if (!From || !To)
      return false;
    clang::QualType FromType = From->Param->getType()->getPointeeType();
    clang::QualType ToType = To->Param->getType()->getPointeeType();
    if (typeText(FromType) != typeText(ToType)) {
      configProblem(ID::FlowTypeMismatch, Flow.To.Position,
                    {Flow.To.spelling(), typeText(To->Param->getType()), Flow.From.spelling(),
                     typeText(From->Param->getType())});
      return false;
    }
    if (!sameLaunch(From->Member, To->Member, Flow))
      return false;
    if (escapes(*From) | escapes(*To))
      return false;
    // Earlier kernels that got the same buffer through flows before this one.
    MemberParam Root = *From;
    for (auto It = Aliases.find(Root); It != Aliases.end(); It = Aliases.find(Root))
      Root = It->second;
    std::vector<Side> Earlier, Later;
    for (const MemberParam &H : holders(Root))
      if (H.Member < To->Member)
        for (const MemoryAccess &A : Accesses[H.Member].find(H.Param->getName())->Accesses)
          Earlier.push_back(sideOf(H.Member, A));
    for (const MemoryAccess &A : Accesses[To->Member].find(To->Param->getName())->Accesses)
      Later.push_back(sideOf(To->Member, A));
    bool Written =
        std::any_of(Earlier.begin(), Earlier.end(),
                    [](const Side &S) { return S.Access->writes(); }) ||
        std::any_of(Later.begin(), Later.end(), [](const Side &S) { return S.Access->writes(); });
    if (reachesUnnamed(*From, Flow, Written) | reachesUnnamed(*To, Flow, Written))
      return false;
    bool Ok = true, Barrier = false;
    for (const Side &E : Earlier)
      for (const Side &L : Later)
        if (E.Access->writes() || L.Access->writes())
          Ok &= checkPair(Flow, E, L, Barrier);
    if (!Ok)
      return false;
    ProvenFlow Proven{*From, *To, Barrier, std::nullopt};
    if (!Flow.Temporary)
      Proof.SameBuffer[*To] = Aliases[*To] = *From;
    else if (!(Proven.Register = privateFlow(Flow, *From, *To, Earlier, Later, Barrier)))
      return false;
    Proof.Flows.push_back(std::move(Proven));
    return true;
  }

  bool checkPair(const FlowSpec &Flow, const Side &E, const Side &L, bool &Barrier) {
    std::string Buffer = Flow.From.spelling();
    auto Refuse = [&](ID Id, const std::string &Why) {
      Diags.report(L.Access->Loc, sourcesOf(L.Member), Id)
          << Buffer << L.Kernel << L.Index.str() << E.Kernel << E.Index.str() << Why;
      noteAccess(E);
      return false;
    };
    for (const Side *S : {&E, &L})
      if (!S->Access->precise()) {
        const MemoryAccess &A = *S->Access;
        Diags.report(A.Loc, sourcesOf(S->Member), ID::VerticalImpreciseAccess)
            << Buffer << S->Kernel << A.Text
            << (A.IndexKnown ? "it covers " + std::to_string(A.Width) + " elements at once"
                             : A.Why);
        return false;
      }
    for (const Side *S : {&E, &L})
      if (!S->Index.isPolynomial())
        return Refuse(ID::VerticalIndexMismatch,
                      "'" + S->Access->Text + "' in '" + S->Kernel +
                          "' is no sum of products of thread, block and loop indices and "
                          "parameters");
    std::optional<std::array<int64_t, 3>> Shift = Prover.shiftBetween(E.Index, L.Index);
    if (!Shift)
      return Refuse(ID::VerticalIndexMismatch,
                    "the indices differ by more than a shift of the thread index");
    std::array<int64_t, 3> Back{-(*Shift)[0], -(*Shift)[1], -(*Shift)[2]};
    std::string Why;
    bool CrossBlock = false;
    if ((E.Access->writes() && !writerCovers(E, L, *Shift, CrossBlock, Why)) ||
        (L.Access->writes() && !writerCovers(L, E, Back, CrossBlock, Why)))
      return Refuse(CrossBlock ? ID::VerticalCrossBlock : ID::VerticalIndexMismatch, Why);
    Barrier |= *Shift != std::array<int64_t, 3>{0, 0, 0};
    return true;
  }

  /// Whether \p Writer is the only writer of each of its elements, and
  /// \p Other's thread, shifted by \p Shift, is a thread where it wrote.
  /// When no two threads write one element even without the writer's
  /// conditions, a thread that did not write it leaves it as it was, in the
  /// originals and in the fused kernel alike, so its conditions need not hold.
  bool writerCovers(const Side &Writer, const Side &Other, const std::array<int64_t, 3> &Shift,
                    bool &CrossBlock, std::string &Why) {
    if (!Prover.injective(Writer.Index, Writer.Guards, Why, Proof.UnitGrid)) {
      Why = "in '" + Writer.Kernel + "', " + Why;
      return false;
    }
    const std::vector<IndexCondition> None;
    const std::vector<IndexCondition> &Need = unconditional(Writer) ? None : Writer.Guards;
    if (!Prover.impliesShifted(Other.Guards, Need, Shift, CrossBlock, Why)) {
      Why = "in '" + Other.Kernel + "', " + Why;
      return false;
    }
    return true;
  }

  bool unconditional(const Side &S) const {
    std::string Why;
    std::array<bool, 3> UnitGrid = Proof.UnitGrid;
    bool Result = Prover.injective(S.Index, {}, Why, UnitGrid);
    return Result && UnitGrid == Proof.UnitGrid;
  }

  /// A use of \p P in its kernel's body outside every one of \p Sites.
  const clang::DeclRefExpr *useBesides(const MemberParam &P,
                                       const std::vector<const clang::Expr *> &Sites) {
    struct Uses : clang::RecursiveASTVisitor<Uses> {
      const clang::ParmVarDecl *Param;
      std::vector<const clang::DeclRefExpr *> Found;
      bool VisitDeclRefExpr(clang::DeclRefExpr *R) {
        if (R->getDecl() == Param)
          Found.push_back(R);
        return true;
      }
    } U;
    U.Param = P.Param;
    U.TraverseStmt(Members[P.Member]->Model.Decl->getBody());
    clang::SourceManager &SM = sourcesOf(P.Member);
    for (const clang::DeclRefExpr *Use : U.Found) {
      clang::SourceLocation At = SM.getExpansionLoc(Use->getLocation());
      bool Inside = std::any_of(Sites.begin(), Sites.end(), [&](const clang::Expr *Site) {
        return SM.isPointWithin(At, SM.getExpansionLoc(Site->getBeginLoc()),
                                SM.getExpansionLoc(Site->getEndLoc()));
      });
      if (!Inside)
        return Use;
    }
    return nullptr;
  }

  /// The register a temporary flow can be: every access private to its
  /// thread, every read covered by a write; nothing when it cannot.
  std::optional<RegisterTemporary> privateFlow(const FlowSpec &Flow, const MemberParam &From,
                                               const MemberParam &To,
                                               const std::vector<Side> &Earlier,
                                               const std::vector<Side> &Later, bool Barrier) {
    std::string Name = Flow.From.spelling();
    auto Elsewhere = [&](const std::string &Why) {
      Diags.report(Members[From.Member]->Model.Decl->getLocation(), sourcesOf(From.Member),
                   ID::TemporaryReadElsewhere)
          << Name << Why;
      return std::nullopt;
    };
    auto NotPrivate = [&](const Side &S, const std::string &Why) {
      Diags.report(S.Access->Loc, sourcesOf(S.Member), ID::TemporaryNotPrivate) << Name << Why;
      return std::nullopt;
    };
    for (const FlowSpec &Other : F.Flows)
      if (&Other != &Flow && (Other.From.spelling() == Flow.From.spelling() ||
                              Other.From.spelling() == Flow.To.spelling()))
        return Elsewhere("'" + Other.To.Kernel + "' reads it too, through '" + Other.To.spelling() +
                         "'");
    for (const Side &E : Earlier)
      if (E.Access->reads())
        return Elsewhere("'" + E.Kernel + "' reads it at '" + E.Access->Text + "'");
    for (const Side &L : Later)
      if (L.Access->writes())
        return Elsewhere("'" + L.Kernel + "' writes it at '" + L.Access->Text +
                         "', so later reads would see memory");
    if (Earlier.empty())
      return Elsewhere("'" + Flow.From.Kernel + "' never writes it");
    if (Barrier)
      return NotPrivate(Later.front(),
                        "'" + Later.front().Kernel + "' reads elements other threads wrote");
    RegisterTemporary R;
    R.Name = Name;
    R.ToName = Flow.To.spelling();
    R.ElementType = From.Param->getType()->getPointeeType().getUnqualifiedType().getAsString(
        Members[From.Member]->Unit->getASTContext().getPrintingPolicy());
    R.From = From;
    R.To = To;
    for (const std::vector<Side> *Sides : {&Earlier, &Later})
      for (const Side &S : *Sides) {
        if (S.Access->InLoop && !whyNotInStep().empty())
          return NotPrivate(
              S, "'" + S.Access->Text + "' in '" + S.Kernel +
                     "' lies in a loop, and a register holds one element: " + whyNotInStep());
        if (S.Access->Partial)
          return NotPrivate(S, "'" + S.Access->Text + "' touches part of an element");
        if (S.Access->Helper)
          return NotPrivate(S, "'" + S.Access->Text + "' lies in '" +
                                   S.Access->Helper->getNameAsString() +
                                   "', which kfuse does not inline");
        if (S.Index != Earlier.front().Index)
          return NotPrivate(S, "'" + S.Kernel + "' accesses it at [" + S.Index.str() +
                                   "] as well as at [" + Earlier.front().Index.str() + "]");
        R.Accesses[S.Member].push_back(S.Access->Site);
        if (Sides == &Later && S.Access->Kind == AccessKind::Read)
          R.Reads.insert(S.Access->Site);
      }
    // The register replaces the accesses, and nothing else may name the buffer.
    for (const MemberParam &P : {From, To})
      if (const clang::DeclRefExpr *Use = useBesides(P, R.Accesses[P.Member]))
        return NotPrivate(
            Later.front(),
            "'" + Members[P.Member]->Spec->Id + "' names '" + P.Param->getName().str() +
                "' at line " +
                std::to_string(sourcesOf(P.Member).getExpansionLineNumber(Use->getLocation())) +
                " besides the accesses a register replaces");
    // Every read must run only where a write ran, or it would read a
    // register that was never set.
    for (const Side &L : Later) {
      bool Covered = std::any_of(Earlier.begin(), Earlier.end(), [&](const Side &E) {
        bool CrossBlock = false;
        std::string Why;
        return Prover.impliesShifted(L.Guards, E.Guards, {0, 0, 0}, CrossBlock, Why);
      });
      if (!Covered)
        return NotPrivate(L, "'" + L.Kernel + "' reads it" + guardsText(L.Guards) + ", but '" +
                                 Earlier.front().Kernel + "' writes it only" +
                                 guardsText(Earlier.front().Guards));
    }
    return R;
  }
};

} // namespace

std::optional<ChainProof> proveVerticalChain(const FusionSpec &F,
                                             const std::vector<const FusionMember *> &Members,
                                             const std::string &ConfigPath, Reporter &Diags) {
  return ChainChecker(F, Members, ConfigPath, Diags).run();
}

} // namespace kfuse

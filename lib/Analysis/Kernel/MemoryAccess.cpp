//===- MemoryAccess.cpp - what a kernel reads and writes, and where -------===//
//
// An abstract interpreter over the kernel's body. visit() evaluates each
// expression once, to the memory it names (a glvalue: Value::Memory) and,
// for a pointer, to what it points to (Value::Pointer); the expression that
// contains it decides how that memory is used: loaded, stored, updated,
// bound to a reference, passed on. A construct kfuse does not classify
// turns what reaches it into an access of kind Unknown, so a new shape of
// code can cost precision but never hide a write.
//
// Calls with a visible body are walked into, with parameters bound to the
// arguments (pointers to what they point to, references to what they
// name, `this` to the object), as inlining would place them.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Analysis/Kernel/MemoryAccess.h"

#include "kfuse/Analysis/Kernel/KernelAnalyzer.h"
#include "kfuse/Analysis/Kernel/Mutations.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Builtins.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>
#include <set>

namespace kfuse {

const char *spelling(AccessKind K) {
  switch (K) {
  case AccessKind::Read:
    return "reads";
  case AccessKind::Write:
    return "writes";
  case AccessKind::ReadWrite:
    return "updates";
  case AccessKind::Atomic:
    return "atomically updates";
  case AccessKind::Unknown:
    return "may read and write";
  }
  return "";
}

std::string guardsText(const std::vector<IndexCondition> &Guards) {
  std::string Out;
  for (const IndexCondition &C : Guards)
    Out += (Out.empty() ? "" : " && ") + C.Text;
  return Out.empty() ? "" : " when " + Out;
}

const MemoryAccess *MemoryAccesses::unknown() const {
  for (const MemoryAccess &A : Accesses)
    if (A.Kind == AccessKind::Unknown)
      return &A;
  return nullptr;
}

bool MemoryAccesses::reads() const {
  return std::any_of(Accesses.begin(), Accesses.end(),
                     [](const MemoryAccess &A) { return A.reads(); });
}

bool MemoryAccesses::writes() const {
  return std::any_of(Accesses.begin(), Accesses.end(),
                     [](const MemoryAccess &A) { return A.writes(); });
}

std::string MemoryAccesses::describe() const {
  switch (Kind) {
  case MemoryKind::Buffer:
    return "buffer '" + Param->getName().str() + "'";
  case MemoryKind::Reached:
    return "memory reached through the pointers '" + Param->getName().str() + "' holds";
  case MemoryKind::Variable:
    return "variable '" + Variable->getQualifiedNameAsString() + "'";
  case MemoryKind::Unknown:
    return "memory kfuse cannot tie to an argument";
  }
  return "";
}

const MemoryAccesses *KernelAccesses::find(llvm::StringRef Param) const {
  for (const MemoryAccesses &B : Buffers)
    if (B.Param->getName() == Param)
      return &B;
  return nullptr;
}

const MemoryAccesses *KernelAccesses::unknown() const {
  for (const MemoryAccesses &M : Other)
    if (M.Kind == MemoryKind::Unknown)
      return &M;
  return nullptr;
}

bool KernelAccesses::touchesMemory() const {
  for (const auto *List : {&Buffers, &Other})
    for (const MemoryAccesses &M : *List)
      if (!M.Accesses.empty())
        return true;
  return false;
}

namespace {

using namespace clang;

/// A place in memory other kernels may share: where a pointer points, or
/// what a glvalue names. Local and shared memory have no place.
struct Place {
  MemoryKind Kind = MemoryKind::Unknown;
  const ParmVarDecl *Param = nullptr;
  const VarDecl *Variable = nullptr;
  QualType Element; ///< The memory's element type (Buffer, Variable).
  IndexExpr Index;  ///< In elements of Element.
  bool IndexKnown = true;
  bool Partial = false;
  /// Conditions under which an expression chose this place (c ? a : b).
  std::vector<IndexCondition> Guards;
  std::string Why; ///< How kfuse lost track, for an unknown index or memory.

  bool sameMemory(const Place &O) const {
    return Kind == O.Kind && Param == O.Param && Variable == O.Variable;
  }
};
using Places = std::vector<Place>;

/// What an expression evaluates to.
struct Value {
  /// A glvalue: the shared memory it names; empty for local memory, a
  /// temporary, or no glvalue.
  Places Memory;
  /// A pointer value, or the pointer a local variable holds: what it
  /// points to (empty: local memory or nothing). Unset when the
  /// expression is no pointer kfuse follows.
  std::optional<Places> Pointer;
};

/// How a pointer variable of a function changes after its initializer.
struct PointerChanges {
  std::vector<const Expr *> Assigned; ///< p = e
  std::vector<const Expr *> Stepped;  ///< p += k, ++p
  const Expr *Escapes = nullptr;      ///< &p, or bound to a non-const reference.
};

/// What a function's body does to its own variables, read before it is walked.
struct FunctionFacts {
  std::map<const VarDecl *, unsigned> Changes;
  std::map<const VarDecl *, PointerChanges> Pointers;
  std::set<const VarDecl *> Locals;
  /// Objects assigned as a whole or whose address is taken: their
  /// members may change in ways kfuse does not track.
  std::set<const VarDecl *> ObjectsChanged;
  bool HasGoto = false;
};

class FactFinder : public RecursiveASTVisitor<FactFinder> {
public:
  explicit FactFinder(FunctionFacts &F) : F(F) {}

  bool VisitVarDecl(VarDecl *V) {
    F.Locals.insert(V);
    return true;
  }
  bool VisitGotoStmt(GotoStmt *) {
    F.HasGoto = true;
    return true;
  }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) {
    F.HasGoto = true;
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (const VarDecl *V = pointerVariable(B->getLHS())) {
      if (B->getOpcode() == BO_Assign)
        F.Pointers[V].Assigned.push_back(B->getRHS());
      else if (B->getOpcode() == BO_AddAssign || B->getOpcode() == BO_SubAssign)
        F.Pointers[V].Stepped.push_back(B);
    }
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (const VarDecl *V = pointerVariable(U->getSubExpr()); V && U->isIncrementDecrementOp())
      F.Pointers[V].Stepped.push_back(U);
    if (U->getOpcode() == UO_AddrOf)
      object(U->getSubExpr());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    if (C->isAssignmentOp() && C->getNumArgs())
      object(C->getArg(0));
    return true;
  }

private:
  FunctionFacts &F;

  void object(const Expr *E) {
    const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    if (const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
        V && V->getType()->isRecordType())
      F.ObjectsChanged.insert(V);
  }

  static const VarDecl *pointerVariable(const Expr *E) {
    const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
    return V && V->getType()->isPointerType() ? V : nullptr;
  }
};

FunctionFacts factsOf(const FunctionDecl &F) {
  FunctionFacts Facts;
  for (const ParmVarDecl *P : F.parameters())
    Facts.Locals.insert(P);
  FactFinder(Facts).TraverseStmt(F.getBody());
  forEachMutation(F.getBody(), [&](const Expr *E) {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V)
      return;
    ++Facts.Changes[V];
    if (!V->getType()->isPointerType())
      return;
    PointerChanges &P = Facts.Pointers[V];
    // Assignments and steps were counted above; anything else lets code
    // kfuse does not see change the pointer.
    const Expr *Parent = E;
    if (!P.Escapes && P.Assigned.size() + P.Stepped.size() < Facts.Changes[V])
      P.Escapes = Parent;
  });
  return Facts;
}

/// What a function without a body does with memory, by what CUDA and the
/// compiler define it to do.
enum class Intrinsic {
  Atomic,       ///< Read-modify-write of *arg0.
  Load,         ///< Reads *arg0 (__ldg and its cache variants).
  Store,        ///< Writes *arg0 (__stcs and its cache variants).
  Copy,         ///< memcpy: writes *arg0, reads *arg1, extent from arg2.
  Fill,         ///< memset: writes *arg0.
  SurfaceWrite, ///< Writes the memory behind a surface object.
  SurfaceRead,  ///< Reads it.
  TextureRead,  ///< Reads the memory behind a texture.
  Handler,      ///< Clang's texture and surface handler: either.
};

std::optional<Intrinsic> intrinsicOf(llvm::StringRef Name) {
  if (Name.starts_with("atomic") || Name.starts_with("__nvvm_atom") ||
      Name.starts_with("__nv_atomic"))
    return Intrinsic::Atomic;
  if (llvm::is_contained({"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"}, Name) ||
      Name.starts_with("__nvvm_ldg") || Name.starts_with("__nvvm_ldu"))
    return Intrinsic::Load;
  if (llvm::is_contained({"__stcg", "__stcs", "__stwb", "__stwt"}, Name))
    return Intrinsic::Store;
  if (llvm::is_contained({"memcpy", "memmove", "__builtin_memcpy", "__builtin_memmove"}, Name))
    return Intrinsic::Copy;
  if (llvm::is_contained({"memset", "__builtin_memset"}, Name))
    return Intrinsic::Fill;
  if (Name == "__nv_tex_surf_handler")
    return Intrinsic::Handler;
  if (Name.starts_with("surf") && Name.contains("write"))
    return Intrinsic::SurfaceWrite;
  if (Name.starts_with("surf") && Name.contains("read"))
    return Intrinsic::SurfaceRead;
  if (Name.starts_with("tex") &&
      (Name.size() > 3 &&
       (std::isdigit(static_cast<unsigned char>(Name[3])) || Name.starts_with("texCubemap"))))
    return Intrinsic::TextureRead;
  return std::nullopt;
}

bool holdsPointers(const ASTContext &Ctx, QualType T, unsigned Depth = 0) {
  T = Ctx.getBaseElementType(T.getCanonicalType());
  if (T->isPointerType() || T->isReferenceType() || T->isMemberPointerType())
    return true;
  const auto *R = T->getAsCXXRecordDecl();
  if (!R)
    return false;
  if (!R->hasDefinition() || Depth > 8)
    return true;
  for (const FieldDecl *F : R->fields())
    if (holdsPointers(Ctx, F->getType(), Depth + 1))
      return true;
  for (const CXXBaseSpecifier &B : R->bases())
    if (holdsPointers(Ctx, B.getType(), Depth + 1))
      return true;
  return false;
}

/// Variables that live in global memory other kernels can reach.
bool isDeviceMemory(const VarDecl &V) {
  // A const variable cannot change (warpSize, constexpr tables); a
  // __constant__ one is written by the host, which does not make it const.
  if (!V.hasGlobalStorage() || V.hasAttr<CUDASharedAttr>() || V.getType().isConstQualified())
    return false;
  if (V.hasAttr<CUDADeviceAttr>() || V.hasAttr<CUDAConstantAttr>() || V.hasAttr<HIPManagedAttr>())
    return true;
  return true;
}

/// Statements after which control may not reach the next statement.
class Leaves : public RecursiveASTVisitor<Leaves> {
public:
  bool Found = false;
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseForStmt(ForStmt *S) { return loop(S); }
  bool TraverseWhileStmt(WhileStmt *S) { return loop(S); }
  bool TraverseDoStmt(DoStmt *S) { return loop(S); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) { return loop(S); }
  bool TraverseSwitchStmt(SwitchStmt *S) {
    ++Switches;
    RecursiveASTVisitor::TraverseSwitchStmt(S);
    --Switches;
    return !Found;
  }
  bool VisitReturnStmt(ReturnStmt *) { return leave(); }
  bool VisitGotoStmt(GotoStmt *) { return leave(); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return leave(); }
  bool VisitBreakStmt(BreakStmt *) { return Loops || Switches ? true : leave(); }
  bool VisitContinueStmt(ContinueStmt *) { return Loops ? true : leave(); }

private:
  unsigned Loops = 0, Switches = 0;
  bool leave() {
    Found = true;
    return false;
  }
  template <typename S> bool loop(S *Stmt) {
    ++Loops;
    RecursiveASTVisitor::TraverseStmt(Stmt->getBody());
    --Loops;
    return !Found;
  }
};

bool mayLeave(const Stmt *S) {
  Leaves L;
  L.TraverseStmt(const_cast<Stmt *>(S));
  return L.Found;
}

/// Steps an analysis takes before it stops following calls: the bound on
/// kfuse's time over deep template libraries.
constexpr unsigned StepBudget = 2000000;
constexpr unsigned MaxCallDepth = 12;

class AccessWalker {
public:
  AccessWalker(const FunctionDecl &Kernel, std::optional<std::array<unsigned, 3>> Block)
      : Kernel(Kernel), Block(Block), AST(Kernel.getASTContext()), SM(AST.getSourceManager()) {}

  KernelAccesses run() {
    for (const ParmVarDecl *P : Kernel.parameters())
      if (P->getType()->isPointerType())
        Result.Buffers.push_back({MemoryKind::Buffer, P, nullptr, {}});
    enter(Kernel);
    for (const ParmVarDecl *P : Kernel.parameters()) {
      if (P->getType()->isPointerType())
        bindPointer(*P, {bufferPlace(*P)});
      else if (P->getType()->isIntegralOrEnumerationType() && !changes(*P))
        Values[P] = IndexExpr::symbol(Symbol::param(P->getName().str()));
    }
    walkBody(Kernel);
    return std::move(Result);
  }

private:
  const FunctionDecl &Kernel;
  std::optional<std::array<unsigned, 3>> Block;
  ASTContext &AST;
  SourceManager &SM;
  KernelAccesses Result;

  std::map<const FunctionDecl *, FunctionFacts> Facts;
  std::map<const VarDecl *, IndexExpr> Values;
  std::map<const VarDecl *, Places> Pointers;
  std::map<const VarDecl *, Value> References;
  std::set<const VarDecl *> Binding; ///< Pointer variables being bound, against cycles.
  /// Pointer members of local objects, as their construction set them.
  std::map<std::pair<const VarDecl *, const FieldDecl *>, Places> Members;
  /// Members the translation unit changes after construction; set once read.
  std::optional<std::set<const FieldDecl *>> ChangedMembers;

  std::vector<IndexCondition> Guards;
  std::vector<Symbol> Loops;
  unsigned LoopDepth = 0;

  struct Frame {
    const FunctionDecl *Function;
    std::optional<Places> This;
    /// The local object 'this' is, whose pointer members kfuse follows.
    const VarDecl *Object = nullptr;
    /// The kernel's class parameter 'this' is, whose pointers lead to
    /// memory reached through it.
    const ParmVarDecl *Holder = nullptr;
    Value Result;
    bool Returns = false; ///< Collects what its return statements give.
    bool Seen = false;    ///< A return statement gave something.
  };
  std::vector<Frame> Frames;
  std::vector<const FunctionDecl *> Helpers;
  /// The calls that entered each of Helpers (null where none is written).
  std::vector<const Expr *> CallSites;

  unsigned Silent = 0; ///< Evaluating again what was already walked: record nothing.
  unsigned Unique = 0, LoopCount = 0, Steps = 0;

  // ---- Text and places ----

  std::string text(const Stmt *S) const {
    CharSourceRange R = CharSourceRange::getTokenRange(S->getSourceRange());
    std::string T = Lexer::getSourceText(Lexer::makeFileCharRange(R, SM, AST.getLangOpts()), SM,
                                         AST.getLangOpts())
                        .str();
    if (T.empty())
      T = Lexer::getSourceText(SM.getExpansionRange(S->getSourceRange()), SM, AST.getLangOpts())
              .str();
    std::string Collapsed;
    for (char C : T)
      if (!(std::isspace(static_cast<unsigned char>(C)) && !Collapsed.empty() &&
            Collapsed.back() == ' '))
        Collapsed += std::isspace(static_cast<unsigned char>(C)) ? ' ' : C;
    return Collapsed;
  }

  std::string quoted(const Stmt *S) const { return "'" + text(S) + "'"; }

  unsigned line(SourceLocation L) const { return SM.getExpansionLineNumber(L); }

  static QualType elementOf(const ASTContext &Ctx, QualType T) {
    return Ctx.getBaseElementType(T).getUnqualifiedType();
  }

  Place bufferPlace(const ParmVarDecl &P) const {
    Place Pl;
    Pl.Kind = MemoryKind::Buffer;
    Pl.Param = &P;
    Pl.Element = elementOf(AST, P.getType()->getPointeeType());
    return Pl;
  }

  Place variablePlace(const VarDecl &V) const {
    Place Pl;
    Pl.Kind = MemoryKind::Variable;
    Pl.Variable = &V;
    Pl.Element = elementOf(AST, V.getType());
    return Pl;
  }

  static Place unknownPlace(std::string Why) {
    Place Pl;
    Pl.Kind = MemoryKind::Unknown;
    Pl.IndexKnown = false;
    Pl.Why = std::move(Why);
    return Pl;
  }

  static Place reachedPlace(const ParmVarDecl &P, std::string Why) {
    Place Pl;
    Pl.Kind = MemoryKind::Reached;
    Pl.Param = &P;
    Pl.IndexKnown = false;
    Pl.Why = std::move(Why);
    return Pl;
  }

  /// Where a pointer loaded from \p From may point.
  Places loadedFrom(const Places &From, const Expr *Site) const {
    Places Out;
    for (const Place &P : From) {
      Place L = P.Param && (P.Kind == MemoryKind::Buffer || P.Kind == MemoryKind::Reached)
                    ? reachedPlace(*P.Param, "a pointer loaded from " + quoted(Site))
                    : unknownPlace("a pointer loaded from " + quoted(Site));
      if (std::none_of(Out.begin(), Out.end(), [&](const Place &O) { return O.sameMemory(L); }))
        Out.push_back(L);
    }
    return Out;
  }

  /// What \p V points to; memory kfuse cannot follow when it is no pointer it follows.
  Places pointee(const Value &V, const Expr *E) const {
    if (V.Pointer)
      return *V.Pointer;
    return {unknownPlace(quoted(E) + " points where kfuse cannot follow")};
  }

  bool sameType(QualType A, QualType B) const {
    return !A.isNull() && !B.isNull() &&
           AST.hasSameUnqualifiedType(A.getCanonicalType(), B.getCanonicalType());
  }

  std::optional<int64_t> sizeOf(QualType T) const {
    if (T.isNull() || T->isIncompleteType() || T->isDependentType() || T->isVoidType() ||
        T->isFunctionType())
      return std::nullopt;
    return AST.getTypeSizeInChars(T).getQuantity();
  }

  /// \p Ps moved by \p Count objects of type \p Pointee.
  Places offset(Places Ps, const IndexExpr &Count, QualType Pointee, const Expr *Site) const {
    for (Place &P : Ps) {
      if (!P.IndexKnown)
        continue;
      if (sameType(Pointee, P.Element)) {
        P.Index = P.Index + Count;
        continue;
      }
      std::optional<int64_t> Step = sizeOf(Pointee), Unit = sizeOf(P.Element);
      if (P.Partial || !Step || !Unit || *Unit == 0 || *Step % *Unit != 0) {
        P.IndexKnown = false;
        P.Why = quoted(Site) + " moves in steps of '" + Pointee.getAsString() +
                "', which are not whole elements of '" + P.Element.getAsString() + "'";
        continue;
      }
      P.Index = P.Index + Count * IndexExpr::constant(*Step / *Unit);
    }
    return Ps;
  }

  /// The same places with every index forgotten.
  static Places imprecise(Places Ps, const std::string &Why) {
    for (Place &P : Ps)
      if (P.IndexKnown) {
        P.IndexKnown = false;
        P.Why = Why;
      }
    return Ps;
  }

  static void addPlaces(Places &To, const Places &From) {
    To.insert(To.end(), From.begin(), From.end());
  }

  static Places guarded(Places Ps, const std::vector<IndexCondition> &Cs) {
    for (Place &P : Ps)
      P.Guards.insert(P.Guards.end(), Cs.begin(), Cs.end());
    return Ps;
  }

  // ---- Recording ----

  MemoryAccesses &memoryOf(const Place &P) {
    if (P.Kind == MemoryKind::Buffer)
      for (MemoryAccesses &B : Result.Buffers)
        if (B.Param == P.Param)
          return B;
    for (MemoryAccesses &M : Result.Other)
      if (M.Kind == P.Kind && M.Param == P.Param && M.Variable == P.Variable)
        return M;
    return Result.Other.emplace_back(MemoryAccesses{P.Kind, P.Param, P.Variable, {}});
  }

  void record(const Places &Ps, AccessKind Kind, const Expr *Site, QualType Type,
              const std::string &Why = "") {
    if (Silent)
      return;
    for (const Place &P : Ps) {
      MemoryAccess A;
      A.Site = Site;
      A.Loc = SM.getExpansionLoc(Site->getBeginLoc());
      A.Kind = Kind;
      A.Index = P.Index;
      A.IndexKnown = P.IndexKnown;
      A.Partial = P.Partial;
      A.Why = P.Why;
      if (P.IndexKnown && !Type.isNull() && Kind != AccessKind::Unknown)
        measure(A, Type, P.Element);
      if (!Why.empty())
        A.Why = Why;
      A.Guards = Guards;
      A.Guards.insert(A.Guards.end(), P.Guards.begin(), P.Guards.end());
      A.Loops = Loops;
      A.InLoop = LoopDepth > 0;
      A.Helper = Helpers.empty() ? nullptr : Helpers.back();
      A.CalledAt = calledAt(A.Loc);
      A.Text = text(Site);
      memoryOf(P).Accesses.push_back(std::move(A));
    }
  }

  /// For an access in a system header, the innermost call outside one that
  /// led there: a place the user can read.
  SourceLocation calledAt(SourceLocation Loc) const {
    if (!SM.isInSystemHeader(Loc))
      return {};
    for (auto It = CallSites.rbegin(); It != CallSites.rend(); ++It)
      if (*It && !SM.isInSystemHeader(SM.getExpansionLoc((*It)->getBeginLoc())))
        return SM.getExpansionLoc((*It)->getBeginLoc());
    return {};
  }

  /// The elements an access of \p Type covers, in elements of \p Element.
  void measure(MemoryAccess &A, QualType Type, QualType Element) const {
    if (sameType(Type.getNonReferenceType(), Element))
      return;
    std::optional<int64_t> Size = sizeOf(Type.getNonReferenceType()), Unit = sizeOf(Element);
    if (!Size || !Unit || *Unit == 0) {
      A.IndexKnown = false;
      A.Why = "kfuse cannot size '" + Type.getAsString() + "'";
    } else if (*Size >= *Unit && *Size % *Unit == 0) {
      A.Width = static_cast<unsigned>(*Size / *Unit);
    } else if (*Size < *Unit && *Unit % *Size == 0) {
      A.Partial = true;
    } else {
      A.IndexKnown = false;
      A.Why = "'" + Type.getAsString() + "' is no whole number of '" + Element.getAsString() +
              "' elements";
    }
  }

  /// Memory no expression names: what code kfuse cannot see may reach.
  void recordAnywhere(const Expr *Site, const std::string &Why) {
    record({unknownPlace(Why)}, AccessKind::Unknown, Site, QualType(), Why);
  }

  /// \p V reached a construct kfuse does not classify: whatever it names
  /// or points to may be read and written there.
  void consumeUnknown(const Value &V, const Expr *E, const std::string &Why) {
    record(V.Memory, AccessKind::Unknown, E, QualType(), Why);
    if (E->getType()->isPointerType() || V.Pointer)
      record(pointee(V, E), AccessKind::Unknown, E, QualType(), Why);
  }

  /// An operand that must be a plain value.
  void operand(const Expr *E, const Expr *User) {
    if (!E)
      return;
    Value V = visit(E);
    // In a template's own body Clang leaves loads implicit: an operand that
    // names memory there is read, as every instantiation reads it.
    if (E->isGLValue() && E->isInstantiationDependent() && !E->getType()->isRecordType()) {
      record(V.Memory, AccessKind::Read, E, E->getType());
      V.Memory.clear();
    }
    if (!V.Memory.empty() || (V.Pointer && !V.Pointer->empty()))
      consumeUnknown(V, E, quoted(User) + " uses it in a way kfuse does not classify");
  }

  // ---- Values (integers) ----

  std::optional<IndexExpr> builtin(const Expr *E) {
    std::optional<std::pair<BuiltinVar, unsigned>> Read = builtinComponent(E);
    if (!Read)
      return std::nullopt;
    auto [Var, Dim] = *Read;
    if (Var == BuiltinVar::BlockDim && Block)
      return IndexExpr::constant((*Block)[Dim]);
    return IndexExpr::symbol(
        Symbol::builtin(std::string(spelling(Var)) + "." + std::string(1, "xyz"[Dim])));
  }

  IndexExpr opaque(const Expr *E) { return IndexExpr::symbol(Symbol::opaque(text(E), Unique++)); }

  IndexExpr eval(const Expr *E) {
    E = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<CastExpr>(E))
      if (Cast->getType()->isIntegralOrEnumerationType() &&
          Cast->getSubExpr()->getType()->isIntegralOrEnumerationType()) {
        // A narrower type wraps the value ((unsigned short)i is i mod 2^16):
        // no polynomial says which element that is.
        if (AST.getIntWidth(Cast->getType()) < AST.getIntWidth(Cast->getSubExpr()->getType()))
          return opaque(E);
        return eval(Cast->getSubExpr());
      }
    if (!E->isValueDependent()) {
      Expr::EvalResult R;
      if (E->EvaluateAsInt(R, AST))
        return IndexExpr::constant(R.Val.getInt().getExtValue());
    }
    if (std::optional<IndexExpr> B = builtin(E))
      return *B;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
        if (auto It = Values.find(V); It != Values.end())
          return It->second;
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      switch (B->getOpcode()) {
      case BO_Add:
        return eval(B->getLHS()) + eval(B->getRHS());
      case BO_Sub:
        return eval(B->getLHS()) - eval(B->getRHS());
      case BO_Mul:
        return eval(B->getLHS()) * eval(B->getRHS());
      case BO_Shl:
        if (std::optional<int64_t> S = eval(B->getRHS()).asConstant(); S && *S >= 0 && *S < 31)
          return eval(B->getLHS()) * IndexExpr::constant(int64_t(1) << *S);
        break;
      default:
        break;
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_Minus)
        return IndexExpr() - eval(U->getSubExpr());
      if (U->getOpcode() == UO_Plus)
        return eval(U->getSubExpr());
    }
    return opaque(E);
  }

  // ---- Conditions ----

  IndexCondition unknown(const Expr *E, bool Negated) {
    return {IndexExpr(), false, (Negated ? "!(" : "") + text(E) + (Negated ? ")" : "")};
  }

  std::vector<IndexCondition> conditionsOf(const Expr *E, bool Negated) {
    E = E->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_LNot)
      return conditionsOf(U->getSubExpr(), !Negated);
    const auto *B = dyn_cast<BinaryOperator>(E);
    if (!B)
      return {unknown(E, Negated)};
    BinaryOperatorKind Op = B->getOpcode();
    if ((Op == BO_LAnd && !Negated) || (Op == BO_LOr && Negated)) {
      std::vector<IndexCondition> R = conditionsOf(B->getLHS(), Negated);
      std::vector<IndexCondition> S = conditionsOf(B->getRHS(), Negated);
      R.insert(R.end(), S.begin(), S.end());
      return R;
    }
    if (!B->isComparisonOp())
      return {unknown(E, Negated)};
    IndexExpr L = eval(B->getLHS()), R = eval(B->getRHS());
    // Unsigned arithmetic wraps: a difference may not mean what it says.
    bool Unsigned = B->getLHS()->getType()->isUnsignedIntegerType() ||
                    B->getRHS()->getType()->isUnsignedIntegerType();
    bool Subtracts = false;
    for (const IndexExpr *Side : {&L, &R})
      for (const auto &[M, C] : Side->terms())
        Subtracts |= C < 0;
    if (!L.isPolynomial() || !R.isPolynomial() || (Unsigned && Subtracts))
      return {unknown(E, Negated)};
    if (Negated) {
      switch (Op) {
      case BO_LT:
        Op = BO_GE;
        break;
      case BO_LE:
        Op = BO_GT;
        break;
      case BO_GT:
        Op = BO_LE;
        break;
      case BO_GE:
        Op = BO_LT;
        break;
      case BO_EQ:
        Op = BO_NE;
        break;
      case BO_NE:
        Op = BO_EQ;
        break;
      default:
        break;
      }
    }
    IndexExpr One = IndexExpr::constant(1);
    std::string T = Negated ? "!(" + text(E) + ")" : text(E);
    switch (Op) {
    case BO_LT:
      return {{R - L - One, true, T}};
    case BO_LE:
      return {{R - L, true, T}};
    case BO_GT:
      return {{L - R - One, true, T}};
    case BO_GE:
      return {{L - R, true, T}};
    case BO_EQ:
      return {{L - R, true, T}, {R - L, true, T}};
    default:
      return {unknown(E, Negated)};
    }
  }

  template <typename F> auto underConditions(const std::vector<IndexCondition> &Cs, F Walk) {
    size_t Depth = Guards.size();
    Guards.insert(Guards.end(), Cs.begin(), Cs.end());
    auto Restore = llvm::make_scope_exit([&] { Guards.resize(Depth); });
    return Walk();
  }

  /// The condition under which the statements after \p S run, when \p S is
  /// `if (c) return;` (or continue, break), possibly with statements before it.
  std::optional<const Expr *> exitCondition(const Stmt *S) {
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
      return std::nullopt;
    const Stmt *Last = If->getThen();
    if (const auto *Block = dyn_cast<CompoundStmt>(Last))
      Last = Block->body_empty() ? nullptr : Block->body_back();
    if (Last && isa<ReturnStmt, ContinueStmt, BreakStmt>(Last))
      return If->getCond();
    return std::nullopt;
  }

  // ---- Variables ----

  const FunctionFacts &facts(const FunctionDecl &F) {
    auto It = Facts.find(&F);
    if (It == Facts.end())
      It = Facts.emplace(&F, factsOf(F)).first;
    return It->second;
  }

  const FunctionFacts *factsOfOwner(const VarDecl &V) {
    const DeclContext *C = V.getDeclContext();
    while (C && !isa<FunctionDecl>(C))
      C = C->getParent();
    const auto *F = dyn_cast_or_null<FunctionDecl>(C);
    if (!F || !F->hasBody())
      return nullptr;
    return &facts(*F);
  }

  bool changes(const VarDecl &V) {
    const FunctionFacts *F = factsOfOwner(V);
    return !F || F->Changes.count(&V);
  }

  /// Binds pointer variable \p V to \p Initial: its initializer or argument,
  /// then whatever code assigns it.
  void bindPointer(const VarDecl &V, Places Initial) {
    const FunctionFacts *F = factsOfOwner(V);
    auto It = F ? F->Pointers.find(&V) : decltype(F->Pointers.end())();
    if (!F || It == F->Pointers.end()) {
      Pointers[&V] = std::move(Initial);
      return;
    }
    const PointerChanges &C = It->second;
    std::string Name = "'" + V.getName().str() + "'";
    if (C.Escapes) {
      // Code that reaches the variable may read the pointer and store another.
      std::string Why = Name + " may change through its address or a reference (line " +
                        std::to_string(line(C.Escapes->getBeginLoc())) + ")";
      record(Initial, AccessKind::Unknown, C.Escapes, QualType(), Why);
      Pointers[&V] = {unknownPlace(Why)};
      return;
    }
    const Expr *First = !C.Assigned.empty() ? C.Assigned.front() : C.Stepped.front();
    std::string Why = Name + " changes at line " + std::to_string(line(First->getBeginLoc()));
    Places All = imprecise(std::move(Initial), Why);
    Pointers[&V] = All;
    if (!Binding.insert(&V).second)
      return;
    for (const Expr *Source : C.Assigned) {
      ++Silent;
      Value S = visit(Source);
      --Silent;
      addPlaces(All, imprecise(pointee(S, Source), Why));
      Pointers[&V] = All;
    }
    Binding.erase(&V);
  }

  Places pointerVariable(const VarDecl &V) {
    if (auto It = Pointers.find(&V); It != Pointers.end())
      return It->second;
    // A local that an assignment to another pointer reads before its
    // declaration is walked: bind it from its initializer now.
    if (V.hasLocalStorage() && !isa<ParmVarDecl>(V) && Binding.insert(&V).second) {
      Places Init;
      if (const Expr *E = V.getInit()) {
        ++Silent;
        Init = pointee(visit(E), E);
        --Silent;
      }
      Binding.erase(&V);
      bindPointer(V, std::move(Init));
      return Pointers[&V];
    }
    return {unknownPlace("kfuse cannot follow what '" + V.getName().str() + "' points to")};
  }

  /// A kernel parameter of class type whose member \p E reads.
  const ParmVarDecl *heldInParameter(const Expr *E) const {
    const auto *P = E ? dyn_cast_or_null<ParmVarDecl>(ownedVariable(E)) : nullptr;
    if (P && P->getDeclContext() == &Kernel && !P->getType()->isPointerType())
      return P;
    return nullptr;
  }

  /// The kernel's class parameter \p E is (or 'this' is, in a member
  /// function called on it); null for any other object.
  const ParmVarDecl *holderOf(const Expr *E) const {
    if (isa<CXXThisExpr>(E->IgnoreParenImpCasts()))
      return Frames.empty() || isLambdaBody(*Frames.back().Function) ? nullptr
                                                                     : Frames.back().Holder;
    return heldInParameter(E);
  }

  /// The local object \p E names: a variable of class type, or the object
  /// 'this' is in a member function called on one.
  const VarDecl *localObject(const Expr *E) const {
    E = E->IgnoreParenImpCasts();
    if (isa<CXXThisExpr>(E))
      return Frames.empty() || isLambdaBody(*Frames.back().Function) ? nullptr
                                                                     : Frames.back().Object;
    const auto *R = dyn_cast<DeclRefExpr>(E);
    const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getType()->isRecordType())
      return nullptr;
    return V;
  }

  /// Builds local object \p V from \p Init, following the pointers its
  /// aggregate initializer or its constructor stores in its members.
  /// Returns false to walk the initializer as any other expression.
  bool constructObject(const VarDecl &V, const Expr *Init) {
    const Expr *E = Init;
    while (true) {
      if (const auto *C = dyn_cast<ExprWithCleanups>(E))
        E = C->getSubExpr();
      else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
        E = F->getSubExpr();
      else if (const auto *I = dyn_cast<ImplicitCastExpr>(E); I && I->getCastKind() == CK_NoOp)
        E = I->getSubExpr();
      else
        break;
    }
    if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      construct(*C, &V);
      return true;
    }
    const auto *List = dyn_cast<InitListExpr>(E);
    const RecordDecl *R = V.getType()->getAsRecordDecl();
    if (!List || !R || R->isUnion() || List->isTransparent())
      return false;
    unsigned I = 0;
    for (const FieldDecl *F : R->fields()) {
      if (I >= List->getNumInits())
        break;
      const Expr *Part = List->getInit(I++);
      Value P = visit(Part);
      if (F->getType()->isPointerType())
        Members[{&V, F}] = pointee(P, Part);
      else if (!P.Memory.empty() || (P.Pointer && !P.Pointer->empty()))
        consumeUnknown(P, Part, "stored in member '" + F->getNameAsString() + "'");
    }
    return true;
  }

  /// What a pointer member of a local object holds, when kfuse followed
  /// its construction and nothing changes it after.
  std::optional<Places> memberPointer(const Expr *E) {
    const auto *M = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
    const auto *F = M ? dyn_cast<FieldDecl>(M->getMemberDecl()) : nullptr;
    const VarDecl *Object = M ? localObject(M->getBase()) : nullptr;
    if (!F || !Object)
      return std::nullopt;
    auto It = Members.find({Object, F});
    const FunctionFacts *Facts = factsOfOwner(*Object);
    if (It == Members.end() || !Facts || Facts->ObjectsChanged.count(Object) ||
        changedMembers().count(F))
      return std::nullopt;
    return It->second;
  }

  /// Members any function of the translation unit may change after
  /// construction: stored into, incremented, their address taken or bound
  /// to a non-const reference; and every member of a class whose objects
  /// are assigned as a whole, have their address taken, or are passed by
  /// reference to a function kfuse cannot see.
  const std::set<const FieldDecl *> &changedMembers() {
    if (ChangedMembers)
      return *ChangedMembers;
    ChangedMembers.emplace();
    struct Finder : RecursiveASTVisitor<Finder> {
      std::set<const FieldDecl *> &Out;
      explicit Finder(std::set<const FieldDecl *> &Out) : Out(Out) {}
      bool shouldVisitTemplateInstantiations() const { return true; }
      void changed(const Expr *E) {
        E = E->IgnoreParenImpCasts();
        if (const auto *M = dyn_cast<MemberExpr>(E))
          if (const auto *F = dyn_cast<FieldDecl>(M->getMemberDecl()))
            Out.insert(F);
        if (const RecordDecl *R = E->getType()->getAsRecordDecl())
          wholly(*R);
      }
      void wholly(const RecordDecl &R) {
        for (const FieldDecl *F : R.fields()) {
          Out.insert(F);
          if (const RecordDecl *Inner = F->getType()->getAsRecordDecl())
            wholly(*Inner);
        }
        if (const auto *C = dyn_cast<CXXRecordDecl>(&R); C && C->hasDefinition())
          for (const CXXBaseSpecifier &B : C->bases())
            if (const RecordDecl *Base = B.getType()->getAsRecordDecl())
              wholly(*Base);
      }
      bool VisitBinaryOperator(BinaryOperator *B) {
        if (B->isAssignmentOp())
          changed(B->getLHS());
        return true;
      }
      bool VisitUnaryOperator(UnaryOperator *U) {
        if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
          changed(U->getSubExpr());
        return true;
      }
      bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
        if (C->isAssignmentOp() && C->getNumArgs())
          changed(C->getArg(0));
        return true;
      }
      bool VisitVarDecl(VarDecl *V) {
        QualType T = V->getType();
        if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified() && V->getInit())
          if (isa<MemberExpr>(V->getInit()->IgnoreParenImpCasts()))
            changed(V->getInit());
        return true;
      }
      bool VisitCallExpr(CallExpr *C) {
        const FunctionDecl *F = C->getDirectCallee();
        if (!F)
          return true;
        const auto *M = dyn_cast<CXXMethodDecl>(F);
        unsigned Object = isa<CXXOperatorCallExpr>(C) && M && M->isInstance() ? 1 : 0;
        bool Body = F->hasBody();
        for (unsigned I = Object; I < C->getNumArgs() && I - Object < F->getNumParams(); ++I) {
          QualType T = F->getParamDecl(I - Object)->getType();
          if (!T->isReferenceType() || T.getNonReferenceType().isConstQualified())
            continue;
          const Expr *Arg = C->getArg(I)->IgnoreParenImpCasts();
          if (isa<MemberExpr>(Arg) || !Body)
            changed(Arg);
        }
        return true;
      }
    } Find(*ChangedMembers);
    Find.TraverseDecl(AST.getTranslationUnitDecl());
    return *ChangedMembers;
  }

  void declare(const VarDecl &V) {
    const Expr *Init = V.getInit();
    if (V.getType()->isReferenceType()) {
      Value R = Init ? visit(Init) : Value{};
      if (!Init || !Init->isGLValue())
        R.Memory.clear(); // Bound to a temporary.
      References[&V] = R;
      return;
    }
    if (Init)
      destroyedLater(V.getType(), Init);
    if (Init && V.getType()->isRecordType() && constructObject(V, Init))
      return;
    Value Val = Init ? visit(Init) : Value{};
    if (V.getType()->isPointerType()) {
      bindPointer(V, Init ? pointee(Val, Init) : Places{});
      return;
    }
    if (Init && V.getType()->isIntegralOrEnumerationType() && !changes(V))
      Values[&V] = eval(Init);
  }

  // ---- Statements ----

  void walkBody(const FunctionDecl &F) {
    if (facts(F).HasGoto)
      underConditions({{IndexExpr(), false, "code reached by goto"}},
                      [&] { walkStmt(F.getBody()); });
    else
      walkStmt(F.getBody());
  }

  void walkStmt(const Stmt *S) {
    if (!S)
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      visit(E);
      return;
    }
    switch (S->getStmtClass()) {
    case Stmt::CompoundStmtClass:
      return walkBlock(*cast<CompoundStmt>(S));
    case Stmt::IfStmtClass:
      return walkIf(*cast<IfStmt>(S));
    case Stmt::ForStmtClass:
      return walkFor(*cast<ForStmt>(S));
    case Stmt::WhileStmtClass: {
      const auto *W = cast<WhileStmt>(S);
      ++LoopDepth;
      if (const VarDecl *V = W->getConditionVariable())
        declare(*V);
      operand(W->getCond(), W->getCond());
      underConditions(conditionsOf(W->getCond(), false), [&] { walkStmt(W->getBody()); });
      --LoopDepth;
      return;
    }
    case Stmt::DoStmtClass: {
      const auto *D = cast<DoStmt>(S);
      ++LoopDepth;
      walkStmt(D->getBody());
      operand(D->getCond(), D->getCond());
      --LoopDepth;
      return;
    }
    case Stmt::CXXForRangeStmtClass: {
      const auto *R = cast<CXXForRangeStmt>(S);
      walkStmt(R->getInit());
      walkStmt(R->getRangeStmt());
      walkStmt(R->getBeginStmt());
      walkStmt(R->getEndStmt());
      ++LoopDepth;
      underConditions({{IndexExpr(), false, "the loop over " + quoted(R->getRangeInit())}}, [&] {
        walkStmt(R->getCond());
        walkStmt(R->getInc());
        walkStmt(R->getLoopVarStmt());
        walkStmt(R->getBody());
      });
      --LoopDepth;
      return;
    }
    case Stmt::SwitchStmtClass: {
      const auto *Sw = cast<SwitchStmt>(S);
      walkStmt(Sw->getInit());
      if (const VarDecl *V = Sw->getConditionVariable())
        declare(*V);
      operand(Sw->getCond(), Sw->getCond());
      // Which case runs is a condition kfuse does not model.
      underConditions({{IndexExpr(), false, "a case of switch (" + text(Sw->getCond()) + ")"}},
                      [&] { walkStmt(Sw->getBody()); });
      return;
    }
    case Stmt::CaseStmtClass:
      return walkStmt(cast<CaseStmt>(S)->getSubStmt());
    case Stmt::DefaultStmtClass:
      return walkStmt(cast<DefaultStmt>(S)->getSubStmt());
    case Stmt::DeclStmtClass:
      for (const Decl *D : cast<DeclStmt>(S)->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          declare(*V);
      return;
    case Stmt::ReturnStmtClass:
      return walkReturn(*cast<ReturnStmt>(S));
    case Stmt::GCCAsmStmtClass:
      return walkAsm(*cast<GCCAsmStmt>(S));
    case Stmt::MSAsmStmtClass:
      for (const Stmt *Child : S->children())
        if (const auto *E = dyn_cast_or_null<Expr>(Child))
          consumeUnknown(visit(E), E, "an operand of inline assembly");
      return;
    case Stmt::NullStmtClass:
    case Stmt::BreakStmtClass:
    case Stmt::ContinueStmtClass:
    case Stmt::GotoStmtClass:
      return;
    default:
      // Labels, attributes, try blocks: their statements, as written.
      for (const Stmt *Child : S->children())
        walkStmt(Child);
      return;
    }
  }

  void walkBlock(const CompoundStmt &Block) {
    size_t Depth = Guards.size();
    for (const Stmt *Child : Block.body()) {
      walkStmt(Child);
      if (std::optional<const Expr *> Exit = exitCondition(Child))
        for (const IndexCondition &C : conditionsOf(*Exit, /*Negated=*/true))
          Guards.push_back(C);
      else if (mayLeave(Child))
        Guards.push_back(
            {IndexExpr(), false,
             "code after line " + std::to_string(line(Child->getEndLoc())) + ", which may leave"});
    }
    Guards.resize(Depth);
  }

  void walkIf(const IfStmt &If) {
    walkStmt(If.getInit());
    if (const VarDecl *V = If.getConditionVariable())
      declare(*V);
    if (If.isConsteval()) {
      walkStmt(If.getThen());
      walkStmt(If.getElse());
      return;
    }
    operand(If.getCond(), If.getCond());
    underConditions(conditionsOf(If.getCond(), false), [&] { walkStmt(If.getThen()); });
    if (If.getElse())
      underConditions(conditionsOf(If.getCond(), true), [&] { walkStmt(If.getElse()); });
  }

  /// for (int i = Init; cond; i += Step) with i changed only by the increment.
  std::optional<std::pair<const VarDecl *, IndexExpr>> canonicalLoop(const ForStmt &For) {
    const auto *Decl = dyn_cast_or_null<DeclStmt>(For.getInit());
    const auto *V =
        Decl && Decl->isSingleDecl() ? dyn_cast<VarDecl>(Decl->getSingleDecl()) : nullptr;
    if (!V || !V->getInit() || !V->getType()->isIntegralOrEnumerationType() || !For.getInc())
      return std::nullopt;
    const FunctionFacts *F = factsOfOwner(*V);
    auto Count = F ? F->Changes.find(V) : decltype(F->Changes.end())();
    if (!F || Count == F->Changes.end() || Count->second != 1)
      return std::nullopt;
    const Expr *Inc = For.getInc()->IgnoreParenImpCasts();
    auto IsV = [&](const Expr *E) {
      const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      return Ref && Ref->getDecl() == V;
    };
    std::optional<IndexExpr> Step;
    if (const auto *U = dyn_cast<UnaryOperator>(Inc);
        U && U->isIncrementOp() && IsV(U->getSubExpr()))
      Step = IndexExpr::constant(1);
    if (const auto *B = dyn_cast<CompoundAssignOperator>(Inc);
        B && B->getOpcode() == BO_AddAssign && IsV(B->getLHS()))
      Step = eval(B->getRHS());
    if (!Step || !Step->isPolynomial())
      return std::nullopt;
    // A step that is a positive constant or a product of block and grid sizes.
    std::optional<int64_t> C = Step->asConstant();
    if (C ? *C <= 0 : Step->terms().size() != 1 || Step->terms().begin()->second <= 0)
      return std::nullopt;
    return std::make_pair(V, *Step);
  }

  void walkFor(const ForStmt &For) {
    std::optional<std::pair<const VarDecl *, IndexExpr>> Canonical =
        Silent ? std::nullopt : canonicalLoop(For);
    ++LoopDepth;
    if (!Canonical) {
      walkStmt(For.getInit());
      if (const VarDecl *V = For.getConditionVariable())
        declare(*V);
      std::vector<IndexCondition> Cond;
      if (For.getCond()) {
        operand(For.getCond(), For.getCond());
        Cond = conditionsOf(For.getCond(), false);
      }
      underConditions(Cond, [&] {
        walkStmt(For.getBody());
        walkStmt(For.getInc());
      });
      --LoopDepth;
      return;
    }
    const auto &[V, Step] = *Canonical;
    operand(V->getInit(), V->getInit());
    Symbol Iteration = Symbol::loop(V->getName().str(), LoopCount++);
    IndexExpr Init = eval(V->getInit());
    Result.Loops.insert({Iteration, {V->getName().str(), Init, Step}});
    Values[V] = Init + Step * IndexExpr::symbol(Iteration);
    Loops.push_back(Iteration);
    std::vector<IndexCondition> Cond;
    if (For.getCond()) {
      operand(For.getCond(), For.getCond());
      Cond = conditionsOf(For.getCond(), false);
    }
    underConditions(Cond, [&] {
      walkStmt(For.getBody());
      operand(For.getInc(), For.getInc());
    });
    Loops.pop_back();
    --LoopDepth;
  }

  void walkReturn(const ReturnStmt &R) {
    const Expr *E = R.getRetValue();
    if (!E)
      return;
    Value V = visit(E);
    if (Frames.empty() || !Frames.back().Returns)
      return;
    Frame &F = Frames.back();
    F.Seen = true;
    QualType T = F.Function->getReturnType();
    if (T->isReferenceType()) {
      addPlaces(F.Result.Memory, guarded(V.Memory, Guards));
      if (V.Pointer) {
        if (!F.Result.Pointer)
          F.Result.Pointer.emplace();
        addPlaces(*F.Result.Pointer, guarded(*V.Pointer, Guards));
      }
    } else if (T->isPointerType()) {
      if (!F.Result.Pointer)
        F.Result.Pointer.emplace();
      addPlaces(*F.Result.Pointer, guarded(pointee(V, E), Guards));
    } else if (T->isRecordType() && holdsPointers(AST, T) && V.Pointer) {
      consumeUnknown(V, E, "returned inside an object");
    }
  }

  /// Inline PTX reads and writes what its operands give it; an address it
  /// builds from an integer may be anything.
  void walkAsm(const GCCAsmStmt &A) {
    std::string Asm = A.generateAsmString(AST);
    // An instruction that accesses memory: its mnemonic up to the first dot.
    bool Memory = false;
    llvm::SmallVector<llvm::StringRef> Words;
    llvm::SplitString(Asm, Words, " \t\n\r;{}");
    for (llvm::StringRef Word : Words)
      Memory |= llvm::is_contained({"ld",    "ldu",      "st",        "atom",     "red",
                                    "cp",    "sust",     "suld",      "sured",    "tex",
                                    "tld4",  "prefetch", "prefetchu", "mbarrier", "multimem",
                                    "wgmma", "stmatrix", "ldmatrix",  "cp.async", "tensormap"},
                                   Word.split('.').first);
    bool Followed = false;
    for (unsigned I = 0; I < A.getNumOutputs(); ++I) {
      const Expr *Out = A.getOutputExpr(I);
      Value V = visit(Out);
      bool Both = A.isOutputPlusConstraint(I);
      if (A.getOutputConstraint(I).contains('m'))
        record(V.Memory, AccessKind::Unknown, Out, QualType(),
               "a memory operand of inline assembly");
      else
        record(V.Memory, Both ? AccessKind::ReadWrite : AccessKind::Write, Out, Out->getType());
    }
    for (unsigned I = 0; I < A.getNumInputs(); ++I) {
      const Expr *In = A.getInputExpr(I);
      Value V = visit(In);
      if (A.getInputConstraint(I).contains('m'))
        record(V.Memory, AccessKind::Unknown, In, QualType(),
               "a memory operand of inline assembly");
      if (In->getType()->isPointerType()) {
        Followed = true;
        if (Memory)
          record(pointee(V, In), AccessKind::Unknown, In, QualType(),
                 "inline assembly accesses memory through it");
      }
    }
    if (Memory && !Followed && A.getNumInputs() + A.getNumOutputs() > 0)
      recordAnywhere(A.getNumInputs() ? A.getInputExpr(0) : A.getOutputExpr(0),
                     "inline assembly accesses memory at an address kfuse cannot follow");
  }

  // ---- Expressions ----

  Value visit(const Expr *E) {
    if (!E)
      return {};
    ++Steps;
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(E))
      return castValue(*C);
    if (const auto *C = dyn_cast<CallExpr>(E))
      return call(*C);
    switch (E->getStmtClass()) {
    case Stmt::DeclRefExprClass:
      return declRef(*cast<DeclRefExpr>(E));
    case Stmt::ArraySubscriptExprClass:
      return subscript(*cast<ArraySubscriptExpr>(E));
    case Stmt::MemberExprClass:
      return member(*cast<MemberExpr>(E));
    case Stmt::UnaryOperatorClass:
      return unary(*cast<UnaryOperator>(E));
    case Stmt::BinaryOperatorClass:
    case Stmt::CompoundAssignOperatorClass:
      return binary(*cast<BinaryOperator>(E));
    case Stmt::ConditionalOperatorClass:
      return conditional(*cast<ConditionalOperator>(E));
    case Stmt::CXXConstructExprClass:
    case Stmt::CXXTemporaryObjectExprClass:
      return construct(*cast<CXXConstructExpr>(E));
    case Stmt::ExprWithCleanupsClass:
    case Stmt::ConstantExprClass:
      return visit(cast<FullExpr>(E)->getSubExpr());
    case Stmt::CXXBindTemporaryExprClass:
      destroyedLater(E->getType(), E);
      return visit(cast<CXXBindTemporaryExpr>(E)->getSubExpr());
    case Stmt::MaterializeTemporaryExprClass: {
      Value V = visit(cast<MaterializeTemporaryExpr>(E)->getSubExpr());
      V.Memory.clear(); // A temporary of this thread.
      return V;
    }
    case Stmt::CXXDefaultArgExprClass:
      return visit(cast<CXXDefaultArgExpr>(E)->getExpr());
    case Stmt::CXXDefaultInitExprClass:
      return visit(cast<CXXDefaultInitExpr>(E)->getExpr());
    case Stmt::SubstNonTypeTemplateParmExprClass:
      return visit(cast<SubstNonTypeTemplateParmExpr>(E)->getReplacement());
    case Stmt::PseudoObjectExprClass:
      if (builtin(E))
        return {};
      return visit(cast<PseudoObjectExpr>(E)->getResultExpr());
    case Stmt::OpaqueValueExprClass:
      // Stands for an expression evaluated once; visiting it at each use
      // only repeats its accesses.
      return visit(cast<OpaqueValueExpr>(E)->getSourceExpr());
    case Stmt::CXXThisExprClass:
      // In a lambda, 'this' is the enclosing object's, not the closure's.
      if (!Frames.empty() && Frames.back().This && !isLambdaBody(*Frames.back().Function))
        return {{}, Frames.back().This};
      return {{}, Places{unknownPlace("'this' of an object kfuse cannot follow")}};
    case Stmt::LambdaExprClass:
      return lambda(*cast<LambdaExpr>(E));
    case Stmt::AtomicExprClass:
      return atomic(*cast<AtomicExpr>(E));
    case Stmt::CXXNullPtrLiteralExprClass:
    case Stmt::GNUNullExprClass:
      return {{}, Places{}};
    case Stmt::UnaryExprOrTypeTraitExprClass:
    case Stmt::CXXNoexceptExprClass:
    case Stmt::TypeTraitExprClass:
    case Stmt::ArrayTypeTraitExprClass:
    case Stmt::ExpressionTraitExprClass:
    case Stmt::SizeOfPackExprClass:
      return {}; // Unevaluated.
    case Stmt::IntegerLiteralClass:
    case Stmt::FloatingLiteralClass:
    case Stmt::CharacterLiteralClass:
    case Stmt::CXXBoolLiteralExprClass:
    case Stmt::ImaginaryLiteralClass:
    case Stmt::FixedPointLiteralClass:
    case Stmt::SourceLocExprClass:
      // __builtin_FILE(), __builtin_FUNCTION(), __builtin_source_location():
      // a pointer to constant data, as a string literal decays to (a newer
      // glibc's assert() passes them to __assert_fail); __builtin_LINE(): a number.
      if (E->getType()->isPointerType())
        return {{}, Places{}};
      return {};
    case Stmt::StringLiteralClass:
    case Stmt::PredefinedExprClass:
    case Stmt::ImplicitValueInitExprClass:
    case Stmt::CXXScalarValueInitExprClass:
      return {};
    default:
      return generic(*E);
    }
  }

  /// A construct kfuse does not classify: what reaches it is unknown.
  Value generic(const Expr &E) {
    for (const Stmt *Child : E.children()) {
      if (!Child)
        continue;
      if (const auto *C = dyn_cast<Expr>(Child)) {
        Value V = visit(C);
        consumeUnknown(V, C, quoted(&E) + " uses it in a way kfuse does not classify");
      } else {
        walkStmt(Child);
      }
    }
    Value R;
    if (E.isGLValue())
      R.Memory = {unknownPlace(quoted(&E) + " names memory kfuse cannot follow")};
    return R;
  }

  Value declRef(const DeclRefExpr &R) {
    const ValueDecl *D = R.getDecl();
    if (const auto *B = dyn_cast<BindingDecl>(D)) {
      if (const Expr *Binding = B->getBinding()) {
        ++Silent;
        Value V = visit(Binding);
        --Silent;
        return V;
      }
      return {{unknownPlace("binding '" + B->getName().str() + "'")}, std::nullopt};
    }
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      return {}; // Functions, enumerators.
    if (V->getType()->isReferenceType()) {
      if (auto It = References.find(V); It != References.end())
        return It->second;
      return {
          {unknownPlace("kfuse cannot follow what reference '" + V->getName().str() + "' names")},
          std::nullopt};
    }
    if (V->getType()->isPointerType() && !V->hasGlobalStorage())
      return {{}, pointerVariable(*V)};
    return variable(*V);
  }

  /// A variable named as a whole: device memory, or the thread's (or
  /// block's) own.
  Value variable(const VarDecl &V) const {
    if (builtinVar(&V))
      return {};
    if (isDeviceMemory(V))
      return {{variablePlace(V)}, std::nullopt};
    return {}; // Locals; shared memory is the block's own; constants cannot change.
  }

  Value subscript(const ArraySubscriptExpr &A) {
    const Expr *Base = A.getBase();
    Value B = visit(Base);
    operand(A.getIdx(), &A);
    if (!Base->getType()->isPointerType()) {
      // A vector's lane: part of the vector.
      Value R;
      R.Memory = B.Memory;
      for (Place &P : R.Memory)
        P.Partial = true;
      return R;
    }
    return {offset(pointee(B, Base), eval(A.getIdx()), A.getType(), &A), std::nullopt};
  }

  Value member(const MemberExpr &M) {
    if (const auto *V = dyn_cast<VarDecl>(M.getMemberDecl())) {
      // A static member: the variable itself.
      visit(M.getBase());
      return variable(*V);
    }
    if (!isa<FieldDecl>(M.getMemberDecl()) && !isa<IndirectFieldDecl>(M.getMemberDecl()))
      return {}; // A method, named to be called.
    Value B = visit(M.getBase());
    Places Ps = M.isArrow() ? pointee(B, M.getBase()) : B.Memory;
    for (Place &P : Ps)
      P.Partial = true;
    return {Ps, std::nullopt};
  }

  Value unary(const UnaryOperator &U) {
    const Expr *Sub = U.getSubExpr();
    switch (U.getOpcode()) {
    case UO_Deref: {
      Value V = visit(Sub);
      if (Sub->getType()->isFunctionPointerType() || Sub->getType()->isFunctionType())
        return {};
      return {pointee(V, Sub), std::nullopt};
    }
    case UO_AddrOf: {
      Value V = visit(Sub);
      if (!Sub->isGLValue())
        return {{}, Places{}};
      Places Ps = V.Memory;
      for (Place &P : Ps)
        if (P.Partial && P.IndexKnown) {
          P.IndexKnown = false;
          P.Why = quoted(&U) + " points to part of an element";
        }
      return {{}, Ps};
    }
    case UO_PreInc:
    case UO_PreDec:
    case UO_PostInc:
    case UO_PostDec: {
      Value V = visit(Sub);
      record(V.Memory, AccessKind::ReadWrite, Sub, Sub->getType());
      if (U.isPrefix())
        return V;
      return {{}, V.Pointer};
    }
    case UO_Real:
    case UO_Imag: {
      Value V = visit(Sub);
      for (Place &P : V.Memory)
        P.Partial = true;
      return {V.Memory, std::nullopt};
    }
    case UO_Extension:
      return visit(Sub);
    case UO_LNot:
      if (Sub->getType()->isPointerType()) {
        visit(Sub);
        return {};
      }
      operand(Sub, &U);
      return {};
    case UO_Minus:
    case UO_Plus:
    case UO_Not:
      operand(Sub, &U);
      return {};
    default:
      return generic(U);
    }
  }

  static bool isPointerVariable(const Expr *E) {
    const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
    return V && V->getType()->isPointerType() && !V->hasGlobalStorage();
  }

  Value binary(const BinaryOperator &B) {
    const Expr *L = B.getLHS(), *R = B.getRHS();
    BinaryOperatorKind Op = B.getOpcode();
    if (B.isAssignmentOp()) {
      Value LV = visit(L);
      if (Op == BO_Assign && R->getType()->isPointerType()) {
        // A pointer variable's values are collected before the walk.
        Value RV = visit(R);
        if (!isPointerVariable(L))
          consumeUnknown(RV, R, "stored into memory at " + quoted(L));
      } else {
        operand(R, &B);
      }
      record(LV.Memory, Op == BO_Assign ? AccessKind::Write : AccessKind::ReadWrite, L,
             L->getType());
      return LV;
    }
    if (Op == BO_Comma) {
      visit(L);
      return visit(R);
    }
    if (Op == BO_LAnd || Op == BO_LOr) {
      operand(L, &B);
      underConditions(conditionsOf(L, Op == BO_LOr), [&] { operand(R, &B); });
      return {};
    }
    bool LP = L->getType()->isPointerType(), RP = R->getType()->isPointerType();
    if ((Op == BO_Add || Op == BO_Sub) && B.getType()->isPointerType()) {
      const Expr *Ptr = LP ? L : R, *Count = LP ? R : L;
      Value PV = visit(Ptr);
      operand(Count, &B);
      IndexExpr K = eval(Count);
      if (Op == BO_Sub)
        K = IndexExpr() - K;
      return {{}, offset(pointee(PV, Ptr), K, Ptr->getType()->getPointeeType(), &B)};
    }
    if (LP || RP) {
      // Comparing pointers or taking their distance touches no memory.
      for (const Expr *Side : {L, R})
        if (Side->getType()->isPointerType())
          visit(Side);
        else
          operand(Side, &B);
      return {};
    }
    if (B.isPtrMemOp())
      return generic(B);
    operand(L, &B);
    operand(R, &B);
    return {};
  }

  Value conditional(const ConditionalOperator &C) {
    operand(C.getCond(), C.getCond());
    std::vector<IndexCondition> Then = conditionsOf(C.getCond(), false);
    std::vector<IndexCondition> Else = conditionsOf(C.getCond(), true);
    Value T = underConditions(Then, [&] { return visit(C.getTrueExpr()); });
    Value F = underConditions(Else, [&] { return visit(C.getFalseExpr()); });
    Value R;
    R.Memory = guarded(T.Memory, Then);
    addPlaces(R.Memory, guarded(F.Memory, Else));
    if (C.getType()->isPointerType()) {
      R.Pointer = guarded(pointee(T, C.getTrueExpr()), Then);
      addPlaces(*R.Pointer, guarded(pointee(F, C.getFalseExpr()), Else));
    }
    return R;
  }

  Value castValue(const CastExpr &C) {
    const Expr *Sub = C.getSubExpr();
    switch (C.getCastKind()) {
    case CK_LValueToRValue: {
      Value V = visit(Sub);
      record(V.Memory, AccessKind::Read, Sub, Sub->getType());
      if (!C.getType()->isPointerType())
        return {};
      if (V.Pointer)
        return {{}, V.Pointer};
      if (!V.Memory.empty())
        return {{}, loadedFrom(V.Memory, Sub)};
      if (std::optional<Places> Held = memberPointer(Sub))
        return {{}, *Held};
      if (const auto *M = dyn_cast<MemberExpr>(Sub->IgnoreParenImpCasts()))
        if (const ParmVarDecl *P = holderOf(M->getBase()))
          return {{}, Places{reachedPlace(*P, "a pointer " + quoted(Sub) + " holds")}};
      if (const ParmVarDecl *P = heldInParameter(Sub))
        return {{}, Places{reachedPlace(*P, "a pointer " + quoted(Sub) + " holds")}};
      return {{}, Places{unknownPlace("a pointer read from " + quoted(Sub))}};
    }
    case CK_ArrayToPointerDecay: {
      Value V = visit(Sub);
      return {{}, V.Memory};
    }
    case CK_NoOp:
    case CK_BitCast:
    case CK_LValueBitCast:
    case CK_LValueToRValueBitCast:
    case CK_DerivedToBase:
    case CK_UncheckedDerivedToBase:
    case CK_BaseToDerived:
    case CK_AddressSpaceConversion:
    case CK_Dynamic:
    case CK_AtomicToNonAtomic:
    case CK_NonAtomicToAtomic:
    case CK_UserDefinedConversion:
    case CK_ConstructorConversion:
      return visit(Sub);
    case CK_NullToPointer:
    case CK_NullToMemberPointer:
      visit(Sub);
      return {{}, Places{}};
    case CK_IntegralToPointer:
      operand(Sub, &C);
      // The toolkit's headers build pointers from integers only for the
      // block's own memory (cooperative groups' reserved shared memory).
      if (SM.isInSystemHeader(SM.getExpansionLoc(C.getBeginLoc())))
        return {{}, Places{}};
      return {{}, Places{unknownPlace("a pointer made from the integer " + quoted(Sub))}};
    case CK_PointerToIntegral: {
      Value V = visit(Sub);
      consumeUnknown(V, Sub, "its address becomes the integer " + quoted(&C));
      return {};
    }
    case CK_PointerToBoolean:
    case CK_MemberPointerToBoolean:
    case CK_ToVoid:
      visit(Sub);
      return {};
    case CK_FunctionToPointerDecay:
    case CK_BuiltinFnToFnPtr:
      return {};
    case CK_IntegralCast:
    case CK_IntegralToBoolean:
    case CK_IntegralToFloating:
    case CK_FloatingToIntegral:
    case CK_FloatingToBoolean:
    case CK_FloatingCast:
    case CK_BooleanToSignedIntegral:
    case CK_FloatingRealToComplex:
    case CK_FloatingComplexToReal:
    case CK_FloatingComplexCast:
    case CK_FloatingComplexToIntegralComplex:
    case CK_IntegralRealToComplex:
    case CK_IntegralComplexToReal:
    case CK_IntegralComplexCast:
    case CK_IntegralComplexToFloatingComplex:
    case CK_FloatingComplexToBoolean:
    case CK_IntegralComplexToBoolean:
    case CK_VectorSplat:
      operand(Sub, &C);
      return {};
    default:
      return generic(C);
    }
  }

  Value lambda(const LambdaExpr &L) {
    // Captured variables are read where the body runs, through the same
    // declarations; an init-capture is a variable of its own.
    for (const LambdaCapture &C : L.captures())
      if (C.capturesVariable())
        if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()); V && V->isInitCapture())
          declare(*V);
    return {};
  }

  Value atomic(const AtomicExpr &A) {
    const Expr *Ptr = A.getPtr();
    Value V = visit(Ptr);
    record(pointee(V, Ptr), AccessKind::Atomic, &A, Ptr->getType()->getPointeeType());
    for (const Stmt *Child : A.children()) {
      const auto *E = dyn_cast_or_null<Expr>(Child);
      if (!E || E == Ptr)
        continue;
      Value O = visit(E);
      if (E->getType()->isPointerType())
        record(pointee(O, E), AccessKind::Unknown, E, QualType(), "an operand of " + quoted(&A));
    }
    return {};
  }

  // ---- Calls ----

  static bool isTrivialAssignment(const CXXMethodDecl &M) {
    return (M.isCopyAssignmentOperator() || M.isMoveAssignmentOperator()) && M.isTrivial();
  }

  bool inSystemCode(const FunctionDecl &F) const {
    return F.getBuiltinID() != 0 || SM.isInSystemHeader(F.getLocation());
  }

  Value call(const CallExpr &C) {
    if (isa<CUDAKernelCallExpr>(C)) {
      for (const Expr *Arg : C.arguments())
        consumeUnknown(visit(Arg), Arg, "passed to a kernel this kernel launches");
      recordAnywhere(&C, "the kernel launches another kernel");
      return {};
    }
    const FunctionDecl *Callee = C.getDirectCallee();
    const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Callee);
    std::optional<Places> This;
    const Expr *Object = nullptr;
    unsigned First = 0;
    if (const auto *M = dyn_cast<CXXMemberCallExpr>(&C)) {
      Object = M->getImplicitObjectArgument();
      if (Object) {
        Value O = visit(Object);
        This = Object->getType()->isPointerType() ? pointee(O, Object) : O.Memory;
      }
    } else if (isa<CXXOperatorCallExpr>(C) && Method && Method->isInstance() && C.getNumArgs()) {
      Object = C.getArg(0);
      This = visit(Object).Memory;
      First = 1;
    }
    const VarDecl *Local = Object ? localObject(Object) : nullptr;
    const ParmVarDecl *Holder = Object ? holderOf(Object) : nullptr;
    if (!Callee) {
      operand(C.getCallee(), &C);
      std::string Why = "passed to a call through " + quoted(C.getCallee());
      for (unsigned I = First; I < C.getNumArgs(); ++I)
        consumeUnknown(visit(C.getArg(I)), C.getArg(I), Why);
      recordAnywhere(&C, quoted(&C) + " calls a function kfuse cannot see");
      return opaqueResult(C);
    }
    if (Method && isTrivialAssignment(*Method) && This && C.getNumArgs() > First) {
      const Expr *Source = C.getArg(First);
      Value S = visit(Source);
      record(S.Memory, AccessKind::Read, Source, Source->getType());
      record(*This, AccessKind::Write, Object, Object->getType());
      return {*This, std::nullopt};
    }
    llvm::StringRef Name = Callee->getIdentifier() ? Callee->getName() : "";
    switch (Callee->getBuiltinID()) {
    case Builtin::BImove:
    case Builtin::BImove_if_noexcept:
    case Builtin::BIforward:
    case Builtin::BIforward_like:
    case Builtin::BIas_const:
      // Casts that name what they are given.
      if (C.getNumArgs() == 1)
        return visit(C.getArg(0));
      break;
    case Builtin::BIaddressof:
    case Builtin::BI__addressof:
      if (C.getNumArgs() == 1)
        return {{}, visit(C.getArg(0)).Memory};
      break;
    default:
      break;
    }
    if (inSystemCode(*Callee))
      if (std::optional<Intrinsic> I = intrinsicOf(Name))
        return intrinsic(C, *I, First);
    if (Method && Method->isVirtual() && !isa<CXXOperatorCallExpr>(C) &&
        !(isa<CXXMemberCallExpr>(C) && Method->hasAttr<FinalAttr>()))
      return opaqueCall(C, *Callee, First, This, Object,
                        "passed to virtual '" + Name.str() + "', which may run another body",
                        "is virtual, so the call may run a body kfuse does not see");
    const FunctionDecl *Def = nullptr;
    if (Callee->hasBody(Def) && Def && Def->getBody()) {
      // A function calling itself: its body is being walked already.
      if (std::find(Helpers.begin(), Helpers.end(), Def) != Helpers.end())
        return opaqueCall(C, *Callee, First, This, Object, "'" + Name.str() + "' calls itself", "");
      if (Helpers.size() >= MaxCallDepth || Steps > StepBudget)
        return opaqueCall(C, *Callee, First, This, Object, "kfuse stops following calls this deep",
                          "lies deeper in calls than kfuse follows");
      std::vector<const Expr *> Args;
      for (unsigned I = First; I < C.getNumArgs(); ++I)
        Args.push_back(C.getArg(I));
      return inlineCall(*Def, Args, This, &C, Local, Holder);
    }
    return opaqueCall(C, *Callee, First, This, Object,
                      "passed to '" + Name.str() + "', whose body kfuse cannot see",
                      "has no body kfuse can see");
  }

  Value opaqueResult(const Expr &C) const {
    Value R;
    if (C.isGLValue())
      R.Memory = {unknownPlace(quoted(&C) + " names memory kfuse cannot follow")};
    if (C.getType()->isPointerType())
      R.Pointer = Places{unknownPlace(quoted(&C) + " returns a pointer kfuse cannot follow")};
    return R;
  }

  Value intrinsic(const CallExpr &C, Intrinsic I, unsigned First) {
    auto Arg = [&](unsigned N) {
      return N + First < C.getNumArgs() ? C.getArg(N + First) : nullptr;
    };
    auto Target = [&](unsigned N, AccessKind Kind, bool Extent) {
      const Expr *A = Arg(N);
      if (!A)
        return;
      Value V = visit(A);
      Places Ps = pointee(V, A);
      if (Extent)
        Ps = imprecise(Ps, quoted(&C) + " covers as many bytes as its size says");
      record(Ps, Kind, &C,
             A->getType()->isPointerType() ? A->getType()->getPointeeType() : QualType());
    };
    auto Rest = [&](unsigned From) {
      for (unsigned N = From; Arg(N); ++N) {
        Value V = visit(Arg(N));
        if (Arg(N)->getType()->isPointerType())
          record(pointee(V, Arg(N)), AccessKind::Unknown, Arg(N), QualType(),
                 "an operand of " + quoted(&C));
        else if (!V.Memory.empty())
          record(V.Memory, AccessKind::Read, Arg(N), Arg(N)->getType());
      }
    };
    switch (I) {
    case Intrinsic::Atomic:
      Target(0, AccessKind::Atomic, false);
      Rest(1);
      break;
    case Intrinsic::Load:
      Target(0, AccessKind::Read, false);
      Rest(1);
      break;
    case Intrinsic::Store:
      Target(0, AccessKind::Write, false);
      Rest(1);
      break;
    case Intrinsic::Copy:
      Target(0, AccessKind::Write, true);
      Target(1, AccessKind::Read, true);
      Rest(2);
      break;
    case Intrinsic::Fill:
      Target(0, AccessKind::Write, true);
      Rest(1);
      break;
    case Intrinsic::SurfaceWrite:
    case Intrinsic::SurfaceRead:
    case Intrinsic::TextureRead:
    case Intrinsic::Handler: {
      Rest(0);
      AccessKind K = I == Intrinsic::SurfaceWrite ? AccessKind::Write
                     : I == Intrinsic::Handler    ? AccessKind::Unknown
                                                  : AccessKind::Read;
      // A texture or surface object the kernel receives reaches memory
      // through what that argument holds, as a pointer in a struct does.
      const ParmVarDecl *Handle = I == Intrinsic::Handler ? nullptr : handleParameter(C, First);
      record({Handle ? reachedPlace(*Handle, quoted(&C) + " reaches memory through the object '" +
                                                 Handle->getName().str() + "' holds")
                     : unknownPlace(quoted(&C) + " reaches memory through a surface or texture")},
             K, &C, QualType());
      break;
    }
    }
    return opaqueResult(C);
  }

  /// The kernel's parameter that holds the texture or surface object
  /// \p C reads or writes through; null when the object comes from
  /// anywhere else.
  const ParmVarDecl *handleParameter(const CallExpr &C, unsigned First) const {
    for (unsigned N = First; N < C.getNumArgs(); ++N) {
      const Expr *A = C.getArg(N)->IgnoreParenImpCasts();
      std::string Type = A->getType().getAsString();
      if (Type == "cudaTextureObject_t" || Type == "cudaSurfaceObject_t")
        return heldInParameter(A);
    }
    return nullptr;
  }

  /// A call kfuse does not walk into: each argument may be used in any way
  /// its parameter's type allows.
  /// \p Why says what becomes of the arguments; \p Unseen, when not empty,
  /// why the function itself may reach any memory.
  Value opaqueCall(const CallExpr &C, const FunctionDecl &Callee, unsigned First,
                   const std::optional<Places> &This, const Expr *Object, const std::string &Why,
                   const std::string &Unseen) {
    const auto *Method = dyn_cast<CXXMethodDecl>(&Callee);
    if (This && Object)
      record(*This, Method && Method->isConst() ? AccessKind::Read : AccessKind::Unknown, Object,
             Object->getType(), Method && Method->isConst() ? "" : Why);
    for (unsigned I = First; I < C.getNumArgs(); ++I) {
      const Expr *Arg = C.getArg(I);
      unsigned N = I - First;
      QualType T = N < Callee.getNumParams() ? Callee.getParamDecl(N)->getType() : Arg->getType();
      Value V = visit(Arg);
      if (T->isReferenceType()) {
        bool Const = T.getNonReferenceType().isConstQualified();
        record(V.Memory, Const ? AccessKind::Read : AccessKind::Unknown, Arg, Arg->getType(),
               Const ? "" : Why);
        if (V.Pointer && !Const)
          record(*V.Pointer, AccessKind::Unknown, Arg, QualType(), Why);
      } else if (T->isPointerType() || Arg->getType()->isPointerType()) {
        record(pointee(V, Arg), AccessKind::Unknown, Arg, QualType(), Why);
      } else if (holdsPointers(AST, T)) {
        recordAnywhere(Arg, "an object holding pointers is " + Why);
      } else if (!V.Memory.empty() || (V.Pointer && !V.Pointer->empty())) {
        consumeUnknown(V, Arg, Why);
      }
    }
    // CUDA's and the compiler's own functions reach memory only through
    // their arguments (textures and surfaces are classified above); a
    // function of the program may reach any.
    if (!inSystemCode(Callee) && !Unseen.empty())
      recordAnywhere(&C, "'" + Callee.getQualifiedNameAsString() + "' " + Unseen +
                             ", and it may reach any memory");
    return opaqueResult(C);
  }

  /// Walks into \p Def with its parameters bound to \p Args.
  Value inlineCall(const FunctionDecl &Def, const std::vector<const Expr *> &Args,
                   std::optional<Places> This, const Expr *Site, const VarDecl *Object = nullptr,
                   const ParmVarDecl *Holder = nullptr) {
    struct Bound {
      const ParmVarDecl *Param;
      Value V;
      const Expr *Arg;
    };
    std::vector<Bound> Bindings;
    std::vector<std::pair<const ParmVarDecl *, IndexExpr>> Ints;
    for (unsigned I = 0; I < Args.size(); ++I) {
      const Expr *Arg = Args[I];
      const ParmVarDecl *P = I < Def.getNumParams() ? Def.getParamDecl(I) : nullptr;
      if (!P) {
        // A variadic argument: the body cannot name it but through va_arg.
        consumeUnknown(visit(Arg), Arg, "passed as a variadic argument");
        continue;
      }
      QualType T = P->getType();
      if (T->isReferenceType()) {
        Value V = visit(Arg);
        if (!Arg->isGLValue())
          V.Memory.clear();
        Bindings.push_back({P, V, Arg});
      } else if (T->isPointerType()) {
        Bindings.push_back({P, visit(Arg), Arg});
      } else {
        Value V = visit(Arg);
        if (V.Pointer && !V.Pointer->empty() && !T->isRecordType())
          consumeUnknown(V, Arg, "converted to '" + T.getAsString() + "'");
        if (T->isIntegralOrEnumerationType())
          Ints.push_back({P, eval(Arg)});
      }
    }
    const FunctionFacts &F = facts(Def);
    enter(Def);
    // A helper called again starts from its parameters, not from what its
    // locals held the last time.
    for (const VarDecl *V : F.Locals) {
      Pointers.erase(V);
      References.erase(V);
      Values.erase(V);
    }
    for (const Bound &B : Bindings) {
      if (B.Param->getType()->isReferenceType())
        References[B.Param] = B.V;
      else
        bindPointer(*B.Param, pointee(B.V, B.Arg));
    }
    for (const auto &[P, V] : Ints)
      if (!F.Changes.count(P))
        Values[P] = V;
    Frames.push_back({&Def, std::move(This), Object, Holder, {}, true, false});
    Helpers.push_back(&Def);
    CallSites.push_back(Site);
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&Def))
      for (const CXXCtorInitializer *Init : Ctor->inits()) {
        const Expr *E = Init->getInit();
        Value V = visit(E);
        const FieldDecl *Field = Init->getAnyMember();
        if (Field && Object && Field->getType()->isPointerType() &&
            !Init->isIndirectMemberInitializer())
          Members[{Object, Field}] = pointee(V, E);
        else if (Field &&
                 (Field->getType()->isPointerType() || Field->getType()->isReferenceType()))
          consumeUnknown(V, E, "stored in member '" + Field->getNameAsString() + "'");
      }
    walkBody(Def);
    Helpers.pop_back();
    CallSites.pop_back();
    Frame Done = std::move(Frames.back());
    Frames.pop_back();
    Value R;
    QualType T = Def.getReturnType();
    if ((T->isReferenceType() || T->isPointerType()) && !Done.Seen)
      return opaqueResult(*Site); // It never returns what it names.
    if (T->isReferenceType()) {
      R.Memory = Done.Result.Memory;
      R.Pointer = Done.Result.Pointer;
    } else if (T->isPointerType()) {
      R.Pointer = Done.Result.Pointer ? *Done.Result.Pointer : Places{};
    }
    return R;
  }

  void enter(const FunctionDecl &F) { facts(F); }

  static bool isLambdaBody(const FunctionDecl &F) {
    const auto *M = dyn_cast<CXXMethodDecl>(&F);
    return M && M->getParent()->isLambda();
  }

  /// An object of \p T, made by \p Site, whose destructor runs code of the
  /// project's at the end of its scope or full expression: no expression
  /// stands there to follow, so it may read and write anything.
  void destroyedLater(QualType T, const Expr *Site) {
    const CXXRecordDecl *R = T->getBaseElementTypeUnsafe()->getAsCXXRecordDecl();
    if (!R || !R->hasDefinition() || R->hasTrivialDestructor())
      return;
    if (const CXXDestructorDecl *D = R->getDestructor(); D && inSystemCode(*D))
      return;
    recordAnywhere(Site, "the destructor of '" + R->getNameAsString() +
                             "' runs where kfuse does not follow it");
  }

  Value construct(const CXXConstructExpr &C, const VarDecl *Object = nullptr) {
    const CXXConstructorDecl *Ctor = C.getConstructor();
    if (Ctor->isTrivial()) {
      // A trivial copy or move reads its source as a whole; a copy of a
      // local object holds what its members held.
      for (const Expr *Arg : C.arguments()) {
        Value V = visit(Arg);
        record(V.Memory, AccessKind::Read, Arg, Arg->getType());
        if (const VarDecl *From = localObject(Arg); From && Object)
          for (const auto &[Key, Ps] : std::map(Members))
            if (Key.first == From)
              Members[{Object, Key.second}] = Ps;
      }
      return {};
    }
    std::vector<const Expr *> Args(C.arg_begin(), C.arg_end());
    const FunctionDecl *Def = nullptr;
    if (Ctor->hasBody(Def) && Def && Def->getBody() &&
        std::find(Helpers.begin(), Helpers.end(), Def) == Helpers.end() &&
        Helpers.size() < MaxCallDepth && Steps <= StepBudget) {
      // The object under construction is a local or a temporary.
      inlineCall(*Def, Args, Places{}, &C, Object);
      return {};
    }
    std::string Why = "passed to a constructor of '" + Ctor->getParent()->getNameAsString() +
                      "' that kfuse cannot follow";
    for (unsigned I = 0; I < C.getNumArgs(); ++I) {
      const Expr *Arg = C.getArg(I);
      QualType T = I < Ctor->getNumParams() ? Ctor->getParamDecl(I)->getType() : Arg->getType();
      Value V = visit(Arg);
      if (T->isReferenceType() && T.getNonReferenceType().isConstQualified())
        record(V.Memory, AccessKind::Read, Arg, Arg->getType());
      else
        consumeUnknown(V, Arg, Why);
    }
    if (!inSystemCode(*Ctor))
      recordAnywhere(&C, "a constructor of '" + Ctor->getParent()->getNameAsString() +
                             "' is defined where kfuse cannot see it");
    return {};
  }
};

} // namespace

KernelAccesses analyzeAccesses(const clang::FunctionDecl &Kernel,
                               std::optional<std::array<unsigned, 3>> Block) {
  return AccessWalker(Kernel, Block).run();
}

} // namespace kfuse

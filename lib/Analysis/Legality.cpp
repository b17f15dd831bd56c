//===- Legality.cpp - the registry and the runners of its scopes ----------===//

#include "kfuse/Analysis/Legality.h"

#include "kfuse/Diagnostics/Reporter.h"

#include <algorithm>

namespace kfuse {
namespace {

using diag::ID;

/// Each check's refusals, as arrays the registry points into. In the
/// struct's scope the table's bare names are the ids.
struct Refusals {
#define KFUSE_DIAG(Name, Level, Id, Format) static constexpr ID Name = ID::Name;
#include "kfuse/Diagnostics/Diagnostics.def"
#define KFUSE_CHECK(Name, Scope, Text, Summary, ...)                                               \
  static constexpr ID Name##Ids[] = {__VA_ARGS__};
#include "kfuse/Analysis/LegalityChecks.def"
};

const LegalityCheck Registry[] = {
#define KFUSE_CHECK(Name, Scope, Text, Summary, ...)                                               \
  {CheckId::Name, CheckScope::Scope, Text, Summary, Refusals::Name##Ids},
#include "kfuse/Analysis/LegalityChecks.def"
};

/// Counts what a check reports, whether the reporter prints errors or, for
/// `kfuse list`, warnings.
class Tally {
public:
  explicit Tally(Reporter &Diags) : Diags(Diags), Before(Diags.refusalCount()) {}
  bool none() const { return Diags.refusalCount() == Before; }

private:
  Reporter &Diags;
  unsigned Before;
};

/// Calls, in the table's order, every check of scope \p S on what
/// \p Subject() gives; those of other scopes take other subjects and are
/// discarded.
template <CheckScope S, typename MakeSubject>
void runScopeOn(const MakeSubject &Subject, Reporter &Diags) {
#define KFUSE_CHECK(Name, Scope, Text, Summary, ...)                                               \
  if constexpr (CheckScope::Scope == S)                                                            \
    check##Name(Subject(), Diags);
#include "kfuse/Analysis/LegalityChecks.def"
}

template <CheckScope S, typename Subject> void runScope(const Subject &X, Reporter &Diags) {
  runScopeOn<S>([&]() -> const Subject & { return X; }, Diags);
}

/// Whether the body of the call \p C is inlined or copied into the kernel,
/// so its own body is checked too: it touches the block and nothing refuses
/// it (checkCalls reports what does).
bool descendsInto(const CallSite &C, llvm::ArrayRef<const clang::FunctionDecl *> Stack) {
  return !C.Effect.Rejected && C.Effect.touchesBlock() && !callObstacle(C, Stack);
}

void walkBodies(const BodyUnderCheck &B, Reporter &Diags) {
  if (B.Model.Rejected) {
    // Nothing else about a body Clang could not read is reliable.
    checkBodyReadable(B, Diags);
    return;
  }
  runScope<CheckScope::Kernel>(B, Diags);
  std::vector<const clang::CallExpr *> CallStack(B.CallStack.begin(), B.CallStack.end());
  std::vector<const clang::FunctionDecl *> Stack(B.Stack.begin(), B.Stack.end());
  std::vector<const KernelModel *> Models(B.Models.begin(), B.Models.end());
  for (const CallSite &C : B.Model.Calls) {
    if (!descendsInto(C, B.Stack))
      continue;
    const KernelModel &Callee = B.Helpers.of(*C.Callee);
    CallStack.push_back(C.Call);
    Stack.push_back(Callee.Decl);
    Models.push_back(&Callee);
    walkBodies({Callee, B.Kernel, B.Helpers, B.SM, CallStack, Stack, Models}, Diags);
    CallStack.pop_back();
    Stack.pop_back();
    Models.pop_back();
  }
}

} // namespace

llvm::ArrayRef<LegalityCheck> legalityChecks() { return Registry; }

const LegalityCheck *checkRaising(diag::ID Refusal) {
  for (const LegalityCheck &C : Registry)
    if (llvm::is_contained(C.Refusals, Refusal))
      return &C;
  return nullptr;
}

llvm::StringRef scopeName(CheckScope Scope) {
  switch (Scope) {
  case CheckScope::Kernel:
    return "kernel";
  case CheckScope::Member:
    return "member";
  case CheckScope::Fusion:
    return "fusion";
  case CheckScope::Chain:
    return "chain";
  case CheckScope::Layout:
    return "layout";
  case CheckScope::Ranges:
    return "ranges";
  case CheckScope::Files:
    return "files";
  case CheckScope::Launches:
    return "launches";
  }
  return "";
}

bool runKernelChecks(const KernelModel &Kernel, FunctionModels &Helpers, clang::SourceManager &SM,
                     Reporter &Diags) {
  Tally T(Diags);
  const clang::FunctionDecl *Decl = Kernel.Decl;
  const KernelModel *Model = &Kernel;
  walkBodies({Kernel, Kernel.Name, Helpers, SM, {}, {&Decl, 1}, {&Model, 1}}, Diags);
  return T.none();
}

bool runMemberChecks(const FusionMember &M, Reporter &Diags) {
  Tally T(Diags);
  runScope<CheckScope::Member>(M, Diags);
  return T.none();
}

bool runFusionChecks(const FusionUnderCheck &F, Reporter &Diags) {
  Tally T(Diags);
  // A check after one that refused sees EarlierRefusals.
  runScopeOn<CheckScope::Fusion>(
      [&] { return FusionUnderCheck{F.Members, F.EarlierRefusals || !T.none()}; }, Diags);
  return T.none();
}

bool runLayoutChecks(const LayoutUnderCheck &L, Reporter &Diags) {
  Tally T(Diags);
  runScope<CheckScope::Layout>(L, Diags);
  return T.none();
}

bool runRangesChecks(const RangesUnderCheck &R, Reporter &Diags) {
  Tally T(Diags);
  runScope<CheckScope::Ranges>(R, Diags);
  return T.none();
}

} // namespace kfuse

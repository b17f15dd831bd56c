//===- BranchGuard.cpp - preprocessor branches kfuse did not parse --------===//
//
// `#if __CUDA_ARCH__ >= 700 ... #else ... #endif` inside a kernel: Clang
// parsed one branch, for the architecture kfuse reads kernels for, and only
// that branch is rewritten (renamed locals, partial barriers, the kernel's
// view of the block). The directives stay, so a device compilation of the
// fused file still picks its branch; a branch kfuse did not parse holds an
// #error instead, which fires only in a device compilation that takes it.
// nvcc's host compilation parses kernel bodies too, with __CUDA_ARCH__
// undefined, so the chain's conditions lead it to the branch kfuse parsed:
//   the parsed branch:    #if C   ->  #if (C) || !defined(__CUDA_ARCH__)
//   branches before it:   #if C   ->  #if (C) && defined(__CUDA_ARCH__)
// Device compilations see the original conditions.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Transforms/KernelRewrites.h"

#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/Path.h"

namespace kfuse {
namespace {

/// The directive with its condition joined to \p Host.
std::string withHostCondition(const ConditionalDirective &D, const char *Join, const char *Host) {
  std::string Condition;
  switch (D.Kind) {
  case DirectiveKind::Ifdef:
    Condition = "defined(" + D.Condition + ")";
    break;
  case DirectiveKind::Ifndef:
    Condition = "!defined(" + D.Condition + ")";
    break;
  default:
    Condition = "(" + D.Condition + ")";
    break;
  }
  return std::string(D.Kind == DirectiveKind::Elif ? "#elif " : "#if ") + Condition + " " + Join +
         " " + Host;
}

/// The value __CUDA_ARCH__ had where kfuse read the kernel: "900".
std::string archRead(clang::ASTUnit &Unit) {
  clang::Preprocessor &PP = Unit.getPreprocessor();
  const clang::MacroInfo *MI = PP.getMacroInfo(PP.getIdentifierInfo("__CUDA_ARCH__"));
  if (!MI || MI->getNumTokens() != 1)
    return "?";
  return PP.getSpelling(MI->getReplacementToken(0));
}

} // namespace

bool guardSkippedBranches(const KernelModel &Model, SectionContext &Ctx, EditSet &Edits) {
  const BodyConditionals &Conditionals = Model.Conditionals;
  if (Conditionals.Chains.empty())
    return true;
  const clang::SourceManager &SM = Ctx.Unit.getSourceManager();
  clang::SourceLocation Start = SM.getLocForStartOfFile(Conditionals.File);
  auto range = [&](unsigned From, unsigned To) {
    return clang::CharSourceRange::getCharRange(Start.getLocWithOffset(From),
                                                Start.getLocWithOffset(To));
  };
  std::string Arch = archRead(Ctx.Unit);
  std::string File =
      llvm::sys::path::filename(SM.getFileEntryRefForID(Conditionals.File)->getName()).str();
  bool Ok = true;
  for (const ConditionalChain &Chain : Conditionals.Chains) {
    for (const ConditionalBranch &B : Chain) {
      if (B.Compiled || B.ContentEnd <= B.ContentBegin)
        continue;
      std::string Line = std::to_string(SM.getLineNumber(Conditionals.File, B.Opening.Begin));
      Ok &= Edits.replaceChars(
          range(B.ContentBegin, B.ContentEnd),
          "#if defined(__CUDA_ARCH__)\n#error \"kfuse: '" + Model.Name +
              "' was fused from the preprocessor branches taken for __CUDA_ARCH__ " + Arch +
              " and this build's macros, not from the branch at " + File + ":" + Line +
              "; run kfuse again for this build\"\n#endif\n",
          "#if");
    }
    for (const ConditionalBranch &B : Chain) {
      if (B.Opening.Kind == DirectiveKind::Else)
        break;
      Ok &= Edits.replaceChars(
          range(B.Opening.Begin, B.Opening.End),
          withHostCondition(B.Opening, B.Compiled ? "||" : "&&",
                            B.Compiled ? "!defined(__CUDA_ARCH__)" : "defined(__CUDA_ARCH__)"),
          "#if");
      if (B.Compiled)
        break;
    }
  }
  return Ok;
}

} // namespace kfuse

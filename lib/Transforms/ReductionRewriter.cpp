//===- ReductionRewriter.cpp - tree reductions in one warp ----------------===//
//
// A loop that halves a __shared__ array's live part with a barrier per step
// (TreeReductions.h) becomes the first warp alone making the same additions
// in the same order: each lane loads its column of the array (elements
// lane, lane + 32, ...), adds the halvings above 32 in registers and those
// below with __shfl_down_sync, and stores every element when the loop
// would have stored its last value, so the array ends as the loop left it.
// The loop's last barrier stays and publishes it. Every thread of the block
// reached the barrier before the loop, so the whole first warp is there.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Transforms/HorizontalFuser.h"
#include "kfuse/Transforms/KernelRewrites.h"

#include "clang/AST/ASTContext.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

namespace kfuse {
namespace {

struct TreeNames {
  std::string Columns, Lane, Stride;
};

/// The replacement of the loop's text up to its last barrier: it opens a
/// block that the loop body's closing brace ends. The halvings of 32 and
/// more are written out, each column by a constant index, so that the
/// columns stay in registers.
std::string oneWarpTree(const TreeReduction &R, unsigned Threads, const std::string &Array,
                        const std::string &Thread, const TreeNames &N) {
  unsigned Columns = Threads / 32;
  const std::string &Cols = N.Columns, &Lane = N.Lane, &S = N.Stride;
  auto Col = [&](unsigned C) { return Cols + "[" + std::to_string(C) + "]"; };
  auto Element = [&](unsigned C) {
    return Array + "[" + Lane + (C ? " + " + std::to_string(32 * C) + "u" : "") + "]";
  };
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "{\n// kfuse: this tree reduction of '" << R.Array->getName() << "' over " << Threads
     << " threads runs in the first warp: the same additions in the same order, and the array "
        "ends as the loop left it, with one barrier.\n"
     << "if (" << Thread << " < 32u) {\n"
     << "const unsigned " << Lane << " = " << Thread << ";\n"
     << "// Column c holds elements lane + 32 c.\n"
     << spelling(R.Element) << " " << Cols << "[" << Columns << "];\n";
  for (unsigned C = 0; C < Columns; ++C)
    OS << Col(C) << " = " << Element(C) << ";\n";
  for (unsigned H = Columns / 2; H >= 1; H /= 2) {
    OS << "// Halving " << 32 * H << ": column c adds column c + " << H << ".\n";
    for (unsigned C = 0; C < H; ++C)
      OS << Col(C) << " = " << Col(C) << " + " << Col(C + H) << ";\n";
    // Elements the loop leaves with this halving's values.
    for (unsigned C = std::max(H / 2, 1u); C < H; ++C)
      OS << Element(C) << " = " << Col(C) << ";\n";
  }
  OS << "if (" << Lane << " >= 16u) " << Element(0) << " = " << Col(0) << ";\n"
     << "// Halvings below 32: lane l adds lane l + s, and lanes [s / 2, s) are done.\n"
     << "#pragma unroll\n"
     << "for (unsigned " << S << " = 16u; " << S << " >= 1u; " << S << " /= 2u) {\n"
     << Col(0) << " = " << Col(0) << " + __shfl_down_sync(0xffffffffu, " << Col(0) << ", " << S
     << ");\n"
     << "if (" << Lane << " < " << S << " && " << Lane << " >= " << S << " / 2u) " << Element(0)
     << " = " << Col(0) << ";\n"
     << "}\n"
     << "}\n";
  return Out;
}

} // namespace

bool rewriteTreeReductions(const KernelModel &Model, SectionContext &Ctx, EditSet &Edits) {
  // Threads that returned would be missing from the first warp.
  if (!Ctx.OneWarpReductions || Ctx.Style != BarrierStyle::Aligned)
    return true;
  const clang::SourceManager &SM = Ctx.Unit.getSourceManager();
  for (const TreeReduction &R : Model.TreeReductions) {
    std::optional<unsigned> Threads = R.threadsIn(Ctx.Block);
    const auto *Array = Ctx.Unit.getASTContext().getAsConstantArrayType(R.Array->getType());
    if (!Threads || !Array || Array->getSize().getZExtValue() < *Threads)
      continue;
    clang::SourceLocation Begin = R.Loop->getBeginLoc(), End = R.BarrierInLoop->getBeginLoc();
    if (!Edits.canEdit(R.Loop->getSourceRange()) || Begin.isMacroID() || End.isMacroID() ||
        SM.getFileID(Begin) != SM.getFileID(End))
      continue;
    TreeNames Names{Ctx.Names.allocate("kfuse_columns"), Ctx.Names.allocate("kfuse_lane"),
                    Ctx.Names.allocate("kfuse_s")};
    std::string Text = oneWarpTree(R, *Threads, Edits.rewrittenText(R.ArrayRef->getSourceRange()),
                                   Edits.rewrittenText(R.Thread->getSourceRange()), Names);
    if (!Edits.replaceChars(clang::CharSourceRange::getCharRange(Begin, End), Text,
                            "a tree reduction"))
      return false;
  }
  return true;
}

} // namespace kfuse

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

namespace kfuse {
namespace {

/// The replacement of the loop's text up to its last barrier: it opens a
/// block that the loop body's closing brace ends.
struct TreeNames {
  std::string Columns, Lane, Column, Half, Stride;
};

std::string oneWarpTree(const TreeReduction &R, unsigned Threads, const std::string &Array,
                        const std::string &Thread, const TreeNames &N) {
  unsigned Columns = Threads / 32;
  const std::string &Lanes = N.Columns, &Lane = N.Lane, &C = N.Column, &H = N.Half, &S = N.Stride;
  std::string T = spelling(R.Element);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "{\n// kfuse: this tree reduction of '" << R.Array->getName() << "' over " << Threads
     << " threads runs in the first warp: the same additions in the same order, and the array "
        "ends as the loop left it, with one barrier.\n"
     << "if (" << Thread << " < 32u) {\n"
     << "const unsigned " << Lane << " = " << Thread << ";\n"
     << T << " " << Lanes << "[" << Columns << "];\n"
     << "#pragma unroll\n"
     << "for (unsigned " << C << " = 0; " << C << " < " << Columns << "u; ++" << C << ")\n"
     << Lanes << "[" << C << "] = " << Array << "[" << Lane << " + 32u * " << C << "];\n"
     << "#pragma unroll\n"
     << "// Halvings of 32 and more: column c adds column c + h, and the columns\n"
     << "// in [h / 2, h) hold their elements' last values.\n"
     << "for (unsigned " << H << " = " << Columns / 2 << "u; " << H << " >= 1u; " << H
     << " /= 2u) {\n"
     << "#pragma unroll\n"
     << "for (unsigned " << C << " = 0; " << C << " < " << H << "; ++" << C << ")\n"
     << Lanes << "[" << C << "] = " << Lanes << "[" << C << "] + " << Lanes << "[" << C << " + "
     << H << "];\n"
     << "#pragma unroll\n"
     << "for (unsigned " << C << " = " << H << " / 2u; " << C << " < " << H << "; ++" << C << ")\n"
     << "if (" << C << " > 0u) " << Array << "[" << Lane << " + 32u * " << C << "] = " << Lanes
     << "[" << C << "];\n"
     << "}\n"
     << "// Halvings below 32: lane l adds lane l + s, and lanes [s / 2, s) are done.\n"
     << "if (" << Lane << " >= 16u) " << Array << "[" << Lane << "] = " << Lanes << "[0];\n"
     << "#pragma unroll\n"
     << "for (unsigned " << S << " = 16u; " << S << " >= 1u; " << S << " /= 2u) {\n"
     << Lanes << "[0] = " << Lanes << "[0] + __shfl_down_sync(0xffffffffu, " << Lanes << "[0], "
     << S << ");\n"
     << "if (" << Lane << " < " << S << " && " << Lane << " >= " << S << " / 2u) " << Array << "["
     << Lane << "] = " << Lanes << "[0];\n"
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
                    Ctx.Names.allocate("kfuse_c"), Ctx.Names.allocate("kfuse_h"),
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

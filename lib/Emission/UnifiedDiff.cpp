//===- UnifiedDiff.cpp - a file's change as `diff -u` prints it -----------===//
//
// Myers' O(ND) difference algorithm over lines: a rewrite changes a few
// lines of a long file, so D stays small.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Emission/UnifiedDiff.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <vector>

namespace kfuse {

namespace {

/// Lines with their newline; a last line without one stays as it is.
std::vector<llvm::StringRef> linesOf(llvm::StringRef Text) {
  std::vector<llvm::StringRef> Lines;
  while (!Text.empty()) {
    size_t End = Text.find('\n');
    End = End == llvm::StringRef::npos ? Text.size() : End + 1;
    Lines.push_back(Text.take_front(End));
    Text = Text.drop_front(End);
  }
  return Lines;
}

enum class Op { Keep, Remove, Add };

/// The shortest edit script from \p A to \p B.
std::vector<Op> editScript(const std::vector<llvm::StringRef> &A,
                           const std::vector<llvm::StringRef> &B) {
  const long N = static_cast<long>(A.size()), M = static_cast<long>(B.size());
  const long Offset = N + M + 1;
  std::vector<long> V(2 * Offset + 1, 0);
  std::vector<std::vector<long>> Trace;
  long Found = -1;
  for (long D = 0; D <= N + M && Found < 0; ++D) {
    Trace.push_back(V);
    for (long K = -D; K <= D; K += 2) {
      long X = (K == -D || (K != D && V[Offset + K - 1] < V[Offset + K + 1]))
                   ? V[Offset + K + 1]
                   : V[Offset + K - 1] + 1;
      long Y = X - K;
      while (X < N && Y < M && A[X] == B[Y])
        ++X, ++Y;
      V[Offset + K] = X;
      if (X >= N && Y >= M) {
        Found = D;
        break;
      }
    }
  }
  // Walk back through the furthest points of each round.
  std::vector<Op> Script;
  long X = N, Y = M;
  for (long D = Found; D > 0; --D) {
    const std::vector<long> &Prev = Trace[D];
    long K = X - Y;
    long PrevK =
        (K == -D || (K != D && Prev[Offset + K - 1] < Prev[Offset + K + 1])) ? K + 1 : K - 1;
    long PrevX = Prev[Offset + PrevK], PrevY = PrevX - PrevK;
    while (X > PrevX && Y > PrevY) {
      Script.push_back(Op::Keep);
      --X, --Y;
    }
    Script.push_back(X == PrevX ? Op::Add : Op::Remove);
    X = PrevX, Y = PrevY;
  }
  while (X > 0 && Y > 0) {
    Script.push_back(Op::Keep);
    --X, --Y;
  }
  std::reverse(Script.begin(), Script.end());
  return Script;
}

void printLine(llvm::raw_ostream &OS, char Mark, llvm::StringRef Line) {
  OS << Mark << Line;
  if (!Line.ends_with("\n"))
    OS << "\n\\ No newline at end of file\n";
}

} // namespace

std::string printUnifiedDiff(llvm::StringRef Path, llvm::StringRef Old, llvm::StringRef New) {
  std::vector<llvm::StringRef> A = linesOf(Old), B = linesOf(New);
  std::vector<Op> Script = editScript(A, B);
  const size_t Context = 3;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  size_t I = 0;
  while (I < Script.size()) {
    if (Script[I] == Op::Keep) {
      ++I;
      continue;
    }
    // A hunk: from Context lines before this change to Context lines after
    // the last change that is no more than 2 * Context lines from the next.
    size_t Begin = I >= Context ? I - Context : 0, End = I;
    size_t Kept = 0;
    for (size_t J = I; J < Script.size(); ++J) {
      if (Script[J] != Op::Keep) {
        End = J + 1;
        Kept = 0;
      } else if (++Kept > 2 * Context) {
        break;
      }
    }
    End = std::min(Script.size(), End + Context);
    size_t OldLine = 0, NewLine = 0;
    for (size_t J = 0; J < Begin; ++J) {
      OldLine += Script[J] != Op::Add;
      NewLine += Script[J] != Op::Remove;
    }
    size_t OldCount = 0, NewCount = 0;
    for (size_t J = Begin; J < End; ++J) {
      OldCount += Script[J] != Op::Add;
      NewCount += Script[J] != Op::Remove;
    }
    if (Out.empty())
      OS << "--- " << Path << "\n+++ " << Path << "\n";
    OS << "@@ -" << (OldCount ? OldLine + 1 : OldLine) << "," << OldCount << " +"
       << (NewCount ? NewLine + 1 : NewLine) << "," << NewCount << " @@\n";
    size_t X = OldLine, Y = NewLine;
    for (size_t J = Begin; J < End; ++J) {
      switch (Script[J]) {
      case Op::Keep:
        printLine(OS, ' ', A[X++]);
        ++Y;
        break;
      case Op::Remove:
        printLine(OS, '-', A[X++]);
        break;
      case Op::Add:
        printLine(OS, '+', B[Y++]);
        break;
      }
    }
    I = End;
  }
  return Out;
}

} // namespace kfuse

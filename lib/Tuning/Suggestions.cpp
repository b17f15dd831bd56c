//===- Suggestions.cpp - which launches of a program are worth fusing -----===//

#include "kfuse/Tuning/Suggestions.h"

#include <algorithm>
#include <map>

namespace kfuse {

namespace {

int tier(const Candidate &C) { return C.ready() ? 0 : C.fusable() ? 1 : 2; }

} // namespace

void rankCandidates(Suggestions &S) {
  std::stable_sort(
      S.Candidates.begin(), S.Candidates.end(), [](const Candidate &A, const Candidate &B) {
        if (tier(A) != tier(B))
          return tier(A) < tier(B);
        double EA = A.Bound ? A.Bound->Speedup : 0, EB = B.Bound ? B.Bound->Speedup : 0;
        if (EA != EB)
          return EA > EB;
        double OA = A.Bound ? A.Bound->Overlap : 0, OB = B.Bound ? B.Bound->Overlap : 0;
        if (OA != OB)
          return OA > OB;
        // Without estimates, chains by the traffic they remove.
        uint64_t RA = A.removedBytes().value_or(0), RB = B.removedBytes().value_or(0);
        if (RA != RB)
          return RA > RB;
        // More launches fused, more launches removed.
        if (A.Members.size() != B.Members.size())
          return A.Members.size() > B.Members.size();
        return A.Members < B.Members;
      });
  chooseFusions(S);
}

void chooseFusions(Suggestions &S) {
  std::map<size_t, const Candidate *> Owner; // Launch -> the fusion that takes it.
  for (Candidate &C : S.Candidates) {
    C.AlternativeTo.clear();
    if (!C.ready())
      continue;
    auto Shared = std::find_if(C.Members.begin(), C.Members.end(),
                               [&](size_t L) { return Owner.count(L) != 0; });
    if (Shared != C.Members.end()) {
      C.AlternativeTo = Owner.at(*Shared)->Name;
      continue;
    }
    for (size_t L : C.Members)
      Owner.emplace(L, &C);
  }
}

} // namespace kfuse

//===- SuggestionsTest.cpp - suggest's ranking and the config's choice ----===//

#include "kfuse/Tuning/Suggestions.h"

#include <gtest/gtest.h>

using kfuse::Candidate;
using kfuse::Suggestions;

namespace {

/// A candidate over \p Members that kfuse check fused.
Candidate ready(const char *Name, std::vector<size_t> Members) {
  Candidate C;
  C.Name = Name;
  C.Members = std::move(Members);
  C.Checked = true;
  return C;
}

const Candidate &named(const Suggestions &S, const std::string &Name) {
  for (const Candidate &C : S.Candidates)
    if (C.Name == Name)
      return C;
  ADD_FAILURE() << "no candidate " << Name;
  return S.Candidates.front();
}

} // namespace

// Without estimates, more launches fused ranks first; a candidate sharing a
// launch with one taken before it becomes its alternative, and one that
// shares none is taken too.
TEST(Suggestions, ChoosesFusionsThatShareNoLaunch) {
  Suggestions S;
  S.Candidates = {ready("ab", {0, 1}), ready("bc", {1, 2}), ready("abc", {0, 1, 2}),
                  ready("de", {3, 4})};
  kfuse::rankCandidates(S);
  EXPECT_EQ(S.Candidates.front().Name, "abc");
  EXPECT_EQ(named(S, "abc").AlternativeTo, "");
  EXPECT_EQ(named(S, "ab").AlternativeTo, "abc");
  EXPECT_EQ(named(S, "bc").AlternativeTo, "abc");
  EXPECT_EQ(named(S, "de").AlternativeTo, "");
}

// A candidate kfuse cannot fuse takes no launch: the one after it that
// shares a launch is still chosen.
TEST(Suggestions, RefusedCandidatesTakeNoLaunch) {
  Suggestions S;
  Candidate Refused = ready("abc", {0, 1, 2});
  Refused.Refusals.push_back("k.cu:3:1: error: ...");
  S.Candidates = {Refused, ready("bc", {1, 2})};
  kfuse::rankCandidates(S);
  EXPECT_EQ(S.Candidates.front().Name, "bc");
  EXPECT_EQ(named(S, "bc").AlternativeTo, "");
  EXPECT_EQ(named(S, "abc").AlternativeTo, "");
}

// With estimates, the better estimate takes the launch whatever its size.
TEST(Suggestions, EstimatesChooseBeforeSize) {
  Suggestions S;
  Candidate Pair = ready("ab", {0, 1}), Triple = ready("abc", {0, 1, 2});
  Pair.Bound.emplace();
  Pair.Bound->Speedup = 1.4;
  Triple.Bound.emplace();
  Triple.Bound->Speedup = 1.1;
  S.Candidates = {Triple, Pair};
  kfuse::rankCandidates(S);
  EXPECT_EQ(S.Candidates.front().Name, "ab");
  EXPECT_EQ(named(S, "abc").AlternativeTo, "ab");
}

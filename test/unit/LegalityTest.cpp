// Unit tests of the legality registry: every refusal kfuse can raise belongs
// to exactly one check, and every check names refusals only.
#include "kfuse/Analysis/Legality.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace kfuse;

namespace {

TEST(Legality, EveryRefusalBelongsToExactlyOneCheck) {
  for (diag::ID Id : diag::AllIds) {
    if (!diag::isRefusal(Id))
      continue;
    unsigned Owners = 0;
    for (const LegalityCheck &C : legalityChecks())
      Owners += llvm::is_contained(C.Refusals, Id);
    EXPECT_EQ(Owners, 1u) << diag::stableId(Id) << " belongs to " << Owners << " checks";
  }
}

TEST(Legality, ChecksRaiseRefusalsOnly) {
  for (const LegalityCheck &C : legalityChecks()) {
    EXPECT_FALSE(C.Refusals.empty()) << C.Name.str();
    for (diag::ID Id : C.Refusals)
      EXPECT_TRUE(diag::isRefusal(Id)) << C.Name.str() << " names " << diag::stableId(Id);
  }
}

TEST(Legality, CheckNamesAreUnique) {
  std::set<std::string> Names;
  for (const LegalityCheck &C : legalityChecks())
    EXPECT_TRUE(Names.insert(C.Name.str()).second) << C.Name.str();
}

TEST(Legality, ChecksRunScopeByScope) {
  // A runner calls one scope's checks in the table's order; a scope that
  // came back after another would run out of the order the table shows.
  std::set<CheckScope> Done;
  CheckScope Current = legalityChecks().front().Scope;
  for (const LegalityCheck &C : legalityChecks()) {
    if (C.Scope == Current)
      continue;
    Done.insert(Current);
    EXPECT_FALSE(Done.count(C.Scope))
        << C.Name.str() << " returns to scope " << scopeName(C.Scope).str();
    Current = C.Scope;
  }
}

TEST(Legality, FindsTheCheckOfARefusal) {
  const LegalityCheck *C = checkRaising(diag::ID::GridSync);
  ASSERT_NE(C, nullptr);
  EXPECT_EQ(C->Name, "cooperative-groups");
  EXPECT_EQ(C->Scope, CheckScope::Kernel);
  EXPECT_EQ(checkRaising(diag::ID::ConfigSyntax), nullptr);
}

TEST(Legality, ErrorsOfTheCommandLineAndConfigAreNoRefusals) {
  EXPECT_FALSE(diag::isRefusal(diag::ID::FileNotFound));
  EXPECT_FALSE(diag::isRefusal(diag::ID::ConfigBadValue));
  EXPECT_TRUE(diag::isRefusal(diag::ID::WarpgroupRegisters));
  EXPECT_STREQ(diag::stableId(diag::ID::WarpgroupRegisters), "kfuse-warpgroup-registers");
}

} // namespace

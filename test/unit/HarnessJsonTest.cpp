//===- HarnessJsonTest.cpp - the harness's JSON strings, read back --------===//
//
// The tuning harness writes every string of results.json through
// kfuse_json::quoted(); kfuse must read each back as it was, whatever a
// device name, a path or dlerror() holds.
//
//===----------------------------------------------------------------------===//

#include "tune_json.h"

#include "kfuse/Tuning/Selection.h"

#include <gtest/gtest.h>

namespace kfuse {
namespace {

const std::string Replacement = "\xef\xbf\xbd"; // U+FFFD

std::string deviceReadBack(const std::string &Name) {
  std::string Text =
      "{\"schema_version\": 1, \"device\": " + kfuse_json::quoted(Name) + ", \"fusions\": []}";
  diag::Problem Problem;
  std::optional<TuneResults> R = parseTuneResults(Text, Problem);
  EXPECT_TRUE(R.has_value()) << Text << ": " << (Problem.Args.size() > 1 ? Problem.Args[1] : "");
  return R ? R->Device : "";
}

TEST(HarnessJson, KeepsWhatJsonCanHold) {
  for (const std::string &Name :
       {std::string("NVIDIA H100 \"SXM\" <B> & [#!?{}]"), std::string("C:\\cuda\\bin"),
        std::string("tab\tnew\nline\r"), std::string("nul\0byte", 8), std::string("\x1f"),
        std::string("UTF-8: \xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80")})
    EXPECT_EQ(deviceReadBack(Name), Name);
}

TEST(HarnessJson, ReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(deviceReadBack("bad \xff byte"), "bad " + Replacement + " byte");
  // An overlong NUL, a surrogate, a sequence cut short.
  EXPECT_EQ(deviceReadBack("\xc0\x80"), Replacement + Replacement);
  EXPECT_EQ(deviceReadBack("\xed\xa0\x80"), Replacement + Replacement + Replacement);
  EXPECT_EQ(deviceReadBack("cut \xe6\xbc"), "cut " + Replacement + Replacement);
}

} // namespace
} // namespace kfuse

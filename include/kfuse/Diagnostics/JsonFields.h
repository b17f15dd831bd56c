//===- JsonFields.h - reading checked fields with llvm::json ----*- C++ -*-===//
//
// Fields of the JSON files kfuse reads (results.json), each checked as it is
// read: a wrong one is reported by its path, as llvm::json::Path does,
// "expected an integer, 0 or more at results.fusions[0].candidates[2].waves".
// Free of Clang.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_DIAGNOSTICS_JSONFIELDS_H
#define KFUSE_DIAGNOSTICS_JSONFIELDS_H

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace kfuse {

/// An enum written as its name, read with the parser that owns the names.
template <typename Enum, typename Parse>
bool fromName(const llvm::json::Value &V, Enum &Out, llvm::json::Path P, Parse parse,
              llvm::StringLiteral Expected) {
  std::optional<Enum> E;
  if (std::optional<llvm::StringRef> S = V.getAsString())
    E = parse(S->str());
  if (!E) {
    P.report(Expected);
    return false;
  }
  Out = *E;
  return true;
}

/// llvm::json reads integers as int64_t; a count must be 0 or more and fit.
/// A missing field leaves \p Out as it is.
template <typename T>
bool mapCount(const llvm::json::Value &V, llvm::json::Path P, llvm::StringLiteral Key, T &Out) {
  const llvm::json::Object *Object = V.getAsObject();
  const llvm::json::Value *Field = Object ? Object->get(Key) : nullptr;
  if (!Field)
    return true;
  std::optional<int64_t> N = Field->getAsInteger();
  if (!N || *N < 0 || static_cast<uint64_t>(*N) > std::numeric_limits<T>::max()) {
    P.field(Key).report("expected an integer, 0 or more");
    return false;
  }
  Out = static_cast<T>(*N);
  return true;
}

} // namespace kfuse

#endif

//===- tune_json.h - JSON strings for the tuning harness's results --------===//
//
// The harness writes results.json with fprintf; every string in it (a device
// name, a path, dlerror()'s text) goes through quoted(), so quotes,
// backslashes, control characters and bytes that are not UTF-8 still make
// JSON that llvm::json reads; a variant's layout is written by
// writeLayoutFields, the one writer of its fields. Header-only C++17, shared
// by the harness (as kfuse_json.h in the bundle) and kfuse's unit tests.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_TUNE_JSON_H
#define KFUSE_TUNE_JSON_H

#include <cstdio>
#include <string>
#include <vector>

namespace kfuse_json {

/// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong
/// forms, no surrogates, nothing past U+10FFFF), or 0 when there is none.
inline size_t utf8Length(const std::string &s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80)
    return 1;
  size_t n = c >= 0xc2 && c <= 0xdf   ? 2
             : c >= 0xe0 && c <= 0xef ? 3
             : c >= 0xf0 && c <= 0xf4 ? 4
                                      : 0;
  if (n == 0 || i + n > s.size())
    return 0;
  unsigned char second = static_cast<unsigned char>(s[i + 1]);
  unsigned char low = 0x80, high = 0xbf;
  if (c == 0xe0)
    low = 0xa0;
  else if (c == 0xed)
    high = 0x9f;
  else if (c == 0xf0)
    low = 0x90;
  else if (c == 0xf4)
    high = 0x8f;
  if (second < low || second > high)
    return 0;
  for (size_t k = 2; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80)
      return 0;
  return n;
}

/// \p value as a JSON string literal, quotes included.
inline std::string quoted(const std::string &value) {
  std::string q = "\"";
  size_t i = 0;
  while (i < value.size()) {
    unsigned char c = static_cast<unsigned char>(value[i]);
    size_t n = utf8Length(value, i);
    if (c == '"' || c == '\\') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      q += buffer;
    } else if (n == 0) {
      q += "\\ufffd"; // The replacement character for a byte that is not UTF-8.
    } else {
      q.append(value, i, n);
    }
    i += n ? n : 1;
  }
  return q + "\"";
}

/// A fused variant's layout as results.json holds it (kfuse reads it back
/// with readLayoutFields, kfuse/Plan/FusedLayout.h): each kernel's threads,
/// the register bound it was compiled with, the grid, its waves, the
/// original blocks it runs at a time (its elementwise kernels' ranges per
/// iteration: coarsen), how it runs tree reductions and the
/// per-warpgroup registers it was given (none: empty). Ends with ", ".
struct LayoutFields {
  std::vector<unsigned> threads;
  unsigned block_threads = 0;
  bool bounded = false;
  unsigned min_blocks = 0;
  std::string grid;
  unsigned waves = 1;
  unsigned blocks_per_iteration = 1;
  std::vector<unsigned> coarsen; // Empty: one block each.
  std::string reductions = "as-written";
  unsigned barriers = 0;
  unsigned entry_registers = 0;
  std::vector<unsigned> warpgroup_registers;
};

inline void writeLayoutFields(FILE *out, const LayoutFields &l) {
  std::fprintf(out, "\"threads\": [");
  for (size_t k = 0; k < l.threads.size(); ++k)
    std::fprintf(out, "%s%u", k ? ", " : "", l.threads[k]);
  std::fprintf(out, "], \"block_threads\": %u, \"register_bound\": %s, \"min_blocks_per_sm\": %u, ",
               l.block_threads, l.bounded ? "true" : "false", l.min_blocks);
  std::fprintf(out, "\"grid\": %s, ", quoted(l.grid).c_str());
  std::fprintf(out, "\"waves\": %u, \"barriers\": %u, ", l.waves, l.barriers);
  std::fprintf(out, "\"blocks_per_iteration\": %u, \"reductions\": %s, ", l.blocks_per_iteration,
               quoted(l.reductions).c_str());
  if (!l.coarsen.empty()) {
    std::fprintf(out, "\"coarsen\": [");
    for (size_t k = 0; k < l.coarsen.size(); ++k)
      std::fprintf(out, "%s%u", k ? ", " : "", l.coarsen[k]);
    std::fprintf(out, "], ");
  }
  if (!l.warpgroup_registers.empty()) {
    std::fprintf(out, "\"entry_registers\": %u, \"warpgroup_registers\": [", l.entry_registers);
    for (size_t k = 0; k < l.warpgroup_registers.size(); ++k)
      std::fprintf(out, "%s%u", k ? ", " : "", l.warpgroup_registers[k]);
    std::fprintf(out, "], ");
  }
}

} // namespace kfuse_json

#endif

//===- Profile.cpp - a program's kernels as a profiler measured them ------===//

#include "kfuse/Tuning/Profile.h"

#include "kfuse/Config/Config.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

namespace kfuse {

using diag::ID;

const char *spelling(KernelLimit L) {
  switch (L) {
  case KernelLimit::Memory:
    return "memory";
  case KernelLimit::Compute:
    return "compute";
  case KernelLimit::Latency:
    return "latency";
  }
  return "";
}

KernelLimit ProfiledKernel::limit() const {
  if (std::max(MemoryPercent, ComputePercent) < LatencyBelowPercent)
    return KernelLimit::Latency;
  return MemoryPercent >= ComputePercent ? KernelLimit::Memory : KernelLimit::Compute;
}

const char *profileMetrics() {
  return "gpu__time_duration.sum,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
         "sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,"
         "dram__bytes.sum,smsp__inst_executed.sum,sm__warps_active.avg.per_cycle_active,"
         "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
         "smsp__warp_issue_stalled_barrier_per_warp_active.pct";
}

namespace {

/// One CSV record; false at a line that is not one (the program's output).
bool splitRecord(const std::string &Line, std::vector<std::string> &Fields) {
  Fields.clear();
  if (Line.empty() || Line[0] != '"')
    return false;
  std::string Field;
  bool Quoted = false;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quoted) {
      if (C == '"' && I + 1 < Line.size() && Line[I + 1] == '"') {
        Field += '"';
        ++I;
      } else if (C == '"') {
        Quoted = false;
      } else {
        Field += C;
      }
    } else if (C == '"') {
      Quoted = true;
    } else if (C == ',') {
      Fields.push_back(Field);
      Field.clear();
    } else if (C != '\r') {
      Field += C;
    }
  }
  if (Quoted)
    return false;
  Fields.push_back(Field);
  return true;
}

/// "1,234.5" -> 1234.5; nothing for text that is no number.
std::optional<double> number(std::string Text) {
  Text.erase(std::remove(Text.begin(), Text.end(), ','), Text.end());
  // Decimal only, as ncu writes numbers: strtod also reads hex ("0x1p4"),
  // blanks and "infinity", none of which a profile holds.
  if (Text.empty() || Text.find_first_not_of("0123456789.eE+-") != std::string::npos)
    return std::nullopt;
  char *End = nullptr;
  double V = std::strtod(Text.c_str(), &End);
  // "nan", "inf" and 1e999 parse, but measure nothing.
  if (*End != '\0' || !std::isfinite(V))
    return std::nullopt;
  return V;
}

/// Microseconds in one \p Unit of time, or nothing for a unit of no time.
std::optional<double> microseconds(const std::string &Unit) {
  static const std::map<std::string, double> Scale = {
      {"nsecond", 1e-3}, {"ns", 1e-3}, {"usecond", 1},  {"us", 1},
      {"msecond", 1e3},  {"ms", 1e3},  {"second", 1e6}, {"s", 1e6}};
  auto It = Scale.find(Unit);
  return It == Scale.end() ? std::nullopt : std::optional<double>(It->second);
}

/// "(4096, 1, 1)" -> {4096, 1, 1}.
std::optional<std::array<uint64_t, 3>> dims(const std::string &Text) {
  std::array<uint64_t, 3> D{1, 1, 1};
  std::string Digits;
  unsigned N = 0;
  for (char C : Text + ",") {
    if (std::isdigit(static_cast<unsigned char>(C))) {
      Digits += C;
    } else if (C == ',' || C == ')') {
      if (Digits.empty())
        continue;
      if (N == 3)
        return std::nullopt;
      // A dimension needs 32 bits; more digits than 10 is no dimension.
      if (Digits.size() > 10)
        return std::nullopt;
      D[N++] = std::strtoull(Digits.c_str(), nullptr, 10);
      Digits.clear();
    }
  }
  if (N == 0)
    return std::nullopt;
  return D;
}

/// "void blas::axpy<float>(float, const float *, float *, int)" ->
/// "blas::axpy<float>": the parameter list is the last parenthesis group.
std::string baseName(std::string Name) {
  if (!Name.empty() && Name.back() == ')') {
    int Depth = 0;
    for (size_t I = Name.size(); I-- > 0;) {
      Depth += Name[I] == ')' ? 1 : Name[I] == '(' ? -1 : 0;
      if (Depth == 0) {
        Name.erase(I);
        break;
      }
    }
  }
  // A return type before the name: templates only; split at the last blank
  // outside template arguments.
  int Depth = 0;
  for (size_t I = Name.size(); I-- > 0;) {
    Depth += Name[I] == '>' ? 1 : Name[I] == '<' ? -1 : 0;
    if (Depth == 0 && Name[I] == ' ')
      return Name.substr(I + 1);
  }
  return Name;
}

double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t M = V.size() / 2;
  return V.size() % 2 ? V[M] : (V[M - 1] + V[M]) / 2;
}

/// One launch as the profile describes it.
struct Launch {
  std::string Kernel;
  std::optional<std::array<uint64_t, 3>> Grid, Block;
  std::optional<double> DurationUs, MemoryPercent, ComputePercent, Registers;
  std::optional<double> DramBytes, WarpInsts, ActiveWarps, DramPercent, BarrierStalls;
};

class Reader {
public:
  ProfileResult run(const std::string &Text) {
    std::istringstream In(Text);
    std::string Line;
    std::vector<std::string> Fields;
    for (unsigned Number = 1; std::getline(In, Line); ++Number) {
      if (!splitRecord(Line, Fields))
        continue;
      if (Header.empty()) {
        if (std::find(Fields.begin(), Fields.end(), "Kernel Name") == Fields.end())
          continue;
        Header = Fields;
        for (size_t I = 0; I < Header.size(); ++I)
          Column[Header[I]] = I;
        HeaderLine = Number;
        Details = Column.count("Metric Name") && Column.count("Metric Value");
        continue;
      }
      // The details page leaves out the rule columns of most records.
      if (Fields.size() > Header.size() || (Details && Fields.size() <= Column["Metric Value"])) {
        problem(Number, "a record has " + std::to_string(Fields.size()) + " fields, the header " +
                            std::to_string(Header.size()));
        continue;
      }
      Fields.resize(Header.size());
      if (Details)
        readDetail(Fields, Number);
      else if (!Units)
        Units = Fields; // The raw page's second line: each metric's unit.
      else
        readRaw(Fields, Number);
    }
    if (Header.empty())
      problem(0, "no header line naming \"Kernel Name\": run ncu with --csv");
    finish();
    return std::move(Result);
  }

private:
  std::vector<std::string> Header;
  std::map<std::string, size_t> Column;
  std::optional<std::vector<std::string>> Units;
  unsigned HeaderLine = 0;
  bool Details = false;
  std::vector<Launch> Launches;
  std::map<std::string, size_t> ById;                ///< Details page: launch by "ID".
  std::vector<std::vector<std::string>> FirstFields; ///< Each launch's first row.
  ProfileResult Result;

  void problem(unsigned Line, const std::string &What) {
    Result.Problems.push_back({ID::ProfileFormat, Line, 0, {What}});
  }

  const std::string *field(const std::vector<std::string> &F, const std::string &Name) const {
    auto It = Column.find(Name);
    return It == Column.end() ? nullptr : &F[It->second];
  }

  Launch &launchOf(const std::vector<std::string> &F, unsigned Line) {
    const std::string *Id = field(F, "ID");
    std::string Key = Id ? *Id : std::to_string(Launches.size());
    auto [It, New] = ById.emplace(Key, Launches.size());
    if (New) {
      Launch L;
      L.Kernel = baseName(*field(F, "Kernel Name"));
      if (const std::string *G = field(F, "Grid Size"))
        L.Grid = checkedDims(*G, MaxGridDims, 0, "grid", Line);
      if (const std::string *B = field(F, "Block Size"))
        L.Block = checkedDims(*B, MaxBlockDims, MaxBlockThreads, "block", Line);
      Launches.push_back(std::move(L));
      FirstFields.push_back(F);
      return Launches.back();
    }
    // Every row of a launch describes the same launch: a row that names
    // another kernel or size would otherwise go unread and unchecked.
    const std::vector<std::string> &First = FirstFields[It->second];
    for (const char *Name : {"Kernel Name", "Grid Size", "Block Size"}) {
      auto C = Column.find(Name);
      if (C != Column.end() && F[C->second] != First[C->second])
        problem(Line, "launch " + Key + " has the " + llvm::StringRef(Name).lower() + " '" +
                          F[C->second] + "' here and '" + First[C->second] + "' in its first row");
    }
    return Launches[It->second];
  }

  /// The dimensions in \p Text when CUDA could launch them (each within
  /// \p Max, their product within \p MaxProduct unless 0); otherwise nothing,
  /// after saying why.
  std::optional<std::array<uint64_t, 3>> checkedDims(const std::string &Text,
                                                     std::array<uint64_t, 3> Max,
                                                     uint64_t MaxProduct, const char *What,
                                                     unsigned Line) {
    std::optional<std::array<uint64_t, 3>> D = dims(Text);
    bool Fits = D.has_value();
    for (size_t I = 0; Fits && I < 3; ++I)
      Fits = (*D)[I] >= 1 && (*D)[I] <= Max[I];
    if (Fits && MaxProduct)
      Fits = (*D)[0] * (*D)[1] * (*D)[2] <= MaxProduct;
    if (!Fits) {
      problem(Line, std::string("the ") + What + " size '" + Text + "' is not one CUDA launches");
      return std::nullopt;
    }
    return D;
  }

  /// A time in microseconds, or nothing after saying why not.
  std::optional<double> time(const std::string &Value, const std::string &Unit, unsigned Line) {
    std::optional<double> V = number(Value), Scale = microseconds(Unit);
    if (!V || !Scale) {
      problem(Line, "the duration '" + Value + "' in '" + Unit + "' is not a time");
      return std::nullopt;
    }
    return *V * *Scale;
  }

  void readRaw(const std::vector<std::string> &F, unsigned Line) {
    Launch &L = launchOf(F, Line);
    auto Metric = [&](const char *Name) -> std::optional<std::pair<std::string, std::string>> {
      auto It = Column.find(Name);
      if (It == Column.end())
        return std::nullopt;
      return std::make_pair(F[It->second], (*Units)[It->second]);
    };
    if (auto D = Metric("gpu__time_duration.sum"))
      L.DurationUs = time(D->first, D->second, Line);
    if (auto B = Metric("dram__bytes.sum"))
      L.DramBytes = bytes(B->first, B->second, Line);
    // The metrics that are plain numbers, whatever their unit.
    const std::pair<const char *, std::optional<double> Launch::*> Numbers[] = {
        {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
         &Launch::MemoryPercent},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", &Launch::ComputePercent},
        {"launch__registers_per_thread", &Launch::Registers},
        {"smsp__inst_executed.sum", &Launch::WarpInsts},
        {"sm__warps_active.avg.per_cycle_active", &Launch::ActiveWarps},
        {"dram__throughput.avg.pct_of_peak_sustained_elapsed", &Launch::DramPercent},
        {"smsp__warp_issue_stalled_barrier_per_warp_active.pct", &Launch::BarrierStalls}};
    for (const auto &[Name, Field] : Numbers)
      if (auto M = Metric(Name))
        L.*Field = number(M->first);
  }

  /// A byte count in \p Unit ("byte", "Kbyte", "Mbyte", "Gbyte"), or nothing
  /// after saying why not.
  std::optional<double> bytes(const std::string &Value, const std::string &Unit, unsigned Line) {
    static const std::map<std::string, double> Scale = {
        {"byte", 1}, {"Kbyte", 1e3}, {"Mbyte", 1e6}, {"Gbyte", 1e9}, {"Tbyte", 1e12}};
    std::optional<double> V = number(Value);
    auto It = Scale.find(Unit);
    if (!V || It == Scale.end() || *V < 0) {
      problem(Line, "the DRAM traffic '" + Value + "' in '" + Unit + "' is not a byte count");
      return std::nullopt;
    }
    return *V * It->second;
  }

  void readDetail(const std::vector<std::string> &F, unsigned Line) {
    Launch &L = launchOf(F, Line);
    const std::string &Name = *field(F, "Metric Name");
    const std::string &Value = *field(F, "Metric Value");
    const std::string *Unit = field(F, "Metric Unit");
    std::string U = Unit ? *Unit : "";
    if (Name == "Duration")
      L.DurationUs = time(Value, U, Line);
    else if (Name == "Memory Throughput" && U == "%")
      L.MemoryPercent = number(Value);
    else if (Name == "Compute (SM) Throughput" && U == "%")
      L.ComputePercent = number(Value);
    else if (Name == "Registers Per Thread")
      L.Registers = number(Value);
    else if (Name == "DRAM Throughput" && U == "%")
      L.DramPercent = number(Value);
    else if (Name == "Achieved Active Warps Per SM")
      L.ActiveWarps = number(Value);
  }

  /// What of \p L no GPU measures: a negative time, a share of peak outside
  /// 0-100%, a register count a thread cannot have.
  static std::optional<std::string> outOfRange(const Launch &L) {
    auto Percent = [](double P) { return P >= 0 && P <= 101; }; // ncu rounds up to 100.x
    if (*L.DurationUs < 0)
      return "a negative duration";
    if (!Percent(*L.MemoryPercent) || !Percent(*L.ComputePercent))
      return "a throughput outside 0-100% of peak";
    if (L.Registers &&
        (*L.Registers < 0 || *L.Registers > 255 || *L.Registers != std::floor(*L.Registers)))
      return "a register count that is not a whole number from 0 to 255";
    return std::nullopt;
  }

  void finish() {
    // A value already refused would be reported again as missing.
    if (Header.empty() || !Result.Problems.empty())
      return;
    if (Launches.empty()) {
      problem(HeaderLine, "the profile holds no kernel launch");
      return;
    }
    std::map<std::string, std::vector<const Launch *>> ByKernel;
    std::vector<std::string> Order;
    for (const Launch &L : Launches) {
      if (!L.DurationUs || !L.MemoryPercent || !L.ComputePercent) {
        problem(HeaderLine, "launch of '" + L.Kernel + "' lacks " +
                                (!L.DurationUs      ? "its duration"
                                 : !L.MemoryPercent ? "its memory throughput"
                                                    : "its SM throughput") +
                                "; profile with --metrics " + profileMetrics() +
                                " --page raw, or --section SpeedOfLight");
        return;
      }
      if (std::optional<std::string> Bad = outOfRange(L)) {
        problem(HeaderLine, "launch of '" + L.Kernel + "' gives " + *Bad);
        return;
      }
      auto &Of = ByKernel[L.Kernel];
      if (Of.empty())
        Order.push_back(L.Kernel);
      Of.push_back(&L);
    }
    for (const std::string &Name : Order)
      Result.Kernels.push_back(summary(ByKernel[Name]));
    for (const Launch &L : Launches)
      Result.Launches.push_back(summary({&L}));
  }

  /// Launches \p Of one kernel summarized: the medians of what every launch
  /// measured, the sizes and registers of the first.
  static ProfiledKernel summary(const std::vector<const Launch *> &Of) {
    auto Median = [&](std::optional<double> Launch::*Field) -> std::optional<double> {
      std::vector<double> V;
      for (const Launch *L : Of) {
        if (!(L->*Field))
          return std::nullopt;
        V.push_back(*(L->*Field));
      }
      return median(V);
    };
    const Launch &First = *Of.front();
    ProfiledKernel K;
    K.Name = First.Kernel;
    K.Launches = Of.size();
    for (const Launch *L : Of)
      K.TotalUs += *L->DurationUs;
    // finish() checked that every launch has these three.
    K.MedianUs = *Median(&Launch::DurationUs);
    K.MemoryPercent = *Median(&Launch::MemoryPercent);
    K.ComputePercent = *Median(&Launch::ComputePercent);
    K.Grid = First.Grid.value_or(K.Grid);
    K.Block = First.Block.value_or(K.Block);
    K.Registers = static_cast<unsigned>(First.Registers.value_or(0));
    K.DramBytes = Median(&Launch::DramBytes);
    K.WarpInsts = Median(&Launch::WarpInsts);
    K.ActiveWarps = Median(&Launch::ActiveWarps);
    K.DramPercent = Median(&Launch::DramPercent);
    K.BarrierStalls = Median(&Launch::BarrierStalls);
    return K;
  }
};

} // namespace

ProfileResult parseNcuCsv(const std::string &Text) { return Reader().run(Text); }

} // namespace kfuse

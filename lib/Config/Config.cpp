//===- Config.cpp - reading the fusion config from YAML -------------------===//

#include "kfuse/Config/Config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

namespace kfuse {

const char *gridModeName(GridMode M) {
  switch (M) {
  case GridMode::AsLaunched:
    return "as-launched";
  case GridMode::Persistent:
    return "persistent";
  case GridMode::Dynamic:
    return "dynamic";
  case GridMode::Proportional:
    return "proportional";
  }
  return "";
}

std::optional<GridMode> parseGridMode(const std::string &Name) {
  for (GridMode M : AllGridModes)
    if (Name == gridModeName(M))
      return M;
  return std::nullopt;
}

const char *reductionStyleName(ReductionStyle S) {
  switch (S) {
  case ReductionStyle::AsWritten:
    return "as-written";
  case ReductionStyle::OneWarp:
    return "one-warp";
  }
  return "";
}

std::optional<ReductionStyle> parseReductionStyle(const std::string &Name) {
  for (ReductionStyle S : {ReductionStyle::AsWritten, ReductionStyle::OneWarp})
    if (Name == reductionStyleName(S))
      return S;
  return std::nullopt;
}

bool Config::replaces(const std::string &ResolvedFile) const {
  return std::find(Replace.begin(), Replace.end(), ResolvedFile) != Replace.end();
}

const KernelSpec *Config::findKernel(const std::string &Id) const {
  for (const KernelSpec &K : Kernels)
    if (K.Id == Id)
      return &K;
  return nullptr;
}

const FusionSpec *Config::findFusion(const std::string &Name) const {
  for (const FusionSpec &F : Fusions)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

std::vector<std::string> Config::kernelsOf(const FusionSpec &F) const {
  std::vector<std::string> Result;
  for (const std::string &Name : F.Kernels) {
    const FusionSpec *Inner = findKernel(Name) ? nullptr : findFusion(Name);
    if (Inner)
      Result.insert(Result.end(), Inner->Kernels.begin(), Inner->Kernels.end());
    else
      Result.push_back(Name);
  }
  return Result;
}

unsigned elementBytes(ElementType T) {
  switch (T) {
#define KFUSE_ELEMENT_TYPE(Id, Name, CType, Bytes, Floating)                                       \
  case ElementType::Id:                                                                            \
    return Bytes;
#include "kfuse/Config/ElementTypes.def"
  }
  return 0;
}

const char *elementSpelling(ElementType T) {
  switch (T) {
#define KFUSE_ELEMENT_TYPE(Id, Name, CType, Bytes, Floating)                                       \
  case ElementType::Id:                                                                            \
    return #CType;
#include "kfuse/Config/ElementTypes.def"
  }
  return "";
}

const char *elementName(ElementType T) {
  switch (T) {
#define KFUSE_ELEMENT_TYPE(Id, Name, CType, Bytes, Floating)                                       \
  case ElementType::Id:                                                                            \
    return Name;
#include "kfuse/Config/ElementTypes.def"
  }
  return "";
}

const char *elementEnumerator(ElementType T) {
  switch (T) {
#define KFUSE_ELEMENT_TYPE(Id, Name, CType, Bytes, Floating)                                       \
  case ElementType::Id:                                                                            \
    return #Id;
#include "kfuse/Config/ElementTypes.def"
  }
  return "";
}

bool isFloating(ElementType T) {
  switch (T) {
#define KFUSE_ELEMENT_TYPE(Id, Name, CType, Bytes, Floating)                                       \
  case ElementType::Id:                                                                            \
    return Floating;
#include "kfuse/Config/ElementTypes.def"
  }
  return false;
}

namespace {

using diag::ID;

/// Every name a config may give an element type, in the table's order.
constexpr std::pair<const char *, ElementType> ElementNames[] = {
#define KFUSE_ELEMENT_TYPE(Id, Name, CType, Bytes, Floating) {Name, ElementType::Id},
#define KFUSE_ELEMENT_ALIAS(Id, Name) {Name, ElementType::Id},
#include "kfuse/Config/ElementTypes.def"
};

std::optional<ElementType> elementType(const std::string &S) {
  for (const auto &[Name, Type] : ElementNames)
    if (S == Name)
      return Type;
  return std::nullopt;
}

/// "float, double, ... or uint64", for a message.
std::string elementNames() {
  std::string Out;
  size_t N = std::size(ElementNames);
  for (size_t I = 0; I < N; ++I)
    Out += (I == 0 ? "" : I + 1 == N ? " or " : ", ") + std::string(ElementNames[I].first);
  return Out;
}

bool isNumber(const std::string &S) {
  if (S.empty())
    return false;
  char *End = nullptr;
  std::strtod(S.c_str(), &End);
  return End && *End == '\0';
}

ConfigPosition positionOf(const YAML::Node &N) {
  // A key the map lacks gives an invalid node, whose Mark() throws.
  if (!N.IsDefined())
    return {};
  YAML::Mark M = N.Mark();
  if (M.is_null())
    return {};
  return {static_cast<unsigned>(M.line + 1), static_cast<unsigned>(M.column + 1)};
}

/// Reads one config document, collecting every problem instead of stopping at
/// the first, so a user fixes a config in one round.
class ConfigReader {
public:
  explicit ConfigReader(std::string Path) : Path(std::move(Path)) {}

  ConfigResult read(const std::string &Text) {
    ConfigResult Result;
    YAML::Node Root;
    try {
      Root = YAML::Load(Text);
    } catch (const YAML::ParserException &E) {
      problem(ID::ConfigSyntax,
              {static_cast<unsigned>(E.mark.line + 1), static_cast<unsigned>(E.mark.column + 1)},
              {E.msg});
      Result.Problems = std::move(Problems);
      return Result;
    }
    Config C;
    C.Path = Path;
    if (!Root.IsMap()) {
      // An empty file has no position of its own: point at its start.
      ConfigPosition At = Root.IsNull() ? ConfigPosition{1, 1} : positionOf(Root);
      problem(ID::ConfigBadValue, At, {"the config", "a mapping with 'kernels' and 'fusions'"});
    } else {
      checkKeys(Root, "the config", {"kernels", "fusions", "replace"});
      readKernels(Root, C);
      readFusions(Root, C);
      readReplace(Root, C);
    }
    if (Problems.empty())
      Result.Value = std::move(C);
    Result.Problems = std::move(Problems);
    return Result;
  }

private:
  std::string Path;
  std::vector<diag::Problem> Problems;
  // Kernel entries that had problems of their own; fusions naming them are
  // not reported again.
  std::set<std::string> BrokenKernels;
  std::map<std::string, unsigned> FusionLines;

  void problem(ID Id, ConfigPosition P, std::vector<std::string> Args) {
    Problems.push_back({Id, P.Line, P.Column, std::move(Args)});
  }

  void checkKeys(const YAML::Node &Map, const std::string &What,
                 std::initializer_list<const char *> Known) {
    std::set<std::string> Seen;
    for (const auto &KV : Map) {
      std::string Key = KV.first.Scalar();
      if (std::none_of(Known.begin(), Known.end(), [&](const char *K) { return Key == K; }))
        problem(ID::ConfigUnknownKey, positionOf(KV.first), {Key, What});
      // YAML maps have unique keys; yaml-cpp keeps both and reads the first.
      else if (!Seen.insert(Key).second)
        problem(ID::ConfigDuplicateKey, positionOf(KV.first), {Key, What});
    }
  }

  std::optional<std::string> requiredScalar(const YAML::Node &Map, const char *Key,
                                            const std::string &What) {
    YAML::Node N = Map[Key];
    if (!N) {
      problem(ID::ConfigMissingKey, positionOf(Map), {What, Key});
      return std::nullopt;
    }
    if (!N.IsScalar() || N.Scalar().empty()) {
      problem(ID::ConfigBadValue, positionOf(N), {Key, "a non-empty string"});
      return std::nullopt;
    }
    return N.Scalar();
  }

  std::optional<std::string> requiredIdentifier(const YAML::Node &Map, const char *Key,
                                                const std::string &What) {
    std::optional<std::string> S = requiredScalar(Map, Key, What);
    if (S && !isIdentifier(*S)) {
      problem(ID::ConfigBadValue, positionOf(Map[Key]), {Key, "a C identifier"});
      return std::nullopt;
    }
    return S;
  }

  /// Decoded in 64 bits, so that a value past a limit is reported as itself.
  std::optional<uint64_t> positiveInteger64(const YAML::Node &N, const std::string &What) {
    uint64_t V = 0;
    if (N.IsScalar() && N.Scalar() == FillMarker) {
      problem(ID::ConfigFill, positionOf(N), {What});
      return std::nullopt;
    }
    if (!N.IsScalar() || !YAML::convert<uint64_t>::decode(N, V) || V == 0 ||
        N.Scalar().find_first_not_of("0123456789") != std::string::npos) {
      problem(ID::ConfigBadValue, positionOf(N), {What, "a positive integer"});
      return std::nullopt;
    }
    return V;
  }

  std::optional<unsigned> positiveInteger(const YAML::Node &N, const std::string &What) {
    std::optional<uint64_t> V = positiveInteger64(N, What);
    if (V && *V > std::numeric_limits<unsigned>::max()) {
      problem(ID::ConfigBadValue, positionOf(N), {What, "a positive integer below 2^32"});
      return std::nullopt;
    }
    return V;
  }

  std::optional<bool> boolean(const YAML::Node &N, const std::string &What) {
    bool V = false;
    if (!N.IsScalar() || !YAML::convert<bool>::decode(N, V)) {
      problem(ID::ConfigBadValue, positionOf(N), {What, "true or false"});
      return std::nullopt;
    }
    return V;
  }

  void readKernels(const YAML::Node &Root, Config &C) {
    YAML::Node Kernels = Root["kernels"];
    if (!Kernels) {
      problem(ID::ConfigMissingKey, positionOf(Root), {"the config", "kernels"});
      return;
    }
    if (!Kernels.IsSequence()) {
      problem(ID::ConfigBadValue, positionOf(Kernels), {"kernels", "a list of kernel entries"});
      return;
    }
    std::set<std::string> Seen;
    for (const YAML::Node &N : Kernels) {
      if (!N.IsMap()) {
        problem(ID::ConfigBadValue, positionOf(N), {"a kernel entry", "a mapping"});
        continue;
      }
      std::optional<KernelSpec> K = readKernel(N);
      if (!K && N["name"] && N["name"].IsScalar())
        BrokenKernels.insert(N["name"].Scalar());
      if (K) {
        if (!Seen.insert(K->Id).second)
          problem(ID::ConfigDuplicateName, positionOf(N["name"]), {"kernel", K->Id});
        else
          C.Kernels.push_back(std::move(*K));
      }
    }
  }

  std::string resolved(const std::string &File) const {
    std::filesystem::path Dir = std::filesystem::path(Path).parent_path();
    std::filesystem::path F(File);
    return (F.is_absolute() || Dir.empty() ? F : Dir / F).lexically_normal().string();
  }

  /// replace: [FILE, ...], each a file some kernel entry names.
  void readReplace(const YAML::Node &Root, Config &C) {
    YAML::Node Files = Root["replace"];
    if (!Files)
      return;
    const char *Expected = "a list of files that kernel entries name";
    if (!Files.IsSequence()) {
      problem(ID::ConfigBadValue, positionOf(Files), {"replace", Expected});
      return;
    }
    for (const YAML::Node &F : Files) {
      std::string File = F.IsScalar() ? resolved(F.Scalar()) : "";
      bool Named = std::any_of(C.Kernels.begin(), C.Kernels.end(),
                               [&](const KernelSpec &K) { return K.ResolvedFile == File; });
      if (!Named)
        problem(ID::ConfigBadValue, positionOf(F), {"replace", Expected});
      else if (!C.replaces(File))
        C.Replace.push_back(File);
    }
  }

  std::optional<KernelSpec> readKernel(const YAML::Node &N) {
    checkKeys(N, "a kernel entry",
              {"name", "file", "kernel", "block", "any_block_size", "any_grid", "launch", "site"});
    KernelSpec K;
    K.Position = positionOf(N);
    std::optional<std::string> Name = requiredIdentifier(N, "name", "a kernel entry");
    std::optional<std::string> File = requiredScalar(N, "file", "a kernel entry");
    std::optional<std::string> Kernel = requiredScalar(N, "kernel", "a kernel entry");
    bool Ok = Name && File && Kernel;
    if (Ok) {
      K.Id = *Name;
      K.File = *File;
      K.Kernel = *Kernel;
      K.ResolvedFile = resolved(*File);
    }
    Ok &= readBlock(N, K);
    if (YAML::Node Any = N["any_block_size"]) {
      std::optional<bool> B = boolean(Any, "any_block_size");
      Ok &= B.has_value();
      K.AnyBlockSize = B.value_or(false);
      if (K.AnyBlockSize && K.BlockRank > 1) {
        problem(ID::ConfigBadValue, positionOf(Any),
                {"any_block_size", "false for a kernel written for a multi-dimensional block"});
        Ok = false;
      }
    }
    if (YAML::Node Any = N["any_grid"]) {
      std::optional<bool> B = boolean(Any, "any_grid");
      Ok &= B.has_value();
      K.AnyGrid = B.value_or(false);
    }
    if (YAML::Node Site = N["site"]) {
      K.Site = readSite(Site);
      Ok &= K.Site.has_value();
    }
    if (YAML::Node Launch = N["launch"]; Launch && (K.LaunchFill = fillIn(Launch))) {
      // Read when FILL is replaced; tune says so.
    } else if (Launch) {
      K.Launch = readLaunch(Launch);
      Ok &= K.Launch.has_value();
      // The promise covers 1-D grids: a persistent grid replaces the launch's.
      if (K.Launch && K.AnyGrid && (K.Launch->Grid[1] != 1 || K.Launch->Grid[2] != 1)) {
        problem(ID::ConfigBadValue, positionOf(N["any_grid"]),
                {"any_grid", "false for a kernel launched with a multi-dimensional grid"});
        Ok = false;
      }
    }
    if (!Ok)
      return std::nullopt;
    return K;
  }

  /// site: FILE:LINE or FILE:LINE:COLUMN, the file relative to the config.
  std::optional<LaunchSite> readSite(const YAML::Node &N) {
    // The number after the last ':' of Text, which then loses it.
    auto Number = [](std::string &Text) -> std::optional<unsigned> {
      size_t Colon = Text.rfind(':');
      std::string Digits = Colon == std::string::npos ? "" : Text.substr(Colon + 1);
      if (Digits.empty() || Digits.size() > 9 ||
          !std::all_of(Digits.begin(), Digits.end(), [](char C) { return C >= '0' && C <= '9'; }))
        return std::nullopt;
      unsigned V = static_cast<unsigned>(std::stoul(Digits));
      if (V == 0)
        return std::nullopt;
      Text.erase(Colon);
      return V;
    };
    LaunchSite S;
    S.Position = positionOf(N);
    std::string Text = N.IsScalar() ? N.Scalar() : "";
    if (std::optional<unsigned> Last = Number(Text)) {
      S.Line = *Last;
      if (std::optional<unsigned> Line = Number(Text)) {
        S.Column = S.Line;
        S.Line = *Line;
      }
      S.File = Text;
    }
    if (S.File.empty()) {
      problem(ID::ConfigBadValue, S.Position,
              {"site", "FILE:LINE or FILE:LINE:COLUMN of the kernel's launch"});
      return std::nullopt;
    }
    S.ResolvedFile = resolved(S.File);
    return S;
  }

  /// The first FILL placeholder suggest left in \p N, if any.
  static std::optional<ConfigPosition> fillIn(const YAML::Node &N) {
    if (N.IsScalar() && N.Scalar() == FillMarker)
      return positionOf(N);
    if (N.IsSequence())
      for (const YAML::Node &E : N)
        if (std::optional<ConfigPosition> At = fillIn(E))
          return At;
    if (N.IsMap())
      for (const auto &KV : N)
        if (std::optional<ConfigPosition> At = fillIn(KV.second))
          return At;
    return std::nullopt;
  }

  std::optional<LaunchSpec> readLaunch(const YAML::Node &N) {
    if (!N.IsMap()) {
      problem(ID::ConfigBadValue, positionOf(N), {"launch", "a mapping with 'grid' and 'args'"});
      return std::nullopt;
    }
    checkKeys(N, "a launch", {"grid", "shared_bytes", "args"});
    LaunchSpec L;
    L.Position = positionOf(N);
    bool Ok = readDims(N, "grid", "a launch", L.Grid, MaxGridDims).has_value();
    if (YAML::Node Shared = N["shared_bytes"]) {
      unsigned V = 0;
      if (!Shared.IsScalar() || !YAML::convert<unsigned>::decode(Shared, V) ||
          Shared.Scalar().find_first_not_of("0123456789") != std::string::npos) {
        problem(ID::ConfigBadValue, positionOf(Shared), {"shared_bytes", "a number of bytes"});
        Ok = false;
      }
      L.SharedBytes = V;
    }
    YAML::Node Args = N["args"];
    if (!Args) {
      problem(ID::ConfigMissingKey, positionOf(N), {"a launch", "args"});
      return std::nullopt;
    }
    if (!Args.IsSequence()) {
      problem(ID::ConfigBadValue, positionOf(Args), {"args", "a list of buffers and values"});
      return std::nullopt;
    }
    for (const YAML::Node &A : Args) {
      std::optional<LaunchArg> Arg = readArg(A);
      Ok &= Arg.has_value();
      if (Arg)
        L.Args.push_back(std::move(*Arg));
    }
    if (!Ok)
      return std::nullopt;
    return L;
  }

  std::optional<LaunchArg> readArg(const YAML::Node &N) {
    LaunchArg A;
    A.Position = positionOf(N);
    if (!N.IsMap() || (bool)N["buffer"] == (bool)N["value"]) {
      problem(ID::ConfigBadValue, positionOf(N),
              {"an argument", "{buffer: TYPE, count: N[, fill: ...]} or {value: NUMBER}"});
      return std::nullopt;
    }
    if (YAML::Node Value = N["value"]) {
      checkKeys(N, "a value argument", {"value"});
      if (!Value.IsScalar() || !isNumber(Value.Scalar())) {
        problem(ID::ConfigBadValue, positionOf(Value), {"value", "a number"});
        return std::nullopt;
      }
      A.Value = Value.Scalar();
      return A;
    }
    checkKeys(N, "a buffer argument", {"buffer", "count", "fill"});
    A.IsBuffer = true;
    YAML::Node Type = N["buffer"];
    std::optional<ElementType> T = Type.IsScalar() ? elementType(Type.Scalar()) : std::nullopt;
    bool Ok = T.has_value();
    if (!T)
      problem(ID::ConfigBadValue, positionOf(Type),
              {"buffer", "an element type: " + elementNames()});
    A.Type = T.value_or(ElementType::F32);
    YAML::Node Count = N["count"];
    if (!Count) {
      problem(ID::ConfigMissingKey, positionOf(N), {"a buffer argument", "count"});
      return std::nullopt;
    }
    unsigned long long C = 0;
    if (!Count.IsScalar() || !YAML::convert<unsigned long long>::decode(Count, C) || C == 0 ||
        Count.Scalar().find_first_not_of("0123456789") != std::string::npos) {
      problem(ID::ConfigBadValue, positionOf(Count), {"count", "a positive number of elements"});
      Ok = false;
    } else if (C > std::numeric_limits<uint64_t>::max() / elementBytes(A.Type)) {
      // The harness allocates Count * element bytes, which must not wrap.
      problem(ID::ConfigBadValue, positionOf(Count),
              {"count", "a number of elements whose size in bytes fits in 64 bits"});
      Ok = false;
    }
    A.Count = C;
    if (YAML::Node Fill = N["fill"])
      Ok &= readFill(Fill, A);
    if (!Ok)
      return std::nullopt;
    if (!isFloating(A.Type) && A.Fill.How == BufferFill::Uniform && !N["fill"])
      A.Fill = {BufferFill::Uniform, 0.0, 100.0};
    return A;
  }

  /// random | zero | {uniform: [LOW, HIGH]} | {value: V}
  bool readFill(const YAML::Node &N, LaunchArg &A) {
    const char *Expected = "random, zero, {uniform: [LOW, HIGH]} or {value: V}";
    if (N.IsScalar() && (N.Scalar() == "random" || N.Scalar() == "zero")) {
      if (N.Scalar() == "zero")
        A.Fill = {BufferFill::Constant, 0.0, 0.0};
      return true;
    }
    if (N.IsMap() && N.size() == 1 && N["value"] && N["value"].IsScalar() &&
        isNumber(N["value"].Scalar())) {
      double V = std::strtod(N["value"].Scalar().c_str(), nullptr);
      A.Fill = {BufferFill::Constant, V, V};
      return true;
    }
    YAML::Node Range = N.IsMap() && N.size() == 1 ? N["uniform"] : YAML::Node();
    if (Range && Range.IsSequence() && Range.size() == 2 && Range[0].IsScalar() &&
        Range[1].IsScalar() && isNumber(Range[0].Scalar()) && isNumber(Range[1].Scalar())) {
      double Low = std::strtod(Range[0].Scalar().c_str(), nullptr);
      double High = std::strtod(Range[1].Scalar().c_str(), nullptr);
      if (Low < High) {
        A.Fill = {BufferFill::Uniform, Low, High};
        return true;
      }
    }
    problem(ID::ConfigBadValue, positionOf(N), {"fill", Expected});
    return false;
  }

  bool readBlock(const YAML::Node &N, KernelSpec &K) {
    std::optional<unsigned> Rank = readDims(N, "block", "a kernel entry", K.Block, MaxBlockDims);
    if (!Rank)
      return false;
    K.BlockRank = *Rank;
    // Each dimension fits, so the product cannot wrap; it still may exceed a block.
    if (K.blockThreads() > MaxBlockThreads) {
      problem(ID::ConfigBlockThreads, positionOf(N["block"]),
              {shape(K.Block, K.BlockRank), std::to_string(K.blockThreads()),
               std::to_string(MaxBlockThreads)});
      return false;
    }
    return true;
  }

  static std::string shape(const std::array<unsigned, 3> &Dims, unsigned Rank) {
    std::string S;
    for (unsigned I = 0; I < Rank; ++I)
      S += (I ? " x " : "") + std::to_string(Dims[I]);
    return S;
  }

  void readFusions(const YAML::Node &Root, Config &C) {
    YAML::Node Fusions = Root["fusions"];
    if (!Fusions) {
      problem(ID::ConfigMissingKey, positionOf(Root), {"the config", "fusions"});
      return;
    }
    if (!Fusions.IsSequence() || Fusions.size() == 0) {
      problem(ID::ConfigBadValue, positionOf(Fusions),
              {"fusions", "a list of one or more fusion entries"});
      return;
    }
    // Every fusion's line, so that naming one defined later says so.
    for (const YAML::Node &N : Fusions)
      if (N.IsMap() && N["name"] && N["name"].IsScalar())
        FusionLines.emplace(N["name"].Scalar(), positionOf(N["name"]).Line);
    std::set<std::string> Seen;
    for (const YAML::Node &N : Fusions) {
      if (!N.IsMap()) {
        problem(ID::ConfigBadValue, positionOf(N), {"a fusion entry", "a mapping"});
        continue;
      }
      if (std::optional<FusionSpec> F = readFusion(N, C)) {
        if (!Seen.insert(F->Name).second)
          problem(ID::ConfigDuplicateName, positionOf(N["name"]), {"fusion", F->Name});
        else
          C.Fusions.push_back(std::move(*F));
      }
    }
  }

  std::optional<FusionSpec> readFusion(const YAML::Node &N, const Config &C) {
    checkKeys(N, "a fusion entry",
              {"name", "mode", "kernels", "partition", "threads", "grid", "tune", "flows", "same",
               "distinct_buffers", "alternative", "reductions", "blocks_per_iteration", "coarsen"});
    FusionSpec F;
    F.Position = positionOf(N);
    std::optional<std::string> Name = requiredIdentifier(N, "name", "a fusion entry");
    bool Ok = Name.has_value();
    F.Name = Name.value_or("");
    if (YAML::Node Mode = N["mode"]) {
      if (!Mode.IsScalar()) {
        problem(ID::ConfigBadValue, positionOf(Mode), {"mode", "'horizontal' or 'vertical'"});
        Ok = false;
      } else if (Mode.Scalar() == "vertical") {
        F.Mode = FusionMode::Vertical;
      } else if (Mode.Scalar() != "horizontal") {
        problem(ID::ConfigUnsupportedMode, positionOf(Mode), {Mode.Scalar()});
        Ok = false;
      }
    }
    Ok &= readFusionKernels(N, C, F);
    if (YAML::Node Distinct = N["distinct_buffers"]) {
      std::optional<bool> B = boolean(Distinct, "distinct_buffers");
      Ok &= B.has_value();
      F.DistinctBuffers = B.value_or(false);
    }
    if (YAML::Node Alternative = N["alternative"]) {
      std::optional<bool> B = boolean(Alternative, "alternative");
      Ok &= B.has_value();
      F.Alternative = B.value_or(false);
    }
    for (const char *Key : {"flows", "same"})
      if (N[Key] && F.Mode != FusionMode::Vertical) {
        problem(ID::ConfigBadValue, positionOf(N[Key]), {Key, "given for vertical fusions only"});
        Ok = false;
      }
    if (YAML::Node Flows = N["flows"])
      Ok &= readFlows(Flows, F);
    if (YAML::Node Same = N["same"])
      Ok &= readSame(Same, F);
    if (YAML::Node Partition = N["partition"]) {
      F.PartitionPosition = positionOf(Partition);
      if (!Partition.IsSequence() || Partition.size() == 0) {
        problem(ID::ConfigBadValue, positionOf(Partition),
                {"partition", "a list of thread counts"});
        Ok = false;
      } else {
        for (const YAML::Node &P : Partition) {
          std::optional<unsigned> V = positiveInteger(P, "partition");
          Ok &= V.has_value();
          F.Partition.push_back(V.value_or(0));
        }
      }
    }
    if (YAML::Node Threads = N["threads"]) {
      F.Threads = positiveInteger(Threads, "threads");
      Ok &= F.Threads.has_value();
    }
    if (YAML::Node Grid = N["grid"]) {
      std::optional<GridMode> M = gridMode(Grid, "grid");
      // One kernel at a time per fused block is not a vertical chain.
      if (M && stacksRanges(*M) && F.Mode == FusionMode::Vertical) {
        problem(ID::ConfigBadValue, positionOf(Grid),
                {"grid", "'as-launched', 'persistent' or 'dynamic' for a vertical fusion"});
        M.reset();
      }
      Ok &= M.has_value();
      F.Grid = M;
    }
    if (YAML::Node Reductions = N["reductions"]) {
      std::optional<ReductionStyle> S =
          Reductions.IsScalar() ? parseReductionStyle(Reductions.Scalar()) : std::nullopt;
      if (!S)
        problem(ID::ConfigBadValue, positionOf(Reductions),
                {"reductions", "'as-written' or 'one-warp'"});
      Ok &= S.has_value();
      F.Reductions = S.value_or(ReductionStyle::AsWritten);
    }
    if (YAML::Node PerIteration = N["blocks_per_iteration"])
      Ok &= readBlocksPerIteration(PerIteration, F);
    if (YAML::Node Coarsen = N["coarsen"])
      Ok &= readCoarsen(Coarsen, F);
    if (YAML::Node Tune = N["tune"])
      Ok &= readTune(Tune, F.Tune);
    if (!Ok)
      return std::nullopt;
    return F;
  }

  /// A vertical fusion's fused block runs 1 to 8 original blocks at a time,
  /// on the grid as launched or a persistent one.
  bool readBlocksPerIteration(const YAML::Node &N, FusionSpec &F) {
    std::optional<unsigned> B = positiveInteger(N, "blocks_per_iteration");
    if (!B)
      return false;
    if (*B > 8) {
      problem(ID::ConfigBadValue, positionOf(N), {"blocks_per_iteration", "1 to 8"});
      return false;
    }
    if (*B > 1 && (F.Mode != FusionMode::Vertical || (F.Grid && *F.Grid != GridMode::AsLaunched &&
                                                      *F.Grid != GridMode::Persistent))) {
      problem(ID::ConfigBadValue, positionOf(N),
              {"blocks_per_iteration",
               "1 except in a vertical fusion on the grid as launched or a persistent one"});
      return false;
    }
    F.BlocksPerIteration = *B;
    return true;
  }

  /// A horizontal fusion's ranges of elementwise kernels run 1 to 8 of
  /// their blocks per iteration of a persistent grid: one count for every
  /// kernel, or a list of one per kernel.
  bool readCoarsen(const YAML::Node &N, FusionSpec &F) {
    const char *Expected = "1 to 8, or a list of 1 to 8 per kernel";
    std::vector<YAML::Node> Counts;
    if (N.IsSequence())
      for (const YAML::Node &C : N)
        Counts.push_back(C);
    else
      Counts.assign(F.Kernels.size(), N);
    if (Counts.size() != F.Kernels.size()) {
      problem(ID::ConfigBadValue, positionOf(N), {"coarsen", Expected});
      return false;
    }
    std::vector<unsigned> Blocks;
    for (const YAML::Node &C : Counts) {
      std::optional<unsigned> B = positiveInteger(C, "coarsen");
      if (!B)
        return false;
      if (*B > 8) {
        problem(ID::ConfigBadValue, positionOf(C), {"coarsen", Expected});
        return false;
      }
      Blocks.push_back(*B);
    }
    bool Coarsens = std::any_of(Blocks.begin(), Blocks.end(), [](unsigned B) { return B > 1; });
    if (Coarsens &&
        (F.Mode != FusionMode::Horizontal || (F.Grid && *F.Grid != GridMode::Persistent))) {
      problem(ID::ConfigBadValue, positionOf(N),
              {"coarsen", "1 except in a horizontal fusion on a persistent grid"});
      return false;
    }
    if (Coarsens)
      F.Coarsen = std::move(Blocks);
    return true;
  }

  /// "kernel.param" naming a parameter of a kernel of \p F.
  std::optional<ParamRef> paramRef(const YAML::Node &N, const char *Key, const FusionSpec &F) {
    std::string Expected = "'kernel.parameter' naming a kernel of fusion '" + F.Name + "'";
    std::string Text = N && N.IsScalar() ? N.Scalar() : "";
    size_t Dot = Text.find('.');
    ParamRef R;
    if (Dot != std::string::npos) {
      R.Kernel = Text.substr(0, Dot);
      R.Param = Text.substr(Dot + 1);
    }
    R.Position = positionOf(N);
    if (!isIdentifier(R.Kernel) || !isIdentifier(R.Param) ||
        std::find(F.Kernels.begin(), F.Kernels.end(), R.Kernel) == F.Kernels.end()) {
      problem(ID::ConfigBadValue, R.Position, {Key, Expected});
      return std::nullopt;
    }
    return R;
  }

  size_t indexOf(const FusionSpec &F, const std::string &Kernel) {
    return std::find(F.Kernels.begin(), F.Kernels.end(), Kernel) - F.Kernels.begin();
  }

  bool readFlows(const YAML::Node &Flows, FusionSpec &F) {
    if (!Flows.IsSequence()) {
      problem(ID::ConfigBadValue, positionOf(Flows), {"flows", "a list of flow entries"});
      return false;
    }
    bool Ok = true;
    for (const YAML::Node &N : Flows) {
      if (!N.IsMap()) {
        problem(ID::ConfigBadValue, positionOf(N), {"a flow entry", "a mapping"});
        Ok = false;
        continue;
      }
      checkKeys(N, "a flow entry", {"from", "to", "temporary"});
      FlowSpec Flow;
      Flow.Position = positionOf(N);
      for (const char *Key : {"from", "to"})
        if (!N[Key]) {
          problem(ID::ConfigMissingKey, Flow.Position, {"a flow entry", Key});
          Ok = false;
        }
      if (!N["from"] || !N["to"])
        continue;
      std::optional<ParamRef> From = paramRef(N["from"], "from", F);
      std::optional<ParamRef> To = paramRef(N["to"], "to", F);
      if (YAML::Node Temporary = N["temporary"]) {
        std::optional<bool> V = boolean(Temporary, "temporary");
        Ok &= V.has_value();
        Flow.Temporary = V.value_or(false);
      }
      if (!From || !To) {
        Ok = false;
        continue;
      }
      if (indexOf(F, To->Kernel) <= indexOf(F, From->Kernel)) {
        problem(ID::ConfigBadValue, To->Position,
                {"to", "a parameter of a kernel that runs after '" + From->Kernel + "'"});
        Ok = false;
        continue;
      }
      Flow.From = *From;
      Flow.To = *To;
      F.Flows.push_back(std::move(Flow));
    }
    return Ok;
  }

  bool readSame(const YAML::Node &Same, FusionSpec &F) {
    const char *Expected = "a list of groups of two or more 'kernel.parameter'";
    if (!Same.IsSequence()) {
      problem(ID::ConfigBadValue, positionOf(Same), {"same", Expected});
      return false;
    }
    bool Ok = true;
    for (const YAML::Node &Group : Same) {
      if (!Group.IsSequence() || Group.size() < 2) {
        problem(ID::ConfigBadValue, positionOf(Group), {"same", Expected});
        Ok = false;
        continue;
      }
      std::vector<ParamRef> Refs;
      for (const YAML::Node &N : Group)
        if (std::optional<ParamRef> R = paramRef(N, "same", F))
          Refs.push_back(*R);
        else
          Ok = false;
      F.Same.push_back(std::move(Refs));
    }
    return Ok;
  }

  std::optional<GridMode> gridMode(const YAML::Node &N, const char *Key) {
    std::optional<GridMode> M = N.IsScalar() ? parseGridMode(N.Scalar()) : std::nullopt;
    if (!M)
      problem(ID::ConfigBadValue, positionOf(N),
              {Key, "'as-launched', 'persistent', 'dynamic' or 'proportional'"});
    return M;
  }

  bool readTune(const YAML::Node &N, TuneSpec &T) {
    if (!N.IsMap()) {
      problem(ID::ConfigBadValue, positionOf(N), {"tune", "a mapping"});
      return false;
    }
    checkKeys(N, "tune", {"step", "samples", "tolerance", "grids"});
    bool Ok = true;
    if (YAML::Node Grids = N["grids"]) {
      if (!Grids.IsSequence() || Grids.size() == 0) {
        problem(ID::ConfigBadValue, positionOf(Grids), {"grids", "a list of grid modes"});
        Ok = false;
      } else {
        T.Grids.clear();
        for (const YAML::Node &G : Grids) {
          std::optional<GridMode> M = gridMode(G, "grids");
          Ok &= M.has_value();
          if (M && std::find(T.Grids.begin(), T.Grids.end(), *M) == T.Grids.end())
            T.Grids.push_back(*M);
        }
      }
    }
    if (YAML::Node Step = N["step"]) {
      std::optional<unsigned> V = positiveInteger(Step, "step");
      if (V && *V % 32 != 0) {
        problem(ID::ConfigBadValue, positionOf(Step), {"step", "a multiple of 32 (a warp)"});
        V.reset();
      }
      Ok &= V.has_value();
      T.Step = V.value_or(T.Step);
    }
    if (YAML::Node Samples = N["samples"]) {
      std::optional<unsigned> V = positiveInteger(Samples, "samples");
      if (V && *V < 20) {
        problem(ID::ConfigBadValue, positionOf(Samples), {"samples", "at least 20"});
        V.reset();
      }
      Ok &= V.has_value();
      T.Samples = V.value_or(T.Samples);
    }
    if (YAML::Node Tolerance = N["tolerance"]) {
      double V = -1.0;
      if (Tolerance.IsScalar() && isNumber(Tolerance.Scalar()))
        V = std::strtod(Tolerance.Scalar().c_str(), nullptr);
      if (V < 0.0) {
        problem(ID::ConfigBadValue, positionOf(Tolerance), {"tolerance", "a number, 0 or more"});
        Ok = false;
      }
      T.Tolerance = V < 0.0 ? T.Tolerance : V;
    }
    return Ok;
  }

  /// A list of 1 to 3 positive integers (or one integer) under \p Key; how
  /// many were given.
  std::optional<unsigned> readDims(const YAML::Node &Map, const char *Key, const std::string &What,
                                   std::array<unsigned, 3> &Out,
                                   const std::array<uint64_t, 3> &Limits) {
    YAML::Node N = Map[Key];
    if (!N) {
      problem(ID::ConfigMissingKey, positionOf(Map), {What, Key});
      return std::nullopt;
    }
    std::vector<YAML::Node> Dims;
    if (N.IsScalar())
      Dims.push_back(N);
    else if (N.IsSequence() && N.size() >= 1 && N.size() <= 3)
      for (const YAML::Node &D : N)
        Dims.push_back(D);
    if (Dims.empty()) {
      problem(ID::ConfigBadValue, positionOf(N), {Key, "a list of 1 to 3 positive integers"});
      return std::nullopt;
    }
    bool Ok = true;
    for (size_t I = 0; I < Dims.size(); ++I) {
      std::optional<uint64_t> V = positiveInteger64(Dims[I], Key);
      if (V && *V > Limits[I]) {
        problem(ID::ConfigCudaLimit, positionOf(Dims[I]),
                {Key, std::string(1, "xyz"[I]), std::to_string(*V), std::to_string(Limits[I])});
        V.reset();
      }
      Ok &= V.has_value();
      Out[I] = static_cast<unsigned>(V.value_or(1));
    }
    if (!Ok)
      return std::nullopt;
    return static_cast<unsigned>(Dims.size());
  }

  bool readFusionKernels(const YAML::Node &N, const Config &C, FusionSpec &F) {
    YAML::Node Kernels = N["kernels"];
    if (!Kernels) {
      problem(ID::ConfigMissingKey, positionOf(N), {"a fusion entry", "kernels"});
      return false;
    }
    if (!Kernels.IsSequence()) {
      problem(ID::ConfigBadValue, positionOf(Kernels), {"kernels", "a list of kernel names"});
      return false;
    }
    const char *Expected =
        "kernel names, or in a horizontal fusion the names of vertical fusions defined before it";
    bool Ok = true;
    for (const YAML::Node &K : Kernels) {
      if (!K.IsScalar()) {
        problem(ID::ConfigBadValue, positionOf(K), {"kernels", "a list of kernel names"});
        Ok = false;
      } else if (BrokenKernels.count(K.Scalar())) {
        Ok = false;
      } else if (const FusionSpec *Inner =
                     C.findKernel(K.Scalar()) ? nullptr : C.findFusion(K.Scalar())) {
        // A vertical chain runs as one kernel of a horizontal fusion.
        if (F.Mode != FusionMode::Horizontal || Inner->Mode != FusionMode::Vertical) {
          problem(ID::ConfigBadValue, positionOf(K), {"kernels", Expected});
          Ok = false;
        } else {
          F.Kernels.push_back(K.Scalar());
        }
      } else if (auto Other = FusionLines.find(K.Scalar());
                 Other != FusionLines.end() && !C.findKernel(K.Scalar())) {
        // A fusion not defined yet: itself, a later one, or an earlier one
        // whose own problems were reported.
        if (K.Scalar() == F.Name)
          problem(ID::ConfigBadValue, positionOf(K), {"kernels", Expected});
        else if (Other->second > F.Position.Line)
          problem(ID::ConfigFusionOrder, positionOf(K),
                  {F.Name, K.Scalar(), std::to_string(Other->second)});
        Ok = false;
      } else if (!C.findKernel(K.Scalar())) {
        problem(ID::ConfigUnknownKernel, positionOf(K), {F.Name, K.Scalar()});
        Ok = false;
      } else if (std::count(F.Kernels.begin(), F.Kernels.end(), K.Scalar())) {
        // Each entry prefixes its renamed symbols; fusing a kernel with itself takes two entries.
        problem(ID::ConfigRepeatedKernel, positionOf(K), {F.Name, K.Scalar()});
        Ok = false;
      } else {
        F.Kernels.push_back(K.Scalar());
      }
    }
    std::vector<std::string> All = C.kernelsOf(F);
    for (size_t I = 0; Ok && I < All.size(); ++I)
      if (std::count(All.begin(), All.end(), All[I]) > 1) {
        problem(ID::ConfigRepeatedKernel, positionOf(Kernels), {F.Name, All[I]});
        Ok = false;
      }
    if (Ok && F.Kernels.size() < 2) {
      problem(ID::ConfigTooFewKernels, positionOf(Kernels),
              {F.Name, std::to_string(F.Kernels.size())});
      Ok = false;
    }
    return Ok;
  }
};

} // namespace

bool isIdentifier(const std::string &S) {
  if (S.empty() || !(std::isalpha(static_cast<unsigned char>(S[0])) || S[0] == '_'))
    return false;
  return std::all_of(S.begin(), S.end(), [](char C) {
    return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
  });
}

ConfigResult parseConfig(const std::string &Text, const std::string &Path) {
  return ConfigReader(Path).read(Text);
}

} // namespace kfuse

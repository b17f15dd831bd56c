//===- Config.cpp - reading the fusion config from YAML -------------------===//

#include "kfuse/Config/Config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace kfuse {

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

namespace {

using diag::ID;

ConfigPosition positionOf(const YAML::Node &N) {
  YAML::Mark M = N.Mark();
  if (M.is_null())
    return {};
  return {static_cast<unsigned>(M.line + 1), static_cast<unsigned>(M.column + 1)};
}

bool isIdentifier(const std::string &S) {
  if (S.empty() || !(std::isalpha(static_cast<unsigned char>(S[0])) || S[0] == '_'))
    return false;
  return std::all_of(S.begin(), S.end(), [](char C) {
    return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
  });
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
      problem(ID::ConfigSyntax, {static_cast<unsigned>(E.mark.line + 1),
                                 static_cast<unsigned>(E.mark.column + 1)},
              {E.msg});
      Result.Problems = std::move(Problems);
      return Result;
    }
    Config C;
    C.Path = Path;
    if (!Root.IsMap()) {
      problem(ID::ConfigBadValue, positionOf(Root), {"the config", "a mapping with 'kernels' and 'fusions'"});
    } else {
      checkKeys(Root, "the config", {"kernels", "fusions"});
      readKernels(Root, C);
      readFusions(Root, C);
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

  void problem(ID Id, ConfigPosition P, std::vector<std::string> Args) {
    Problems.push_back({Id, P.Line, P.Column, std::move(Args)});
  }

  void checkKeys(const YAML::Node &Map, const std::string &What,
                 std::initializer_list<const char *> Known) {
    for (const auto &KV : Map) {
      std::string Key = KV.first.Scalar();
      if (std::none_of(Known.begin(), Known.end(), [&](const char *K) { return Key == K; }))
        problem(ID::ConfigUnknownKey, positionOf(KV.first), {Key, What});
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

  std::optional<unsigned> positiveInteger(const YAML::Node &N, const std::string &What) {
    unsigned V = 0;
    if (!N.IsScalar() || !YAML::convert<unsigned>::decode(N, V) || V == 0 ||
        N.Scalar().find_first_not_of("0123456789") != std::string::npos) {
      problem(ID::ConfigBadValue, positionOf(N), {What, "a positive integer"});
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

  std::optional<KernelSpec> readKernel(const YAML::Node &N) {
    checkKeys(N, "a kernel entry", {"name", "file", "kernel", "block", "any_block_size"});
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
      std::filesystem::path Dir = std::filesystem::path(Path).parent_path();
      std::filesystem::path F(*File);
      K.ResolvedFile = (F.is_absolute() || Dir.empty() ? F : Dir / F).lexically_normal().string();
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
    if (!Ok)
      return std::nullopt;
    return K;
  }

  bool readBlock(const YAML::Node &N, KernelSpec &K) {
    YAML::Node Block = N["block"];
    if (!Block) {
      problem(ID::ConfigMissingKey, positionOf(N), {"a kernel entry", "block"});
      return false;
    }
    std::vector<YAML::Node> Dims;
    if (Block.IsScalar())
      Dims.push_back(Block);
    else if (Block.IsSequence() && Block.size() >= 1 && Block.size() <= 3)
      for (const YAML::Node &D : Block)
        Dims.push_back(D);
    if (Dims.empty()) {
      problem(ID::ConfigBadValue, positionOf(Block), {"block", "a list of 1 to 3 positive integers"});
      return false;
    }
    bool Ok = true;
    for (size_t I = 0; I < Dims.size(); ++I) {
      std::optional<unsigned> V = positiveInteger(Dims[I], "block");
      Ok &= V.has_value();
      K.Block[I] = V.value_or(1);
    }
    K.BlockRank = static_cast<unsigned>(Dims.size());
    if (Ok && (K.Block[2] > 64 || K.blockThreads() > 1024)) {
      problem(ID::ConfigBadValue, positionOf(Block),
              {"block", "a CUDA block shape: at most 1024 threads and z at most 64"});
      Ok = false;
    }
    return Ok;
  }

  void readFusions(const YAML::Node &Root, Config &C) {
    YAML::Node Fusions = Root["fusions"];
    if (!Fusions) {
      problem(ID::ConfigMissingKey, positionOf(Root), {"the config", "fusions"});
      return;
    }
    if (!Fusions.IsSequence()) {
      problem(ID::ConfigBadValue, positionOf(Fusions), {"fusions", "a list of fusion entries"});
      return;
    }
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
    checkKeys(N, "a fusion entry", {"name", "mode", "kernels", "partition", "threads"});
    FusionSpec F;
    F.Position = positionOf(N);
    std::optional<std::string> Name = requiredIdentifier(N, "name", "a fusion entry");
    bool Ok = Name.has_value();
    F.Name = Name.value_or("");
    if (YAML::Node Mode = N["mode"]) {
      if (!Mode.IsScalar()) {
        problem(ID::ConfigBadValue, positionOf(Mode), {"mode", "'horizontal'"});
        Ok = false;
      } else if (Mode.Scalar() != "horizontal") {
        problem(ID::ConfigUnsupportedMode, positionOf(Mode), {Mode.Scalar()});
        Ok = false;
      }
    }
    Ok &= readFusionKernels(N, C, F);
    if (YAML::Node Partition = N["partition"]) {
      F.PartitionPosition = positionOf(Partition);
      if (!Partition.IsSequence() || Partition.size() == 0) {
        problem(ID::ConfigBadValue, positionOf(Partition), {"partition", "a list of thread counts"});
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
    if (!Ok)
      return std::nullopt;
    return F;
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
    bool Ok = true;
    for (const YAML::Node &K : Kernels) {
      if (!K.IsScalar()) {
        problem(ID::ConfigBadValue, positionOf(K), {"kernels", "a list of kernel names"});
        Ok = false;
      } else if (BrokenKernels.count(K.Scalar())) {
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
    if (Ok && F.Kernels.size() < 2) {
      problem(ID::ConfigTooFewKernels, positionOf(Kernels),
              {F.Name, std::to_string(F.Kernels.size())});
      Ok = false;
    }
    return Ok;
  }
};

} // namespace

ConfigResult parseConfig(const std::string &Text, const std::string &Path) {
  return ConfigReader(Path).read(Text);
}

} // namespace kfuse

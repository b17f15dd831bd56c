//===- NvccCommand.cpp - nvcc compile commands as Clang reads them --------===//
//
// nvcc accepts every option with one or two dashes, its value after '=' or
// as the next argument, and the one-letter ones (-I, -D, -U, -O, -L, -l)
// also with the value attached. The macros nvcc defines for an option were
// read from `nvcc --dryrun` (CUDA 13.0).
//
//===----------------------------------------------------------------------===//

#include "kfuse/Frontend/NvccCommand.h"

#include "kfuse/Diagnostics/InputFiles.h"
#include "kfuse/Diagnostics/Reporter.h"

#include "clang/Basic/Cuda.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

#include <set>

namespace kfuse {
namespace {

enum class Action {
  Define,        ///< -D
  Undefine,      ///< -U
  Include,       ///< -I
  SystemInclude, ///< -isystem
  PreInclude,    ///< -include
  Std,           ///< -std=
  Optimize,      ///< -O
  Compile,       ///< -c
  Output,        ///< -o
  NoWarnings,    ///< -w
  Rdc,           ///< -rdc=true: -fgpu-rdc
  DeviceCompile, ///< -dc: -rdc=true -c
  Arch,          ///< -arch
  Code,          ///< -code
  Gencode,       ///< -gencode arch=...,code=...
  OptionsFile,   ///< more options, read from a file
  DefaultStream, ///< --default-stream per-thread
  Macro,         ///< a flag nvcc turns into a macro for the device code
  Drop,          ///< no meaning for a device-side parse
};

struct NvccOption {
  const char *Short;
  const char *Long;
  bool TakesValue;
  Action What;
  const char *MacroDefinition = nullptr; ///< For Action::Macro.
};

// nvcc's own options, as `nvcc --help` names them.
const NvccOption Options[] = {
    {"D", "define-macro", true, Action::Define},
    {"U", "undefine-macro", true, Action::Undefine},
    {"I", "include-path", true, Action::Include},
    {"isystem", "system-include", true, Action::SystemInclude},
    {"include", "pre-include", true, Action::PreInclude},
    {"std", "std", true, Action::Std},
    {"O", "optimize", true, Action::Optimize},
    {"c", "compile", false, Action::Compile},
    {"o", "output-file", true, Action::Output},
    {"w", "disable-warnings", false, Action::NoWarnings},
    {"rdc", "relocatable-device-code", true, Action::Rdc},
    {"dc", "device-c", false, Action::DeviceCompile},
    {"arch", "gpu-architecture", true, Action::Arch},
    {"code", "gpu-code", true, Action::Code},
    {"gencode", "generate-code", true, Action::Gencode},
    {"optf", "options-file", true, Action::OptionsFile},
    {"default-stream", "default-stream", true, Action::DefaultStream},
    {"G", "device-debug", false, Action::Macro, "__CUDACC_DEBUG__"},
    {"expt-relaxed-constexpr", "expt-relaxed-constexpr", false, Action::Macro,
     "__CUDACC_RELAXED_CONSTEXPR__"},
    {"extended-lambda", "extended-lambda", false, Action::Macro, "__CUDACC_EXTENDED_LAMBDA__"},
    {"expt-extended-lambda", "expt-extended-lambda", false, Action::Macro,
     "__CUDACC_EXTENDED_LAMBDA__"},
    // Host compiler, device code generation, linking, output and messages.
    {"ccbin", "compiler-bindir", true, Action::Drop},
    {"Xcompiler", "compiler-options", true, Action::Drop},
    {"Xptxas", "ptxas-options", true, Action::Drop},
    {"Xnvlink", "nvlink-options", true, Action::Drop},
    {"Xlinker", "linker-options", true, Action::Drop},
    {"Xarchive", "archive-options", true, Action::Drop},
    {"Xfatbin", "fatbin-options", true, Action::Drop},
    {"Xcudafe", "Xcudafe", true, Action::Drop},
    {"maxrregcount", "maxrregcount", true, Action::Drop},
    {"cudart", "cudart", true, Action::Drop},
    {"cudadevrt", "cudadevrt", true, Action::Drop},
    {"t", "threads", true, Action::Drop},
    {"split-compile", "split-compile", true, Action::Drop},
    {"keep-dir", "keep-dir", true, Action::Drop},
    {"odir", "output-directory", true, Action::Drop},
    {"MF", "dependency-output", true, Action::Drop},
    {"MT", "dependency-target-name", true, Action::Drop},
    {"x", "x", true, Action::Drop}, // kfuse reads every file as CUDA.
    {"L", "library-path", true, Action::Drop},
    {"l", "library", true, Action::Drop},
    {"ftz", "ftz", true, Action::Drop},
    {"prec-div", "prec-div", true, Action::Drop},
    {"prec-sqrt", "prec-sqrt", true, Action::Drop},
    {"fmad", "fmad", true, Action::Drop},
    {"dopt", "dopt", true, Action::Drop},
    {"time", "time", true, Action::Drop},
    {"run-args", "run-args", true, Action::Drop},
    {"diag-suppress", "diag-suppress", true, Action::Drop},
    {"diag-error", "diag-error", true, Action::Drop},
    {"diag-warn", "diag-warn", true, Action::Drop},
    {"Werror", "Werror", true, Action::Drop},
    {"lineinfo", "generate-line-info", false, Action::Drop},
    {"use_fast_math", "use_fast_math", false, Action::Drop},
    {"forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler", false, Action::Drop},
    {"forward-unknown-to-host-linker", "forward-unknown-to-host-linker", false, Action::Drop},
    {"forward-unknown-opts", "forward-unknown-opts", false, Action::Drop},
    {"allow-unsupported-compiler", "allow-unsupported-compiler", false, Action::Drop},
    {"M", "generate-dependencies", false, Action::Drop},
    {"MM", "generate-nonsystem-dependencies", false, Action::Drop},
    {"MD", "generate-dependencies-with-compile", false, Action::Drop},
    {"MMD", "generate-nonsystem-dependencies-with-compile", false, Action::Drop},
    {"MP", "generate-dependency-targets", false, Action::Drop},
};

/// Options nvcc takes with the value attached: -DX, -Ipath, -O3.
const Action *attachedAction(llvm::StringRef Body, llvm::StringRef &Value) {
  static const std::pair<char, Action> Attached[] = {
      {'D', Action::Define},   {'U', Action::Undefine}, {'I', Action::Include},
      {'O', Action::Optimize}, {'L', Action::Drop},     {'l', Action::Drop}};
  for (const auto &[Letter, What] : Attached)
    if (Body.size() > 1 && Body.front() == Letter) {
      Value = Body.drop_front();
      return &What;
    }
  return nullptr;
}

const NvccOption *findOption(llvm::StringRef Name) {
  for (const NvccOption &O : Options)
    if (Name == O.Short || Name == O.Long)
      return &O;
  return nullptr;
}

/// "sm_90", "compute_90a", "lto_90" to the number Clang and nvcc give
/// __CUDA_ARCH__ (900), if the name has one.
std::optional<unsigned> archNumber(llvm::StringRef Arch) {
  for (llvm::StringRef Prefix : {"sm_", "compute_", "lto_"})
    if (Arch.consume_front(Prefix)) {
      unsigned N = 0;
      llvm::StringRef Digits = Arch.take_while(llvm::isDigit);
      if (Digits.empty() || Digits.getAsInteger(10, N))
        return std::nullopt;
      return N * 10;
    }
  return std::nullopt;
}

/// The items of an nvcc list value: "a,b", "[a,b]" or "\"a,b\"".
std::vector<std::string> listItems(llvm::StringRef Value) {
  Value = Value.trim().trim("[]\"'");
  llvm::SmallVector<llvm::StringRef, 4> Items;
  Value.split(Items, ',', -1, /*KeepEmpty=*/false);
  std::vector<std::string> Result;
  for (llvm::StringRef I : Items)
    Result.push_back(I.trim().trim("[]\"'").str());
  return Result;
}

class Translator {
public:
  Translator(llvm::StringRef Directory, TranslatedCommand &Out) : Directory(Directory), Out(Out) {}

  /// Translates the options in \p Args (argv without the compiler), read
  /// from the options file \p From when not empty.
  void translate(llvm::ArrayRef<std::string> Args, unsigned Depth = 0, llvm::StringRef From = "") {
    for (size_t I = 0; I < Args.size() && Out.Error.empty(); ++I) {
      llvm::StringRef Arg = Args[I];
      if (Arg.starts_with("@")) {
        // Clang would expand it as a response file; nvcc reads none.
        Out.Error = "'" + Arg.str() + "'" +
                    (From.empty() ? "" : " in nvcc options file '" + From.str() + "'") +
                    " names a response file, which nvcc does not read; nvcc takes "
                    "'--options-file FILE'";
        return;
      }
      if (!Arg.starts_with("-") || Arg == "-") {
        Out.Args.push_back(Arg.str()); // An input file.
        continue;
      }
      llvm::StringRef Body = Arg.drop_front(Arg.starts_with("--") ? 2 : 1);
      auto [Name, Attached] = Body.split('=');
      bool HasEquals = Body.contains('=');
      const NvccOption *O = findOption(Name);
      if (!O) {
        llvm::StringRef Value;
        if (const Action *What = Arg.starts_with("--") ? nullptr : attachedAction(Body, Value))
          apply(*What, nullptr, Arg, Value, Depth);
        else
          Out.Dropped.push_back(Arg.str()); // For the host compiler, which kfuse does not run.
        continue;
      }
      if (!O->TakesValue) {
        apply(O->What, O, Arg, "", Depth);
        continue;
      }
      std::string Value = Attached.str();
      std::string Spelling = Arg.str();
      if (!HasEquals) {
        if (I + 1 == Args.size()) {
          Out.Error = "nvcc option '" + Arg.str() + "' has no value";
          return;
        }
        Value = Args[++I];
        Spelling += " " + Value;
      }
      apply(O->What, O, Spelling, Value, Depth);
    }
  }

  void finish() {
    // nvcc tells the code which architectures it builds for.
    std::set<unsigned> Numbers;
    for (const std::string &A : Out.GpuArchs) {
      std::optional<unsigned> N = archNumber(A);
      if (!N)
        return; // "native" or "all": the list is not known here.
      Numbers.insert(*N);
    }
    if (Numbers.empty())
      return;
    std::string List;
    for (unsigned N : Numbers)
      List += (List.empty() ? "" : ",") + std::to_string(N);
    Out.Args.push_back("-D__CUDA_ARCH_LIST__=" + List);
  }

private:
  llvm::StringRef Directory;
  TranslatedCommand &Out;

  void apply(Action What, const NvccOption *O, llvm::StringRef Spelling, llvm::StringRef Value,
             unsigned Depth) {
    std::vector<std::string> &A = Out.Args;
    switch (What) {
    case Action::Define:
      A.push_back("-D" + Value.str());
      return;
    case Action::Undefine:
      A.push_back("-U" + Value.str());
      return;
    case Action::Include:
      A.push_back("-I" + Value.str());
      return;
    case Action::SystemInclude:
      A.insert(A.end(), {"-isystem", Value.str()});
      return;
    case Action::PreInclude:
      A.insert(A.end(), {"-include", Value.str()});
      return;
    case Action::Std:
      A.push_back("-std=" + Value.str());
      return;
    case Action::Optimize:
      A.push_back("-O" + Value.str());
      return;
    case Action::Compile:
      A.push_back("-c");
      return;
    case Action::Output:
      A.insert(A.end(), {"-o", Value.str()});
      return;
    case Action::NoWarnings:
      A.push_back("-w");
      return;
    case Action::Rdc:
      if (Value == "true")
        A.insert(A.end(), {"-fgpu-rdc", "-D__CUDACC_RDC__"});
      return;
    case Action::DeviceCompile:
      A.insert(A.end(), {"-fgpu-rdc", "-D__CUDACC_RDC__", "-c"});
      return;
    case Action::Arch:
    case Action::Code:
      for (std::string &Item : listItems(Value))
        Out.GpuArchs.push_back(std::move(Item));
      return;
    case Action::Gencode:
      gencode(Value);
      return;
    case Action::OptionsFile:
      optionsFile(Value, Depth);
      return;
    case Action::DefaultStream:
      if (Value == "per-thread")
        A.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
      return;
    case Action::Macro:
      A.push_back(std::string("-D") + O->MacroDefinition);
      return;
    case Action::Drop:
      Out.Dropped.push_back(Spelling.str());
      return;
    }
  }

  /// arch=compute_80,code=[compute_80,sm_80]: the real architectures of
  /// code=, or arch= when code= names none.
  void gencode(llvm::StringRef Value) {
    std::string Arch, Code, *Into = nullptr;
    for (const std::string &Item : listItems(Value.str())) {
      llvm::StringRef Part(Item);
      if (Part.consume_front("arch="))
        Into = &Arch;
      else if (Part.consume_front("code="))
        Into = &Code;
      if (Into)
        *Into += (Into->empty() ? "" : ",") + Part.str();
    }
    std::vector<std::string> Real;
    for (std::string &C : listItems(Code))
      if (llvm::StringRef(C).starts_with("sm_"))
        Real.push_back(std::move(C));
    for (std::string &A : Real.empty() ? listItems(Arch) : Real)
      Out.GpuArchs.push_back(std::move(A));
  }

  void optionsFile(llvm::StringRef Value, unsigned Depth) {
    for (const std::string &File : listItems(Value)) {
      llvm::SmallString<256> Path(File);
      if (!llvm::sys::path::is_absolute(Path))
        llvm::sys::fs::make_absolute(Directory, Path);
      InputText In = readInput(std::string(Path));
      if (!In.Buffer) {
        Out.Error = "cannot read nvcc options file '" + std::string(Path) + "': " + In.Why;
        return;
      }
      Out.OptionsFiles.push_back(std::string(Path));
      if (Depth > 8) {
        Out.Error = "nvcc options files nest more than 8 deep at '" + std::string(Path) + "'";
        return;
      }
      llvm::BumpPtrAllocator Alloc;
      llvm::StringSaver Saver(Alloc);
      llvm::SmallVector<const char *, 16> Tokens;
      llvm::cl::TokenizeGNUCommandLine(In.Buffer->getBuffer(), Saver, Tokens);
      std::vector<std::string> Args(Tokens.begin(), Tokens.end());
      translate(Args, Depth + 1, Path);
    }
  }
};

/// Skips a compiler launcher (ccache, sccache) in front of the compiler.
size_t compilerIndex(const std::vector<std::string> &Args) {
  static const char *const Launchers[] = {"ccache", "sccache", "distcc", "buildcache"};
  if (Args.size() > 1 && llvm::is_contained(Launchers, llvm::sys::path::filename(Args[0])))
    return 1;
  return 0;
}

} // namespace

void dropCompilerLauncher(std::vector<std::string> &Args) {
  Args.erase(Args.begin(), Args.begin() + compilerIndex(Args));
}

bool isNvccCommand(const std::vector<std::string> &Args) {
  if (Args.empty())
    return false;
  llvm::StringRef Name = llvm::sys::path::filename(Args[compilerIndex(Args)]);
  Name.consume_back(".exe");
  return Name == "nvcc";
}

TranslatedCommand translateNvccCommand(const std::vector<std::string> &Args,
                                       llvm::StringRef Directory) {
  TranslatedCommand Out;
  Out.Args.push_back("clang++");
  size_t First = Args.empty() ? 0 : compilerIndex(Args) + 1;
  Translator T(Directory, Out);
  T.translate(llvm::ArrayRef<std::string>(Args).drop_front(std::min(First, Args.size())));
  if (Out.Error.empty())
    T.finish();
  return Out;
}

namespace {

/// Whether \p O is spelled only by nvcc: Clang reads the shared spellings
/// (-D, -I, -std, -O, -o, -c, -x, -M*) as nvcc does, so those pass as they are.
bool nvccOnly(const NvccOption &O) {
  if (O.What != Action::Drop)
    return !llvm::is_contained({Action::Define, Action::Undefine, Action::Include,
                                Action::SystemInclude, Action::PreInclude, Action::Std,
                                Action::Optimize, Action::Compile, Action::Output,
                                Action::NoWarnings},
                               O.What);
  return !llvm::is_contained({"x", "L", "l", "M", "MM", "MD", "MMD", "MP", "MF", "MT", "Werror"},
                             llvm::StringRef(O.Short));
}

} // namespace

bool isCompilerOption(llvm::StringRef Arg) {
  if (!Arg.starts_with("-") || Arg == "-" || Arg == "--")
    return false;
  llvm::StringRef Body = Arg.drop_front(Arg.starts_with("--") ? 2 : 1);
  llvm::StringRef Value;
  // -lfoo and -Lpath are left out: LLVM's parser takes -list-replaced too.
  return findOption(Body.split('=').first) ||
         (!Arg.starts_with("--") && llvm::StringRef("DUIO").contains(Body.front()) &&
          attachedAction(Body, Value));
}

TranslatedCommand translateExtraArguments(const std::vector<std::string> &Extra) {
  std::vector<std::string> Nvcc{"nvcc"}, Kept;
  for (size_t I = 0; I < Extra.size(); ++I) {
    llvm::StringRef Arg = Extra[I];
    llvm::StringRef Body = Arg.drop_front(Arg.starts_with("--") ? 2 : 1);
    const NvccOption *O = Arg.starts_with("-") ? findOption(Body.split('=').first) : nullptr;
    if (!O || !nvccOnly(*O)) {
      Kept.push_back(Extra[I]);
      continue;
    }
    Nvcc.push_back(Extra[I]);
    if (O->TakesValue && !Body.contains('=') && I + 1 < Extra.size())
      Nvcc.push_back(Extra[++I]);
  }
  TranslatedCommand Out = translateNvccCommand(Nvcc, ".");
  Out.Args.erase(Out.Args.begin()); // "clang++"
  // The architectures as Clang spells them, so the parser chooses among
  // them as it does for a compile command's.
  for (const std::string &Arch : Out.GpuArchs)
    Out.Args.push_back("--cuda-gpu-arch=" + Arch);
  Out.Args.insert(Out.Args.end(), Kept.begin(), Kept.end());
  return Out;
}

std::vector<std::string> takeClangGpuArchs(std::vector<std::string> &Args) {
  std::vector<std::string> Archs;
  std::vector<std::string> Kept;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (A.consume_front("--cuda-gpu-arch=") || A.consume_front("--offload-arch=")) {
      for (std::string &Item : listItems(A))
        Archs.push_back(std::move(Item));
      continue;
    }
    if ((A == "--cuda-gpu-arch" || A == "--offload-arch") && I + 1 < Args.size()) {
      Archs.push_back(Args[++I]);
      continue;
    }
    Kept.push_back(Args[I]);
  }
  Args = std::move(Kept);
  return Archs;
}

bool clangReadsGpuArch(llvm::StringRef Arch) {
  clang::OffloadArch Known = clang::StringToOffloadArch(Arch);
  return Known != clang::OffloadArch::UNKNOWN && clang::IsNVIDIAOffloadArch(Known);
}

std::optional<std::string> newestParsableArch(const std::vector<std::string> &Archs) {
  std::optional<std::string> Best;
  unsigned BestNumber = 0;
  for (const std::string &A : Archs) {
    std::optional<unsigned> N = archNumber(A);
    if (!N)
      continue;
    llvm::StringRef Suffix = llvm::StringRef(A).drop_until(llvm::isDigit).drop_while(llvm::isDigit);
    std::string Name = "sm_" + std::to_string(*N / 10) + Suffix.str();
    if (!clangReadsGpuArch(Name))
      continue;
    if (!Best || *N > BestNumber) {
      Best = Name;
      BestNumber = *N;
    }
  }
  return Best;
}

} // namespace kfuse

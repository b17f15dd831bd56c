//===- FusedFilePrinter.cpp - printing the fused source -------------------===//

#include "kfuse/Emission/FusedFile.h"

#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/raw_ostream.h"

namespace kfuse {
namespace {

std::string dims(const std::array<unsigned, 3> &D) {
  return "(" + std::to_string(D[0]) + ", " + std::to_string(D[1]) + ", " + std::to_string(D[2]) +
         ")";
}

std::string threadRange(const ThreadRange &R) {
  return "[" + std::to_string(R.Begin) + ", " + std::to_string(R.end()) + ")";
}

void printKernelParams(llvm::raw_ostream &OS, const FusedKernel &K) {
  bool First = true;
  for (const FusedSection &S : K.Sections)
    for (const FusedParam &P : S.Params) {
      OS << (First ? "" : ", ") << P.Declaration;
      First = false;
    }
}

/// The thread's position inside the kernel's range, in the kernel's block shape.
void printSectionPrologue(llvm::raw_ostream &OS, const FusedSection &S) {
  std::string Local = S.Range.Begin == 0 ? "kfuse_tid" : "(kfuse_tid - " +
                                                             std::to_string(S.Range.Begin) + "u)";
  const auto &B = S.Block;
  if (!S.ThreadIdxName.empty()) {
    std::string X = B[1] * B[2] == 1 ? Local : Local + " % " + std::to_string(B[0]) + "u";
    std::string Y = B[1] == 1 ? "0u" : Local + " / " + std::to_string(B[0]) + "u % " +
                                         std::to_string(B[1]) + "u";
    std::string Z = B[2] == 1 ? "0u" : Local + " / " + std::to_string(B[0] * B[1]) + "u";
    OS << "const uint3 " << S.ThreadIdxName << " = make_uint3(" << X << ", " << Y << ", " << Z
       << ");\n";
  }
  if (!S.BlockDimName.empty())
    OS << "const dim3 " << S.BlockDimName << "(" << B[0] << "u, " << B[1] << "u, " << B[2]
       << "u);\n";
}

void printSection(llvm::raw_ostream &OS, const FusedSection &S, bool First) {
  OS << "// Kernel '" << S.KernelName << "' (" << S.Origin << "): threads " << threadRange(S.Range)
     << " as a block of " << dims(S.Block);
  if (S.Range.BarrierId)
    OS << ", barrier " << S.Range.BarrierId;
  OS << ".\n";
  if (First)
    OS << "if (kfuse_tid < " << S.Range.end() << "u) {\n";
  else
    OS << "if (kfuse_tid >= " << S.Range.Begin << "u && kfuse_tid < " << S.Range.end()
       << "u) {\n";
  printSectionPrologue(OS, S);
  OS << S.Body << "\n";
  if (!S.EndLabel.empty())
    OS << S.EndLabel << ":;\n";
  OS << "}\n";
}

void printKernel(llvm::raw_ostream &OS, const FusedKernel &K) {
  OS << "// Fusion '" << K.Fusion << "': " << K.Sections.size()
     << " kernels side by side in blocks of " << K.BlockThreads << " threads.\n";
  OS << "__global__ void __launch_bounds__(" << K.BlockThreads << ") " << K.KernelName << "(";
  printKernelParams(OS, K);
  OS << ") {\n";
  OS << "const unsigned kfuse_tid = threadIdx.x;\n";
  for (size_t I = 0; I < K.Sections.size(); ++I)
    printSection(OS, K.Sections[I], I == 0);
  OS << "}\n\n";
}

/// The check a launch configuration must pass for the kernel's part.
void printBlockCheck(llvm::raw_ostream &OS, const FusedSection &S) {
  const std::string &L = S.LaunchName;
  if (S.Resizable) {
    OS << "// '" << S.KernelName << "' works with any 1-D block.\n";
    OS << "if (" << L << ".block.y != 1 || " << L << ".block.z != 1) return "
       << "cudaErrorInvalidConfiguration;\n";
    return;
  }
  const auto &B = S.OriginalBlock;
  OS << "// '" << S.KernelName << "' was written for blocks of " << dims(B) << ".\n";
  OS << "if (" << L << ".block.x != " << B[0] << " || " << L << ".block.y != " << B[1] << " || "
     << L << ".block.z != " << B[2] << ") return cudaErrorInvalidConfiguration;\n";
}

void printLauncher(llvm::raw_ostream &OS, const FusedKernel &K) {
  const FusedSection &First = K.Sections.front();
  OS << "// Launches '" << K.KernelName << "' in place of ";
  for (size_t I = 0; I < K.Sections.size(); ++I)
    OS << (I == 0 ? "" : I + 1 == K.Sections.size() ? " and " : ", ") << "'"
       << K.Sections[I].KernelName << "'";
  OS << ".\n// Give each kernel's launch configuration as you would have launched it; a\n"
     << "// configuration the fused kernel was not built for launches nothing and\n"
     << "// returns cudaErrorInvalidConfiguration.\n";
  OS << "inline cudaError_t " << K.LauncherName << "(";
  for (const FusedSection &S : K.Sections) {
    OS << "kfuse_launch " << S.LaunchName;
    for (const FusedParam &P : S.Params)
      OS << ", " << P.Declaration;
    OS << ", ";
  }
  OS << "cudaStream_t stream = 0) {\n";
  for (const FusedSection &S : K.Sections)
    printBlockCheck(OS, S);
  OS << "// Each fused block runs one block of every kernel, so their grids must agree.\n";
  for (size_t I = 1; I < K.Sections.size(); ++I) {
    const std::string &A = First.LaunchName, &B = K.Sections[I].LaunchName;
    OS << "if (" << A << ".grid.x != " << B << ".grid.x || " << A << ".grid.y != " << B
       << ".grid.y || " << A << ".grid.z != " << B << ".grid.z) return "
       << "cudaErrorInvalidConfiguration;\n";
  }
  std::string Shared = "0";
  for (const FusedSection &S : K.Sections)
    if (S.UsesDynamicShared)
      Shared = S.LaunchName + ".shared_bytes";
  OS << "const size_t shared_bytes = " << Shared << ";\n";
  OS << "if (shared_bytes > 48u * 1024u) {\n"
     << "cudaError_t err = cudaFuncSetAttribute(" << K.KernelName
     << ", cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes));\n"
     << "if (err != cudaSuccess) return err;\n}\n";
  OS << K.KernelName << "<<<" << First.LaunchName << ".grid, dim3(" << K.BlockThreads
     << "u), shared_bytes, stream>>>(";
  bool FirstArg = true;
  for (const FusedSection &S : K.Sections)
    for (const FusedParam &P : S.Params) {
      OS << (FirstArg ? "" : ", ") << P.Name;
      FirstArg = false;
    }
  OS << ");\n";
  OS << "return cudaGetLastError();\n}\n\n";
}

std::string format(const std::string &Code) {
  clang::format::FormatStyle Style = clang::format::getLLVMStyle();
  Style.ColumnLimit = 100;
  clang::tooling::Replacements Fixes = clang::format::reformat(
      Style, Code, {clang::tooling::Range(0, static_cast<unsigned>(Code.size()))});
  llvm::Expected<std::string> Formatted = clang::tooling::applyAllReplacements(Code, Fixes);
  if (!Formatted) {
    llvm::consumeError(Formatted.takeError());
    return Code;
  }
  return *Formatted;
}

} // namespace

std::string printFusedFile(const FusedFile &File) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "// Generated by " << File.Generator << " from " << File.Config << ". Do not edit:\n"
     << "// change the config or the kernels and run kfuse again.\n\n"
     << "#include <cuda_runtime.h>\n\n";
  for (const Preamble &P : File.Preambles) {
    OS << "// ---- Declarations from " << P.Origin
       << ", without its kernels and host code ----\n";
    OS << P.Text;
    if (!P.Text.empty() && P.Text.back() != '\n')
      OS << "\n";
    OS << "// ---- End of declarations from " << P.Origin << " ----\n\n";
  }
  std::string Generated;
  llvm::raw_string_ostream GS(Generated);
  GS << "#ifndef KFUSE_LAUNCH_DEFINED\n#define KFUSE_LAUNCH_DEFINED\n"
     << "// How one original kernel would have been launched.\n"
     << "struct kfuse_launch {\ndim3 grid;\ndim3 block;\nsize_t shared_bytes;\n};\n#endif\n\n";
  for (const FusedKernel &K : File.Kernels) {
    printKernel(GS, K);
    printLauncher(GS, K);
  }
  OS << format(Generated);
  while (Out.size() > 1 && Out.back() == '\n' && Out[Out.size() - 2] == '\n')
    Out.pop_back();
  if (Out.empty() || Out.back() != '\n')
    Out += '\n';
  return Out;
}

} // namespace kfuse

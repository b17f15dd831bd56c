//===- Support.cpp - what the commands share ------------------------------===//

#include "Support.h"

#include "kfuse/Diagnostics/Reporter.h"
#include "kfuse/Frontend/ResourceDir.h"
#include "kfuse/Frontend/SourceParser.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <filesystem>

namespace kfuse {

int runVersion(const ParseSettings &Settings, llvm::raw_ostream &Out) {
  Out << "kfuse " << Version << "\n";
  Out << "clang " << CLANG_VERSION_STRING << " (LibTooling), resource directory "
      << Settings.ResourceDir;
  if (llvm::Error E = checkResourceDir(Settings.ResourceDir))
    Out << " (unusable: " << llvm::toString(std::move(E)) << ")";
  Out << "\n";
  llvm::Expected<CudaInstallation> Cuda = detectCuda(Settings.CudaPath);
  if (Cuda)
    Out << "CUDA " << Cuda->versionString()
        << (Cuda->StandIn ? " (the tests' stand-in headers)" : "") << " at " << Cuda->Path << "\n";
  else
    Out << "CUDA not found at " << Settings.CudaPath << ": " << llvm::toString(Cuda.takeError())
        << "\n";
  return 0;
}

void Progress::step(size_t Done, llvm::StringRef Item) {
  if (!Live)
    return;
  std::string Line = Command + ": " + std::to_string(Done + 1) + "/" + std::to_string(Total) + " " +
                     llvm::sys::path::filename(Item).str();
  OS << "\r" << Line << std::string(Width > Line.size() ? Width - Line.size() : 0, ' ');
  OS.flush();
  Width = Line.size();
}

void Progress::finish(llvm::StringRef Summary) {
  if (Quiet)
    return;
  if (Live)
    OS << "\r" << std::string(Width, ' ') << "\r";
  OS << Command << ": " << Summary << "\n";
}

} // namespace kfuse

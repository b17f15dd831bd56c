//===- CudaInstallation.cpp - the CUDA toolkit kfuse parses against -------===//

#include "kfuse/Frontend/CudaInstallation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace kfuse {

std::string CudaInstallation::versionString() const {
  return std::to_string(Version / 1000) + "." + std::to_string(Version % 1000 / 10);
}

std::vector<std::string> CudaInstallation::clangArguments(const std::string &ShimDir) const {
  std::vector<std::string> Args = {"--cuda-path=" + Path, "-Wno-unknown-cuda-version"};
  llvm::SmallString<256> Cccl(Path);
  llvm::sys::path::append(Cccl, "include", "cccl");
  if (llvm::sys::fs::is_directory(Cccl)) {
    Args.push_back("-isystem");
    Args.push_back(std::string(Cccl));
  }
  if (Version >= 13000) {
    Args.push_back("-isystem");
    Args.push_back(ShimDir);
  }
  return Args;
}

llvm::Expected<CudaInstallation> detectCuda(const std::string &Path) {
  llvm::SmallString<256> Header(Path);
  llvm::sys::path::append(Header, "include", "cuda.h");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer = llvm::MemoryBuffer::getFile(Header);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "cannot read %s: %s", Header.c_str(),
                                   Buffer.getError().message().c_str());
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    Line = Line.trim();
    if (!Line.consume_front("#define"))
      continue;
    Line = Line.ltrim();
    if (!Line.consume_front("CUDA_VERSION"))
      continue;
    unsigned Version = 0;
    if (!Line.trim().getAsInteger(10, Version) && Version > 0)
      return CudaInstallation{Path, Version};
  }
  return llvm::createStringError(std::errc::invalid_argument, "%s defines no CUDA_VERSION",
                                 Header.c_str());
}

} // namespace kfuse

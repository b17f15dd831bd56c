//===- ResourceDir.cpp - where Clang's resource headers are ---------------===//

#include "kfuse/Frontend/ResourceDir.h"

#include "kfuse/Version.h"

#include "clang/Driver/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace kfuse {
namespace {

/// Clang's -include of every CUDA translation unit.
constexpr const char *CudaWrapper = "include/__clang_cuda_runtime_wrapper.h";

std::string wrapperPath(const std::string &Dir) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, CudaWrapper);
  return Path.str().str();
}

} // namespace

std::string defaultResourceDir(const char *Argv0, void *MainAddr) {
  std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, MainAddr);
  if (!Exe.empty()) {
    // The layout clang itself uses, so a package can carry the headers.
    std::string Beside = clang::driver::Driver::GetResourcesPath(Exe, /*CustomResourceDir=*/"");
    if (llvm::sys::fs::exists(wrapperPath(Beside)))
      return Beside;
  }
  return KFUSE_CLANG_RESOURCE_DIR;
}

llvm::Error checkResourceDir(const std::string &Dir) {
  std::string Wrapper = wrapperPath(Dir);
  if (llvm::sys::fs::exists(Wrapper))
    return llvm::Error::success();
  return llvm::createStringError(std::errc::no_such_file_or_directory, "no %s", Wrapper.c_str());
}

} // namespace kfuse

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

namespace {

constexpr const char *SurfaceShim = "kfuse_surface_functions.h";

/// Declarations of the surface functions of surface_indirect_functions.h,
/// enough for Clang to read kernels that call them; nvcc compiles the fused
/// file against the toolkit's own definitions. The guard keeps a file that
/// includes the toolkit's header from declaring them twice.
constexpr const char *SurfaceDeclarations = R"(#pragma once
#pragma clang system_header
#ifndef __SURFACE_INDIRECT_FUNCTIONS_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__
#define KFUSE_SURF_READ(name, ...) \
  template <typename T> __device__ void name(T *ptr, cudaSurfaceObject_t obj, __VA_ARGS__, \
      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap); \
  template <typename T> __device__ T name(cudaSurfaceObject_t obj, __VA_ARGS__, \
      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
#define KFUSE_SURF_WRITE(name, ...) \
  template <typename T> __device__ void name(T val, cudaSurfaceObject_t obj, __VA_ARGS__, \
      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
KFUSE_SURF_READ(surf1Dread, int x)
KFUSE_SURF_READ(surf2Dread, int x, int y)
KFUSE_SURF_READ(surf3Dread, int x, int y, int z)
KFUSE_SURF_READ(surf1DLayeredread, int x, int layer)
KFUSE_SURF_READ(surf2DLayeredread, int x, int y, int layer)
KFUSE_SURF_READ(surfCubemapread, int x, int y, int face)
KFUSE_SURF_READ(surfCubemapLayeredread, int x, int y, int layerface)
KFUSE_SURF_WRITE(surf1Dwrite, int x)
KFUSE_SURF_WRITE(surf2Dwrite, int x, int y)
KFUSE_SURF_WRITE(surf3Dwrite, int x, int y, int z)
KFUSE_SURF_WRITE(surf1DLayeredwrite, int x, int layer)
KFUSE_SURF_WRITE(surf2DLayeredwrite, int x, int y, int layer)
KFUSE_SURF_WRITE(surfCubemapwrite, int x, int y, int face)
KFUSE_SURF_WRITE(surfCubemapLayeredwrite, int x, int y, int layerface)
#undef KFUSE_SURF_READ
#undef KFUSE_SURF_WRITE
#endif
)";

} // namespace

std::vector<ShimFile> CudaInstallation::shims() const {
  std::vector<ShimFile> Files = {{SurfaceShim, SurfaceDeclarations}};
  if (Version >= 13000)
    Files.push_back({"texture_fetch_functions.h", ""}); // Dropped by CUDA 13.
  return Files;
}

std::vector<std::string> CudaInstallation::clangArguments(const std::string &ShimDir) const {
  std::vector<std::string> Args = {"--cuda-path=" + Path, "-Wno-unknown-cuda-version"};
  llvm::SmallString<256> Cccl(Path);
  llvm::sys::path::append(Cccl, "include", "cccl");
  if (llvm::sys::fs::is_directory(Cccl)) {
    Args.push_back("-isystem");
    Args.push_back(std::string(Cccl));
  }
  Args.push_back("-isystem");
  Args.push_back(ShimDir);
  Args.push_back("-include");
  Args.push_back(ShimDir + "/" + SurfaceShim);
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

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

constexpr const char *CacheShim = "kfuse_nvcc_parity.h";

/// What nvcc gives code and Clang 19 does not: __CUDACC__'s value, the
/// cache-hinted loads and stores of sm_32_intrinsics.h (__ldcs, __stcs,
/// ...) and the scoped atomics (__nv_atomic_*), which Clang's CUDA headers lack: declarations for
/// the types the toolkit gives them, enough for Clang to read kernels that call them. kfuse's
/// access analysis knows what each does; nvcc compiles the fused file against the toolkit's own.
constexpr const char *CacheDeclarations = R"(#pragma once
#pragma clang system_header
// nvcc defines __CUDACC__ as 1; Clang's wrapper leaves it empty, so that
// `#if __CUDACC__` does not parse.
#undef __CUDACC__
#define __CUDACC__ 1
#define KFUSE_CACHE_TYPES(X) \
  X(char) X(signed char) X(short) X(int) X(long) X(long long) X(unsigned char) \
  X(unsigned short) X(unsigned int) X(unsigned long) X(unsigned long long) X(float) X(double) \
  X(char2) X(char4) X(short2) X(short4) X(int2) X(int4) X(longlong2) X(uchar2) X(uchar4) \
  X(ushort2) X(ushort4) X(uint2) X(uint4) X(ulonglong2) X(float2) X(float4) X(double2)
#define KFUSE_CACHE_LOADS(T) \
  __device__ T __ldcg(const T *ptr); __device__ T __ldca(const T *ptr); \
  __device__ T __ldcs(const T *ptr); __device__ T __ldlu(const T *ptr); \
  __device__ T __ldcv(const T *ptr);
#define KFUSE_CACHE_STORES(T) \
  __device__ void __stwb(T *ptr, T value); __device__ void __stcg(T *ptr, T value); \
  __device__ void __stcs(T *ptr, T value); __device__ void __stwt(T *ptr, T value);
KFUSE_CACHE_TYPES(KFUSE_CACHE_LOADS)
KFUSE_CACHE_TYPES(KFUSE_CACHE_STORES)
#undef KFUSE_CACHE_TYPES
#undef KFUSE_CACHE_LOADS
#undef KFUSE_CACHE_STORES
// CUDA 12.8's scoped atomics (__nv_atomic_fetch_add(p, v, __NV_ATOMIC_RELAXED,
// __NV_THREAD_SCOPE_DEVICE)): nvcc builtins over enums of device_functions.h,
// which Clang's wrapper does not include.
enum {
  __NV_ATOMIC_RELAXED, __NV_ATOMIC_CONSUME, __NV_ATOMIC_ACQUIRE, __NV_ATOMIC_RELEASE,
  __NV_ATOMIC_ACQ_REL, __NV_ATOMIC_SEQ_CST
};
enum {
  __NV_THREAD_SCOPE_THREAD, __NV_THREAD_SCOPE_BLOCK, __NV_THREAD_SCOPE_CLUSTER,
  __NV_THREAD_SCOPE_DEVICE, __NV_THREAD_SCOPE_SYSTEM
};
#define KFUSE_NV_FETCH(op) \
  template <typename T> __device__ T __nv_atomic_fetch_##op(T *ptr, T val, int order, \
      int scope = __NV_THREAD_SCOPE_SYSTEM); \
  template <typename T> __device__ void __nv_atomic_##op(T *ptr, T val, int order, \
      int scope = __NV_THREAD_SCOPE_SYSTEM);
KFUSE_NV_FETCH(add) KFUSE_NV_FETCH(sub) KFUSE_NV_FETCH(and) KFUSE_NV_FETCH(or)
KFUSE_NV_FETCH(xor) KFUSE_NV_FETCH(min) KFUSE_NV_FETCH(max)
#undef KFUSE_NV_FETCH
template <typename T> __device__ T __nv_atomic_load_n(T *ptr, int order,
    int scope = __NV_THREAD_SCOPE_SYSTEM);
template <typename T> __device__ void __nv_atomic_load(T *ptr, T *ret, int order,
    int scope = __NV_THREAD_SCOPE_SYSTEM);
template <typename T> __device__ void __nv_atomic_store_n(T *ptr, T val, int order,
    int scope = __NV_THREAD_SCOPE_SYSTEM);
template <typename T> __device__ void __nv_atomic_store(T *ptr, T *val, int order,
    int scope = __NV_THREAD_SCOPE_SYSTEM);
template <typename T> __device__ T __nv_atomic_exchange_n(T *ptr, T val, int order,
    int scope = __NV_THREAD_SCOPE_SYSTEM);
template <typename T> __device__ void __nv_atomic_exchange(T *ptr, T *val, T *ret, int order,
    int scope = __NV_THREAD_SCOPE_SYSTEM);
template <typename T> __device__ bool __nv_atomic_compare_exchange_n(T *ptr, T *expected,
    T desired, bool weak, int success_order, int failure_order,
    int scope = __NV_THREAD_SCOPE_SYSTEM);
template <typename T> __device__ bool __nv_atomic_compare_exchange(T *ptr, T *expected,
    T *desired, bool weak, int success_order, int failure_order,
    int scope = __NV_THREAD_SCOPE_SYSTEM);
__device__ void __nv_atomic_thread_fence(int order, int scope = __NV_THREAD_SCOPE_SYSTEM);
)";

} // namespace

std::vector<ShimFile> CudaInstallation::shims() const {
  if (StandIn) // Its cuda_runtime.h declares what the shims would.
    return {};
  std::vector<ShimFile> Files = {{SurfaceShim, SurfaceDeclarations},
                                 {CacheShim, CacheDeclarations}};
  if (Version >= 13000)
    Files.push_back({"texture_fetch_functions.h", ""}); // Dropped by CUDA 13.
  return Files;
}

std::vector<std::string> CudaInstallation::clangArguments(const std::string &ShimDir) const {
  // Attributes nvcc knows and Clang 19 does not know or ignores in CUDA
  // (the toolkit's `__grid_constant__`, `__managed__`) are nvcc's to judge,
  // not a warning of kfuse's; kfuse reads those two from their spelling.
  std::vector<std::string> Args = {"--cuda-path=" + Path, "-Wno-unknown-cuda-version",
                                   "-Wno-unknown-attributes", "-Wno-ignored-attributes"};
  if (StandIn) {
    // Without Clang's wrapper, which needs a toolkit's headers: the stand-in
    // declares the runtime and includes Clang's device headers itself.
    llvm::SmallString<256> Include(Path), Runtime;
    llvm::sys::path::append(Include, "include");
    Runtime = Include;
    llvm::sys::path::append(Runtime, "cuda_runtime.h");
    for (const char *Arg : {"-nocudainc", "-nocudalib", "-isystem"})
      Args.push_back(Arg);
    Args.push_back(std::string(Include));
    Args.push_back("-include");
    Args.push_back(std::string(Runtime));
  } else {
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
    Args.push_back("-include");
    Args.push_back(ShimDir + "/" + CacheShim);
  }
  // What nvcc defines and Clang does not: code reads as nvcc reads it.
  for (std::string Macro :
       {std::string("-D__NVCC__=1"), "-D__CUDACC_VER_MAJOR__=" + std::to_string(Version / 1000),
        "-D__CUDACC_VER_MINOR__=" + std::to_string(Version % 1000 / 10),
        std::string("-D__CUDACC_VER_BUILD__=0")})
    Args.push_back(Macro);
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
  CudaInstallation Found{Path};
  for (llvm::StringRef Line : Lines) {
    Line = Line.trim();
    if (!Line.consume_front("#define"))
      continue;
    Line = Line.ltrim();
    if (Line.trim() == "KFUSE_CUDA_STAND_IN 1")
      Found.StandIn = true;
    if (!Line.consume_front("CUDA_VERSION"))
      continue;
    unsigned Version = 0;
    if (!Line.trim().getAsInteger(10, Version) && Version > 0)
      Found.Version = Version;
  }
  if (Found.Version)
    return Found;
  return llvm::createStringError(std::errc::invalid_argument, "%s defines no CUDA_VERSION",
                                 Header.c_str());
}

} // namespace kfuse

// A stand-in for the CUDA runtime's headers, for kfuse's tests without a
// toolkit (see ../README.md): the declarations the tests' kernels and host
// code use, and Clang's own CUDA headers for the rest.
#pragma once
#pragma clang system_header

#include "cuda.h"

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __grid_constant__ __attribute__((grid_constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __align__(n)
#define __device_builtin__

#include <__clang_cuda_math_forward_declares.h>
// libstdc++ avoids __float128 when __CUDACC__ is defined, as in Clang's wrapper.
#define __CUDACC__
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdint.h>

#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 9999 // The host pass sees the device functions, as in Clang's wrapper.
#define KFUSE_STAND_IN_HOST
#endif
#include <__clang_cuda_builtin_vars.h>

// Vector types, as vector_types.h lays them out.
#define KFUSE_VECTOR2(T, N, A) struct __align__(A) N##2 { T x, y; };
#define KFUSE_VECTOR3(T, N) struct N##3 { T x, y, z; };
#define KFUSE_VECTOR4(T, N, A) struct __align__(A) N##4 { T x, y, z, w; };
#define KFUSE_VECTORS(T, N, A2, A4) KFUSE_VECTOR2(T, N, A2) KFUSE_VECTOR3(T, N) KFUSE_VECTOR4(T, N, A4)
KFUSE_VECTORS(signed char, char, 2, 4)
KFUSE_VECTORS(unsigned char, uchar, 2, 4)
KFUSE_VECTORS(short, short, 4, 8)
KFUSE_VECTORS(unsigned short, ushort, 4, 8)
KFUSE_VECTORS(int, int, 8, 16)
KFUSE_VECTORS(unsigned int, uint, 8, 16)
KFUSE_VECTORS(long long, longlong, 16, 16)
KFUSE_VECTORS(unsigned long long, ulonglong, 16, 16)
KFUSE_VECTORS(float, float, 8, 16)
KFUSE_VECTORS(double, double, 16, 16)
#undef KFUSE_VECTORS
#undef KFUSE_VECTOR2
#undef KFUSE_VECTOR3
#undef KFUSE_VECTOR4

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

#define KFUSE_MAKE2(T, N) static __inline__ __host__ __device__ N##2 make_##N##2(T x, T y) { return {x, y}; }
#define KFUSE_MAKE3(T, N) static __inline__ __host__ __device__ N##3 make_##N##3(T x, T y, T z) { return {x, y, z}; }
#define KFUSE_MAKE4(T, N) static __inline__ __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w) { return {x, y, z, w}; }
#define KFUSE_MAKE(T, N) KFUSE_MAKE2(T, N) KFUSE_MAKE3(T, N) KFUSE_MAKE4(T, N)
KFUSE_MAKE(signed char, char)
KFUSE_MAKE(unsigned char, uchar)
KFUSE_MAKE(short, short)
KFUSE_MAKE(unsigned short, ushort)
KFUSE_MAKE(int, int)
KFUSE_MAKE(unsigned int, uint)
KFUSE_MAKE(long long, longlong)
KFUSE_MAKE(unsigned long long, ulonglong)
KFUSE_MAKE(float, float)
KFUSE_MAKE(double, double)
#undef KFUSE_MAKE
#undef KFUSE_MAKE2
#undef KFUSE_MAKE3
#undef KFUSE_MAKE4

// The runtime API the tests' host code calls.
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef unsigned long long cudaSurfaceObject_t;
typedef unsigned long long cudaTextureObject_t;
#define cudaStreamNonBlocking 0x01
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9
};
struct cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
  dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;
struct cudaDeviceProp {
  char name[256];
  int multiProcessorCount, maxThreadsPerMultiProcessor, major, minor, warpSize;
  size_t sharedMemPerBlock;
};
extern "C" {
cudaError_t cudaMalloc(void **ptr, size_t size);
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags = 1);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0,
                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
cudaError_t cudaMemset(void *ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                             size_t shared = 0, cudaStream_t stream = 0);
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
// What Clang lowers a <<<...>>> launch to: since CUDA 9.2, and before (Clang
// takes the stand-in for a toolkit of unknown version).
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, void *stream = 0);
int cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);
}
template <class T> cudaError_t cudaMalloc(T **ptr, size_t size) {
  return cudaMalloc(reinterpret_cast<void **>(ptr), size);
}
template <class T>
cudaError_t cudaMallocManaged(T **ptr, size_t size, unsigned int flags = 1) {
  return cudaMallocManaged(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol(reinterpret_cast<const void *>(&symbol), src, count, offset, kind);
}
template <class T>
cudaError_t cudaLaunchKernel(T *func, dim3 grid, dim3 block, void **args, size_t shared = 0,
                             cudaStream_t stream = 0) {
  return cudaLaunchKernel(reinterpret_cast<const void *>(func), grid, block, args, shared, stream);
}
template <class T>
cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(reinterpret_cast<const void *>(func), attr, value);
}
extern "C" cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                           void **args);
template <typename... Expected, typename... Actual>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(Expected...),
                               Actual &&...args) {
  void *pArgs[] = {0, (void *)&args...};
  return cudaLaunchKernelExC(config, (const void *)kernel, pArgs + 1);
}

// Clang's device functions and math, which call libdevice's (declarations only).
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>

extern "C" {
__device__ int vprintf(const char *, const char *);
__device__ void __assertfail(const char *message, const char *file, unsigned line,
                             const char *function, size_t char_size);
__device__ static inline void __assert_fail(const char *message, const char *file, unsigned line,
                                            const char *function) {
  __assertfail(message, file, line, function, sizeof(char));
}
__device__ int printf(const char *, ...);
}

// The atomics of device_atomic_functions.h and sm_60's, on Clang's builtins.
#define KFUSE_ATOMIC(Name, T, Builtin)                                                         \
  static __inline__ __device__ T Name(T *address, T val) { return Builtin(address, val); }
KFUSE_ATOMIC(atomicAdd, int, __iAtomicAdd)
KFUSE_ATOMIC(atomicAdd, unsigned int, __uAtomicAdd)
KFUSE_ATOMIC(atomicAdd, unsigned long long, __ullAtomicAdd)
KFUSE_ATOMIC(atomicAdd, float, __fAtomicAdd)
KFUSE_ATOMIC(atomicAdd, double, __dAtomicAdd)
KFUSE_ATOMIC(atomicExch, int, __iAtomicExch)
KFUSE_ATOMIC(atomicExch, unsigned int, __uAtomicExch)
KFUSE_ATOMIC(atomicExch, unsigned long long, __ullAtomicExch)
KFUSE_ATOMIC(atomicExch, float, __fAtomicExch)
KFUSE_ATOMIC(atomicMin, int, __iAtomicMin)
KFUSE_ATOMIC(atomicMin, unsigned int, __uAtomicMin)
KFUSE_ATOMIC(atomicMax, int, __iAtomicMax)
KFUSE_ATOMIC(atomicMax, unsigned int, __uAtomicMax)
KFUSE_ATOMIC(atomicAnd, int, __iAtomicAnd)
KFUSE_ATOMIC(atomicAnd, unsigned int, __uAtomicAnd)
KFUSE_ATOMIC(atomicOr, int, __iAtomicOr)
KFUSE_ATOMIC(atomicOr, unsigned int, __uAtomicOr)
KFUSE_ATOMIC(atomicXor, int, __iAtomicXor)
KFUSE_ATOMIC(atomicXor, unsigned int, __uAtomicXor)
KFUSE_ATOMIC(atomicInc, unsigned int, __uAtomicInc)
KFUSE_ATOMIC(atomicDec, unsigned int, __uAtomicDec)
#undef KFUSE_ATOMIC
static __inline__ __device__ int atomicSub(int *address, int val) {
  return __iAtomicAdd(address, -val);
}
static __inline__ __device__ unsigned int atomicSub(unsigned int *address, unsigned int val) {
  return __uAtomicAdd(address, 0u - val);
}
static __inline__ __device__ int atomicCAS(int *address, int compare, int val) {
  return __iAtomicCAS(address, compare, val);
}
static __inline__ __device__ unsigned int atomicCAS(unsigned int *address, unsigned int compare,
                                                    unsigned int val) {
  return __uAtomicCAS(address, compare, val);
}
static __inline__ __device__ unsigned long long atomicCAS(unsigned long long *address,
                                                          unsigned long long compare,
                                                          unsigned long long val) {
  return __ullAtomicCAS(address, compare, val);
}
__device__ inline __cuda_builtin_threadIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockDim_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_gridDim_t::operator uint3() const { return {x, y, z}; }

// What sm_20_intrinsics.h and cuda.h give Clang's intrinsics header.
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
static __inline__ __device__ unsigned int __isGlobal(const void *ptr) {
  return __nvvm_isspacep_global(ptr);
}
static __inline__ __device__ unsigned int __isShared(const void *ptr) {
  return __nvvm_isspacep_shared(ptr);
}
static __inline__ __device__ unsigned int __isConstant(const void *ptr) {
  return __nvvm_isspacep_const(ptr);
}
static __inline__ __device__ unsigned int __isLocal(const void *ptr) {
  return __nvvm_isspacep_local(ptr);
}
static __inline__ __device__ size_t __cvta_generic_to_shared(const void *ptr) {
  return (size_t)(void __attribute__((address_space(3))) *)ptr;
}
static __inline__ __device__ size_t __cvta_generic_to_global(const void *ptr) {
  return (size_t)(void __attribute__((address_space(1))) *)ptr;
}

#include <__clang_cuda_cmath.h>
#include <__clang_cuda_intrinsics.h>

#ifdef KFUSE_STAND_IN_HOST
#undef __CUDA_ARCH__
#undef KFUSE_STAND_IN_HOST
#endif

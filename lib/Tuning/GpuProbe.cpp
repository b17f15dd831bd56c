//===- GpuProbe.cpp - is there a GPU to tune on? --------------------------===//

#include "kfuse/Tuning/GpuProbe.h"

#include "llvm/Support/DynamicLibrary.h"

namespace kfuse {

GpuProbe probeGpus(const char *Driver) {
  GpuProbe P;
  std::string Error;
  llvm::sys::DynamicLibrary Lib = llvm::sys::DynamicLibrary::getLibrary(Driver, &Error);
  if (!Lib.isValid()) {
    P.Why = "this machine has no CUDA driver (" + Error + ")";
    return P;
  }
  // The driver API's own signatures: CUresult cuInit(unsigned),
  // CUresult cuDeviceGetCount(int *); 0 is CUDA_SUCCESS.
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  auto Init = reinterpret_cast<InitFn>(Lib.getAddressOfSymbol("cuInit"));
  auto Count = reinterpret_cast<CountFn>(Lib.getAddressOfSymbol("cuDeviceGetCount"));
  if (!Init || !Count) {
    P.Why = std::string("'") + Driver + "' is no CUDA driver: it lacks cuInit";
  } else if (int R = Init(0); R != 0) {
    // 100: no device; 34: the toolkit's stub library, not a driver.
    P.Why = R == 100 ? "the CUDA driver sees no GPU"
            : R == 34
                ? "the CUDA driver found is the toolkit's stub, not an installed driver"
                : "the CUDA driver failed to start (cuInit returned " + std::to_string(R) + ")";
  } else if (Count(&P.Devices) != 0 || P.Devices == 0) {
    P.Devices = 0;
    P.Why = "the CUDA driver sees no GPU";
  }
  llvm::sys::DynamicLibrary::closeLibrary(Lib);
  return P;
}

} // namespace kfuse

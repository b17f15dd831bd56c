// A stand-in for the CUDA toolkit's cuda.h, for kfuse's tests without a
// toolkit (see ../README.md). kfuse reads both defines.
#pragma once
#define CUDA_VERSION 13000
#define KFUSE_CUDA_STAND_IN 1

// The application's original kernels, launched by main.cu to check the fused
// launcher against them.
#pragma once
#include <cstdint>

#include "tuning.h"

/// Values in [-range, range) are counted by value_histogram.
void set_stats_range(float range);

__global__ void blend(const float *a, const float *b, float *out, float alpha, int n);
__global__ void value_histogram(const float *values, unsigned int *bins, int n);

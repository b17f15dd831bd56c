// Constants the kernels share with the host code.
#pragma once

#ifndef STATS_BINS
#error "the build defines STATS_BINS"
#endif
#define STATS_RANGE 4.0f     // the default range of value_histogram
#define HISTOGRAM_BLOCK 256  // value_histogram's block size

"""Writes a host function that launches N independent kernels in a row."""
import sys

n = int(sys.argv[1])
print('__global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }')
print('__global__ void shift(float *x) { x[threadIdx.x] += 1.0f; }')
print('void run() {')
for i in range(n):
    print('  float *b%d;' % i)
    print('  cudaMalloc(&b%d, 512);' % i)
for i in range(n):
    print('  %s<<<4, 128>>>(b%d);' % ('scale' if i % 2 else 'shift', i))
print('}')

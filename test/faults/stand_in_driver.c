/* A CUDA driver that says it has one GPU and can do nothing else: the tests
 * of `kfuse tune --run` on machines without a GPU pass it as --cuda-driver,
 * so the run goes on to the (stand-in) compiler they check. */
int cuInit(unsigned flags) {
  (void)flags;
  return 0;
}

int cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}

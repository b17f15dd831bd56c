// Empty: Clang's __clang_cuda_intrinsics.h includes it after its own
// definitions of what the toolkit's header holds.

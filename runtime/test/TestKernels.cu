// Kernels of runtime/test/GpuMemoryTest.cpp, loaded through mgpuModuleLoad /
// mgpuModuleLoadJIT like the kernels of a compiled te program.

extern "C" __global__ void te_test_axpy(float *y, const float *x, float a,
                                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// out[block] = the block's rank in its cluster (0 without clusters), and the
// dynamic shared memory size it was launched with.
extern "C" __global__ void te_test_cluster_rank(int *out, int *smem) {
  unsigned rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  if (threadIdx.x == 0) {
    out[blockIdx.x] = int(rank);
    smem[blockIdx.x] = int(bytes);
  }
}

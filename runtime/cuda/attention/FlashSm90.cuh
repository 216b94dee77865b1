//===- FlashSm90.cuh - Hopper (sm_90a) helpers of the forward --*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend. sm_90a only.
//
//===----------------------------------------------------------------------===//
//
// What the wgmma forward kernels (FlashForwardSm90.cu, FlashForwardSm90Ws.cu)
// share: the 64-column panel tile layout (128-byte rows, 16-byte chunks
// XOR-swizzled by row % 8: the 128-byte swizzle of the wgmma descriptors and
// of the bulk tensor copy), its cp.async loader, the wgmma descriptors and
// instructions, and the fences around them.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_ATTENTION_FLASHSM90_CUH
#define TE_RT_CUDA_ATTENTION_FLASHSM90_CUH

#include "FlashCommon.cuh"

#include <type_traits>

namespace te::rt::cuda::attn {
namespace sm90 {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 &&                          \
    defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TE_ATTN_WGMMA 1
#else
#define TE_ATTN_WGMMA 0
#endif

/// Element offset of (r, c) in a panel tile of `Rows` rows.
template <int Rows> __device__ __forceinline__ int panelOffset(int r, int c) {
  return (c >> 6) * (Rows * 64) + r * 64 + ((((c >> 3) & 7) ^ (r & 7)) << 3) +
         (c & 7);
}

/// Loads rows [0, Rows) x [0, Cols) of a row-major global tile into a panel
/// tile; rows >= nValid are zeros.
template <int Rows, int Cols, int Threads, typename T>
__device__ __forceinline__ void loadPanels(T *smem, const T *gmem, int64_t rs,
                                           int nValid, int tid) {
  constexpr int kChunks = Rows * Cols / 8;
  static_assert(kChunks % Threads == 0, "whole chunks per thread");
#pragma unroll
  for (int i = 0; i < kChunks / Threads; ++i) {
    int id = tid + i * Threads;
    int r = id / (Cols / 8), c = (id % (Cols / 8)) * 8;
    bool ok = r < nValid;
    const T *src = ok ? gmem + r * rs + c : gmem;
    cpAsync16(smem + panelOffset<Rows>(r, c), src, ok);
  }
}

/// A wgmma shared-memory descriptor: 128-byte swizzle, 8-row groups 1024
/// bytes apart (the K-major stride; for the MN-major V with 64 columns per
/// instruction the leading offset is unused and is given the same value).
__device__ __forceinline__ uint64_t descriptor(const void *p) {
  const uint64_t addr = smemAddr(p);
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(1024 >> 4) << 16) |
         (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

__device__ __forceinline__ void wgmmaFence() {
#if TE_ATTN_WGMMA
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmmaCommit() {
#if TE_ATTN_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmmaWait0() {
#if TE_ATTN_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmmaWait1() {
#if TE_ATTN_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
#endif
}
/// Keeps the compiler from moving accesses of `x` across a wgmma boundary.
__device__ __forceinline__ void fenceRegs(float *x, int n) {
#pragma unroll
  for (int i = 0; i < n; ++i)
    asm volatile("" : "+f"(x[i])::"memory");
}

__device__ __forceinline__ void fenceRegs(uint32_t *x, int n) {
#pragma unroll
  for (int i = 0; i < n; ++i)
    asm volatile("" : "+r"(x[i])::"memory");
}

#if TE_ATTN_WGMMA
/// D[64 x 128] (+)= A[64 x 16] * B[16 x 128], both in shared memory,
/// K-major; D = A * B when `accumulate` is 0.
template <typename T>
__device__ __forceinline__ void wgmmaSS128(float *d, uint64_t descA,
                                           uint64_t descB, int accumulate) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
        "%29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, "
        "%43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, "
        "%57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
          "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
          "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
          "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]),
          "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
          "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
          "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
          "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(descA), "l"(descB), "r"(accumulate));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
        "%29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, "
        "%43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, "
        "%57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
          "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
          "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
          "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]),
          "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
          "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
          "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
          "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(descA), "l"(descB), "r"(accumulate));
  }
}

/// D[64 x 64] += A[64 x 16] (registers, the mma.sync A layout per warp) *
/// B[16 x 64] (shared memory, MN-major).
template <typename T>
__device__ __forceinline__ void wgmmaRS64(float *d, const uint32_t *a,
                                          uint64_t descB) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
        "%29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
          "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
          "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
          "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(1));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
        "%29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
          "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
          "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
          "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(1));
  }
}
#endif

//===----------------------------------------------------------------------===//
// mbarriers, the bulk tensor copy (TMA), named barriers, register counts
//===----------------------------------------------------------------------===//

__device__ __forceinline__ void mbarInit(uint64_t *bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smemAddr(bar)),
               "r"(count)
               : "memory");
}
/// Makes the initialized mbarriers visible to the copy engine.
__device__ __forceinline__ void mbarInitFence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
/// One arrival that also expects `bytes` of copies to complete.
__device__ __forceinline__ void mbarArriveExpectTx(uint64_t *bar,
                                                   uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                   smemAddr(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarArrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smemAddr(bar))
               : "memory");
}
/// Waits until the phase of parity `parity` of the barrier has completed.
__device__ __forceinline__ void mbarWait(uint64_t *bar, int parity) {
  uint32_t done;
  do {
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(smemAddr(bar)), "r"(parity)
                 : "memory");
  } while (!done);
}
/// A box of a 4-D tensor map at coordinates (c0 innermost .. c3) into
/// shared memory; completes `bytes` on `bar`.
__device__ __forceinline__ void tmaLoad4d(void *dst, const void *map,
                                          uint64_t *bar, int c0, int c1, int c2,
                                          int c3) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(
                   smemAddr(dst)),
               "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2),
               "r"(c3), "r"(smemAddr(bar))
               : "memory");
}
__device__ __forceinline__ void namedBarrierSync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void namedBarrierArrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
#if TE_ATTN_WGMMA
/// The warpgroup's registers per thread lowered / raised to N.
template <int N> __device__ __forceinline__ void setMaxRegsDec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> __device__ __forceinline__ void setMaxRegsInc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
#endif

} // namespace sm90
} // namespace te::rt::cuda::attn

#endif // TE_RT_CUDA_ATTENTION_FLASHSM90_CUH

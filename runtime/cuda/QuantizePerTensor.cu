//===- QuantizePerTensor.cu - Per-tensor FP8 quantization ------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The per-tensor FP8 kernels (delayed and current scaling) of
// QuantizePerTensor.h:
// * perTensorCastKernel (every shape and input type): one 64x64 tile per
//   block, amax + cast (Format's quantizeFP8Element) into `_data`, the codes
//   staged in shared memory for coalesced `_transpose` stores;
// * perTensorTileKernel (the tiles of Tiles.cuh, M % 32 == 0, K % 64 == 0):
//   the cast with the given scale, or with current scaling's scale computed
//   from an amax by every block;
// * currentFusedKernel: current scaling in one cooperative launch: amax
//   pass, grid barrier, perTensorTileKernel's walk backwards.
// launchPerTensorCast takes the tile kernel when perTensorFastPath holds;
// both write the same bits.
//
//===----------------------------------------------------------------------===//

#include "QuantizePerTensor.h"

#include "AmaxScale.h"
#include "Codecs.cuh"
#include "KernelCommon.cuh"
#include "Tiles.cuh"

#include "te/Format/Blocks.h"
#include "te/Format/Codecs.h"
#include "te/Format/ScaleRules.h"

#include <cooperative_groups.h>

using namespace te::format;
namespace cg = cooperative_groups;

namespace te::rt::cuda {
namespace {

//===----------------------------------------------------------------------===//
// General kernel: fused amax + cast + transpose, 64x64 tiles
//===----------------------------------------------------------------------===//

constexpr int kPT = 64;

__global__ void __launch_bounds__(kThreads)
    perTensorCastKernel(const void *x, DType inType, int64_t M, int64_t K,
                        int64_t tilesK, const float *scalePtr, DType fp8,
                        uint8_t *data, uint8_t *tr, float *scaleInv,
                        float *amaxOut) {
  __shared__ uint8_t codes[kPT][kPT + 4];
  const int64_t mb = blockIdx.x / tilesK, kb = blockIdx.x % tilesK;
  const int64_t m0 = mb * kPT, k0 = kb * kPT;
  const float scale = *scalePtr;
  float amax = 0.0f;
  for (int i = threadIdx.x; i < kPT * kPT; i += blockDim.x) {
    int r = i / kPT, c = i % kPT;
    int64_t m = m0 + r, k = k0 + c;
    uint8_t code = 0;
    if (m < M && k < K) {
      float v = loadAsFloat(x, inType, m * K + k);
      amax = fmaxNum(amax, absf(v));
      code = quantizeFP8Element(v, scale, fp8);
      if (data)
        data[m * K + k] = code;
    }
    codes[r][c] = code;
  }
  if (amaxOut) {
    amax = blockReduceMax(amax);
    if (threadIdx.x == 0)
      atomicMaxNonNegative(amaxOut, amax);
  }
  if (tr) {
    __syncthreads();
    for (int i = threadIdx.x; i < kPT * kPT; i += blockDim.x) {
      int c = i / kPT, r = i % kPT;
      int64_t m = m0 + r, k = k0 + c;
      if (m < M && k < K)
        tr[k * M + m] = codes[r][c];
    }
  }
  if (scaleInv && blockIdx.x == 0 && threadIdx.x == 0)
    *scaleInv = reciprocalRN(scale);
}

//===----------------------------------------------------------------------===//
// Tile kernels: 128x128 tiles per 256-thread block, persistent grid
//===----------------------------------------------------------------------===//

/// The scale of a per-tensor cast: *scalePtr, or, if `amaxPtr` is set,
/// computeScaleFromAmax(*amaxPtr) of current scaling (FLT_MAX for inf).
struct PerTensorScale {
  const float *scalePtr = nullptr;
  const float *amaxPtr = nullptr;
  float fp8Max = 0.0f, eps = 0.0f;
  bool pow2 = false;
};

__device__ __forceinline__ float perTensorScale(const PerTensorScale &s) {
  if (s.amaxPtr)
    return computeScaleFromAmax(*s.amaxPtr, s.fp8Max, s.pow2, s.eps, kFloatMax);
  return *s.scalePtr;
}

/// The tile walk of the per-tensor cast (one 128x128 tile per 256-thread
/// block at a time): the codes of x * scale into `data` and the transposed
/// `tr` (either may be null). Returns the thread's running amax of x if
/// `wantAmax`. `reverse`: tiles are walked from the last one (current
/// scaling: the amax pass read x front to back, so its tail is still in L2).
/// Stages == 0 (register pipe): two staging tiles `staged`, tile n stages
/// into staged[n % 2], so one barrier per tile (between staging and the
/// stores) suffices. Stages > 0 (cp.async into `slots`): the transposed
/// codes are staged in the slot just taken, after a barrier that also frees
/// the previous slot for the pipe (two barriers per tile).
template <InKind T, int Stages>
__device__ __forceinline__ float
perTensorTiles(const Storage<T> *x, int64_t M, int64_t K, float scale,
               bool e5m2, uint8_t *data, uint8_t *tr, bool wantAmax,
               bool reverse, uint8_t (*staged)[kTile * kTile], uint4 *slots) {
  const int lane = threadIdx.x & 31;
  const int c = lane & 15, g = ((threadIdx.x >> 5) << 1) | (lane >> 4);
  const int tilesM = static_cast<int>((M + kTile - 1) / kTile),
            tilesK = static_cast<int>((K + kTile - 1) / kTile),
            tiles = tilesM * tilesK;
  auto where = [&](int t, int64_t &row, int64_t &col) {
    int mb = 0, kb = 0;
    tileCoords32(reverse ? tiles - 1 - t : t, tilesM, tilesK, kTileGroup, mb,
                 kb);
    row = int64_t(mb) * kTile + 8 * g;
    col = int64_t(kb) * kTile + 8 * c;
    return row < M && col < K;
  };
  float amax = 0.0f;
  TilePipe<T, Stages> pipe(slots);
  pipe.start(x, K, where, blockIdx.x, gridDim.x, tiles);
  int parity = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x, parity ^= 1) {
    int64_t row = 0, col = 0;
    const bool valid = where(t, row, col);
    const int64_t m0 = row - 8 * g, k0 = col - 8 * c;
    RawRows<T> cur;
    pipe.take(cur);
    if (Stages > 0 && tr)
      __syncthreads(); // every slot taken; the last tile's staging read
    pipe.advance(x, K, where, t + pipe.kDepth * gridDim.x, tiles);
    uint2 codes[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      float v[8];
      unpackRow<T>(cur, i, v);
      if (wantAmax)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          amax = maxNum(amax, absBits(v[j]));
      codes[i] = encodeScaled8(v, scale, e5m2);
      if (data && valid)
        store8(data + (row + i) * K + col, codes[i]);
    }
    if (tr) {
      uint8_t *st = Stages > 0 ? pipe.current() : staged[parity];
      stageTransposed(st, g, c, codes);
      __syncthreads();
      storeStagedTransposed(st, tr, k0, m0, M,
                            static_cast<int>(K - k0 < kTile ? K - k0 : kTile),
                            static_cast<int>(M - m0 < kTile ? M - m0 : kTile));
    }
  }
  return amax;
}

template <InKind T>
__global__ void __launch_bounds__(kFastThreads, 2)
    perTensorTileKernel(const Storage<T> *x, int64_t M, int64_t K,
                        PerTensorScale sc, bool e5m2, uint8_t *data,
                        uint8_t *tr, float *scaleInv, float *amaxOut,
                        bool reverse) {
  extern __shared__ uint4 tileSmem[];
  __shared__ float red[8];
  const float scale = perTensorScale(sc);
  const float amax = perTensorTiles<T, kTileStages<T>>(
      x, M, K, scale, e5m2, data, tr, amaxOut != nullptr, reverse,
      reinterpret_cast<uint8_t(*)[kTile * kTile]>(tileSmem), tileSmem);
  if (amaxOut) {
    const float r = blockMax256(amax, red);
    if (threadIdx.x == 0)
      atomicMaxNonNegative(amaxOut, r);
  }
  if (scaleInv && blockIdx.x == 0 && threadIdx.x == 0)
    *scaleInv = reciprocalRN(scale);
}

/// Current scaling in one launch (cooperative: every block resident): pass
/// 1 reads x front to back for its amax (amaxPartial, one atomicMax per
/// block into `acc`, zeroed before the launch), a grid barrier, every block
/// reads the amax, a second barrier (so that `acc` may be overwritten), then
/// pass 2 is perTensorTiles walking backwards (the last tiles of pass 1 are
/// still in L2). Block 0 writes *acc = 1 / scale (acc is the tensor's
/// scale_inv) and *amaxOut = amax.
template <InKind T>
__global__ void __launch_bounds__(kFastThreads, 2)
    currentFusedKernel(const Storage<T> *x, int64_t M, int64_t K,
                       float fp8MaxValue, bool pow2, float eps, bool e5m2,
                       uint8_t *data, uint8_t *tr, float *acc, float *amaxOut) {
  __shared__ __align__(16) uint8_t staged[2][kTile * kTile];
  __shared__ float red[8];
  cg::grid_group grid = cg::this_grid();
  const float part = blockMax256(amaxPartial<T, 8>(x, M * K), red);
  if (threadIdx.x == 0)
    atomicMaxNonNegative(acc, part);
  grid.sync();
  const float amax = __ldcg(acc);
  grid.sync();
  const float scale =
      computeScaleFromAmax(amax, fp8MaxValue, pow2, eps, kFloatMax);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *acc = reciprocalRN(scale);
    if (amaxOut)
      *amaxOut = amax;
  }
  perTensorTiles<T, 0>(x, M, K, scale, e5m2, data, tr, false,
                       /*reverse=*/true, staged, nullptr);
}

/// Current scaling's last step: *scaleInv = 1 / computeScaleFromAmax(*amax),
/// *amaxOut = *amax (amax may alias scaleInv).
__global__ void currentScaleInvKernel(const float *amax, float fp8MaxValue,
                                      bool pow2, float eps, float *scaleInv,
                                      float *amaxOut) {
  const float a = *amax;
  if (amaxOut)
    *amaxOut = a;
  *scaleInv =
      reciprocalRN(computeScaleFromAmax(a, fp8MaxValue, pow2, eps, kFloatMax));
}

template <InKind T> struct PerTensorLaunch {
  static cudaError_t run(const void *x, int64_t M, int64_t K,
                         const PerTensorScale &sc, DType fp8, uint8_t *data,
                         uint8_t *tr, float *scaleInv, float *amaxOut,
                         cudaStream_t stream) {
    const int64_t tiles = ((M + kTile - 1) / kTile) * ((K + kTile - 1) / kTile);
    if (tiles > INT32_MAX)
      return cudaErrorInvalidConfiguration;
    static int perSM = 0;
    // The register pipe stages the transposed codes in 2 tiles of its own.
    const size_t smem = pipeSmem<T, kTileStages<T>>(2 * kTile * kTile);
    unsigned grid = tileGrid(perTensorTileKernel<T>, &perSM, tiles, smem);
    perTensorTileKernel<T><<<grid, kFastThreads, smem, stream>>>(
        static_cast<const Storage<T> *>(x), M, K, sc, fp8 == DType::E5M2, data,
        tr, scaleInv, amaxOut, /*reverse=*/sc.amaxPtr != nullptr);
    return cudaGetLastError();
  }
};

bool cooperativeLaunch() {
  static const bool ok = [] {
    int dev = 0, v = 0;
    return cudaGetDevice(&dev) == cudaSuccess &&
           cudaDeviceGetAttribute(&v, cudaDevAttrCooperativeLaunch, dev) ==
               cudaSuccess &&
           v != 0;
  }();
  return ok;
}

template <InKind T> struct CurrentFusedLaunch {
  /// cudaErrorNotSupported if the fused kernel cannot be launched (no
  /// cooperative launch, or the grid does not fit; nothing was enqueued).
  static cudaError_t run(const void *x, int64_t M, int64_t K, DType fp8,
                         bool pow2, float eps, uint8_t *data, uint8_t *tr,
                         float *acc, float *amaxOut, cudaStream_t stream) {
    if (!cooperativeLaunch())
      return cudaErrorNotSupported;
    static int perSM = 0;
    const int64_t tiles = ((M + kTile - 1) / kTile) * ((K + kTile - 1) / kTile);
    const unsigned grid = blockGrid(currentFusedKernel<T>, &perSM, tiles);
    cudaError_t e = cudaMemsetAsync(acc, 0, sizeof(float), stream);
    if (e != cudaSuccess)
      return e;
    const Storage<T> *xs = static_cast<const Storage<T> *>(x);
    float fmax = fp8Max(fp8);
    bool e5m2 = fp8 == DType::E5M2;
    void *args[] = {&xs,   &M,    &K,  &fmax, &pow2,   &eps,
                    &e5m2, &data, &tr, &acc,  &amaxOut};
    e = cudaLaunchCooperativeKernel(
        reinterpret_cast<const void *>(&currentFusedKernel<T>), dim3(grid),
        dim3(kFastThreads), args, 0, stream);
    if (e == cudaErrorCooperativeLaunchTooLarge) {
      (void)cudaGetLastError();
      return cudaErrorNotSupported; // acc is zeroed again by the fallback
    }
    return e;
  }
};

/// launchPerTensorCast on the tile kernel (perTensorFastPath holds).
cudaError_t launchPerTensorCastFast(const void *x, DType inType, int64_t M,
                                    int64_t K, const float *scale, DType fp8,
                                    uint8_t *data, uint8_t *transposed,
                                    float *scaleInv, float *amaxOut,
                                    cudaStream_t stream) {
  PerTensorScale sc;
  sc.scalePtr = scale;
  return dispatchIn<PerTensorLaunch>(inType, x, M, K, sc, fp8, data, transposed,
                                     scaleInv, amaxOut, stream);
}

} // namespace

cudaError_t probeKernels() {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, perTensorCastKernel);
}

bool perTensorFastPath(const void *x, DType t, int64_t M, int64_t K,
                       const void *data, const void *tr) {
  return vectorInput(t) && M > 0 && K > 0 && M % 32 == 0 && K % 64 == 0 &&
         aligned(x, 16) && aligned(data, 8) && aligned(tr, 16);
}

cudaError_t launchPerTensorCast(const void *x, DType inType, int64_t M,
                                int64_t K, const float *scale, DType fp8,
                                uint8_t *data, uint8_t *transposed,
                                float *scaleInv, float *amaxOut,
                                cudaStream_t stream) {
  int64_t tilesM = (M + kPT - 1) / kPT, tilesK = (K + kPT - 1) / kPT;
  int64_t tiles = tilesM * tilesK;
  if (tiles == 0) {
    if (scaleInv)
      return launchReciprocal(scale, scaleInv, stream);
    return cudaSuccess;
  }
  if (perTensorFastPath(x, inType, M, K, data, transposed))
    return launchPerTensorCastFast(x, inType, M, K, scale, fp8, data,
                                   transposed, scaleInv, amaxOut, stream);
  if (tiles > INT32_MAX)
    return cudaErrorInvalidConfiguration;
  perTensorCastKernel<<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(
      x, inType, M, K, tilesK, scale, fp8, data, transposed, scaleInv, amaxOut);
  return cudaGetLastError();
}

cudaError_t launchCurrentCastFast(const void *x, DType inType, int64_t M,
                                  int64_t K, const float *amax, DType fp8,
                                  bool pow2, float eps, uint8_t *data,
                                  uint8_t *transposed, float *scaleInv,
                                  float *amaxOut, cudaStream_t stream) {
  PerTensorScale sc;
  sc.amaxPtr = amax;
  sc.fp8Max = fp8Max(fp8);
  sc.pow2 = pow2;
  sc.eps = eps;
  cudaError_t e = dispatchIn<PerTensorLaunch>(
      inType, x, M, K, sc, fp8, data, transposed, nullptr, nullptr, stream);
  if (e != cudaSuccess)
    return e;
  currentScaleInvKernel<<<1, 1, 0, stream>>>(amax, sc.fp8Max, pow2, eps,
                                             scaleInv, amaxOut);
  return cudaGetLastError();
}

cudaError_t launchCurrentQuantizeFast(const void *x, DType inType, int64_t M,
                                      int64_t K, DType fp8, bool pow2,
                                      float eps, uint8_t *data,
                                      uint8_t *transposed, float *scaleInv,
                                      float *amaxOut, cudaStream_t stream) {
  cudaError_t e =
      dispatchIn<CurrentFusedLaunch>(inType, x, M, K, fp8, pow2, eps, data,
                                     transposed, scaleInv, amaxOut, stream);
  if (e != cudaErrorNotSupported)
    return e;
  // Unfused: the amax pass accumulates into scale_inv, the cast computes
  // the scale from it, the last kernel overwrites it with 1 / scale.
  e = cudaMemsetAsync(scaleInv, 0, sizeof(float), stream);
  if (e == cudaSuccess)
    e = launchAmaxFast(x, inType, M * K, scaleInv, stream);
  if (e == cudaSuccess)
    e = launchCurrentCastFast(x, inType, M, K, scaleInv, fp8, pow2, eps, data,
                              transposed, scaleInv, amaxOut, stream);
  return e;
}

} // namespace te::rt::cuda

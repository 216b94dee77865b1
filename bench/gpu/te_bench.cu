//===- te_bench.cu - GPU benchmark of libte_rt -----------------*- CUDA -*-===//
//
// Part of te. See docs/performance.md for the method and the latest numbers.
//
//===----------------------------------------------------------------------===//
//
// Times, on one GPU, through libte_rt's C ABI (te_rt.h):
//  * copy:   the device-to-device copy ceiling (cudaMemcpyAsync, 1 GiB);
//  * quant:  every recipe's fused rowwise + columnwise quantize of a
//            16384 x 16384 bf16 tensor; per-tensor current scaling with and
//            without a given amax; the amax alone;
//  * amaxd:  a per-tensor FP8 GEMM with and without cuBLASLt's AMAX_D epilogue
//            (direct cuBLASLt: the runtime does not expose it), i.e. what the
//            fused "amax from the producing GEMM" path would cost;
//  * gemm:   bf16 (direct cuBLASLt), FP8 tensorwise (split / fast accumulation;
//            te_rt and a direct host-pointer-mode cuBLASLt call as torch
//            makes it), FP8 rowwise (direct cuBLASLt OUTER_VEC_32F and te_rt's
//            a/b_row_scale_inv), FP8 output written by cuBLASLt (te_rt
//            delayed output quantizer, D_SCALE / AMAX_D), FP8 1x128 x 128x128
//            (te_rt and direct) and 128x128 x 1x128 blocks, MXFP8 and NVFP4
//            (emulated on sm_90) on 8192^3, 16384x8192x8192 and the TE
//            tutorial's M=15872 shapes (TE_BENCH_GEMM_SHAPES=n: the first n);
//            each row's note has the path and cuBLASLt algorithm
//            (te_rt_context_last_gemm_info / the direct plan's);
//  * linear: a Linear forward + backward step (X 16384x8192, W 8192x8192,
//            FP8 current scaling, TE's accumulation choices) and the same
//            three GEMMs in bf16;
//  * small:  quantize of 1024^2 .. 4096^2 tensors.
//
// Method (see the device notes' METHOD.md): random normal data (never zeros),
// warm-up, CUDA events around batches of launches, the median over samples;
// inputs rotate over several sets so that at least ~256 MB is touched per
// round and the 50 MB L2 does not serve repeated reads. Bytes count every
// input once and every output buffer once (the te_rt_qtensor_layout sizes,
// padding included); FLOPs are 2*M*N*K per GEMM.
//
// Output: one line per measurement on stdout and a CSV
// (key,group,desc,ms,bytes,flops,gbps,tflops,note). A failing measurement
// becomes a row with an empty time and the error in `note`.
//
//===----------------------------------------------------------------------===//

#include "te_rt.h"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Errors and output
//===----------------------------------------------------------------------===//

/// Thrown (and caught per measurement) when a CUDA, cuBLASLt or te_rt call
/// fails; the message goes into the CSV row.
struct BenchError {
  std::string what;
};

void checkCuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    throw BenchError{std::string(what) + ": " + cudaGetErrorString(e)};
}

void checkRt(te_rt_status s, const char *what) {
  if (s != TE_RT_OK)
    throw BenchError{std::string(what) + ": " + te_rt_status_string(s) + ": " +
                     te_rt_last_error()};
}

void checkLt(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw BenchError{std::string(what) + ": cuBLAS status " +
                     std::to_string(static_cast<int>(s))};
}

struct Row {
  std::string key, group, desc;
  double ms = NAN, bytes = 0, flops = 0;
  std::string note;
};

std::vector<Row> rows;
std::set<std::string> onlyGroups;
std::string csvPath = "te_bench.csv";
/// --profile: every measured call runs once (for ncu), no timing loop.
bool profileMode = false;

bool wanted(const char *group) {
  return onlyGroups.empty() || onlyGroups.count(group);
}

std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

void writeCsv() {
  FILE *f = std::fopen(csvPath.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "te_bench: cannot write %s\n", csvPath.c_str());
    return;
  }
  std::fprintf(f, "key,group,desc,ms,bytes,flops,gbps,tflops,note\n");
  for (const Row &r : rows) {
    std::string ms, gbps, tflops;
    char buf[64];
    if (!std::isnan(r.ms)) {
      std::snprintf(buf, sizeof buf, "%.6f", r.ms);
      ms = buf;
      if (r.bytes > 0) {
        std::snprintf(buf, sizeof buf, "%.1f", r.bytes / r.ms / 1e6);
        gbps = buf;
      }
      if (r.flops > 0) {
        std::snprintf(buf, sizeof buf, "%.1f", r.flops / r.ms / 1e9);
        tflops = buf;
      }
    }
    std::fprintf(f, "%s,%s,%s,%s,%.0f,%.0f,%s,%s,%s\n", csvField(r.key).c_str(),
                 r.group.c_str(), csvField(r.desc).c_str(), ms.c_str(), r.bytes,
                 r.flops, gbps.c_str(), tflops.c_str(),
                 csvField(r.note).c_str());
  }
  std::fclose(f);
}

void emit(Row r) {
  if (std::isnan(r.ms)) {
    std::printf("%-34s %10s   %s\n", r.key.c_str(), "FAILED", r.note.c_str());
  } else {
    std::printf("%-34s %10.4f ms", r.key.c_str(), r.ms);
    if (r.bytes > 0)
      std::printf(" %8.1f GB/s", r.bytes / r.ms / 1e6);
    if (r.flops > 0)
      std::printf(" %8.1f TFLOP/s", r.flops / r.ms / 1e9);
    if (!r.note.empty())
      std::printf("  [%s]", r.note.c_str());
    std::printf("\n");
  }
  std::fflush(stdout);
  rows.push_back(std::move(r));
  writeCsv(); // keep what we have if a later step dies
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

/// Median time (ms) of one call of `fn(i)` (i counts calls, for rotating
/// input sets). Calls are batched between two events so that one sample lasts
/// about `targetMs`.
double timeIt(const std::function<void(int)> &fn, int warmup = 3,
              int samples = 15, double targetMs = 4.0) {
  int counter = 0;
  if (profileMode) {
    fn(0);
    checkCuda(cudaDeviceSynchronize(), "profiled call");
    return 0.0;
  }
  for (int i = 0; i < warmup; ++i)
    fn(counter++);
  checkCuda(cudaDeviceSynchronize(), "warm-up");
  checkCuda(cudaGetLastError(), "warm-up launch");
  cudaEvent_t e0, e1;
  checkCuda(cudaEventCreate(&e0), "cudaEventCreate");
  checkCuda(cudaEventCreate(&e1), "cudaEventCreate");
  // Estimate one call.
  checkCuda(cudaEventRecord(e0), "cudaEventRecord");
  fn(counter++);
  checkCuda(cudaEventRecord(e1), "cudaEventRecord");
  checkCuda(cudaEventSynchronize(e1), "cudaEventSynchronize");
  float one = 0;
  checkCuda(cudaEventElapsedTime(&one, e0, e1), "cudaEventElapsedTime");
  int inner = std::max(
      1, std::min(200, static_cast<int>(targetMs / std::max(one, 1e-3f))));
  std::vector<double> t;
  for (int s = 0; s < samples; ++s) {
    checkCuda(cudaEventRecord(e0), "cudaEventRecord");
    for (int j = 0; j < inner; ++j)
      fn(counter++);
    checkCuda(cudaEventRecord(e1), "cudaEventRecord");
    checkCuda(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float ms = 0;
    checkCuda(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    t.push_back(ms / inner);
  }
  checkCuda(cudaGetLastError(), "timed launches");
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Runs `body` (which emits rows); on failure emits a failed row for `key`.
void guarded(const std::string &key, const char *group,
             const std::function<void()> &body) {
  try {
    body();
  } catch (const BenchError &e) {
    Row r;
    r.key = key;
    r.group = group;
    r.note = e.what;
    emit(r);
    cudaGetLastError(); // clear a sticky launch error if it is not fatal
  }
}

//===----------------------------------------------------------------------===//
// Device data
//===----------------------------------------------------------------------===//

__device__ uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Normal(0, stddev) bf16 values (Box-Muller on a counter hash).
__global__ void fillNormalKernel(__nv_bfloat16 *p, size_t n, uint64_t seed,
                                 float stddev) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    uint64_t h = splitmix(seed * 0x100000001B3ull + i);
    float u1 = ((h >> 40) + 1) * (1.0f / 16777217.0f); // (0, 1]
    float u2 = ((h & 0xFFFFFF)) * (1.0f / 16777216.0f);
    float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    p[i] = __float2bfloat16(z * stddev);
  }
}

__global__ void fillConstKernel(float *p, size_t n, float v, uint64_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    // v * [0.5, 1.5): positive, not all equal.
    uint64_t h = splitmix(seed + i);
    p[i] = v * (0.5f + (h >> 40) * (1.0f / 16777216.0f));
  }
}

/// acc[0] += sum (y - x)^2, acc[1] += sum x^2 over n elements.
__global__ void relErrKernel(const __nv_bfloat16 *x, const float *y, size_t n,
                             double *acc) {
  double e = 0, r = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    double a = __bfloat162float(x[i]), b = y[i];
    e += (b - a) * (b - a);
    r += a * a;
  }
  atomicAdd(&acc[0], e);
  atomicAdd(&acc[1], r);
}

struct DeviceBuffer {
  void *p = nullptr;
  size_t bytes = 0;
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : bytes(n) {
    checkCuda(cudaMalloc(&p, std::max<size_t>(n, 1)), "cudaMalloc");
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&o) noexcept : p(o.p), bytes(o.bytes) {
    o.p = nullptr;
  }
  ~DeviceBuffer() {
    if (p)
      cudaFree(p);
  }
  template <typename T> T *as() const { return static_cast<T *>(p); }
};

DeviceBuffer randomBF16(int64_t n, uint64_t seed, float stddev = 1.0f) {
  DeviceBuffer b(static_cast<size_t>(n) * 2);
  fillNormalKernel<<<1024, 256>>>(b.as<__nv_bfloat16>(), n, seed, stddev);
  checkCuda(cudaGetLastError(), "fill kernel");
  return b;
}

DeviceBuffer randomPositive(int64_t n, float v, uint64_t seed) {
  DeviceBuffer b(static_cast<size_t>(n) * 4);
  fillConstKernel<<<256, 256>>>(b.as<float>(), n, v, seed);
  checkCuda(cudaGetLastError(), "fill kernel");
  return b;
}

te_rt_tensor tensor2D(void *data, te_rt_dtype dtype, int64_t m, int64_t k) {
  te_rt_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = 2;
  t.shape[0] = m;
  t.shape[1] = k;
  return t;
}

//===----------------------------------------------------------------------===//
// te_rt helpers
//===----------------------------------------------------------------------===//

te_rt_context *ctx = nullptr;

/// A te_rt_qtensor_alloc'ed tensor, freed on scope exit.
struct QT {
  te_rt_qtensor q{};
  bool live = false;
  QT(const te_rt_quantizer &qz, int64_t m, int64_t k, te_rt_usage usage) {
    int64_t shape[2] = {m, k};
    checkRt(te_rt_qtensor_alloc(ctx, &q, &qz, 2, shape, usage, TE_RT_SM90),
            "te_rt_qtensor_alloc");
    live = true;
  }
  QT(const QT &) = delete;
  QT &operator=(const QT &) = delete;
  ~QT() {
    if (live)
      te_rt_qtensor_free(ctx, &q);
  }
  /// The buffer called `name` (TE attribute name), or throws.
  void *buffer(const char *name) const {
    te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
    int32_t n = 0;
    checkRt(te_rt_qtensor_layout(&q.quantizer, q.rank, q.shape, q.usage,
                                 q.target, d, TE_RT_MAX_BUFFERS, &n),
            "te_rt_qtensor_layout");
    for (int i = 0; i < n; ++i)
      if (std::strcmp(d[i].name, name) == 0)
        return q.buffers[i].data;
    throw BenchError{std::string("no buffer ") + name};
  }
};

/// Output bytes of a quantized tensor of this shape (layout sizes).
double layoutBytes(const te_rt_quantizer &qz, int64_t m, int64_t k,
                   te_rt_usage usage) {
  int64_t shape[2] = {m, k};
  te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
  int32_t n = 0;
  checkRt(te_rt_qtensor_layout(&qz, 2, shape, usage, TE_RT_SM90, d,
                               TE_RT_MAX_BUFFERS, &n),
          "te_rt_qtensor_layout");
  double b = 0;
  for (int i = 0; i < n; ++i)
    b += static_cast<double>(d[i].size_bytes);
  return b;
}

struct RecipeSpec {
  const char *name;
  te_rt_quantizer q;
  bool amaxIn = false; ///< current scaling with a given amax
};

te_rt_quantizer quantizer(te_rt_recipe recipe) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q);
  q.recipe = recipe;
  if (recipe == TE_RT_RECIPE_NVFP4)
    q.dtype = TE_RT_E2M1X2;
  return q;
}

std::vector<RecipeSpec> quantRecipes(bool all) {
  std::vector<RecipeSpec> r;
  if (all)
    r.push_back({"delayed", quantizer(TE_RT_RECIPE_DELAYED)});
  r.push_back({"current", quantizer(TE_RT_RECIPE_CURRENT)});
  if (all)
    r.push_back({"current_amaxin", quantizer(TE_RT_RECIPE_CURRENT), true});
  RecipeSpec b1{"block1d", quantizer(TE_RT_RECIPE_BLOCK)};
  b1.q.block_dim = 1;
  b1.q.pow2_scales = 1; // TE's default for Float8BlockScaling
  r.push_back(b1);
  if (all) {
    RecipeSpec b2{"block2d", quantizer(TE_RT_RECIPE_BLOCK)};
    b2.q.block_dim = 2;
    b2.q.pow2_scales = 1;
    r.push_back(b2);
  }
  r.push_back({"mxfp8", quantizer(TE_RT_RECIPE_MXFP8)});
  r.push_back({"nvfp4", quantizer(TE_RT_RECIPE_NVFP4)});
  if (all) {
    RecipeSpec n2{"nvfp4_rht", quantizer(TE_RT_RECIPE_NVFP4)};
    n2.q.rht = 1;
    n2.q.rht_sign_mask = 0xD7E8; // TE's sign vector
    r.push_back(n2);
  }
  return r;
}

std::string shapeKey(int64_t m, int64_t k) {
  return std::to_string(m) + "x" + std::to_string(k);
}

//===----------------------------------------------------------------------===//
// Sections
//===----------------------------------------------------------------------===//

double copyGBps = 0; // measured D2D copy bandwidth (read + write)

void benchCopy() {
  guarded("copy_1GiB", "copy", [] {
    const size_t bytes = size_t(1) << 30;
    DeviceBuffer a(bytes), b(bytes), c(bytes);
    checkCuda(cudaMemset(a.p, 1, bytes), "cudaMemset");
    checkCuda(cudaMemset(c.p, 2, bytes), "cudaMemset");
    double ms = timeIt([&](int i) {
      checkCuda(cudaMemcpyAsync(b.p, (i & 1) ? c.p : a.p, bytes,
                                cudaMemcpyDeviceToDevice),
                "cudaMemcpyAsync");
    });
    Row r{"copy_1GiB", "copy", "device-to-device copy of 1 GiB (read+write)",
          ms, 2.0 * bytes};
    copyGBps = r.bytes / ms / 1e6;
    emit(r);
  });
}

/// Quantize (rowwise + columnwise) of m x k bf16 inputs, rotating over
/// enough sets to exceed the L2.
void benchQuantize(const char *group, int64_t m, int64_t k, bool allRecipes,
                   bool checkError) {
  const int64_t n = m * k;
  for (const RecipeSpec &spec : quantRecipes(allRecipes)) {
    std::string key = std::string("quant_") + spec.name + "_" + shapeKey(m, k);
    guarded(key, group, [&] {
      checkRt(te_rt_quantizer_verify(&spec.q), "te_rt_quantizer_verify");
      const double outBytes =
          layoutBytes(spec.q, m, k, TE_RT_ROWWISE_AND_COLUMNWISE);
      const double setBytes = 2.0 * n + outBytes;
      int sets = static_cast<int>(std::ceil(256e6 / setBytes));
      sets = std::max(2, std::min(64, sets));
      std::vector<DeviceBuffer> xs;
      std::vector<std::unique_ptr<QT>> qs;
      std::vector<te_rt_tensor> ts;
      DeviceBuffer scratch(static_cast<size_t>(sets) * 2 * sizeof(float));
      float *amaxes = scratch.as<float>(); // [sets] amax of each input
      float *scale = amaxes + sets;        // delayed: one scale
      float *amaxOut = scale + 1;          // delayed: amax written here
      for (int s = 0; s < sets; ++s) {
        xs.push_back(randomBF16(n, 1000 + s));
        ts.push_back(tensor2D(xs.back().p, TE_RT_BF16, m, k));
        qs.push_back(
            std::make_unique<QT>(spec.q, m, k, TE_RT_ROWWISE_AND_COLUMNWISE));
        if (spec.amaxIn)
          checkRt(te_rt_amax(ctx, &ts.back(), amaxes + s), "te_rt_amax");
      }
      const float scaleValue = 448.0f / 6.0f; // |N(0,1)| rarely exceeds 6
      checkCuda(cudaMemcpy(scale, &scaleValue, 4, cudaMemcpyHostToDevice),
                "cudaMemcpy");
      auto call = [&](int i) {
        int s = i % sets;
        te_rt_quantize_args a;
        te_rt_quantize_args_init(&a);
        if (spec.q.recipe == TE_RT_RECIPE_DELAYED) {
          a.scale = scale;
          a.amax = amaxOut;
        }
        if (spec.amaxIn)
          a.amax_in = amaxes + s;
        a.seed = 1234;
        a.offset = static_cast<uint64_t>(i) * 977;
        checkRt(te_rt_quantize(ctx, &ts[s], &qs[s]->q, &a), "te_rt_quantize");
      };
      double ms = timeIt(call);
      Row r{key, group,
            std::string(spec.name) + " rowwise+columnwise quantize of bf16 " +
                shapeKey(m, k),
            ms, 2.0 * n + outBytes};
      r.note = std::to_string(sets) + " input sets";
      if (checkError && !profileMode) {
        // Dequantize set 0's rowwise copy; the relative error is the sanity
        // check that the timed kernels computed the quantization.
        DeviceBuffer y(static_cast<size_t>(n) * 4), acc(16);
        te_rt_tensor yt = tensor2D(y.p, TE_RT_F32, m, k);
        call(0);
        checkRt(te_rt_dequantize(ctx, &qs[0]->q, TE_RT_ROWWISE, &yt),
                "te_rt_dequantize");
        checkCuda(cudaMemset(acc.p, 0, 16), "cudaMemset");
        relErrKernel<<<1024, 256>>>(xs[0].as<__nv_bfloat16>(), y.as<float>(), n,
                                    acc.as<double>());
        double h[2];
        checkCuda(cudaMemcpy(h, acc.p, 16, cudaMemcpyDeviceToHost),
                  "cudaMemcpy");
        char buf[64];
        std::snprintf(buf, sizeof buf, "; rowwise rel. error %.3g",
                      std::sqrt(h[0] / h[1]));
        r.note += buf;
      }
      emit(r);
    });
  }
  std::string key = "amax_" + shapeKey(m, k);
  if (allRecipes)
    guarded(key, group, [&] {
      std::vector<DeviceBuffer> xs;
      std::vector<te_rt_tensor> ts;
      int sets = std::max(
          2, std::min(64, static_cast<int>(std::ceil(256e6 / (2.0 * n)))));
      for (int s = 0; s < sets; ++s) {
        xs.push_back(randomBF16(n, 2000 + s));
        ts.push_back(tensor2D(xs.back().p, TE_RT_BF16, m, k));
      }
      DeviceBuffer amax(4);
      double ms = timeIt([&](int i) {
        checkRt(te_rt_amax(ctx, &ts[i % sets], amax.as<float>()), "te_rt_amax");
      });
      emit(Row{key, group, "amax (max |x|) of bf16 " + shapeKey(m, k), ms,
               2.0 * n});
    });
}

//===----------------------------------------------------------------------===//
// Direct cuBLASLt (what te_rt does not expose)
//===----------------------------------------------------------------------===//

cublasLtHandle_t lt = nullptr;
DeviceBuffer *ltWorkspace = nullptr;
const size_t kWorkspaceBytes = size_t(32) << 20;

struct LtSpec {
  cudaDataType_t aType = CUDA_R_16BF, bType = CUDA_R_16BF, dType = CUDA_R_16BF;
  cublasOperation_t opA = CUBLAS_OP_T, opB = CUBLAS_OP_N;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldd = 0; // column-major
  const void *aScale = nullptr, *bScale = nullptr;
  int aMode = -1, bMode = -1;
  bool fp8 = false, fastAccum = false;
  void *amaxD = nullptr;
  const void *dScale = nullptr; ///< FP8 D: the quantization scale
  /// C's type when it differs from D's (FP8 D takes a 16-bit C; then no C
  /// pointer is passed, beta = 0).
  int cType = -1;
  /// The heuristic's workspace limit and the workspace passed to the call
  /// (torch._scaled_mm's is 1 MiB: TE_BENCH_GEMM_VARIANTS compares).
  uint64_t workspaceBytes = kWorkspaceBytes;
};

struct LtPlan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  std::string algoDesc;
  uint64_t workspaceBytes = 0;
  LtPlan() = default;
  LtPlan(const LtPlan &) = delete;
  LtPlan &operator=(const LtPlan &) = delete;
  ~LtPlan() {
    if (d)
      cublasLtMatrixLayoutDestroy(d);
    if (c)
      cublasLtMatrixLayoutDestroy(c);
    if (b)
      cublasLtMatrixLayoutDestroy(b);
    if (a)
      cublasLtMatrixLayoutDestroy(a);
    if (op)
      cublasLtMatmulDescDestroy(op);
  }
};

/// "algo=ID tile=T stages=S splitK=K swizzle=W custom=C" of a cuBLASLt
/// algorithm (the fields te_rt_gemm_info reports for te_rt's GEMMs).
std::string algoText(const cublasLtMatmulAlgo_t &algo) {
  const cublasLtMatmulAlgoConfigAttributes_t attrs[] = {
      CUBLASLT_ALGO_CONFIG_ID,
      CUBLASLT_ALGO_CONFIG_TILE_ID,
      CUBLASLT_ALGO_CONFIG_STAGES_ID,
      CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
      CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING,
      CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION};
  const char *names[] = {"algo",   "tile",    "stages",
                         "splitK", "swizzle", "custom"};
  std::string out;
  for (int i = 0; i < 6; ++i) {
    uint32_t v = 0;
    size_t w = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&algo, attrs[i], &v, sizeof v, &w);
    out += std::string(i ? " " : "") + names[i] + "=" +
           std::to_string(static_cast<int32_t>(v));
  }
  return out;
}

std::unique_ptr<LtPlan> makePlan(const LtSpec &s) {
  auto p = std::make_unique<LtPlan>();
  checkLt(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
          "cublasLtMatmulDescCreate");
  auto set = [&](cublasLtMatmulDescAttributes_t attr, const void *v,
                 size_t bytes, const char *what) {
    checkLt(cublasLtMatmulDescSetAttribute(p->op, attr, v, bytes), what);
  };
  int32_t opA = s.opA, opB = s.opB;
  set(CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof opA, "TRANSA");
  set(CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof opB, "TRANSB");
  if (s.aScale)
    set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &s.aScale, sizeof s.aScale,
        "A_SCALE_POINTER");
  if (s.bScale)
    set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &s.bScale, sizeof s.bScale,
        "B_SCALE_POINTER");
  if (s.aMode >= 0) {
    int32_t v = s.aMode;
    set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &v, sizeof v, "A_SCALE_MODE");
  }
  if (s.bMode >= 0) {
    int32_t v = s.bMode;
    set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &v, sizeof v, "B_SCALE_MODE");
  }
  if (s.fp8) {
    int8_t fast = s.fastAccum ? 1 : 0;
    set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast, "FAST_ACCUM");
  }
  if (s.amaxD)
    set(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &s.amaxD, sizeof s.amaxD,
        "AMAX_D_POINTER");
  if (s.dScale)
    set(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &s.dScale, sizeof s.dScale,
        "D_SCALE_POINTER");
  bool aT = s.opA == CUBLAS_OP_T, bT = s.opB == CUBLAS_OP_T;
  checkLt(cublasLtMatrixLayoutCreate(&p->a, s.aType, aT ? s.k : s.m,
                                     aT ? s.m : s.k, s.lda),
          "A layout");
  checkLt(cublasLtMatrixLayoutCreate(&p->b, s.bType, bT ? s.n : s.k,
                                     bT ? s.k : s.n, s.ldb),
          "B layout");
  checkLt(cublasLtMatrixLayoutCreate(&p->d, s.dType, s.m, s.n, s.ldd),
          "D layout");
  if (s.cType >= 0)
    checkLt(cublasLtMatrixLayoutCreate(
                &p->c, static_cast<cudaDataType_t>(s.cType), s.m, s.n, s.ldd),
            "C layout");
  cublasLtMatmulPreference_t pref = nullptr;
  checkLt(cublasLtMatmulPreferenceCreate(&pref), "preference");
  uint64_t ws = s.workspaceBytes;
  p->workspaceBytes = ws;
  cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  cublasStatus_t st =
      cublasLtMatmulAlgoGetHeuristic(lt, p->op, p->a, p->b, p->c ? p->c : p->d,
                                     p->d, pref, 1, &result, &returned);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || returned == 0)
    throw BenchError{"cuBLASLt heuristic found no algorithm (status " +
                     std::to_string(static_cast<int>(st)) + ")"};
  p->algo = result.algo;
  p->algoDesc = algoText(result.algo);
  return p;
}

/// C = D (in place, beta = 0) unless `C` is given (out of place, as
/// torch._scaled_mm calls it).
void runPlan(const LtPlan &p, const void *A, const void *B, void *D,
             const void *C = nullptr) {
  const float alpha = 1.0f, beta = 0.0f;
  checkLt(cublasLtMatmul(lt, p.op, &alpha, A, p.a, B, p.b, &beta,
                         p.c ? nullptr : (C ? C : D), p.c ? p.c : p.d, D, p.d,
                         &p.algo, ltWorkspace->p, p.workspaceBytes, nullptr),
          "cublasLtMatmul");
}

/// bf16 row-major D[M, N] = X[M, K] * W[N, K]^T (TN).
LtSpec bf16Fprop(int64_t M, int64_t N, int64_t K) {
  LtSpec s;
  s.m = N;
  s.n = M;
  s.k = K;
  s.lda = K;
  s.ldb = K;
  s.ldd = N;
  return s;
}

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

struct Shape3 {
  int64_t M, K, N;
};

std::string gemmKey(const char *mode, const Shape3 &s) {
  return std::string("gemm_") + mode + "_" + std::to_string(s.M) + "x" +
         std::to_string(s.K) + "x" + std::to_string(s.N);
}

std::string shapeDesc(const Shape3 &s) {
  return "M=" + std::to_string(s.M) + " K=" + std::to_string(s.K) +
         " N=" + std::to_string(s.N);
}

/// The path and algorithm of te_rt's last GEMM (te_rt_context_last_gemm_info).
std::string gemmInfoText() {
  te_rt_gemm_info i;
  if (te_rt_context_last_gemm_info(ctx, &i) != TE_RT_OK)
    return "no gemm info";
  const char *paths[] = {"none",       "cpu",      "native-fp8",
                         "native-blk", "emu-bf16", "emu-f32"};
  int p = static_cast<int>(i.path);
  return std::string("path=") + (p >= 0 && p < 6 ? paths[p] : "?") +
         " algo=" + std::to_string(i.algo_id) +
         " tile=" + std::to_string(i.algo_tile) +
         " stages=" + std::to_string(i.algo_stages) +
         " splitK=" + std::to_string(i.algo_split_k) +
         " swizzle=" + std::to_string(i.algo_swizzle) +
         " custom=" + std::to_string(i.algo_custom_option) +
         " host=" + std::to_string(i.host_pointer_mode) +
         " tuned=" + std::to_string(i.autotuned) +
         " fusedFp8Out=" + std::to_string(i.fused_fp8_output);
}

/// te_rt_gemm TN of W (A, [N, K]) and X (B, [M, K]) quantized with wq / xq.
/// `tweak` may set more arguments (per-row scales, an output quantizer).
void teGemm(const char *mode, const Shape3 &s, const te_rt_quantizer &wq,
            const te_rt_quantizer &xq, bool split, const DeviceBuffer &x,
            const DeviceBuffer &w, const DeviceBuffer &d, const char *what,
            const std::function<void(te_rt_gemm_args &, te_rt_tensor *&)>
                &tweak = nullptr) {
  std::string key = gemmKey(mode, s);
  guarded(key, "gemm", [&] {
    QT qw(wq, s.N, s.K, TE_RT_ROWWISE), qx(xq, s.M, s.K, TE_RT_ROWWISE);
    te_rt_tensor tw = tensor2D(w.p, TE_RT_BF16, s.N, s.K);
    te_rt_tensor tx = tensor2D(x.p, TE_RT_BF16, s.M, s.K);
    checkRt(te_rt_quantize(ctx, &tw, &qw.q, nullptr), "quantize W");
    checkRt(te_rt_quantize(ctx, &tx, &qx.q, nullptr), "quantize X");
    te_rt_tensor td = tensor2D(d.p, TE_RT_BF16, s.M, s.N);
    te_rt_tensor *dp = &td;
    te_rt_gemm_args a;
    te_rt_gemm_args_init(&a);
    a.layout = TE_RT_GEMM_TN;
    a.use_split_accumulator = split ? 1 : 0;
    if (tweak)
      tweak(a, dp);
    double ms = timeIt(
        [&](int) {
          checkRt(te_rt_gemm(ctx, &qw.q, &qx.q, dp, &a), "te_rt_gemm");
        },
        2, 11, 20.0);
    Row r{key, "gemm", std::string(what) + ", " + shapeDesc(s),
          ms,  0,      2.0 * s.M * s.N * s.K};
    r.note = gemmInfoText();
    emit(r);
  });
}

void benchGemmShape(const Shape3 &s) {
  DeviceBuffer x = randomBF16(s.M * s.K, 11), w = randomBF16(s.N * s.K, 12);
  DeviceBuffer d(static_cast<size_t>(s.M) * s.N * 2);
  const double flops = 2.0 * s.M * s.N * s.K;

  guarded(gemmKey("bf16", s), "gemm", [&] {
    auto plan = makePlan(bf16Fprop(s.M, s.N, s.K));
    double ms =
        timeIt([&](int) { runPlan(*plan, w.p, x.p, d.p); }, 2, 11, 20.0);
    emit(Row{gemmKey("bf16", s), "gemm",
             "bf16 cuBLASLt (direct), " + shapeDesc(s), ms, 0, flops,
             plan->algoDesc});
  });

  te_rt_quantizer cur = quantizer(TE_RT_RECIPE_CURRENT);
  teGemm("tensor", s, cur, cur, true, x, w, d,
         "FP8 per-tensor (te_rt current), split accumulation");
  teGemm("tensor_fast", s, cur, cur, false, x, w, d,
         "FP8 per-tensor (te_rt current), fast accumulation");
  // The same GEMMs through a plain cuBLASLt call as torch._scaled_mm makes
  // it (host pointer mode, default preferences but the workspace): which
  // algorithm the heuristic gives there.
  for (bool fast : {false, true})
    guarded(
        gemmKey(fast ? "tensor_fast_direct" : "tensor_direct", s), "gemm", [&] {
          QT qw(cur, s.N, s.K, TE_RT_ROWWISE), qx(cur, s.M, s.K, TE_RT_ROWWISE);
          te_rt_tensor tw = tensor2D(w.p, TE_RT_BF16, s.N, s.K);
          te_rt_tensor tx = tensor2D(x.p, TE_RT_BF16, s.M, s.K);
          checkRt(te_rt_quantize(ctx, &tw, &qw.q, nullptr), "quantize W");
          checkRt(te_rt_quantize(ctx, &tx, &qx.q, nullptr), "quantize X");
          LtSpec ls = bf16Fprop(s.M, s.N, s.K);
          ls.aType = ls.bType = CUDA_R_8F_E4M3;
          ls.fp8 = true;
          ls.fastAccum = fast;
          ls.aScale = qw.buffer("_scale_inv");
          ls.bScale = qx.buffer("_scale_inv");
          auto plan = makePlan(ls);
          void *wd = qw.buffer("_data"), *xd = qx.buffer("_data");
          double ms =
              timeIt([&](int) { runPlan(*plan, wd, xd, d.p); }, 2, 11, 20.0);
          emit(Row{
              gemmKey(fast ? "tensor_fast_direct" : "tensor_direct", s), "gemm",
              std::string("FP8 per-tensor, direct cuBLASLt host "
                          "pointer mode, ") +
                  (fast ? "fast" : "split") + " accumulation, " + shapeDesc(s),
              ms, 0, flops, plan->algoDesc});
        });
  {
    // te_rt's per-row scaling (OUTER_VEC_32F), same scales as "rowwise".
    DeviceBuffer sa = randomPositive(s.N, 0.01f, 5),
                 sb = randomPositive(s.M, 0.01f, 6);
    teGemm("rowwise_te", s, cur, cur, true, x, w, d,
           "FP8 rowwise (te_rt a/b_row_scale_inv)",
           [&](te_rt_gemm_args &a, te_rt_tensor *&) {
             a.a_row_scale_inv = sa.as<float>();
             a.b_row_scale_inv = sb.as<float>();
           });
  }
  {
    // te_rt FP8 output (delayed scaling, rowwise): cuBLASLt writes the FP8
    // data with D_SCALE / AMAX_D (TE's fprop with fast accumulation).
    te_rt_quantizer del = quantizer(TE_RT_RECIPE_DELAYED);
    QT out(del, s.M, s.N, TE_RT_ROWWISE);
    DeviceBuffer scale = randomPositive(1, 1.0f, 7), amax(4);
    te_rt_quantize_args oa;
    te_rt_quantize_args_init(&oa);
    oa.scale = scale.as<float>();
    oa.amax = amax.as<float>();
    teGemm("tensor_fp8out", s, cur, cur, false, x, w, d,
           "FP8 per-tensor, FP8 E4M3 output (te_rt delayed output quantizer)",
           [&](te_rt_gemm_args &a, te_rt_tensor *&dp) {
             a.output = &out.q;
             a.output_args = &oa;
             dp = nullptr;
           });
  }

  guarded(gemmKey("rowwise", s), "gemm", [&] {
    // Row-wise scaling has no te_rt recipe: cuBLASLt OUTER_VEC_32F directly
    // on te_rt-quantized FP8 data, with per-row / per-column fp32 scales.
    QT qw(cur, s.N, s.K, TE_RT_ROWWISE), qx(cur, s.M, s.K, TE_RT_ROWWISE);
    te_rt_tensor tw = tensor2D(w.p, TE_RT_BF16, s.N, s.K);
    te_rt_tensor tx = tensor2D(x.p, TE_RT_BF16, s.M, s.K);
    checkRt(te_rt_quantize(ctx, &tw, &qw.q, nullptr), "quantize W");
    checkRt(te_rt_quantize(ctx, &tx, &qx.q, nullptr), "quantize X");
    DeviceBuffer sa = randomPositive(s.N, 0.01f, 5),
                 sb = randomPositive(s.M, 0.01f, 6);
    LtSpec ls = bf16Fprop(s.M, s.N, s.K);
    ls.aType = ls.bType = CUDA_R_8F_E4M3;
    ls.fp8 = true;
    ls.aScale = sa.p;
    ls.bScale = sb.p;
    ls.aMode = ls.bMode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    auto plan = makePlan(ls);
    void *wd = qw.buffer("_data"), *xd = qx.buffer("_data");
    double ms = timeIt([&](int) { runPlan(*plan, wd, xd, d.p); }, 2, 11, 20.0);
    emit(Row{gemmKey("rowwise", s), "gemm",
             "FP8 rowwise (direct cuBLASLt OUTER_VEC_32F), " + shapeDesc(s), ms,
             0, flops, "not a te_rt recipe"});
  });

  te_rt_quantizer b1 = quantizer(TE_RT_RECIPE_BLOCK),
                  b2 = quantizer(TE_RT_RECIPE_BLOCK);
  b1.block_dim = 1;
  b2.block_dim = 2;
  b1.pow2_scales = b2.pow2_scales = 1;
  // Names in torch._scaled_mm order (mat1 = X, mat2 = W).
  teGemm("blk1d2d", s, /*W=*/b2, /*X=*/b1, true, x, w, d,
         "FP8 blocks X 1x128 x W 128x128 (te_rt block)");
  guarded(gemmKey("blk1d2d_direct", s), "gemm", [&] {
    QT qw(b2, s.N, s.K, TE_RT_ROWWISE), qx(b1, s.M, s.K, TE_RT_ROWWISE);
    te_rt_tensor tw = tensor2D(w.p, TE_RT_BF16, s.N, s.K);
    te_rt_tensor tx = tensor2D(x.p, TE_RT_BF16, s.M, s.K);
    checkRt(te_rt_quantize(ctx, &tw, &qw.q, nullptr), "quantize W");
    checkRt(te_rt_quantize(ctx, &tx, &qx.q, nullptr), "quantize X");
    LtSpec ls = bf16Fprop(s.M, s.N, s.K);
    ls.aType = ls.bType = CUDA_R_8F_E4M3;
    ls.fp8 = true;
    ls.aScale = qw.buffer("_rowwise_scale_inv");
    ls.bScale = qx.buffer("_rowwise_scale_inv");
    ls.aMode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    ls.bMode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    auto plan = makePlan(ls);
    void *wd = qw.buffer("_rowwise_data"), *xd = qx.buffer("_rowwise_data");
    double ms = timeIt([&](int) { runPlan(*plan, wd, xd, d.p); }, 2, 11, 20.0);
    emit(Row{gemmKey("blk1d2d_direct", s), "gemm",
             "FP8 blocks X 1x128 x W 128x128, direct cuBLASLt host pointer "
             "mode, " +
                 shapeDesc(s),
             ms, 0, flops, plan->algoDesc});
    if (std::getenv("TE_BENCH_GEMM_VARIANTS")) {
      // What differs from torch._scaled_mm's call (CUBLASLT_LOG_LEVEL=5):
      // a 1 MiB workspace, C != D; and the same call once more (drift).
      LtSpec l1 = ls;
      l1.workspaceBytes = size_t(1) << 20;
      auto p1 = makePlan(l1);
      double ms1 = timeIt([&](int) { runPlan(*p1, wd, xd, d.p); }, 2, 11, 20.0);
      emit(Row{gemmKey("blk1d2d_direct_ws1m", s), "gemm",
               "as blk1d2d_direct, 1 MiB workspace, " + shapeDesc(s), ms1, 0,
               flops, p1->algoDesc});
      DeviceBuffer c(static_cast<size_t>(s.M) * s.N * 2);
      double ms2 =
          timeIt([&](int) { runPlan(*p1, wd, xd, d.p, c.p); }, 2, 11, 20.0);
      emit(Row{gemmKey("blk1d2d_direct_ws1m_oop", s), "gemm",
               "as blk1d2d_direct, 1 MiB workspace, C != D, " + shapeDesc(s),
               ms2, 0, flops, p1->algoDesc});
      double ms3 =
          timeIt([&](int) { runPlan(*plan, wd, xd, d.p); }, 2, 11, 20.0);
      emit(Row{gemmKey("blk1d2d_direct_again", s), "gemm",
               "blk1d2d_direct once more, " + shapeDesc(s), ms3, 0, flops,
               plan->algoDesc});
    }
  });
  teGemm("blk2d1d", s, /*W=*/b1, /*X=*/b2, true, x, w, d,
         "FP8 blocks X 128x128 x W 1x128 (te_rt block)");
  te_rt_quantizer mx = quantizer(TE_RT_RECIPE_MXFP8);
  teGemm("mxfp8_emu", s, mx, mx, true, x, w, d,
         "MXFP8 (te_rt, sm_90 emulation: dequantize to bf16 + bf16 GEMM)");
  te_rt_quantizer nv = quantizer(TE_RT_RECIPE_NVFP4);
  teGemm("nvfp4_emu", s, nv, nv, true, x, w, d,
         "NVFP4 (te_rt, sm_90 emulation: dequantize to bf16 + bf16 GEMM)");
}

/// A per-tensor FP8 GEMM producing a 16384 x 16384 tensor, with and without
/// the AMAX_D epilogue, for D in bf16, fp32 and E4M3 (with a D scale); plus
/// the fused current-scaling path (epilogue overhead + quantize with a given
/// amax) when a 16-bit or fp32 D takes the epilogue.
void benchAmaxD(double quantAmaxInMs) {
  const Shape3 s{16384, 4096, 16384};
  guarded("amaxd_setup", "amaxd", [&] {
    DeviceBuffer x = randomBF16(s.M * s.K, 21), w = randomBF16(s.N * s.K, 22);
    DeviceBuffer d(static_cast<size_t>(s.M) * s.N * 4), amax(4), dScale(4);
    const float one = 1.0f;
    checkCuda(cudaMemcpy(dScale.p, &one, 4, cudaMemcpyHostToDevice),
              "cudaMemcpy");
    te_rt_quantizer cur = quantizer(TE_RT_RECIPE_CURRENT);
    QT qw(cur, s.N, s.K, TE_RT_ROWWISE), qx(cur, s.M, s.K, TE_RT_ROWWISE);
    te_rt_tensor tw = tensor2D(w.p, TE_RT_BF16, s.N, s.K);
    te_rt_tensor tx = tensor2D(x.p, TE_RT_BF16, s.M, s.K);
    checkRt(te_rt_quantize(ctx, &tw, &qw.q, nullptr), "quantize W");
    checkRt(te_rt_quantize(ctx, &tx, &qx.q, nullptr), "quantize X");
    void *wd = qw.buffer("_data"), *xd = qx.buffer("_data");
    struct Variant {
      const char *name;
      cudaDataType_t dType;
      int cType;
    } variants[] = {{"bf16", CUDA_R_16BF, -1},
                    {"f32", CUDA_R_32F, -1},
                    {"e4m3", CUDA_R_8F_E4M3, CUDA_R_16BF}};
    bool fusedDone = false;
    for (const Variant &v : variants) {
      std::string pk = std::string("amaxd_gemm_plain_") + v.name;
      std::string ak = std::string("amaxd_gemm_amax_") + v.name;
      double msPlain = NAN;
      guarded(pk, "amaxd", [&] {
        LtSpec ls = bf16Fprop(s.M, s.N, s.K);
        ls.aType = ls.bType = CUDA_R_8F_E4M3;
        ls.dType = v.dType;
        ls.cType = v.cType;
        ls.fp8 = true;
        ls.fastAccum = true; // TE's fprop
        ls.aScale = qw.buffer("_scale_inv");
        ls.bScale = qx.buffer("_scale_inv");
        if (v.dType == CUDA_R_8F_E4M3)
          ls.dScale = dScale.p;
        auto plain = makePlan(ls);
        msPlain =
            timeIt([&](int) { runPlan(*plain, wd, xd, d.p); }, 2, 11, 20.0);
        emit(Row{pk, "amaxd",
                 std::string("FP8 GEMM -> ") + v.name + " " + shapeDesc(s) +
                     ", no epilogue",
                 msPlain, 0, 2.0 * s.M * s.N * s.K});
      });
      if (std::isnan(msPlain))
        continue;
      guarded(ak, "amaxd", [&] {
        LtSpec ls = bf16Fprop(s.M, s.N, s.K);
        ls.aType = ls.bType = CUDA_R_8F_E4M3;
        ls.dType = v.dType;
        ls.cType = v.cType;
        ls.fp8 = true;
        ls.fastAccum = true;
        ls.aScale = qw.buffer("_scale_inv");
        ls.bScale = qx.buffer("_scale_inv");
        if (v.dType == CUDA_R_8F_E4M3)
          ls.dScale = dScale.p;
        ls.amaxD = amax.p;
        std::unique_ptr<LtPlan> withAmax;
        try {
          withAmax = makePlan(ls);
        } catch (const BenchError &e) {
          throw BenchError{std::string("AMAX_D with a ") + v.name +
                           " D: " + e.what};
        }
        double msAmax =
            timeIt([&](int) { runPlan(*withAmax, wd, xd, d.p); }, 2, 11, 20.0);
        emit(Row{ak, "amaxd",
                 std::string("FP8 GEMM -> ") + v.name + " " + shapeDesc(s) +
                     " + AMAX_D epilogue",
                 msAmax, 0, 2.0 * s.M * s.N * s.K,
                 "overhead " + std::to_string(msAmax - msPlain) + " ms"});
        if (v.cType < 0 && !std::isnan(quantAmaxInMs) && !fusedDone) {
          fusedDone = true;
          const int64_t n = s.M * s.N;
          double bytes = 2.0 * n + layoutBytes(cur, s.M, s.N,
                                               TE_RT_ROWWISE_AND_COLUMNWISE);
          emit(Row{std::string("quant_current_fused_") + shapeKey(s.M, s.N),
                   "quant",
                   std::string("current scaling with the amax from the "
                               "producing GEMM's AMAX_D (") +
                       v.name +
                       " D): epilogue overhead + cast/transpose with a "
                       "given amax",
                   std::max(0.0, msAmax - msPlain) + quantAmaxInMs, bytes, 0,
                   "sum of two measurements"});
        }
      });
    }
  });
}

//===----------------------------------------------------------------------===//
// Linear step
//===----------------------------------------------------------------------===//

void benchLinear() {
  const int64_t T = 16384, In = 8192, Out = 8192;
  const double flops = 3 * 2.0 * T * In * Out;
  DeviceBuffer x = randomBF16(T * In, 31), w = randomBF16(Out * In, 32, 0.02f),
               dy = randomBF16(T * Out, 33, 0.01f);
  DeviceBuffer y(T * Out * 2), dx(T * In * 2), dw(Out * In * 2);

  std::string key =
      "linear_fp8_current_" + shapeKey(T, In) + "x" + std::to_string(Out);
  guarded(key, "linear", [&] {
    te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT);
    te_rt_quantizer gz = qz;
    gz.dtype = TE_RT_E5M2; // TE's HYBRID format: E5M2 gradients
    QT qx(qz, T, In, TE_RT_ROWWISE_AND_COLUMNWISE),
        qw(qz, Out, In, TE_RT_ROWWISE_AND_COLUMNWISE),
        qdy(gz, T, Out, TE_RT_ROWWISE_AND_COLUMNWISE);
    te_rt_tensor tx = tensor2D(x.p, TE_RT_BF16, T, In),
                 tw = tensor2D(w.p, TE_RT_BF16, Out, In),
                 tdy = tensor2D(dy.p, TE_RT_BF16, T, Out),
                 ty = tensor2D(y.p, TE_RT_BF16, T, Out),
                 tdx = tensor2D(dx.p, TE_RT_BF16, T, In),
                 tdw = tensor2D(dw.p, TE_RT_BF16, Out, In);
    te_rt_gemm_args fprop, dgrad, wgrad;
    te_rt_gemm_args_init(&fprop);
    te_rt_gemm_args_init(&dgrad);
    te_rt_gemm_args_init(&wgrad);
    fprop.layout = TE_RT_GEMM_TN; // Y = X W^T
    fprop.use_split_accumulator = 0;
    dgrad.layout = TE_RT_GEMM_NN; // dX = dY W
    dgrad.use_split_accumulator = 1;
    wgrad.layout = TE_RT_GEMM_NT; // dW = dY^T X
    wgrad.use_split_accumulator = 1;
    double ms = timeIt(
        [&](int) {
          checkRt(te_rt_quantize(ctx, &tx, &qx.q, nullptr), "quantize X");
          checkRt(te_rt_quantize(ctx, &tw, &qw.q, nullptr), "quantize W");
          checkRt(te_rt_gemm(ctx, &qw.q, &qx.q, &ty, &fprop), "fprop");
          checkRt(te_rt_quantize(ctx, &tdy, &qdy.q, nullptr), "quantize dY");
          checkRt(te_rt_gemm(ctx, &qw.q, &qdy.q, &tdx, &dgrad), "dgrad");
          checkRt(te_rt_gemm(ctx, &qx.q, &qdy.q, &tdw, &wgrad), "wgrad");
        },
        2, 9, 30.0);
    emit(Row{key, "linear",
             "Linear fwd+bwd, FP8 current scaling through te_rt (quantize X, "
             "W, dY; fprop, dgrad, wgrad), X " +
                 shapeKey(T, In) + ", W " + shapeKey(Out, In),
             ms, 0, flops});
  });

  std::string bkey =
      "linear_bf16_" + shapeKey(T, In) + "x" + std::to_string(Out);
  guarded(bkey, "linear", [&] {
    auto fprop = makePlan(bf16Fprop(T, Out, In));
    // dX[T, In] = dY[T, Out] W[Out, In]: column-major dX^T = W^T dY^T.
    LtSpec dg;
    dg.opA = CUBLAS_OP_N;
    dg.opB = CUBLAS_OP_N;
    dg.m = In;
    dg.n = T;
    dg.k = Out;
    dg.lda = In;
    dg.ldb = Out;
    dg.ldd = In;
    auto dgrad = makePlan(dg);
    // dW[Out, In] = dY^T X: column-major dW^T = X^T dY.
    LtSpec wg;
    wg.opA = CUBLAS_OP_N;
    wg.opB = CUBLAS_OP_T;
    wg.m = In;
    wg.n = Out;
    wg.k = T;
    wg.lda = In;
    wg.ldb = Out;
    wg.ldd = In;
    auto wgrad = makePlan(wg);
    double ms = timeIt(
        [&](int) {
          runPlan(*fprop, w.p, x.p, y.p);
          runPlan(*dgrad, w.p, dy.p, dx.p);
          runPlan(*wgrad, x.p, dy.p, dw.p);
        },
        2, 9, 30.0);
    emit(Row{bkey, "linear",
             "Linear fwd+bwd, bf16, the same three GEMMs (direct cuBLASLt)", ms,
             0, flops});
  });
}

//===----------------------------------------------------------------------===//
// Prototypes: what a memory-bound kernel reaches (not part of te_rt)
//===----------------------------------------------------------------------===//
//
// A per-tensor FP8 (E4M3) cast + transpose + amax of a bf16 [M, K] tensor
// with a given scale, written as a memory kernel: 64x64 tiles, 16-byte loads
// and stores, the hardware cvt.rn.satfinite.e4m3x2.f32, one atomic per block.
// Its output is compared byte for byte with te_rt's (the reference), so the
// row says both how fast te_rt's kernel could be and whether the
// hardware conversion agrees with the Format library's encoder.

constexpr int kPT = 64;

__device__ inline unsigned short cvtE4M3x2(float a, float b) {
  return __nv_cvt_float2_to_fp8x2(make_float2(a, b), __NV_SATFINITE, __NV_E4M3);
}

__global__ void __launch_bounds__(256)
    protoCastTransposeKernel(const __nv_bfloat16 *__restrict__ x, int M, int K,
                             const float *__restrict__ scalePtr,
                             uint8_t *__restrict__ data,
                             uint8_t *__restrict__ tr, float *amaxOut) {
  // Row stride 68 bytes: the transposed gathers hit at most 2 ways a bank.
  __shared__ __align__(16) uint8_t codes[kPT][kPT + 4];
  const int tilesK = K / kPT;
  const int m0 = (blockIdx.x / tilesK) * kPT, k0 = (blockIdx.x % tilesK) * kPT;
  const float scale = *scalePtr;
  float amax = 0.0f;
  // 64 rows x 8 vectors of 8 bf16: 512 vectors, 2 per thread.
#pragma unroll
  for (int it = 0; it < 2; ++it) {
    int v = threadIdx.x + it * 256;
    int r = v / 8, c = (v % 8) * 8;
    uint4 raw = *reinterpret_cast<const uint4 *>(
        x + static_cast<size_t>(m0 + r) * K + k0 + c);
    const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&raw);
    uint32_t packed[2];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float2 f = __bfloat1622float2(h[j]);
      amax = fmaxf(amax, fmaxf(fabsf(f.x), fabsf(f.y)));
      unsigned short q = cvtE4M3x2(f.x * scale, f.y * scale);
      if (j % 2 == 0)
        packed[j / 2] = q;
      else
        packed[j / 2] |= static_cast<uint32_t>(q) << 16;
    }
    *reinterpret_cast<uint2 *>(data + static_cast<size_t>(m0 + r) * K + k0 +
                               c) = make_uint2(packed[0], packed[1]);
    *reinterpret_cast<uint32_t *>(&codes[r][c]) = packed[0];
    *reinterpret_cast<uint32_t *>(&codes[r][c + 4]) = packed[1];
  }
  __syncthreads();
  // Transposed: 64 rows (k) of 64 bytes = 4 x 16 bytes; one chunk a thread.
  {
    int k = threadIdx.x / 4, chunk = threadIdx.x % 4;
    uint32_t w[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      uint32_t v = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b)
        v |= static_cast<uint32_t>(codes[chunk * 16 + q * 4 + b][k]) << (8 * b);
      w[q] = v;
    }
    *reinterpret_cast<uint4 *>(tr + static_cast<size_t>(k0 + k) * M + m0 +
                               chunk * 16) = make_uint4(w[0], w[1], w[2], w[3]);
  }
  for (int off = 16; off > 0; off /= 2)
    amax = fmaxf(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, off));
  __shared__ float warpMax[8];
  if (threadIdx.x % 32 == 0)
    warpMax[threadIdx.x / 32] = amax;
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = 0.0f;
    for (int i = 0; i < 8; ++i)
      m = fmaxf(m, warpMax[i]);
    // Non-negative floats order as their bit patterns.
    atomicMax(reinterpret_cast<unsigned int *>(amaxOut), __float_as_uint(m));
  }
}

/// amax of a bf16 tensor: 16-byte loads, grid-stride, one atomic per block.
__global__ void __launch_bounds__(256)
    protoAmaxKernel(const uint4 *__restrict__ x, size_t nVec, float *amaxOut) {
  float amax = 0.0f;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < nVec; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    uint4 raw = x[i];
    const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&raw);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float2 f = __bfloat1622float2(h[j]);
      amax = fmaxf(amax, fmaxf(fabsf(f.x), fabsf(f.y)));
    }
  }
  for (int off = 16; off > 0; off /= 2)
    amax = fmaxf(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, off));
  __shared__ float warpMax[8];
  if (threadIdx.x % 32 == 0)
    warpMax[threadIdx.x / 32] = amax;
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = 0.0f;
    for (int i = 0; i < 8; ++i)
      m = fmaxf(m, warpMax[i]);
    atomicMax(reinterpret_cast<unsigned int *>(amaxOut), __float_as_uint(m));
  }
}

__global__ void countMismatchKernel(const uint8_t *a, const uint8_t *b,
                                    size_t n, unsigned long long *count) {
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    c += a[i] != b[i];
  if (c)
    atomicAdd(count, c);
}

unsigned long long countMismatches(const void *a, const void *b, size_t n) {
  DeviceBuffer cnt(8);
  checkCuda(cudaMemset(cnt.p, 0, 8), "cudaMemset");
  countMismatchKernel<<<1024, 256>>>(static_cast<const uint8_t *>(a),
                                     static_cast<const uint8_t *>(b), n,
                                     cnt.as<unsigned long long>());
  unsigned long long h = 0;
  checkCuda(cudaMemcpy(&h, cnt.p, 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return h;
}

void benchProto() {
  const int M = 16384, K = 16384;
  const int64_t n = int64_t(M) * K;
  std::string key = "proto_cast_transpose_" + shapeKey(M, K);
  guarded(key, "proto", [&] {
    const int sets = 2;
    std::vector<DeviceBuffer> xs, ds, ts;
    for (int s = 0; s < sets; ++s) {
      xs.push_back(randomBF16(n, 1000 + s)); // the quant section's inputs
      ds.emplace_back(static_cast<size_t>(n));
      ts.emplace_back(static_cast<size_t>(n));
    }
    DeviceBuffer scale(4), amax(4);
    const float scaleValue = 448.0f / 6.0f;
    checkCuda(cudaMemcpy(scale.p, &scaleValue, 4, cudaMemcpyHostToDevice),
              "cudaMemcpy");
    auto launch = [&](int i) {
      int s = i % sets;
      protoCastTransposeKernel<<<(M / kPT) * (K / kPT), 256>>>(
          xs[s].as<__nv_bfloat16>(), M, K, scale.as<float>(),
          ds[s].as<uint8_t>(), ts[s].as<uint8_t>(), amax.as<float>());
    };
    double ms = timeIt(launch);
    // Reference: te_rt's delayed-scaling quantize of set 0, same scale.
    te_rt_quantizer qz = quantizer(TE_RT_RECIPE_DELAYED);
    QT q(qz, M, K, TE_RT_ROWWISE_AND_COLUMNWISE);
    te_rt_tensor t = tensor2D(xs[0].p, TE_RT_BF16, M, K);
    te_rt_quantize_args a;
    te_rt_quantize_args_init(&a);
    a.scale = scale.as<float>();
    checkRt(te_rt_quantize(ctx, &t, &q.q, &a), "te_rt_quantize");
    launch(0);
    checkCuda(cudaDeviceSynchronize(), "prototype");
    unsigned long long bad =
        countMismatches(ds[0].p, q.buffer("_data"), n) +
        countMismatches(ts[0].p, q.buffer("_transpose"), n);
    emit(Row{key, "proto",
             "prototype FP8 cast+transpose+amax, bf16 " + shapeKey(M, K) +
                 " (16-byte accesses, hardware cvt)",
             ms, 4.0 * n, 0,
             "bytes differing from te_rt: " + std::to_string(bad)});
  });
  std::string akey = "proto_amax_" + shapeKey(M, K);
  guarded(akey, "proto", [&] {
    std::vector<DeviceBuffer> xs;
    for (int s = 0; s < 2; ++s)
      xs.push_back(randomBF16(n, 2000 + s));
    DeviceBuffer amax(4);
    double ms = timeIt([&](int i) {
      protoAmaxKernel<<<132 * 8, 256>>>(xs[i % 2].as<uint4>(), n / 8,
                                        amax.as<float>());
    });
    emit(Row{akey, "proto", "prototype amax, 16-byte loads", ms, 2.0 * n});
  });
}

void usage() {
  std::printf("usage: te_bench [--csv FILE] [--only copy,quant,amaxd,gemm,"
              "linear,small,proto] [--profile] [--autotune K] "
              "[--general-kernels]\n"
              "  --profile: run every measured call once, untimed (for ncu)\n"
              "  --autotune K: te_rt_context_set_gemm_autotune(ctx, K)\n"
              "  --general-kernels: te_rt_context_set_fast_kernels(ctx, 0)\n");
}

} // namespace

int main(int argc, char **argv) {
  int autotune = 0;
  bool generalKernels = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc) {
      csvPath = argv[++i];
    } else if (a == "--only" && i + 1 < argc) {
      std::stringstream ss(argv[++i]);
      std::string g;
      while (std::getline(ss, g, ','))
        onlyGroups.insert(g);
    } else if (a == "--profile") {
      profileMode = true;
    } else if (a == "--autotune" && i + 1 < argc) {
      autotune = std::atoi(argv[++i]);
    } else if (a == "--general-kernels") {
      generalKernels = true;
    } else if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "te_bench: unknown argument '%s'\n", a.c_str());
      usage();
      return 2;
    }
  }
  if (!te_rt_backend_available(TE_RT_BACKEND_CUDA)) {
    std::fprintf(stderr, "te_bench: the cuda backend is not available: %s\n",
                 te_rt_last_error());
    return 1;
  }
  if (te_rt_context_create(TE_RT_BACKEND_CUDA, &ctx) != TE_RT_OK) {
    std::fprintf(stderr, "te_bench: te_rt_context_create: %s\n",
                 te_rt_last_error());
    return 1;
  }
  if ((autotune &&
       te_rt_context_set_gemm_autotune(ctx, autotune) != TE_RT_OK) ||
      (generalKernels && te_rt_context_set_fast_kernels(ctx, 0) != TE_RT_OK)) {
    std::fprintf(stderr, "te_bench: %s\n", te_rt_last_error());
    return 2;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  int rtVersion = 0;
  cudaRuntimeGetVersion(&rtVersion);
  std::printf("te_bench: %s, %d SMs, L2 %d MB, CUDA runtime %d, cuBLASLt "
              "%zu\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              rtVersion, cublasLtGetVersion());
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "te_bench: cublasLtCreate failed\n");
    return 1;
  }
  DeviceBuffer ws(kWorkspaceBytes);
  ltWorkspace = &ws;

  if (wanted("copy"))
    benchCopy();
  double amaxInMs = NAN;
  if (wanted("quant")) {
    benchQuantize("quant", 16384, 16384, /*allRecipes=*/true,
                  /*checkError=*/true);
    for (const Row &r : rows)
      if (r.key == "quant_current_amaxin_16384x16384")
        amaxInMs = r.ms;
  }
  if (wanted("amaxd"))
    benchAmaxD(amaxInMs);
  if (wanted("gemm")) {
    const Shape3 shapes[] = {{8192, 8192, 8192},   {16384, 8192, 8192},
                             {15872, 4096, 12288}, {15872, 4096, 4096},
                             {15872, 4096, 16384}, {15872, 16384, 4096}};
    // TE_BENCH_GEMM_SHAPES=n: only the first n shapes (quick variants).
    const char *lim = std::getenv("TE_BENCH_GEMM_SHAPES");
    int n = lim ? std::max(1, std::atoi(lim)) : 6;
    for (int i = 0; i < std::min(n, 6); ++i)
      guarded(gemmKey("shape", shapes[i]), "gemm",
              [&] { benchGemmShape(shapes[i]); });
  }
  if (wanted("linear"))
    benchLinear();
  if (wanted("proto"))
    benchProto();
  if (wanted("small"))
    for (int64_t n : {1024, 2048, 4096})
      benchQuantize("small", n, n, /*allRecipes=*/false, /*checkError=*/false);

  writeCsv();
  ltWorkspace = nullptr;
  cublasLtDestroy(lt);
  te_rt_context_destroy(ctx);
  std::printf("te_bench: %zu measurements written to %s\n", rows.size(),
              csvPath.c_str());
  return 0;
}

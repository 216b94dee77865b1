//===- Api.cpp - The C ABI of libte_rt: validation and dispatch -*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Every te_rt_* entry point checks its arguments here, once, turns them into
// the Backend's decoded structs (Backend.h) and calls the context's backend.
// No C++ exception crosses the ABI: each entry point runs inside guard().
//
//===----------------------------------------------------------------------===//

#include "AttentionArgs.h"
#include "Backend.h"
#include "Error.h"
#include "QuantizerFields.h"

#include "te/Format/Gemm.h"
#include "te/Format/Layout.h"
#include "te/Format/Quantizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <vector>

using namespace te::format;
using te::rt::fail;
using te::rt::Producer;
using te::rt::ProducerInstr;
using te::rt::ProducerOp;

// The C ABI's enums have the Format library's values (te_rt.h; and so the
// dialect's, lib/Dialect/TE/IR/TEInterfaces.cpp): decoding one is a cast
// after its range is checked.
static_assert(TE_RT_U8 == int(DType::U8) && TE_RT_F32 == int(DType::F32) &&
                  TE_RT_F16 == int(DType::F16) &&
                  TE_RT_BF16 == int(DType::BF16) &&
                  TE_RT_E4M3 == int(DType::E4M3) &&
                  TE_RT_E5M2 == int(DType::E5M2) &&
                  TE_RT_E8M0 == int(DType::E8M0) &&
                  TE_RT_E2M1X2 == int(DType::E2M1x2),
              "te_rt_dtype");
static_assert(TE_RT_RECIPE_DELAYED == int(Recipe::Delayed) &&
                  TE_RT_RECIPE_CURRENT == int(Recipe::Current) &&
                  TE_RT_RECIPE_BLOCK == int(Recipe::Block) &&
                  TE_RT_RECIPE_MXFP8 == int(Recipe::MXFP8) &&
                  TE_RT_RECIPE_NVFP4 == int(Recipe::NVFP4) &&
                  TE_RT_RECIPE_NVFP4 + 1 == kNumRecipes,
              "te_rt_recipe lists the recipes of te/Format/Recipes.def");
static_assert(TE_RT_SM90 == int(Target::SM90) &&
                  TE_RT_SM100 == int(Target::SM100),
              "te_rt_target");
static_assert(TE_RT_USAGE_NONE == int(UsageNone) &&
                  TE_RT_ROWWISE == int(Rowwise) &&
                  TE_RT_COLUMNWISE == int(Columnwise) &&
                  TE_RT_ROWWISE_AND_COLUMNWISE == int(RowwiseAndColumnwise),
              "te_rt_usage");
static_assert(TE_RT_AMAX_MAX == int(AmaxAlgo::Max) &&
                  TE_RT_AMAX_MOST_RECENT == int(AmaxAlgo::MostRecent),
              "te_rt_amax_algo");
static_assert(TE_RT_E8M0_UP == int(E8M0Rounding::Up) &&
                  TE_RT_E8M0_FLOOR == int(E8M0Rounding::Floor),
              "te_rt_e8m0_rounding");
static_assert(TE_RT_ERR_MAE == int(ErrMode::MAE) &&
                  TE_RT_ERR_MSE == int(ErrMode::MSE),
              "te_rt_err_mode");
static_assert(TE_RT_GEMM_TN == int(GemmLayout::TN) &&
                  TE_RT_GEMM_NN == int(GemmLayout::NN) &&
                  TE_RT_GEMM_NT == int(GemmLayout::NT),
              "te_rt_gemm_layout");

struct te_rt_context {
  te_rt_backend kind;
  std::unique_ptr<te::rt::Backend> backend;
  /// te_rt_context_last_gemm_info; guarded by gemmInfoMutex (te_rt_gemm may
  /// run on several threads).
  te_rt_gemm_info lastGemm{};
  std::mutex gemmInfoMutex;
  /// te_rt_context_set_host_memory: compiled code passes host buffers.
  bool hostMemory = false;
};

te::rt::Backend *te::rt::contextBackend(te_rt_context *ctx) {
  return ctx ? ctx->backend.get() : nullptr;
}

bool te::rt::contextHostMemory(const te_rt_context *ctx) {
  return ctx && ctx->hostMemory;
}

namespace {

using te::rt::GemmOptions;
using te::rt::QTensor;
using te::rt::QuantizeOptions;
using te::rt::Tensor;

template <typename F> te_rt_status guard(F &&f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc &) {
    return fail(TE_RT_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception &e) {
    return fail(TE_RT_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(TE_RT_INTERNAL, "internal error");
  }
}

std::string str(int64_t v) { return std::to_string(v); }

/// The int a C caller stored in an enum field or argument. C allows any int
/// there, but loading a value outside the enum's range through the C++ enum
/// type is undefined (UBSan: "not a valid value for type"), so every enum
/// that comes from a caller is validated through this.
template <typename E> int rawEnum(const E &e) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof(v));
  return v;
}

/// Element pointers must be aligned to their element size: the backends load
/// them as typed values (misaligned loads are undefined behaviour on the cpu
/// and faults on the gpu).
bool misaligned(const void *p, int64_t elementBytes) {
  return elementBytes > 1 &&
         reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(elementBytes);
}

/// Whether [a, a + an) and [b, b + bn) share a byte (empty ranges share
/// none). Addresses are compared as integers (host or device).
bool overlap(const void *a, int64_t an, const void *b, int64_t bn) {
  if (!a || !b || an <= 0 || bn <= 0)
    return false;
  uintptr_t x = reinterpret_cast<uintptr_t>(a),
            y = reinterpret_cast<uintptr_t>(b);
  return x < y + static_cast<uintptr_t>(bn) &&
         y < x + static_cast<uintptr_t>(an);
}

const char *dtypeLabel(int d) {
  if (d < 0 || d > static_cast<int>(DType::E2M1x2))
    return "invalid";
  return dtypeName(static_cast<DType>(d));
}

/// A te_rt_gemm_info before any GEMM: path NONE, algorithm fields -1.
te_rt_gemm_info noGemmInfo() {
  te_rt_gemm_info i;
  std::memset(&i, 0, sizeof(i));
  i.path = TE_RT_GEMM_PATH_NONE;
  i.algo_id = i.algo_tile = i.algo_stages = i.algo_split_k = i.algo_swizzle =
      i.algo_custom_option = -1;
  return i;
}

te_rt_status checkContext(const te_rt_context *ctx) {
  if (!ctx || !ctx->backend)
    return fail(TE_RT_INVALID_ARGUMENT, "ctx is null");
  return TE_RT_OK;
}

/// Reads a shape, checking rank, signs and the element-count overflow.
te_rt_status decodeShape(const char *what, int32_t rank, const int64_t *dims,
                         int minRank, Shape &shape) {
  if (rank < minRank || rank > TE_RT_MAX_RANK)
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(what) + " has rank " + str(rank) + ", expected " +
                    str(minRank) + ".." + str(TE_RT_MAX_RANK));
  if (rank > 0 && !dims)
    return fail(TE_RT_INVALID_ARGUMENT, std::string(what) + " shape is null");
  shape.assign(dims, dims + rank);
  for (int i = 0; i < rank; ++i)
    if (shape[i] < 0)
      return fail(TE_RT_INVALID_ARGUMENT, std::string(what) + " dimension " +
                                              str(i) + " is negative (" +
                                              str(shape[i]) + ")");
  if (numElements(shape) < 0)
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(what) + " shape " + shapeString(shape) +
                    " has too many elements (int64 overflow)");
  return TE_RT_OK;
}

/// A high-precision tensor (F32/BF16/F16).
te_rt_status decodeTensor(const char *what, const te_rt_tensor *t,
                          Tensor &out) {
  if (!t)
    return fail(TE_RT_INVALID_ARGUMENT, std::string(what) + " is null");
  int dtype = rawEnum(t->dtype);
  if (dtype != TE_RT_F32 && dtype != TE_RT_BF16 && dtype != TE_RT_F16)
    return fail(TE_RT_INVALID_ARGUMENT, std::string(what) +
                                            " must be f32, bf16 or f16, got " +
                                            dtypeLabel(dtype));
  if (te_rt_status s = decodeShape(what, t->rank, t->shape, 0, out.shape))
    return s;
  out.dtype = static_cast<DType>(t->dtype);
  out.numElements = out.shape.empty() ? 1 : numElements(out.shape);
  if (out.numElements > std::numeric_limits<int64_t>::max() / 4)
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(what) + " is too large (byte size overflows)");
  if (!t->data && out.numElements > 0)
    return fail(TE_RT_INVALID_ARGUMENT, std::string(what) + " data is null");
  int64_t elementBytes = dtypeBytes(static_cast<DType>(t->dtype));
  // size_bytes 0: not stated (callers of API versions before 4).
  if (t->size_bytes < 0)
    return fail(TE_RT_INVALID_ARGUMENT, std::string(what) + " size_bytes is " +
                                            str(t->size_bytes) +
                                            " (0 = not stated, else the "
                                            "buffer's capacity in bytes)");
  if (t->size_bytes > 0 && t->size_bytes < out.numElements * elementBytes)
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(what) + " holds " + str(t->size_bytes) +
                    " bytes (size_bytes), its shape " + shapeString(out.shape) +
                    " of " + dtypeLabel(dtype) + " needs " +
                    str(out.numElements * elementBytes));
  if (out.numElements > 0 && misaligned(t->data, elementBytes))
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(what) + " data is not aligned to its " +
                    str(elementBytes) + "-byte elements");
  out.data = t->data;
  if (out.shape.empty()) {
    out.m = out.k = 1;
  } else {
    flatten2D(out.shape, out.m, out.k);
  }
  return TE_RT_OK;
}

te_rt_status decodeQuantizer(const te_rt_quantizer *q, QuantizerConfig &c) {
  if (!q)
    return fail(TE_RT_INVALID_ARGUMENT, "quantizer is null");
  if (rawEnum(q->recipe) < 0 || rawEnum(q->recipe) >= kNumRecipes)
    return fail(TE_RT_INVALID_ARGUMENT, "quantizer recipe " +
                                            str(rawEnum(q->recipe)) +
                                            " is not a recipe");
  if (rawEnum(q->dtype) < TE_RT_U8 || rawEnum(q->dtype) > TE_RT_E2M1X2)
    return fail(TE_RT_INVALID_ARGUMENT, "quantizer dtype " +
                                            str(rawEnum(q->dtype)) +
                                            " is not a dtype");
  if (rawEnum(q->e8m0_rounding) != TE_RT_E8M0_UP &&
      rawEnum(q->e8m0_rounding) != TE_RT_E8M0_FLOOR)
    return fail(TE_RT_INVALID_ARGUMENT, "quantizer e8m0_rounding " +
                                            str(rawEnum(q->e8m0_rounding)) +
                                            " is not up (0) or floor (1)");
  if (rawEnum(q->err_mode) != TE_RT_ERR_MAE &&
      rawEnum(q->err_mode) != TE_RT_ERR_MSE)
    return fail(TE_RT_INVALID_ARGUMENT, "quantizer err_mode " +
                                            str(rawEnum(q->err_mode)) +
                                            " is not MAE (0) or MSE (1)");
  if (rawEnum(q->amax_algo) != TE_RT_AMAX_MAX &&
      rawEnum(q->amax_algo) != TE_RT_AMAX_MOST_RECENT)
    return fail(TE_RT_INVALID_ARGUMENT,
                "quantizer amax_algo " + str(rawEnum(q->amax_algo)) +
                    " is not max (0) or most_recent (1)");
  c = te::rt::toConfig(*q);
  std::string msg = verifyConfig(c);
  if (!msg.empty())
    return fail(TE_RT_INVALID_ARGUMENT, "invalid quantizer: " + msg);
  return TE_RT_OK;
}

te_rt_status decodeLayout(const te_rt_quantizer *tq, int32_t rank,
                          const int64_t *dims, int usage, int target,
                          QTensor &q) {
  if (te_rt_status s = decodeQuantizer(tq, q.config))
    return s;
  // Rank 0 passes here; Format's layout refuses it for block recipes.
  if (te_rt_status s = decodeShape("quantized tensor", rank, dims, 0, q.shape))
    return s;
  if (usage < TE_RT_ROWWISE || usage > TE_RT_ROWWISE_AND_COLUMNWISE)
    return fail(TE_RT_INVALID_ARGUMENT,
                "usage " + str(usage) +
                    " must be rowwise (1), columnwise (2) or both (3)");
  if (target != TE_RT_SM90 && target != TE_RT_SM100)
    return fail(TE_RT_INVALID_ARGUMENT,
                "target " + str(target) + " must be sm_90 (0) or sm_100 (1)");
  q.usage = static_cast<Usage>(usage);
  q.target = static_cast<Target>(target);
  std::string err;
  if (!getBufferLayout(q.config, q.shape, q.usage, q.target, q.layout, &err))
    return fail(TE_RT_INVALID_ARGUMENT, err);
  flatten2D(q.shape, q.m, q.k);
  q.bufferBytes.clear();
  for (const BufferDesc &d : q.layout) {
    int64_t n = numElements(d.shape);
    int64_t b = dtypeBytes(d.dtype);
    if (n < 0 || n > std::numeric_limits<int64_t>::max() / b)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "the size of buffer " + d.name + " overflows int64");
    q.bufferBytes.push_back(n * b);
  }
  return TE_RT_OK;
}

/// A quantized tensor whose buffers match its layout.
te_rt_status decodeQTensor(const char *what, const te_rt_qtensor *t,
                           QTensor &q) {
  if (!t)
    return fail(TE_RT_INVALID_ARGUMENT, std::string(what) + " is null");
  if (te_rt_status s = decodeLayout(&t->quantizer, t->rank, t->shape,
                                    rawEnum(t->usage), rawEnum(t->target), q))
    return s;
  q.swizzledScales = t->swizzled_scales != 0;
  if (q.swizzledScales && !recipeTraits(q.config.recipe).swizzledScales)
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(what) +
                    ": swizzled scales exist only for MXFP8 "
                    "and NVFP4, not " +
                    recipeName(q.config.recipe));
  if (t->num_buffers != static_cast<int32_t>(q.layout.size()))
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(what) + "->num_buffers is " + str(t->num_buffers) +
                    ", but its quantizer, shape, usage and target give " +
                    str(q.layout.size()) +
                    " buffers (te_rt_qtensor_init fills it; see "
                    "te_rt_qtensor_layout)");
  q.buffers.clear();
  for (size_t i = 0; i < q.layout.size(); ++i) {
    const te_rt_buffer &b = t->buffers[i];
    if (!b.data && q.bufferBytes[i] > 0)
      return fail(TE_RT_INVALID_ARGUMENT, std::string(what) + " buffer " +
                                              str(i) + " (" + q.layout[i].name +
                                              ") is null");
    if (b.size_bytes < q.bufferBytes[i])
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string(what) + " buffer " + str(i) + " (" +
                      q.layout[i].name + ") has " + str(b.size_bytes) +
                      " bytes, needs " + str(q.bufferBytes[i]));
    int64_t elementBytes = dtypeBytes(q.layout[i].dtype);
    if (q.bufferBytes[i] > 0 && misaligned(b.data, elementBytes))
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string(what) + " buffer " + str(i) + " (" +
                      q.layout[i].name + ") is not aligned to its " +
                      str(elementBytes) + "-byte elements");
    q.buffers.push_back(b.data);
  }
  for (size_t i = 0; i < q.layout.size(); ++i)
    for (size_t j = i + 1; j < q.layout.size(); ++j)
      if (overlap(q.buffers[i], q.bufferBytes[i], q.buffers[j],
                  q.bufferBytes[j]))
        return fail(TE_RT_INVALID_ARGUMENT,
                    std::string(what) + " buffers " + str(i) + " (" +
                        q.layout[i].name + ") and " + str(j) + " (" +
                        q.layout[j].name + ") overlap");
  return TE_RT_OK;
}

/// The memory an argument of a call reads or writes, for the aliasing check.
struct Region {
  std::string name;
  const void *p;
  int64_t bytes;
};

void addQTensor(std::vector<Region> &r, const char *what, const QTensor &q) {
  for (size_t i = 0; i < q.layout.size(); ++i)
    r.push_back({std::string(what) + " buffer " + str(i) + " (" +
                     q.layout[i].name + ")",
                 q.buffers[i], q.bufferBytes[i]});
}

int64_t tensorBytes(const Tensor &t) {
  return t.numElements * dtypeBytes(t.dtype);
}

/// No output region may overlap another output or an input (inputs may
/// share memory with each other). `call` names the function.
te_rt_status checkAliasing(const char *call, const std::vector<Region> &outs,
                           const std::vector<Region> &ins) {
  for (size_t i = 0; i < outs.size(); ++i) {
    for (size_t j = i + 1; j < outs.size(); ++j)
      if (overlap(outs[i].p, outs[i].bytes, outs[j].p, outs[j].bytes))
        return fail(TE_RT_INVALID_ARGUMENT,
                    std::string(call) + ": " + outs[i].name + " and " +
                        outs[j].name +
                        " overlap (outputs may not share memory)");
    for (const Region &in : ins)
      if (overlap(outs[i].p, outs[i].bytes, in.p, in.bytes))
        return fail(TE_RT_INVALID_ARGUMENT,
                    std::string(call) + ": the output " + outs[i].name +
                        " overlaps the input " + in.name +
                        " (outputs may not share memory with inputs)");
  }
  return TE_RT_OK;
}

/// `reads` names one representation that q holds ("dequantize reads one
/// representation: rowwise (1) or columnwise (2), got 3"; "q holds no
/// columnwise representation").
te_rt_status checkReadsOneCopy(const char *what, const QTensor &q,
                               te_rt_usage reads) {
  if (rawEnum(reads) != TE_RT_ROWWISE && rawEnum(reads) != TE_RT_COLUMNWISE)
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(what) +
                    " reads one representation: rowwise (1) or columnwise "
                    "(2), got " +
                    str(rawEnum(reads)));
  if (!(q.usage & reads))
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string("q holds no ") +
                    (reads == TE_RT_ROWWISE ? "rowwise" : "columnwise") +
                    " representation");
  return TE_RT_OK;
}

void toDesc(const BufferDesc &d, int64_t bytes, te_rt_buffer_desc &out) {
  std::memset(&out, 0, sizeof(out));
  std::strncpy(out.name, d.name.c_str(), TE_RT_MAX_NAME - 1);
  out.role = static_cast<te_rt_buffer_role>(d.role);
  out.columnwise = d.columnwise;
  out.dtype = static_cast<te_rt_dtype>(d.dtype);
  out.rank = static_cast<int32_t>(d.shape.size());
  for (size_t i = 0; i < d.shape.size() && i < TE_RT_MAX_RANK; ++i)
    out.shape[i] = d.shape[i];
  out.size_bytes = bytes;
}

te_rt_status decodeQuantizeArgs(const te_rt_quantize_args *args,
                                const QuantizerConfig &c, QuantizeOptions &o) {
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  if (args)
    a = *args;
  o.scale = a.scale;
  o.amaxOut = a.amax;
  o.amaxIn = a.amax_in;
  o.seed = a.seed;
  o.offset = a.offset;
  o.stream = a.stream;
  if (misaligned(o.scale, 4))
    return fail(TE_RT_INVALID_ARGUMENT,
                "args->scale is not aligned to 4 bytes");
  if (misaligned(o.amaxOut, 4))
    return fail(TE_RT_INVALID_ARGUMENT, "args->amax is not aligned to 4 bytes");
  if (misaligned(o.amaxIn, 4))
    return fail(TE_RT_INVALID_ARGUMENT,
                "args->amax_in is not aligned to 4 bytes");
  const RecipeTraits traits = recipeTraits(c.recipe);
  if (traits.liveScale && !o.scale)
    return fail(TE_RT_INVALID_ARGUMENT,
                "delayed scaling needs args->scale (the live fp32 scale)");
  if (!traits.liveScale && o.scale)
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string("args->scale is only for delayed scaling, not ") +
                    recipeName(c.recipe));
  if (o.amaxOut && !traits.perTensor)
    return fail(TE_RT_UNSUPPORTED,
                std::string("args->amax is only for per-tensor recipes; ") +
                    recipeName(c.recipe) + " stores its amax in buffers");
  if (o.amaxIn && traits.amaxInputs == 0)
    return fail(TE_RT_UNSUPPORTED,
                std::string("args->amax_in is only for current scaling and "
                            "nvfp4, not ") +
                    recipeName(c.recipe));
  if (o.amaxIn && c.rowScaled)
    return fail(TE_RT_UNSUPPORTED,
                "args->amax_in is not supported for row-scaled nvfp4");
  return TE_RT_OK;
}

te_rt_status checkQuantizeInput(const Tensor &x, const QTensor &q) {
  if (x.shape != q.shape)
    return fail(TE_RT_INVALID_ARGUMENT,
                "input shape " + shapeString(x.shape) +
                    " differs from the quantized tensor's shape " +
                    shapeString(q.shape));
  if (!quantizerAcceptsInput(q.config, q.usage, x.dtype))
    return fail(TE_RT_UNSUPPORTED,
                std::string("NVFP4 RHT needs a bf16 input, got ") +
                    dtypeName(x.dtype));
  return TE_RT_OK;
}

} // namespace

extern "C" {

const char *te_rt_last_error(void) { return te::rt::lastErrorMessage(); }
void te_rt_clear_error(void) { te::rt::clearError(); }

const char *te_rt_status_string(te_rt_status status) {
  switch (rawEnum(status)) {
  case TE_RT_OK:
    return "ok";
  case TE_RT_INVALID_ARGUMENT:
    return "invalid argument";
  case TE_RT_UNSUPPORTED:
    return "unsupported";
  case TE_RT_OUT_OF_MEMORY:
    return "out of memory";
  case TE_RT_BACKEND_UNAVAILABLE:
    return "backend unavailable";
  case TE_RT_CUDA_ERROR:
    return "CUDA error";
  case TE_RT_CUBLAS_ERROR:
    return "cuBLAS error";
  case TE_RT_INTERNAL:
    return "internal error";
  }
  return "unknown status";
}

int te_rt_api_version(void) { return TE_RT_API_VERSION; }

int te_rt_backend_available(te_rt_backend backend) {
  if (rawEnum(backend) == TE_RT_BACKEND_CPU)
    return 1;
#if defined(TE_RT_HAVE_CUDA) && TE_RT_HAVE_CUDA
  if (rawEnum(backend) == TE_RT_BACKEND_CUDA) {
    try {
      return te::rt::cudaBackendAvailable() ? 1 : 0;
    } catch (...) {
      return 0;
    }
  }
#endif
  return 0;
}

te_rt_status te_rt_context_create(te_rt_backend backend, te_rt_context **out) {
  return guard([&]() -> te_rt_status {
    if (!out)
      return fail(TE_RT_INVALID_ARGUMENT, "out is null");
    *out = nullptr;
    std::unique_ptr<te::rt::Backend> b;
    if (rawEnum(backend) == TE_RT_BACKEND_CPU) {
      b = te::rt::createCpuBackend();
    } else if (rawEnum(backend) == TE_RT_BACKEND_CUDA) {
#if defined(TE_RT_HAVE_CUDA) && TE_RT_HAVE_CUDA
      std::string err;
      b = te::rt::createCudaBackend(&err);
      if (!b)
        return fail(TE_RT_BACKEND_UNAVAILABLE,
                    "the cuda backend is unavailable: " + err);
#else
      return fail(TE_RT_BACKEND_UNAVAILABLE,
                  "the cuda backend is unavailable: libte_rt was built without "
                  "CUDA");
#endif
    } else {
      return fail(TE_RT_INVALID_ARGUMENT, "backend " + str(rawEnum(backend)) +
                                              " must be cpu (0) or cuda (1)");
    }
    if (!b)
      return fail(TE_RT_OUT_OF_MEMORY, "cannot create the backend");
    *out = new te_rt_context{backend, std::move(b)};
    (*out)->lastGemm = noGemmInfo();
    return TE_RT_OK;
  });
}

te_rt_status te_rt_context_destroy(te_rt_context *ctx) {
  return guard([&]() -> te_rt_status {
    delete ctx;
    return TE_RT_OK;
  });
}

te_rt_status te_rt_context_get_backend(const te_rt_context *ctx,
                                       te_rt_backend *out) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (!out)
      return fail(TE_RT_INVALID_ARGUMENT, "out is null");
    *out = ctx->kind;
    return TE_RT_OK;
  });
}

te_rt_status te_rt_context_set_num_threads(te_rt_context *ctx,
                                           int num_threads) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (num_threads < 0)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "num_threads must be >= 0, got " + str(num_threads));
    ctx->backend->setNumThreads(num_threads);
    return TE_RT_OK;
  });
}

te_rt_status te_rt_context_set_host_memory(te_rt_context *ctx, int enabled) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    ctx->hostMemory = enabled != 0;
    return TE_RT_OK;
  });
}

te_rt_status te_rt_context_get_host_memory(const te_rt_context *ctx,
                                           int *enabled) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (!enabled)
      return fail(TE_RT_INVALID_ARGUMENT, "enabled is null");
    *enabled = ctx->hostMemory ? 1 : 0;
    return TE_RT_OK;
  });
}

te_rt_status te_rt_malloc(te_rt_context *ctx, size_t bytes, void **out) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (!out)
      return fail(TE_RT_INVALID_ARGUMENT, "out is null");
    *out = nullptr;
    if (bytes > static_cast<size_t>(std::numeric_limits<int64_t>::max()) / 2)
      return fail(TE_RT_OUT_OF_MEMORY, "out of memory allocating " +
                                           std::to_string(bytes) +
                                           " bytes: more than 2^62");
    return ctx->backend->allocate(bytes, out);
  });
}

te_rt_status te_rt_free(te_rt_context *ctx, void *ptr) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (!ptr)
      return TE_RT_OK;
    return ctx->backend->deallocate(ptr);
  });
}

te_rt_status te_rt_memcpy(te_rt_context *ctx, void *dst, const void *src,
                          size_t bytes, te_rt_memcpy_kind kind) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (rawEnum(kind) < TE_RT_HOST_TO_HOST ||
        rawEnum(kind) > TE_RT_DEVICE_TO_DEVICE)
      return fail(TE_RT_INVALID_ARGUMENT, "memcpy kind " + str(rawEnum(kind)) +
                                              " is not a te_rt_memcpy_kind");
    if (bytes && (!dst || !src))
      return fail(TE_RT_INVALID_ARGUMENT, "memcpy dst or src is null");
    return ctx->backend->copy(dst, src, bytes, kind);
  });
}

te_rt_status te_rt_memset_zero(te_rt_context *ctx, void *dst, size_t bytes) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (bytes && !dst)
      return fail(TE_RT_INVALID_ARGUMENT, "memset dst is null");
    return ctx->backend->fillZero(dst, bytes);
  });
}

te_rt_status te_rt_synchronize(te_rt_context *ctx, void *stream) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    return ctx->backend->synchronize(stream);
  });
}

void te_rt_quantizer_init_default(te_rt_quantizer *q) {
  if (!q)
    return;
  *q = te::rt::fromConfig(QuantizerConfig());
}

te_rt_status te_rt_quantizer_verify(const te_rt_quantizer *q) {
  return guard([&]() -> te_rt_status {
    QuantizerConfig c;
    return decodeQuantizer(q, c);
  });
}

te_rt_status te_rt_qtensor_layout(const te_rt_quantizer *q, int32_t rank,
                                  const int64_t *shape, te_rt_usage usage,
                                  te_rt_target target, te_rt_buffer_desc *out,
                                  int32_t capacity, int32_t *num_buffers) {
  return guard([&]() -> te_rt_status {
    if (!num_buffers)
      return fail(TE_RT_INVALID_ARGUMENT, "num_buffers is null");
    *num_buffers = 0;
    QTensor t;
    if (te_rt_status s =
            decodeLayout(q, rank, shape, rawEnum(usage), rawEnum(target), t))
      return s;
    int32_t n = static_cast<int32_t>(t.layout.size());
    if (!out && n > 0)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "out is null; the layout has " + str(n) +
                      " buffers (pass an array of at least " + str(n) +
                      ", e.g. TE_RT_MAX_BUFFERS)");
    if (capacity < n)
      return fail(TE_RT_INVALID_ARGUMENT, "capacity " + str(capacity) +
                                              " is too small: the layout has " +
                                              str(n) + " buffers");
    for (int32_t i = 0; i < n; ++i)
      toDesc(t.layout[i], t.bufferBytes[i], out[i]);
    *num_buffers = n;
    return TE_RT_OK;
  });
}

te_rt_status te_rt_qtensor_init(te_rt_qtensor *out, const te_rt_quantizer *q,
                                int32_t rank, const int64_t *shape,
                                te_rt_usage usage, te_rt_target target) {
  return guard([&]() -> te_rt_status {
    if (!out)
      return fail(TE_RT_INVALID_ARGUMENT, "out is null");
    QTensor t;
    if (te_rt_status s =
            decodeLayout(q, rank, shape, rawEnum(usage), rawEnum(target), t))
      return s;
    std::memset(out, 0, sizeof(*out));
    out->quantizer = *q;
    out->rank = rank;
    for (int i = 0; i < rank; ++i)
      out->shape[i] = shape[i];
    out->usage = usage;
    out->target = target;
    out->num_buffers = static_cast<int32_t>(t.layout.size());
    for (size_t i = 0; i < t.layout.size(); ++i)
      out->buffers[i].size_bytes = t.bufferBytes[i];
    return TE_RT_OK;
  });
}

te_rt_status te_rt_qtensor_alloc(te_rt_context *ctx, te_rt_qtensor *out,
                                 const te_rt_quantizer *q, int32_t rank,
                                 const int64_t *shape, te_rt_usage usage,
                                 te_rt_target target) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (te_rt_status s = te_rt_qtensor_init(out, q, rank, shape, usage, target))
      return s;
    for (int32_t i = 0; i < out->num_buffers; ++i) {
      size_t bytes = static_cast<size_t>(out->buffers[i].size_bytes);
      te_rt_status s = ctx->backend->allocate(bytes, &out->buffers[i].data);
      if (s == TE_RT_OK)
        s = ctx->backend->fillZero(out->buffers[i].data, bytes);
      if (s != TE_RT_OK) {
        std::string msg = te_rt_last_error();
        for (int32_t j = 0; j <= i; ++j) {
          if (out->buffers[j].data)
            ctx->backend->deallocate(out->buffers[j].data);
          out->buffers[j].data = nullptr;
        }
        return fail(s, msg);
      }
    }
    return TE_RT_OK;
  });
}

te_rt_status te_rt_qtensor_free(te_rt_context *ctx, te_rt_qtensor *q) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (!q)
      return fail(TE_RT_INVALID_ARGUMENT, "q is null");
    if (q->num_buffers < 0 || q->num_buffers > TE_RT_MAX_BUFFERS)
      return fail(TE_RT_INVALID_ARGUMENT, "qtensor num_buffers " +
                                              str(q->num_buffers) +
                                              " is out of range");
    for (int32_t i = 0; i < q->num_buffers; ++i) {
      if (q->buffers[i].data)
        ctx->backend->deallocate(q->buffers[i].data);
      q->buffers[i].data = nullptr;
    }
    return TE_RT_OK;
  });
}

void te_rt_tensor_init(te_rt_tensor *t) {
  if (t)
    std::memset(t, 0, sizeof(*t));
}

void te_rt_quantize_args_init(te_rt_quantize_args *args) {
  if (args)
    std::memset(args, 0, sizeof(*args));
}

te_rt_status te_rt_quantize(te_rt_context *ctx, const te_rt_tensor *x,
                            te_rt_qtensor *q, const te_rt_quantize_args *args) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    Tensor xt;
    QTensor qt;
    QuantizeOptions o;
    if (te_rt_status s = decodeTensor("x", x, xt))
      return s;
    if (te_rt_status s = decodeQTensor("q", q, qt))
      return s;
    if (te_rt_status s = checkQuantizeInput(xt, qt))
      return s;
    if (te_rt_status s = decodeQuantizeArgs(args, qt.config, o))
      return s;
    std::vector<Region> outs,
        ins = {{"x", xt.data, tensorBytes(xt)},
               {"args->scale", o.scale, 4},
               {"args->amax_in", o.amaxIn,
                4 * recipeTraits(qt.config.recipe).amaxInputs}};
    addQTensor(outs, "q", qt);
    outs.push_back({"args->amax", o.amaxOut, 4});
    if (te_rt_status s = checkAliasing("te_rt_quantize", outs, ins))
      return s;
    return ctx->backend->quantize(xt, qt, o);
  });
}

te_rt_status te_rt_dequantize(te_rt_context *ctx, const te_rt_qtensor *q,
                              te_rt_usage from, te_rt_tensor *out) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    QTensor qt;
    Tensor ot;
    if (te_rt_status s = decodeQTensor("q", q, qt))
      return s;
    if (te_rt_status s = decodeTensor("out", out, ot))
      return s;
    if (te_rt_status s = checkReadsOneCopy("dequantize", qt, from))
      return s;
    if (ot.shape != qt.shape)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "out shape " + shapeString(ot.shape) +
                      " differs from the quantized tensor's shape " +
                      shapeString(qt.shape));
    std::vector<Region> ins;
    addQTensor(ins, "q", qt);
    if (te_rt_status s = checkAliasing(
            "te_rt_dequantize", {{"out", ot.data, tensorBytes(ot)}}, ins))
      return s;
    return ctx->backend->dequantize(qt, static_cast<Usage>(from), ot, nullptr);
  });
}

} // extern "C"

te_rt_status te::rt::gemmEmulatedOperand(te_rt_context *ctx,
                                         const te_rt_qtensor *q,
                                         te_rt_usage reads, void *out) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    QTensor qt;
    if (te_rt_status s = decodeQTensor("q", q, qt))
      return s;
    if (!recipeTraits(qt.config.recipe).emulatedOnSM90)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string("emulated GEMM operands are MXFP8 or NVFP4, "
                              "got ") +
                      recipeFamilyName(qt.config.recipe));
    if (te_rt_status s =
            checkReadsOneCopy("an emulated GEMM operand", qt, reads))
      return s;
    const int64_t bytes = qt.m * qt.k * 2;
    if (!out && bytes > 0)
      return fail(TE_RT_INVALID_ARGUMENT, "the emulated operand is null");
    std::vector<Region> ins;
    addQTensor(ins, "q", qt);
    if (te_rt_status s = checkAliasing("te_rt_mlir_gemm_operand",
                                       {{"out", out, bytes}}, ins))
      return s;
    if (bytes == 0)
      return TE_RT_OK;
    return ctx->backend->gemmEmulatedOperand(qt, static_cast<Usage>(reads), out,
                                             nullptr);
  });
}

namespace {

struct ProducerOpInfo {
  const char *name;
  int arity;
};

/// The name and arity of opcode `op`, or null name for an unknown opcode.
ProducerOpInfo producerOpInfo(int32_t op) {
  switch (op) {
#define TE_RT_ABI_PRODUCER_OP(name, code, arity)                               \
  case code:                                                                   \
    return {#name, arity};
#include "te_rt_abi.def"
  default:
    return {nullptr, 0};
  }
}

bool isProducerType(int32_t t) {
  return t == TE_RT_F32 || t == TE_RT_BF16 || t == TE_RT_F16 || t == TE_RT_U8;
}

const char *producerTypeLabel(int32_t t) {
  return t == TE_RT_U8 ? "u8" : dtypeLabel(t);
}

/// Checks a producer program over a rows x cols value: counts, inputs
/// (non-null, dtype, strides, alignment, extent), and every instruction
/// (opcode, type, operands defined before it, CMPF's predicate). Appends the
/// inputs' regions to `ins`.
te_rt_status checkProducer(const Producer &p, int64_t rows, int64_t cols,
                           std::vector<Region> &ins) {
  if (p.numInputs < 0 || p.numInputs > Producer::kMaxInputs)
    return fail(TE_RT_INVALID_ARGUMENT, "producer: num_inputs is " +
                                            str(p.numInputs) + " (0 to " +
                                            str(Producer::kMaxInputs) + ")");
  if (p.numInstrs < 1 || p.numInstrs > Producer::kMaxInstrs)
    return fail(TE_RT_INVALID_ARGUMENT, "producer: num_instrs is " +
                                            str(p.numInstrs) + " (1 to " +
                                            str(Producer::kMaxInstrs) + ")");
  const bool empty = rows == 0 || cols == 0;
  for (int i = 0; i < p.numInputs; ++i) {
    const std::string what = "producer input " + str(i);
    const int32_t t = p.inputTypes[i];
    if (!isProducerType(t))
      return fail(TE_RT_INVALID_ARGUMENT, what + ": dtype " + str(t) + " (" +
                                              dtypeLabel(t) +
                                              ") is not f32, bf16, f16 or u8");
    const int64_t rs = p.rowStrides[i], cs = p.colStrides[i];
    if (rs < 0 || cs < 0)
      return fail(TE_RT_INVALID_ARGUMENT,
                  what + ": strides (" + str(rs) + ", " + str(cs) +
                      ") must not be negative (elements; 0 broadcasts)");
    if (empty)
      continue;
    if (!p.inputs[i])
      return fail(TE_RT_INVALID_ARGUMENT, what + " is null");
    const int64_t bytes = t == TE_RT_U8 ? 1 : dtypeBytes(static_cast<DType>(t));
    if (misaligned(p.inputs[i], bytes))
      return fail(TE_RT_INVALID_ARGUMENT, what + " is not aligned to its " +
                                              str(bytes) + "-byte elements");
    // The last element's offset, (rows - 1) * rs + (cols - 1) * cs, and the
    // extent in bytes must not overflow.
    const int64_t kMax = std::numeric_limits<int64_t>::max();
    const int64_t r1 = rows - 1, c1 = cols - 1;
    if ((rs != 0 && r1 > kMax / rs) || (cs != 0 && c1 > kMax / cs) ||
        r1 * rs > kMax - c1 * cs - 1 || (r1 * rs + c1 * cs + 1) > kMax / bytes)
      return fail(TE_RT_INVALID_ARGUMENT, what + ": strides (" + str(rs) +
                                              ", " + str(cs) + ") over " +
                                              str(rows) + " x " + str(cols) +
                                              " overflow the address range");
    ins.push_back({what, p.inputs[i], (r1 * rs + c1 * cs + 1) * bytes});
  }
  for (int k = 0; k < p.numInstrs; ++k) {
    const ProducerInstr &in = p.code[k];
    const ProducerOpInfo info = producerOpInfo(in.op);
    const std::string what = "producer instruction " + str(k);
    if (!info.name)
      return fail(TE_RT_INVALID_ARGUMENT,
                  what + ": unknown opcode " + str(in.op));
    const std::string named = what + " (" + info.name + ")";
    if (!isProducerType(in.type))
      return fail(TE_RT_INVALID_ARGUMENT, named + ": result type " +
                                              str(in.type) +
                                              " is not f32, bf16, f16 or u8");
    const bool cmp = in.op == static_cast<int32_t>(ProducerOp::CMPF);
    if (cmp && in.type != TE_RT_U8)
      return fail(TE_RT_INVALID_ARGUMENT,
                  named + ": result type must be u8 (a boolean), got " +
                      producerTypeLabel(in.type));
    if (cmp && (in.c < 0 || in.c > 15))
      return fail(TE_RT_INVALID_ARGUMENT,
                  named + ": predicate " + str(in.c) +
                      " is not an arith::CmpFPredicate (0 to 15)");
    const int32_t defined = p.numInputs + k;
    const int32_t operands[3] = {in.a, in.b, in.c};
    const char *names[3] = {"a", "b", "c"};
    for (int j = 0; j < info.arity; ++j)
      if (operands[j] < 0 || operands[j] >= defined)
        return fail(TE_RT_INVALID_ARGUMENT,
                    named + ": operand " + names[j] + " is value " +
                        str(operands[j]) +
                        ", not defined before it (values 0 to " +
                        str(defined - 1) + ")");
  }
  return TE_RT_OK;
}

/// A checked program with CONST's bits and CMPF's predicate moved to imm
/// and the operand indices past each opcode's arity 0 (ProducerInstr).
Producer normalizeProducer(const Producer &checked) {
  Producer p = checked;
  for (int k = 0; k < p.numInstrs; ++k) {
    ProducerInstr &in = p.code[k];
    const int arity = producerOpInfo(in.op).arity;
    if (in.op == static_cast<int32_t>(ProducerOp::CONST))
      in.imm = in.a;
    else if (in.op == static_cast<int32_t>(ProducerOp::CMPF))
      in.imm = in.c;
    if (arity < 1)
      in.a = 0;
    if (arity < 2)
      in.b = 0;
    if (arity < 3)
      in.c = 0;
  }
  return p;
}

} // namespace

te_rt_status te::rt::quantizeProduced(te_rt_context *ctx, int32_t xDtype,
                                      te_rt_qtensor *q,
                                      const te_rt_quantize_args *args,
                                      const Producer &producer) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    QTensor qt;
    QuantizeOptions o;
    if (te_rt_status s = decodeQTensor("q", q, qt))
      return s;
    if (xDtype != TE_RT_F32 && xDtype != TE_RT_BF16 && xDtype != TE_RT_F16)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string("x_dtype must be f32, bf16 or f16, got ") +
                      dtypeLabel(xDtype));
    Tensor xt;
    xt.dtype = static_cast<DType>(xDtype);
    xt.shape = qt.shape;
    xt.m = qt.m;
    xt.k = qt.k;
    xt.numElements = qt.m * qt.k;
    if (te_rt_status s = checkQuantizeInput(xt, qt))
      return s;
    if (te_rt_status s = decodeQuantizeArgs(args, qt.config, o))
      return s;
    std::vector<Region> outs,
        ins = {{"args->scale", o.scale, 4},
               {"args->amax_in", o.amaxIn,
                4 * recipeTraits(qt.config.recipe).amaxInputs}};
    if (te_rt_status s = checkProducer(producer, qt.m, qt.k, ins))
      return s;
    Producer program = normalizeProducer(producer);
    const int64_t valueBytes = xt.numElements * dtypeBytes(xt.dtype);
    if (producer.valueOut &&
        misaligned(producer.valueOut, dtypeBytes(xt.dtype)))
      return fail(TE_RT_INVALID_ARGUMENT,
                  "producer value_out is not aligned to its " +
                      str(dtypeBytes(xt.dtype)) + "-byte elements");
    if (producer.colsum && misaligned(producer.colsum, 4))
      return fail(TE_RT_INVALID_ARGUMENT,
                  "producer colsum is not aligned to 4 bytes");
    addQTensor(outs, "q", qt);
    outs.push_back({"args->amax", o.amaxOut, 4});
    outs.push_back({"producer value_out", producer.valueOut, valueBytes});
    outs.push_back({"producer colsum", producer.colsum, qt.k * 4});
    if (te_rt_status s =
            checkAliasing("te_rt_mlir_quantize_produced", outs, ins))
      return s;
    o.producer = &program;
    return ctx->backend->quantize(xt, qt, o);
  });
}

extern "C" {

te_rt_status te_rt_amax(te_rt_context *ctx, const te_rt_tensor *x,
                        float *amax) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    Tensor xt;
    if (te_rt_status s = decodeTensor("x", x, xt))
      return s;
    if (!amax)
      return fail(TE_RT_INVALID_ARGUMENT, "amax is null");
    if (misaligned(amax, 4))
      return fail(TE_RT_INVALID_ARGUMENT, "amax is not aligned to 4 bytes");
    if (te_rt_status s = checkAliasing("te_rt_amax", {{"amax", amax, 4}},
                                       {{"x", xt.data, tensorBytes(xt)}}))
      return s;
    return ctx->backend->amax(xt, amax, nullptr);
  });
}

te_rt_status te_rt_update_scale(te_rt_context *ctx, const te_rt_quantizer *q,
                                float *amax_history, float *scale,
                                int64_t history_length, int64_t num_scales) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    QuantizerConfig c;
    if (te_rt_status s = decodeQuantizer(q, c))
      return s;
    if (!recipeTraits(c.recipe).liveScale)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string("update_scale needs a delayed-scaling "
                              "quantizer, got ") +
                      recipeName(c.recipe));
    if (history_length < 1 || history_length > (1 << 24))
      return fail(TE_RT_INVALID_ARGUMENT,
                  "history_length must be in 1..2^24, got " +
                      str(history_length));
    if (num_scales < 1 ||
        num_scales > std::numeric_limits<int64_t>::max() / 4 / history_length)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "num_scales must be >= 1 and the history must fit in "
                  "int64, got " +
                      str(num_scales));
    if (!amax_history || !scale)
      return fail(TE_RT_INVALID_ARGUMENT, "amax_history or scale is null");
    if (misaligned(amax_history, 4) || misaligned(scale, 4))
      return fail(TE_RT_INVALID_ARGUMENT,
                  "amax_history or scale is not aligned to 4 bytes");
    if (te_rt_status s = checkAliasing(
            "te_rt_update_scale",
            {{"amax_history", amax_history, history_length * num_scales * 4},
             {"scale", scale, num_scales * 4}},
            {}))
      return s;
    return ctx->backend->updateScale(c, amax_history, scale, history_length,
                                     num_scales, nullptr);
  });
}

static te_rt_status swizzle(te_rt_context *ctx, te_rt_qtensor *q,
                            bool toSwizzled) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    QTensor qt;
    if (te_rt_status s = decodeQTensor("q", q, qt))
      return s;
    if (!recipeTraits(qt.config.recipe).swizzledScales)
      return fail(
          TE_RT_UNSUPPORTED,
          std::string("only MXFP8 and NVFP4 scales are swizzled, not ") +
              recipeName(qt.config.recipe));
    if (qt.swizzledScales == toSwizzled)
      return TE_RT_OK;
    if (te_rt_status s = ctx->backend->swizzleScales(qt, toSwizzled, nullptr))
      return s;
    q->swizzled_scales = toSwizzled ? 1 : 0;
    return TE_RT_OK;
  });
}

te_rt_status te_rt_swizzle_scales(te_rt_context *ctx, te_rt_qtensor *q) {
  return swizzle(ctx, q, true);
}
te_rt_status te_rt_unswizzle_scales(te_rt_context *ctx, te_rt_qtensor *q) {
  return swizzle(ctx, q, false);
}

void te_rt_gemm_args_init(te_rt_gemm_args *args) {
  if (!args)
    return;
  std::memset(args, 0, sizeof(*args));
  args->layout = TE_RT_GEMM_TN;
  args->alpha = 1.0f;
}

te_rt_status te_rt_gemm(te_rt_context *ctx, const te_rt_qtensor *a,
                        const te_rt_qtensor *b, te_rt_tensor *d,
                        const te_rt_gemm_args *args) {
  return te::rt::gemmWithEmulatedOperands(ctx, a, b, d, args, nullptr, nullptr);
}

} // extern "C"

te_rt_status
te::rt::gemmWithEmulatedOperands(te_rt_context *ctx, const te_rt_qtensor *a,
                                 const te_rt_qtensor *b, te_rt_tensor *d,
                                 const te_rt_gemm_args *args,
                                 const void *aEmulated, const void *bEmulated) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    te_rt_gemm_args ga;
    te_rt_gemm_args_init(&ga);
    if (args)
      ga = *args;
    if (rawEnum(ga.layout) != TE_RT_GEMM_TN &&
        rawEnum(ga.layout) != TE_RT_GEMM_NN &&
        rawEnum(ga.layout) != TE_RT_GEMM_NT)
      return fail(TE_RT_INVALID_ARGUMENT, "gemm layout " +
                                              str(rawEnum(ga.layout)) +
                                              " must be TN, NN or NT");
    QTensor at, bt;
    if (te_rt_status s = decodeQTensor("A", a, at))
      return s;
    if (te_rt_status s = decodeQTensor("B", b, bt))
      return s;
    // The rules of the dialect's te.gemm verifier (Format's Gemm.h), so that
    // both accept the same GEMMs.
    const GemmLayout layout = static_cast<GemmLayout>(ga.layout);
    const char *lname = gemmLayoutName(layout);
    std::string err = verifyGemmUsages(layout, at.usage, bt.usage);
    if (!err.empty())
      return fail(TE_RT_INVALID_ARGUMENT, "gemm " + err);
    err = verifyGemmOperands("gemm", "A", at.config, "B", bt.config);
    if (!err.empty())
      return fail(TE_RT_UNSUPPORTED, err);
    GemmShape shape;
    err = gemmShape(layout, at.shape, bt.shape, &shape);
    if (!err.empty())
      return fail(TE_RT_INVALID_ARGUMENT, "gemm " + err);
    const int64_t M = shape.m, N = shape.n;
    if ((aEmulated || bEmulated) &&
        gemmEmulation(layout, at.config, bt.config) != GemmEmulation::BF16)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string("gemm: emulated operands are only for a GEMM "
                              "emulated in bf16 (MXFP8; NVFP4 without per-row "
                              "scales or an RHT that the GEMM does not "
                              "cancel), got ") +
                      recipeFamilyName(at.config.recipe) + " " + lname);
    GemmOptions o;
    o.layout = ga.layout;
    o.aEmulated = aEmulated;
    o.bEmulated = bEmulated;
    o.m = M;
    o.n = N;
    o.k = shape.k;
    o.alpha = ga.alpha;
    o.accumulate = ga.accumulate != 0;
    o.useSplitAccumulator = ga.use_split_accumulator != 0;
    o.workspace = ga.workspace;
    o.workspaceBytes = ga.workspace_bytes;
    o.stream = ga.stream;
    if ((ga.a_row_scale_inv != nullptr) != (ga.b_row_scale_inv != nullptr))
      return fail(TE_RT_INVALID_ARGUMENT,
                  "a_row_scale_inv and b_row_scale_inv must be given together");
    if (ga.a_row_scale_inv) {
      if (!recipeTraits(at.config.recipe).perTensor ||
          !recipeTraits(bt.config.recipe).perTensor)
        return fail(TE_RT_UNSUPPORTED,
                    std::string("per-row scales (a_row_scale_inv / "
                                "b_row_scale_inv) need per-tensor FP8 "
                                "operands, got ") +
                        recipeName(at.config.recipe));
      if (reinterpret_cast<uintptr_t>(ga.a_row_scale_inv) % 16 ||
          reinterpret_cast<uintptr_t>(ga.b_row_scale_inv) % 16)
        return fail(TE_RT_INVALID_ARGUMENT,
                    "a_row_scale_inv and b_row_scale_inv must be 16-byte "
                    "aligned");
      o.aRowScaleInv = ga.a_row_scale_inv;
      o.bRowScaleInv = ga.b_row_scale_inv;
    }
    Tensor dt, biasT;
    if (d) {
      if (te_rt_status s = decodeTensor("D", d, dt))
        return s;
      if (dt.shape != Shape{M, N})
        return fail(TE_RT_INVALID_ARGUMENT,
                    "D has shape " + shapeString(dt.shape) + ", gemm " + lname +
                        " produces [" + str(M) + ", " + str(N) + "]");
    } else if (!ga.output) {
      return fail(TE_RT_INVALID_ARGUMENT,
                  "gemm needs D or args->output (or both)");
    }
    if (o.accumulate && !d)
      return fail(TE_RT_INVALID_ARGUMENT, "accumulate needs D");
    if (ga.bias) {
      if (te_rt_status s = decodeTensor("bias", ga.bias, biasT))
        return s;
      if (biasT.shape != Shape{N})
        return fail(TE_RT_INVALID_ARGUMENT, "bias has shape " +
                                                shapeString(biasT.shape) +
                                                ", expected [" + str(N) + "]");
      o.bias = &biasT;
    }
    QTensor outQ;
    if (ga.output) {
      if (te_rt_status s = decodeQTensor("args->output", ga.output, outQ))
        return s;
      if (outQ.shape != Shape{M, N})
        return fail(TE_RT_INVALID_ARGUMENT,
                    "args->output has shape " + shapeString(outQ.shape) +
                        ", gemm produces [" + str(M) + ", " + str(N) + "]");
      if (!quantizerAcceptsInput(outQ.config, outQ.usage, DType::F32))
        return fail(TE_RT_UNSUPPORTED,
                    "an NVFP4 RHT output quantizer needs a bf16 input; the "
                    "gemm result is f32");
      if (te_rt_status s =
              decodeQuantizeArgs(ga.output_args, outQ.config, o.outputOptions))
        return s;
      o.output = &outQ;
    }
    std::vector<Region> outs, ins;
    addQTensor(ins, "A", at);
    addQTensor(ins, "B", bt);
    if (ga.bias)
      ins.push_back({"bias", biasT.data, tensorBytes(biasT)});
    ins.push_back({"a_row_scale_inv", ga.a_row_scale_inv, N * 4});
    ins.push_back({"b_row_scale_inv", ga.b_row_scale_inv, M * 4});
    ins.push_back({"A's emulated operand", aEmulated, at.m * at.k * 2});
    ins.push_back({"B's emulated operand", bEmulated, bt.m * bt.k * 2});
    if (d)
      outs.push_back({"D", dt.data, tensorBytes(dt)});
    if (ga.output) {
      addQTensor(outs, "args->output", outQ);
      ins.push_back({"output_args->scale", o.outputOptions.scale, 4});
      ins.push_back({"output_args->amax_in", o.outputOptions.amaxIn,
                     4 * recipeTraits(outQ.config.recipe).amaxInputs});
      outs.push_back({"output_args->amax", o.outputOptions.amaxOut, 4});
    }
    outs.push_back(
        {"workspace", ga.workspace,
         static_cast<int64_t>(std::min<size_t>(
             ga.workspace_bytes, std::numeric_limits<int64_t>::max()))});
    if (te_rt_status s = checkAliasing("te_rt_gemm", outs, ins))
      return s;
    te_rt_gemm_info info = noGemmInfo();
    o.info = &info;
    if (te_rt_status s = ctx->backend->gemm(at, bt, d ? &dt : nullptr, o))
      return s;
    std::lock_guard<std::mutex> lock(ctx->gemmInfoMutex);
    ctx->lastGemm = info;
    return TE_RT_OK;
  });
}

extern "C" {

te_rt_status te_rt_context_set_gemm_autotune(te_rt_context *ctx,
                                             int32_t candidates) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (candidates < 0)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "gemm autotune candidates must be >= 0, got " +
                      str(candidates));
    ctx->backend->setGemmAutotune(candidates);
    return TE_RT_OK;
  });
}

te_rt_status te_rt_context_set_fast_kernels(te_rt_context *ctx,
                                            int32_t enabled) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (enabled != 0 && enabled != 1)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "fast kernels must be 0 or 1, got " + str(enabled));
    ctx->backend->setFastKernels(enabled != 0);
    return TE_RT_OK;
  });
}

te_rt_status te_rt_context_last_gemm_info(const te_rt_context *ctx,
                                          te_rt_gemm_info *info) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    if (!info)
      return fail(TE_RT_INVALID_ARGUMENT, "info is null");
    std::lock_guard<std::mutex> lock(
        const_cast<te_rt_context *>(ctx)->gemmInfoMutex);
    *info = ctx->lastGemm;
    return TE_RT_OK;
  });
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Attention arguments (AttentionArgs.h)
//===----------------------------------------------------------------------===//

namespace {

using te::rt::AttentionOperand;
using te::rt::AttentionSpans;

const char *const kAttentionDims[4] = {"batch", "heads", "sequence",
                                       "head size"};
/// The mask's dimensions: [B, Hq, L, S].
const char *const kMaskDims[4] = {"batch", "heads", "queries", "keys"};

std::string dims4(const int64_t d[4]) {
  return "[" + str(d[0]) + ", " + str(d[1]) + ", " + str(d[2]) + ", " +
         str(d[3]) + "]";
}

std::string dimLabel(int d, bool mask = false) {
  return "dimension " + str(d) + " (" + (mask ? kMaskDims : kAttentionDims)[d] +
         ")";
}

/// Checks one 4-D operand: sizes and strides non-negative, the innermost
/// dimension contiguous, the element count and the extent within int64, data
/// present and aligned unless the operand is empty. For the mask (`isMask`)
/// a size-1 dimension is broadcast: its stride is ignored and becomes 0.
/// `spanBytes`: what the operand spans (AttentionSpans).
te_rt_status decodeAttentionOperand(const char *name,
                                    const te_rt_attention_operand &in,
                                    int64_t elementBytes, bool isMask,
                                    AttentionOperand &out, int64_t &spanBytes) {
  out.data = in.data;
  for (int d = 0; d < 4; ++d) {
    out.shape[d] = in.shape[d];
    out.strides[d] = in.strides[d];
    if (in.shape[d] < 0)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string(name) + "'s " + dimLabel(d, isMask) + " is " +
                      str(in.shape[d]) + ", expected >= 0");
  }
  for (int d = 0; d < 4; ++d) {
    if (isMask && in.shape[d] == 1) {
      out.strides[d] = 0;
      continue;
    }
    if (in.strides[d] < 0)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string(name) + "'s stride of " + dimLabel(d, isMask) +
                      " is " + str(in.strides[d]) + ", expected >= 0");
  }
  if (in.shape[3] > 1 && in.strides[3] != 1)
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(name) + "'s stride of " + dimLabel(3, isMask) +
                    " is " + str(in.strides[3]) +
                    ", expected 1 (the innermost dimension must be "
                    "contiguous)");
  if (in.shape[3] <= 1)
    out.strides[3] = 1;
  int64_t elements = 1;
  for (int d = 0; d < 4; ++d)
    if (in.shape[d] == 0)
      elements = 0;
  for (int d = 0; d < 4 && elements; ++d)
    if (__builtin_mul_overflow(elements, in.shape[d], &elements))
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string(name) + " has too many elements (shape " +
                      dims4(in.shape) + " overflows int64)");
  spanBytes = 0;
  if (elements == 0)
    return TE_RT_OK;
  int64_t span = 1;
  for (int d = 0; d < 4; ++d) {
    int64_t t = 0;
    if (__builtin_mul_overflow(in.shape[d] - 1, out.strides[d], &t) ||
        __builtin_add_overflow(span, t, &span))
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string(name) + "'s extent overflows int64 (shape " +
                      dims4(in.shape) + ", strides " + dims4(out.strides) +
                      ")");
  }
  if (__builtin_mul_overflow(span, elementBytes, &spanBytes))
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(name) + "'s extent overflows int64 (shape " +
                    dims4(in.shape) + ", strides " + dims4(out.strides) + ")");
  if (!in.data)
    return fail(TE_RT_INVALID_ARGUMENT, std::string(name) +
                                            "'s data is null (shape " +
                                            dims4(in.shape) + ")");
  if (misaligned(in.data, elementBytes))
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string(name) + "'s data is not aligned to its " +
                    str(elementBytes) + "-byte elements");
  return TE_RT_OK;
}

/// `name`'s dimension `d` must be `expected` (`what` says where that comes
/// from: "q's batch"); with `orOne`, 1 (broadcast) is accepted too.
te_rt_status expectAttentionDim(const char *name, const int64_t shape[4], int d,
                                int64_t expected, const char *what,
                                bool orOne = false) {
  if (shape[d] == expected || (orOne && shape[d] == 1))
    return TE_RT_OK;
  return fail(TE_RT_INVALID_ARGUMENT,
              std::string(name) + "'s " +
                  dimLabel(d, std::string(name) == "mask") + " is " +
                  str(shape[d]) + ", expected " + str(expected) + " (" + what +
                  ")" + (orOne ? " or 1" : ""));
}

/// An output whose strides map two elements to one address would be written
/// from several places. Sufficient for distinct addresses: taken by
/// increasing stride, each dimension of size > 1 steps past everything the
/// dimensions before it reach.
te_rt_status checkOutputLayout(const char *name, const AttentionOperand &o) {
  for (int64_t size : o.shape)
    if (size == 0)
      return TE_RT_OK;
  int order[4] = {0, 1, 2, 3};
  std::stable_sort(order, order + 4,
                   [&](int x, int y) { return o.strides[x] < o.strides[y]; });
  int64_t reach = 1; // elements spanned by the dimensions taken so far
  for (int d : order) {
    if (o.shape[d] <= 1)
      continue;
    if (o.strides[d] < reach)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string(name) + "'s strides " + dims4(o.strides) +
                      " for shape " + dims4(o.shape) +
                      " put several elements at one address (" + dimLabel(d) +
                      " steps within the others); an output may not");
    reach += (o.shape[d] - 1) * o.strides[d];
  }
  return TE_RT_OK;
}

/// No output overlaps another output or an input (byte ranges spanned).
te_rt_status checkAttentionAliasing(const std::vector<Region> &outs,
                                    const std::vector<Region> &ins) {
  for (size_t i = 0; i < outs.size(); ++i) {
    for (size_t j = i + 1; j < outs.size(); ++j)
      if (overlap(outs[i].p, outs[i].bytes, outs[j].p, outs[j].bytes))
        return fail(TE_RT_INVALID_ARGUMENT,
                    "the outputs " + outs[i].name + " and " + outs[j].name +
                        " overlap (outputs may not share memory)");
    for (const Region &in : ins)
      if (overlap(outs[i].p, outs[i].bytes, in.p, in.bytes))
        return fail(TE_RT_INVALID_ARGUMENT,
                    "the output " + outs[i].name + " overlaps the input " +
                        in.name +
                        " (outputs may not share memory with inputs)");
  }
  return TE_RT_OK;
}

/// The forward's arguments; `backward`: te_rt_attention_grad's forward (o
/// and lse are inputs, lse required).
te_rt_status decodeAttentionForward(const te_rt_attention_args *args,
                                    bool backward, te::rt::Attention &out,
                                    AttentionSpans &sp) {
  if (!args)
    return fail(TE_RT_INVALID_ARGUMENT, "args is null");
  const te_rt_attention_args &a = *args;
  const int dtype = rawEnum(a.dtype);
  if (dtype != TE_RT_F32 && dtype != TE_RT_BF16 && dtype != TE_RT_F16)
    return fail(TE_RT_INVALID_ARGUMENT,
                std::string("dtype (of q, k, v, o) must be f32, bf16 or f16, "
                            "got ") +
                    dtypeLabel(dtype));
  out.dtype = static_cast<DType>(dtype);
  const int64_t eb = dtypeBytes(out.dtype);
  if (te_rt_status s = decodeAttentionOperand("q", a.q, eb, false, out.q, sp.q))
    return s;
  if (te_rt_status s = decodeAttentionOperand("k", a.k, eb, false, out.k, sp.k))
    return s;
  if (te_rt_status s = decodeAttentionOperand("v", a.v, eb, false, out.v, sp.v))
    return s;
  if (te_rt_status s = decodeAttentionOperand("o", a.o, eb, false, out.o, sp.o))
    return s;
  const int64_t B = out.q.shape[0], Hq = out.q.shape[1], L = out.q.shape[2],
                E = out.q.shape[3], Hkv = out.k.shape[1], S = out.k.shape[2],
                Ev = out.v.shape[3];
  if (te_rt_status s = expectAttentionDim("k", out.k.shape, 0, B, "q's batch"))
    return s;
  if (Hq > 0 && (Hkv == 0 || Hq % Hkv != 0))
    return fail(TE_RT_INVALID_ARGUMENT,
                "k's " + dimLabel(1) + " is " + str(Hkv) +
                    ", expected a divisor of q's " + str(Hq) +
                    " heads (grouped-query attention: query head h reads "
                    "key/value head h / (Hq / Hkv))");
  if (te_rt_status s =
          expectAttentionDim("k", out.k.shape, 3, E, "q's head size"))
    return s;
  if (te_rt_status s = expectAttentionDim("v", out.v.shape, 0, B, "q's batch"))
    return s;
  if (te_rt_status s =
          expectAttentionDim("v", out.v.shape, 1, Hkv, "k's heads"))
    return s;
  if (te_rt_status s =
          expectAttentionDim("v", out.v.shape, 2, S, "k's sequence"))
    return s;
  if (te_rt_status s = expectAttentionDim("o", out.o.shape, 0, B, "q's batch"))
    return s;
  if (te_rt_status s = expectAttentionDim("o", out.o.shape, 1, Hq, "q's heads"))
    return s;
  if (te_rt_status s =
          expectAttentionDim("o", out.o.shape, 2, L, "q's sequence"))
    return s;
  if (te_rt_status s =
          expectAttentionDim("o", out.o.shape, 3, Ev, "v's head size"))
    return s;
  if (!backward)
    if (te_rt_status s = checkOutputLayout("o", out.o))
      return s;

  int64_t rows = 0;
  if (__builtin_mul_overflow(B, Hq, &rows) ||
      __builtin_mul_overflow(rows, L, &rows) ||
      __builtin_mul_overflow(rows, int64_t(4), &sp.lse))
    return fail(TE_RT_INVALID_ARGUMENT, "lse's size [" + str(B) + ", " +
                                            str(Hq) + ", " + str(L) +
                                            "] overflows int64");
  out.lse = a.lse;
  if (!a.lse)
    sp.lse = 0;
  if (backward && !a.lse && rows > 0)
    return fail(TE_RT_INVALID_ARGUMENT,
                "lse is null: the backward reads the forward's log-sum-exp "
                "(f32 [" +
                    str(B) + ", " + str(Hq) + ", " + str(L) + "])");
  if (misaligned(a.lse, 4))
    return fail(TE_RT_INVALID_ARGUMENT, "lse is not aligned to 4 bytes");

  if (!std::isfinite(a.scale))
    return fail(TE_RT_INVALID_ARGUMENT, "scale is " + std::to_string(a.scale) +
                                            ", expected a finite number");
  out.scale = a.scale;
  if (a.causal != 0 && a.causal != 1)
    return fail(TE_RT_INVALID_ARGUMENT,
                "causal is " + str(a.causal) + ", expected 0 or 1");
  out.causal = a.causal != 0;

  const int kind = rawEnum(a.mask_kind);
  if (kind < TE_RT_ATTENTION_MASK_NONE || kind > TE_RT_ATTENTION_MASK_BOOLEAN)
    return fail(TE_RT_INVALID_ARGUMENT,
                "mask_kind is " + str(kind) +
                    ", expected 0 (none), 1 (additive) or 2 (boolean)");
  out.maskKind = static_cast<te::rt::AttentionMask>(kind);
  out.mask = AttentionOperand();
  sp.mask = 0;
  if (kind != TE_RT_ATTENTION_MASK_NONE) {
    const int md = rawEnum(a.mask_dtype);
    if (kind == TE_RT_ATTENTION_MASK_ADDITIVE && md != TE_RT_F32 &&
        md != TE_RT_BF16 && md != TE_RT_F16)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string("an additive mask's mask_dtype must be f32, "
                              "bf16 or f16, got ") +
                      dtypeLabel(md));
    if (kind == TE_RT_ATTENTION_MASK_BOOLEAN && md != TE_RT_U8)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string("a boolean mask's mask_dtype must be u8 "
                              "(nonzero: the key takes part), got ") +
                      dtypeLabel(md));
    out.maskType = static_cast<DType>(md);
    if (te_rt_status s = decodeAttentionOperand(
            "mask", a.mask, dtypeBytes(out.maskType), true, out.mask, sp.mask))
      return s;
    if (te_rt_status s =
            expectAttentionDim("mask", out.mask.shape, 0, B, "q's batch", true))
      return s;
    if (te_rt_status s = expectAttentionDim("mask", out.mask.shape, 1, Hq,
                                            "q's heads", true))
      return s;
    if (te_rt_status s = expectAttentionDim("mask", out.mask.shape, 2, L,
                                            "q's sequence", true))
      return s;
    if (te_rt_status s =
            expectAttentionDim("mask", out.mask.shape, 3, S, "k's sequence"))
      return s;
  }
  out.stream = nullptr;
  if (!backward)
    return checkAttentionAliasing(
        {{"o", out.o.data, sp.o}, {"lse", out.lse, sp.lse}},
        {{"q", out.q.data, sp.q},
         {"k", out.k.data, sp.k},
         {"v", out.v.data, sp.v},
         {"mask", out.mask.data, sp.mask}});
  return TE_RT_OK;
}

} // namespace

te_rt_status te::rt::decodeAttention(const te_rt_attention_args *args,
                                     Attention &out, AttentionSpans &spans) {
  spans = AttentionSpans();
  return decodeAttentionForward(args, /*backward=*/false, out, spans);
}

te_rt_status te::rt::decodeAttentionGrad(const te_rt_attention_grad_args *args,
                                         AttentionGrad &out,
                                         AttentionSpans &sp) {
  sp = AttentionSpans();
  if (!args)
    return fail(TE_RT_INVALID_ARGUMENT, "args is null");
  if (te_rt_status s = decodeAttentionForward(&args->forward, /*backward=*/true,
                                              out.forward, sp))
    return s;
  const Attention &f = out.forward;
  const int64_t eb = dtypeBytes(f.dtype);
  struct Grad {
    const char *name;
    const te_rt_attention_operand &in;
    AttentionOperand &out;
    int64_t &span;
    const AttentionOperand &like;
    const char *likeName;
  } grads[4] = {{"dout", args->dout, out.dout, sp.dout, f.o, "o"},
                {"dq", args->dq, out.dq, sp.dq, f.q, "q"},
                {"dk", args->dk, out.dk, sp.dk, f.k, "k"},
                {"dv", args->dv, out.dv, sp.dv, f.v, "v"}};
  for (Grad &g : grads) {
    if (te_rt_status s =
            decodeAttentionOperand(g.name, g.in, eb, false, g.out, g.span))
      return s;
    for (int d = 0; d < 4; ++d) {
      const std::string what =
          std::string(g.likeName) + "'s " + kAttentionDims[d];
      if (te_rt_status s = expectAttentionDim(g.name, g.out.shape, d,
                                              g.like.shape[d], what.c_str()))
        return s;
    }
  }
  for (int i = 1; i < 4; ++i)
    if (te_rt_status s = checkOutputLayout(grads[i].name, grads[i].out))
      return s;
  return checkAttentionAliasing({{"dq", out.dq.data, sp.dq},
                                 {"dk", out.dk.data, sp.dk},
                                 {"dv", out.dv.data, sp.dv}},
                                {{"q", f.q.data, sp.q},
                                 {"k", f.k.data, sp.k},
                                 {"v", f.v.data, sp.v},
                                 {"o", f.o.data, sp.o},
                                 {"lse", f.lse, sp.lse},
                                 {"dout", out.dout.data, sp.dout},
                                 {"mask", f.mask.data, sp.mask}});
}

extern "C" {

te_rt_status te_rt_attention(te_rt_context *ctx,
                             const te_rt_attention_args *args) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    te::rt::Attention a;
    AttentionSpans spans;
    if (te_rt_status s = te::rt::decodeAttention(args, a, spans))
      return s;
    // No query rows: nothing to write.
    if (a.q.shape[0] == 0 || a.q.shape[1] == 0 || a.q.shape[2] == 0)
      return TE_RT_OK;
    return ctx->backend->attention(a);
  });
}

te_rt_status te_rt_attention_grad(te_rt_context *ctx,
                                  const te_rt_attention_grad_args *args) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkContext(ctx))
      return s;
    te::rt::AttentionGrad a;
    AttentionSpans spans;
    if (te_rt_status s = te::rt::decodeAttentionGrad(args, a, spans))
      return s;
    // No gradient element to write (dk and dv are zeros when there are keys
    // but no query rows: the backend writes them).
    if (spans.dq == 0 && spans.dk == 0 && spans.dv == 0)
      return TE_RT_OK;
    return ctx->backend->attentionGrad(a);
  });
}

} // extern "C"

//===- te-quantize.cpp - Quantize a .npy tensor with any quantizer --------===//
//
// Part of te. A plain C++ tool over libte_rt's C ABI (no MLIR).
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Npy.h"
#include "QuantizerSyntax.h"
#include "te/Format/RecipeTraits.h"
#include "te/ToolVersion.h"
#include "te_rt.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

const char *kHelp =
    R"(USAGE: te-quantize --quantizer Q --input X.npy --output-dir DIR [options]

Quantizes a float32 .npy tensor with a TransformerEngine quantizer on the cpu
(reference) or cuda backend of libte_rt and writes every buffer of the
quantized tensor, in TransformerEngine's flatten order and names, as
DIR/<buffer name>.npy: data as uint8 bit patterns (FP4: two values per byte,
the even element in the low nibble), scales as float32 (per-tensor and block
scaling) or uint8 bits (E8M0 for MXFP8, E4M3 for NVFP4), amaxes as float32,
padding zero. Also writes DIR/dequantized.npy (float32, from the rowwise
representation if held, else the columnwise one) and, for per-tensor
recipes, DIR/amax.npy.

OPTIONS:
  --quantizer Q        the quantizer in the te dialect's attribute syntax:
                         #te.<recipe><element-type (, field = value)*>
  --input X.npy        float32 ('<f4') C-order array, or float16 ('<f2') or
                       float64 ('<f8', every finite value within float32's
                       range) converted to float32; '-' reads standard
                       input; rank 0 (a scalar) for per-tensor recipes
                       (current, delayed), else >= 1
  --input-type T       f32 (default) or bf16: with bf16 every value must be
                       exactly representable in bf16
  --usage U            rowwise, columnwise or rowwise,columnwise (default)
  --target T           sm_90 or sm_100 (default: sm_100 for mxfp8 and nvfp4,
                       else sm_90)
  --backend B          cpu (default) or cuda
  --swizzled           MXFP8/NVFP4: write GEMM-swizzled scales
  --seed N, --offset N NVFP4 stochastic rounding (default 0)
  --scale S            delayed scaling: the scale to use (default 1.0)
  --output-dir DIR     created if missing; files are written whole (a
                       temporary file renamed into place) and never over
                       the input
  --help               this text
  --version            te's version and the CUDA it was built with

EXIT STATUS: 0 success, 1 a failure (input, quantizer, runtime, output),
2 a usage error (unknown option, missing or malformed value).
An option's value follows it or an `=`: --seed 7 or --seed=7.

QUANTIZERS (one example per recipe; fields equal to their default may be
omitted):
  #te.delayed<f8E4M3FN, margin = 0, history = 1024, algo = max>
  #te.current<f8E5M2, pow2_scales = true, amax_epsilon = 1.0e-06>
  #te.block<f8E4M3FN, dims = 2, pow2_scales = true, amax_epsilon = 0.0>
  #te.mxfp8<f8E4M3FN, block_2d = false, e8m0_rounding = up>
  #te.nvfp4<f4E2M1FN, rht = true, rht_sign_mask = 0xD7E8>
  #te.nvfp4<f4E2M1FN, block_2d = true>
  #te.nvfp4<f4E2M1FN, stochastic_rounding = true>
  #te.nvfp4<f4E2M1FN, row_scaled = true>
  #te.nvfp4<f4E2M1FN, four_over_six = true, e4m3_max = 256.0, err_mode = mse>

EXAMPLE:
  te-quantize --quantizer '#te.mxfp8<f8E4M3FN>' --input x.npy --output-dir out
)";

int error(const std::string &msg) {
  std::fprintf(stderr, "te-quantize: error: %s\n", msg.c_str());
  return 1;
}

/// A usage error: exit status 2.
int usageError(const std::string &msg) {
  std::fprintf(stderr, "te-quantize: error: %s\n", msg.c_str());
  return 2;
}

float halfToFloat(uint16_t h);

/// The input as float32 (float16 and float64 converted, float64 checked
/// against float32's range), or false with `err` set.
bool toFloat32(te::npy::Array &in, const std::string &path, std::string &err) {
  if (in.kind == te::npy::Kind::F32)
    return true;
  if (in.kind != te::npy::Kind::F16 && in.kind != te::npy::Kind::F64) {
    err = "input '" + path +
          "' must be float32 ('<f4'), float16 ('<f2') or "
          "float64 ('<f8'), got '" +
          te::npy::descr(in.kind) + "'";
    return false;
  }
  int64_t n = in.numElements();
  std::vector<uint8_t> f32;
  try {
    f32.resize(static_cast<size_t>(n) * 4);
  } catch (const std::bad_alloc &) {
    err = "out of memory allocating " + std::to_string(n * 4) +
          " bytes for the float32 copy of '" + path + "'";
    return false;
  }
  for (int64_t i = 0; i < n; ++i) {
    float f;
    if (in.kind == te::npy::Kind::F64) {
      double d;
      std::memcpy(&d, in.bytes.data() + 8 * i, 8);
      if (std::isfinite(d) && std::fabs(d) > FLT_MAX) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%g", d);
        err = "input '" + path + "' element " + std::to_string(i) + " (" + buf +
              ") is outside float32's range";
        return false;
      }
      f = static_cast<float>(d);
    } else {
      uint16_t h;
      std::memcpy(&h, in.bytes.data() + 2 * i, 2);
      f = halfToFloat(h);
    }
    std::memcpy(f32.data() + 4 * i, &f, 4);
  }
  in.bytes.swap(f32);
  in.kind = te::npy::Kind::F32;
  return true;
}

bool parseU64(const char *s, uint64_t &out) {
  if (!s || !*s || *s == '-')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 0);
  if (errno || !end || *end)
    return false;
  out = v;
  return true;
}

/// IEEE binary16 -> float (exact).
float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F,
           man = h & 0x3FF;
  float f;
  if (exp == 0x1F) {
    uint32_t bits = sign | 0x7F800000u | (man << 13);
    std::memcpy(&f, &bits, 4);
    return f;
  }
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(man), -24);
    return sign ? -f : f;
  }
  uint32_t bits = sign | ((exp + 112) << 23) | (man << 13);
  std::memcpy(&f, &bits, 4);
  return f;
}

te::npy::Kind kindOf(te_rt_dtype d) {
  return d == TE_RT_F32 ? te::npy::Kind::F32 : te::npy::Kind::U8;
}

} // namespace

/// Whether `a` and `b` name one file (both must exist).
bool sameFile(const std::string &a, const std::string &b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

int run(int argc, char **argv) {
  std::string quantizerText, inputPath, inputType = "f32", usageText,
                                        targetText, backendText = "cpu", outDir;
  bool swizzled = false, usageGiven = false;
  uint64_t seed = 0, offset = 0;
  float delayedScale = 1.0f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &dst) {
      if (i + 1 >= argc)
        return false;
      dst = argv[++i];
      return true;
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (a == "--version") {
      std::printf("te-quantize (te) %s\nCUDA: %s\nLLVM: none (te-quantize "
                  "does not use it)\nte_rt API version: %d\n",
                  TE_VERSION_STRING, TE_CUDA_VERSION_STRING,
                  te_rt_api_version());
      return 0;
    }
    bool ok = true;
    if (a == "--quantizer")
      ok = value(quantizerText);
    else if (a == "--input")
      ok = value(inputPath);
    else if (a == "--input-type")
      ok = value(inputType);
    else if (a == "--usage") {
      ok = value(usageText);
      usageGiven = true;
    } else if (a == "--target")
      ok = value(targetText);
    else if (a == "--backend")
      ok = value(backendText);
    else if (a == "--output-dir")
      ok = value(outDir);
    else if (a == "--swizzled")
      swizzled = true;
    else if (a == "--seed" || a == "--offset") {
      std::string v;
      ok = value(v) && parseU64(v.c_str(), a == "--seed" ? seed : offset);
      if (!ok)
        return usageError(a + " expects an integer in 0..2^64-1");
    } else if (a == "--scale") {
      std::string v;
      char *end = nullptr;
      ok = value(v);
      if (ok)
        delayedScale = std::strtof(v.c_str(), &end);
      // A scale of 0 or less has no inverse (0 gives an all-NaN result).
      if (!ok || !end || *end || v.empty() || !std::isfinite(delayedScale) ||
          !(delayedScale > 0.0f))
        return usageError("--scale expects a finite float > 0, got '" + v +
                          "'");
    } else
      return usageError("unknown option '" + a + "' (see --help)");
    if (!ok)
      return usageError(a + " expects a value");
  }
  if (quantizerText.empty())
    return usageError("missing --quantizer (see --help)");
  if (inputPath.empty())
    return usageError("missing --input");
  if (outDir.empty())
    return usageError("missing --output-dir");

  te_rt_quantizer qz;
  std::string err;
  if (!te::tools::parseQuantizer(quantizerText, qz, &err))
    return usageError("bad quantizer syntax: " + err);
  if (te_rt_quantizer_verify(&qz) != TE_RT_OK)
    return error(te_rt_last_error());

  int usage = 0;
  if (!usageGiven) {
    usage = TE_RT_ROWWISE_AND_COLUMNWISE;
  } else {
    size_t p = 0;
    while (p <= usageText.size()) {
      size_t c = usageText.find(',', p);
      std::string u = usageText.substr(
          p, c == std::string::npos ? std::string::npos : c - p);
      if (u == "rowwise")
        usage |= TE_RT_ROWWISE;
      else if (u == "columnwise")
        usage |= TE_RT_COLUMNWISE;
      else
        return usageError("--usage expects rowwise, columnwise or "
                          "rowwise,columnwise, got '" +
                          usageText + "'");
      if (c == std::string::npos)
        break;
      p = c + 1;
    }
  }
  // The parsed quantizer holds a known recipe (te_rt_quantizer_verify).
  const te::format::RecipeTraits traits =
      te::format::recipeTraits(static_cast<te::format::Recipe>(qz.recipe));
  te_rt_target target;
  if (targetText.empty())
    target = traits.emulatedOnSM90 ? TE_RT_SM100 : TE_RT_SM90;
  else if (targetText == "sm_90")
    target = TE_RT_SM90;
  else if (targetText == "sm_100")
    target = TE_RT_SM100;
  else
    return usageError("--target expects sm_90 or sm_100, got '" + targetText +
                      "'");
  te_rt_backend backend;
  if (backendText == "cpu")
    backend = TE_RT_BACKEND_CPU;
  else if (backendText == "cuda")
    backend = TE_RT_BACKEND_CUDA;
  else
    return usageError("--backend expects cpu or cuda, got '" + backendText +
                      "'");
  if (inputType != "f32" && inputType != "bf16")
    return usageError("--input-type expects f32 or bf16, got '" + inputType +
                      "'");

  // The output directory and file names are checked before any work: no
  // output may replace the input, and a directory that cannot be made is
  // reported before the quantization runs.
  te_rt_buffer_desc descs[TE_RT_MAX_BUFFERS];
  int32_t nb = 0;
  std::error_code ec;
  std::filesystem::create_directories(outDir, ec);
  if (ec)
    return error("cannot create '" + outDir + "': " + ec.message());
  if (!std::filesystem::is_directory(outDir, ec))
    return error("--output-dir '" + outDir + "' is not a directory");
  std::vector<std::string> outputs = {"amax", "dequantized"};
  for (const char *name :
       {"_data", "_scale_inv", "_rowwise_data", "_columnwise_data",
        "_rowwise_scale_inv", "_columnwise_scale_inv", "_amax_rowwise",
        "_amax_columnwise", "_transpose"})
    outputs.push_back(name);
  if (inputPath != "-")
    for (const std::string &o : outputs)
      if (sameFile(inputPath, outDir + "/" + o + ".npy"))
        return error("the output '" + outDir + "/" + o +
                     ".npy' is the input '" + inputPath +
                     "': choose another --output-dir");

  te::npy::Array in;
  if (!te::npy::read(inputPath, in, &err))
    return error(err);
  if (!toFloat32(in, inputPath, err))
    return error(err);
  if (in.shape.size() > TE_RT_MAX_RANK)
    return error("input '" + inputPath + "' has rank " +
                 std::to_string(in.shape.size()) + ", at most " +
                 std::to_string(TE_RT_MAX_RANK) + " is supported");
  int64_t n = in.numElements();
  std::vector<uint8_t> hostInput;
  hostInput.swap(in.bytes);
  te_rt_dtype xType = TE_RT_F32;
  if (inputType == "bf16") {
    std::vector<uint8_t> b16(static_cast<size_t>(n) * 2);
    for (int64_t i = 0; i < n; ++i) {
      uint32_t u;
      std::memcpy(&u, hostInput.data() + 4 * i, 4);
      if (u & 0xFFFFu) {
        float f;
        std::memcpy(&f, &u, 4);
        return error("input element " + std::to_string(i) + " (" +
                     std::to_string(f) + ") is not representable in bf16");
      }
      uint16_t h = static_cast<uint16_t>(u >> 16);
      std::memcpy(b16.data() + 2 * i, &h, 2);
    }
    hostInput.swap(b16);
    xType = TE_RT_BF16;
  }

  if (!te_rt_backend_available(backend))
    return error("the " + backendText + " backend is not available here");
  te_rt_context *ctx = nullptr;
  if (te_rt_context_create(backend, &ctx) != TE_RT_OK)
    return error(te_rt_last_error());
  struct Cleanup {
    te_rt_context *ctx;
    std::vector<void *> ptrs;
    te_rt_qtensor *q = nullptr;
    ~Cleanup() {
      for (void *p : ptrs)
        te_rt_free(ctx, p);
      if (q)
        te_rt_qtensor_free(ctx, q);
      te_rt_context_destroy(ctx);
    }
  } cleanup{ctx, {}};

  te_rt_qtensor q;
  std::memset(&q, 0, sizeof(q));
  if (te_rt_qtensor_alloc(ctx, &q, &qz, static_cast<int32_t>(in.shape.size()),
                          in.shape.data(), static_cast<te_rt_usage>(usage),
                          target) != TE_RT_OK)
    return error(te_rt_last_error());
  cleanup.q = &q;
  q.swizzled_scales = swizzled ? 1 : 0;

  auto devAlloc = [&](size_t bytes, void **p) {
    if (te_rt_malloc(ctx, bytes, p) != TE_RT_OK)
      return false;
    cleanup.ptrs.push_back(*p);
    return true;
  };
  te_rt_tensor x;
  std::memset(&x, 0, sizeof(x));
  x.dtype = xType;
  x.rank = static_cast<int32_t>(in.shape.size());
  for (size_t i = 0; i < in.shape.size(); ++i)
    x.shape[i] = in.shape[i];
  if (!devAlloc(hostInput.size(), &x.data) ||
      te_rt_memcpy(ctx, x.data, hostInput.data(), hostInput.size(),
                   TE_RT_HOST_TO_DEVICE) != TE_RT_OK)
    return error(te_rt_last_error());

  te_rt_quantize_args args;
  te_rt_quantize_args_init(&args);
  args.seed = seed;
  args.offset = offset;
  float *devScale = nullptr, *devAmax = nullptr;
  if (traits.perTensor) {
    if (!devAlloc(4, reinterpret_cast<void **>(&devAmax)))
      return error(te_rt_last_error());
    args.amax = devAmax;
  }
  if (traits.liveScale) {
    if (!devAlloc(4, reinterpret_cast<void **>(&devScale)) ||
        te_rt_memcpy(ctx, devScale, &delayedScale, 4, TE_RT_HOST_TO_DEVICE) !=
            TE_RT_OK)
      return error(te_rt_last_error());
    args.scale = devScale;
  }
  if (te_rt_quantize(ctx, &x, &q, &args) != TE_RT_OK) {
    std::string message = te_rt_last_error();
    // The runtime names what it needs; the tool names the flag that gives
    // it.
    if (message.find("needs a bf16 input") != std::string::npos &&
        inputType != "bf16")
      message += " (give --input-type bf16: every value of the input must "
                 "then be exact in bf16)";
    return error(message);
  }
  if (backend == TE_RT_BACKEND_CPU) {
    // The host copy is no longer needed (x.data holds the input).
    std::vector<uint8_t>().swap(hostInput);
  }

  if (te_rt_qtensor_layout(&qz, q.rank, q.shape, q.usage, q.target, descs,
                           TE_RT_MAX_BUFFERS, &nb) != TE_RT_OK)
    return error(te_rt_last_error());
  for (int32_t i = 0; i < nb; ++i) {
    te::npy::Array a;
    a.kind = kindOf(descs[i].dtype);
    a.shape.assign(descs[i].shape, descs[i].shape + descs[i].rank);
    a.bytes.resize(static_cast<size_t>(descs[i].size_bytes));
    if (te_rt_memcpy(ctx, a.bytes.data(), q.buffers[i].data, a.bytes.size(),
                     TE_RT_DEVICE_TO_HOST) != TE_RT_OK)
      return error(te_rt_last_error());
    if (!te::npy::write(outDir + "/" + descs[i].name + ".npy", a, &err))
      return error(err);
  }
  if (traits.perTensor) {
    te::npy::Array a;
    a.kind = te::npy::Kind::F32;
    a.shape = {1};
    a.bytes.resize(4);
    if (te_rt_memcpy(ctx, a.bytes.data(), devAmax, 4, TE_RT_DEVICE_TO_HOST) !=
        TE_RT_OK)
      return error(te_rt_last_error());
    if (!te::npy::write(outDir + "/amax.npy", a, &err))
      return error(err);
  }

  te_rt_tensor dq = x;
  dq.dtype = TE_RT_F32;
  if (!devAlloc(static_cast<size_t>(n) * 4, &dq.data))
    return error(te_rt_last_error());
  te_rt_usage from = (usage & TE_RT_ROWWISE) ? TE_RT_ROWWISE : TE_RT_COLUMNWISE;
  if (te_rt_dequantize(ctx, &q, from, &dq) != TE_RT_OK)
    return error(te_rt_last_error());
  te::npy::Array d;
  d.kind = te::npy::Kind::F32;
  d.shape = in.shape;
  d.bytes.resize(static_cast<size_t>(n) * 4);
  if (te_rt_memcpy(ctx, d.bytes.data(), dq.data, d.bytes.size(),
                   TE_RT_DEVICE_TO_HOST) != TE_RT_OK)
    return error(te_rt_last_error());
  if (!te::npy::write(outDir + "/dequantized.npy", d, &err))
    return error(err);
  return 0;
}

int main(int argc, char **argv) {
  try {
    // --opt=value is --opt value.
    std::vector<std::string> args = te::run::splitOptionValues(argc, argv);
    std::vector<char *> pointers = te::run::argvOf(args);
    return run(static_cast<int>(args.size()), pointers.data());
  } catch (const std::bad_alloc &) {
    return error("out of memory");
  } catch (const std::exception &e) {
    return error(std::string("internal error: ") + e.what());
  }
}

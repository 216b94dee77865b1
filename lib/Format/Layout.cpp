//===- Layout.cpp - Buffer layouts of quantized tensors ------------------===//
//
// Part of te. Dependency-free C++17.
//
//===----------------------------------------------------------------------===//
//
// The buffers of every recipe (te-formats.md §3 tables, TE's C++
// `*Quantizer::create_tensor`), the recipes' shape rules and the overflow-
// and dynamic-aware dimension arithmetic they need.
//
//===----------------------------------------------------------------------===//

#include "te/Format/Layout.h"

#include <cstdio>

namespace te::format {

//===----------------------------------------------------------------------===//
// Dimension arithmetic
//===----------------------------------------------------------------------===//

static constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

int64_t mulDim(int64_t a, int64_t b) {
  if (a == kDynamic || b == kDynamic)
    return kDynamic;
  if (a < 0 || b < 0)
    return -1;
  if (a != 0 && b > kInt64Max / a)
    return -1;
  return a * b;
}

int64_t ceilDivDim(int64_t a, int64_t b) {
  if (a == kDynamic || b == kDynamic)
    return kDynamic;
  if (a < 0 || b <= 0)
    return -1;
  return a / b + (a % b != 0);
}

int64_t roundUpDim(int64_t a, int64_t b) { return mulDim(ceilDivDim(a, b), b); }

void flatten2D(const Shape &shape, int64_t &m, int64_t &k) {
  if (shape.empty()) {
    m = 1;
    k = 1;
    return;
  }
  k = shape.back();
  m = 1;
  bool dynamic = false;
  for (size_t i = 0; i + 1 < shape.size(); ++i) {
    if (shape[i] == kDynamic) {
      dynamic = true;
      continue;
    }
    m = m < 0 ? m : mulDim(m, shape[i]);
  }
  if (m >= 0 && dynamic)
    m = kDynamic;
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  bool dynamic = false;
  for (int64_t d : shape) {
    if (d == kDynamic) {
      dynamic = true;
      continue;
    }
    n = n < 0 ? n : mulDim(n, d);
  }
  if (n < 0)
    return -1;
  return dynamic ? kDynamic : n;
}

int64_t dtypeBytes(DType t) {
  switch (t) {
  case DType::F32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::U8:
  case DType::E4M3:
  case DType::E5M2:
  case DType::E8M0:
  case DType::E2M1x2:
    return 1;
  }
  return 1;
}

const BufferDesc *findBuffer(const std::vector<BufferDesc> &buffers,
                             const std::string &name) {
  for (const BufferDesc &b : buffers)
    if (b.name == name)
      return &b;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Shape and target rules
//===----------------------------------------------------------------------===//

std::string verifyShape(const QuantizerConfig &config, const Shape &shape) {
  // A 0-d tensor is one element: per-tensor scaling quantizes it (TE's
  // Float8Quantizer / Float8CurrentScalingQuantizer); block recipes have no
  // block to lay out.
  if (shape.empty() && config.recipe != Recipe::Delayed &&
      config.recipe != Recipe::Current)
    return std::string(config.recipe == Recipe::Block   ? "block scaling"
                       : config.recipe == Recipe::MXFP8 ? "MXFP8"
                                                        : "NVFP4") +
           " needs rank >= 1 (a 0-d tensor has no blocks); per-tensor "
           "current and delayed scaling quantize 0-d tensors";
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0 && shape[i] != kDynamic)
      return "dimension " + std::to_string(i) + " must be non-negative, got " +
             std::to_string(shape[i]);
  int64_t m, k;
  flatten2D(shape, m, k);
  if (m == -1)
    return "the flattened leading dimension overflows int64";
  if (numElements(shape) == -1)
    return "the number of elements overflows int64";

  int64_t block = 0;
  const char *recipe = nullptr;
  if (config.recipe == Recipe::MXFP8) {
    block = kMXFP8BlockSize;
    recipe = "MXFP8";
  } else if (config.recipe == Recipe::NVFP4) {
    block = kNVFP4BlockSize;
    recipe = "NVFP4";
  }
  if (block) {
    // TE's PyTorch create_tensor checks (te-formats.md §3.3, §3.5).
    if (k != kDynamic && k % block != 0)
      return std::string(recipe) + " needs the last dimension divisible by " +
             std::to_string(block) + ", got " + std::to_string(k);
    if (m != kDynamic && m % block != 0)
      return std::string(recipe) +
             " needs the flattened leading dimension divisible by " +
             std::to_string(block) + ", got " + std::to_string(m);
  }
  return "";
}

std::string verifyTarget(const QuantizerConfig &config, Target target) {
  if (target == Target::SM90) {
    if (config.recipe == Recipe::MXFP8)
      return "MXFP8 needs sm_100 (TE: 10.0 <= compute capability < 12.0), "
             "not sm_90";
    if (config.recipe == Recipe::NVFP4)
      return "NVFP4 needs sm_100 (TE: compute capability >= 10.0), not sm_90";
  }
  if (target == Target::SM100 && config.recipe == Recipe::Block &&
      !config.pow2Scales)
    return "block scaling on sm_100 is emulated with MXFP8 GEMMs and needs "
           "pow2Scales";
  return "";
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

namespace {

/// Collects buffers and remembers an overflow in any of their dims.
struct LayoutBuilder {
  std::vector<BufferDesc> &out;
  std::string overflowBuffer;

  void add(const char *name, BufferRole role, bool columnwise, Shape shape,
           DType dtype) {
    for (int64_t d : shape)
      if (d == -1 && overflowBuffer.empty())
        overflowBuffer = name;
    if (overflowBuffer.empty() && numElements(shape) == -1)
      overflowBuffer = name;
    if (overflowBuffer.empty() && numElements(shape) != kDynamic &&
        mulDim(numElements(shape), dtypeBytes(dtype)) == -1)
      overflowBuffer = name;
    out.push_back(BufferDesc{name, role, columnwise, std::move(shape), dtype});
  }
};

/// (d_{n-1}, d0, ..., d_{n-2}): the last dim moved first; a 0-d shape
/// stays 0-d.
Shape transposedShape(const Shape &shape) {
  if (shape.empty())
    return shape;
  Shape t;
  t.push_back(shape.back());
  t.insert(t.end(), shape.begin(), shape.end() - 1);
  return t;
}

} // namespace

bool getBufferLayout(const QuantizerConfig &config, const Shape &shape,
                     Usage usage, Target target, std::vector<BufferDesc> &out,
                     std::string *error) {
  out.clear();
  auto fail = [&](const std::string &msg) {
    if (error)
      *error = msg;
    out.clear();
    return false;
  };
  std::string msg = verifyConfig(config);
  if (!msg.empty())
    return fail(msg);
  if ((usage & RowwiseAndColumnwise) == 0 || (usage & ~RowwiseAndColumnwise))
    return fail("a quantized tensor needs rowwise and/or columnwise usage");
  msg = verifyShape(config, shape);
  if (!msg.empty())
    return fail(msg);

  const bool rowwise = usage & Rowwise;
  const bool columnwise = usage & Columnwise;
  int64_t m, k;
  flatten2D(shape, m, k);
  LayoutBuilder b{out, {}};
  const BufferRole Data = BufferRole::Data, Scale = BufferRole::ScaleInv,
                   Amax = BufferRole::Amax;

  switch (config.recipe) {
  case Recipe::Delayed:
  case Recipe::Current: {
    // Hopper is TN-only: columnwise data is a physical transpose. On sm_100
    // `_data` is read with the mirrored transpose flag instead.
    if (rowwise || (columnwise && target == Target::SM100))
      b.add("_data", Data, !rowwise, shape, config.dtype);
    if (columnwise && target == Target::SM90)
      b.add("_transpose", Data, true, transposedShape(shape), config.dtype);
    b.add("_scale_inv", Scale, false, {1}, DType::F32);
    break;
  }
  case Recipe::Block: {
    const int64_t B = kFP8BlockSize;
    const int64_t A = kScaleTileCols;
    if (rowwise) {
      b.add("_rowwise_data", Data, false, shape, config.dtype);
      Shape s = config.blockDim == 1
                    ? Shape{ceilDivDim(k, B), roundUpDim(m, A)}
                    : Shape{ceilDivDim(m, B), roundUpDim(ceilDivDim(k, B), A)};
      b.add("_rowwise_scale_inv", Scale, false, s, DType::F32);
    }
    if (columnwise) {
      b.add("_columnwise_data", Data, true, transposedShape(shape),
            config.dtype);
      Shape s = config.blockDim == 1
                    ? Shape{ceilDivDim(m, B), roundUpDim(k, A)}
                    : Shape{ceilDivDim(k, B), roundUpDim(ceilDivDim(m, B), A)};
      b.add("_columnwise_scale_inv", Scale, true, s, DType::F32);
    }
    break;
  }
  case Recipe::MXFP8: {
    const int64_t B = kMXFP8BlockSize;
    const int64_t R = kScaleTileRows, A = kScaleTileCols;
    if (rowwise) {
      b.add("_rowwise_data", Data, false, shape, config.dtype);
      b.add("_rowwise_scale_inv", Scale, false,
            {roundUpDim(m, R), roundUpDim(ceilDivDim(k, B), A)}, DType::E8M0);
    }
    if (columnwise) {
      b.add("_columnwise_data", Data, true, shape, config.dtype);
      b.add("_columnwise_scale_inv", Scale, true,
            {roundUpDim(ceilDivDim(m, B), A), roundUpDim(k, R)}, DType::E8M0);
    }
    break;
  }
  case Recipe::NVFP4: {
    const int64_t B = kNVFP4BlockSize;
    const int64_t R = kScaleTileRows, A = kScaleTileCols;
    if (rowwise) {
      Shape d = shape;
      d.back() = ceilDivDim(k, 2); // K % 16 == 0 (or dynamic): exact
      b.add("_rowwise_data", Data, false, d, DType::E2M1x2);
      b.add("_rowwise_scale_inv", Scale, false,
            {roundUpDim(m, R), roundUpDim(ceilDivDim(k, B), A)}, DType::E4M3);
    }
    if (columnwise) {
      b.add("_columnwise_data", Data, true, {k, ceilDivDim(m, 2)},
            DType::E2M1x2);
      b.add("_columnwise_scale_inv", Scale, true,
            {roundUpDim(k, R), roundUpDim(ceilDivDim(m, B), A)}, DType::E4M3);
    }
    if (rowwise)
      b.add("_amax_rowwise", Amax, false, {config.rowScaled ? m : 1},
            DType::F32);
    if (columnwise)
      b.add("_amax_columnwise", Amax, true, {config.rowScaled ? k : 1},
            DType::F32);
    break;
  }
  }

  if (!b.overflowBuffer.empty())
    return fail("the size of buffer " + b.overflowBuffer + " overflows int64");
  return true;
}

} // namespace te::format

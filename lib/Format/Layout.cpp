//===- Layout.cpp - Buffer layouts of quantized tensors ------------------===//
//
// Part of te. Dependency-free C++17.
//
//===----------------------------------------------------------------------===//
//
// The buffers of every recipe (docs/formats.md §3 tables, TE's C++
// `*Quantizer::create_tensor`) as extents of the logical dimensions
// (getBufferExtents), evaluated for one shape by getBufferLayout; the
// recipes' shape rules and the overflow- and dynamic-aware dimension
// arithmetic they need.
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

std::string shapeString(const Shape &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + (shape[i] == kDynamic ? std::string("?")
                                                    : std::to_string(shape[i]));
  return text + "]";
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
  if (shape.empty() && !recipeTraits(config.recipe).perTensor)
    return std::string(recipeTraits(config.recipe).title) +
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
    // TE's PyTorch create_tensor checks (docs/formats.md §3.3, §3.5).
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
// Extents
//===----------------------------------------------------------------------===//

Extent Extent::constant(int64_t value) { return Extent(Kind::Const, value); }

Extent Extent::dim(int64_t index) { return Extent(Kind::Dim, index); }

Extent Extent::mul(const Extent &lhs, const Extent &rhs) {
  return Extent(Kind::Mul, 0, std::make_shared<const Extent>(lhs),
                std::make_shared<const Extent>(rhs));
}

Extent Extent::ceilDiv(const Extent &lhs, int64_t divisor) {
  return Extent(Kind::CeilDiv, divisor, std::make_shared<const Extent>(lhs));
}

Extent Extent::exactDiv(const Extent &lhs, int64_t divisor) {
  return Extent(Kind::ExactDiv, divisor, std::make_shared<const Extent>(lhs));
}

Extent Extent::roundUp(const Extent &lhs, int64_t multiple) {
  return Extent(Kind::RoundUp, multiple, std::make_shared<const Extent>(lhs));
}

bool Extent::operator==(const Extent &other) const {
  if (kind_ != other.kind_ || value_ != other.value_)
    return false;
  if (static_cast<bool>(lhs_) != static_cast<bool>(other.lhs_) ||
      static_cast<bool>(rhs_) != static_cast<bool>(other.rhs_))
    return false;
  return (!lhs_ || *lhs_ == *other.lhs_) && (!rhs_ || *rhs_ == *other.rhs_);
}

int64_t Extent::evaluate(const Shape &shape) const {
  switch (kind_) {
  case Kind::Const:
    return value_;
  case Kind::Dim:
    return value_ >= 0 && static_cast<size_t>(value_) < shape.size()
               ? shape[value_]
               : -1;
  case Kind::Mul:
    return mulDim(lhs_->evaluate(shape), rhs_->evaluate(shape));
  case Kind::CeilDiv:
  case Kind::ExactDiv: // exact where the shape rules hold (verifyShape)
    return ceilDivDim(lhs_->evaluate(shape), value_);
  case Kind::RoundUp:
    return roundUpDim(lhs_->evaluate(shape), value_);
  }
  return -1;
}

std::string Extent::str() const {
  switch (kind_) {
  case Kind::Const:
    return std::to_string(value_);
  case Kind::Dim:
    return "d" + std::to_string(value_);
  case Kind::Mul:
    return lhs_->str() + " * " + rhs_->str();
  case Kind::CeilDiv:
    return "ceildiv(" + lhs_->str() + ", " + std::to_string(value_) + ")";
  case Kind::ExactDiv:
    return "(" + lhs_->str() + ") / " + std::to_string(value_);
  case Kind::RoundUp:
    return "roundup(" + lhs_->str() + ", " + std::to_string(value_) + ")";
  }
  return "?";
}

Extent rowsExtent(int64_t rank) {
  if (rank <= 1)
    return Extent::constant(1);
  Extent m = Extent::dim(0);
  for (int64_t i = 1; i + 1 < rank; ++i)
    m = Extent::mul(m, Extent::dim(i));
  return m;
}

Extent colsExtent(int64_t rank) {
  return rank == 0 ? Extent::constant(1) : Extent::dim(rank - 1);
}

namespace {

/// (d0, ..., d_{n-1}).
std::vector<Extent> logicalExtents(int64_t rank) {
  std::vector<Extent> e;
  for (int64_t i = 0; i < rank; ++i)
    e.push_back(Extent::dim(i));
  return e;
}

/// (d_{n-1}, d0, ..., d_{n-2}): the last dim moved first; a 0-d shape
/// stays 0-d.
std::vector<Extent> transposedExtents(int64_t rank) {
  std::vector<Extent> e;
  if (rank == 0)
    return e;
  e.push_back(Extent::dim(rank - 1));
  for (int64_t i = 0; i + 1 < rank; ++i)
    e.push_back(Extent::dim(i));
  return e;
}

} // namespace

bool getBufferExtents(const QuantizerConfig &config, int64_t rank, Usage usage,
                      Target target, std::vector<BufferExtents> &out,
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
  if (rank < 0)
    return fail("a negative rank");
  if (rank == 0) {
    msg = verifyShape(config, Shape{});
    if (!msg.empty())
      return fail(msg);
  }

  const bool rowwise = usage & Rowwise;
  const bool columnwise = usage & Columnwise;
  const Extent m = rowsExtent(rank), k = colsExtent(rank);
  const BufferRole Data = BufferRole::Data, Scale = BufferRole::ScaleInv,
                   Amax = BufferRole::Amax;
  auto add = [&](const char *name, BufferRole role, bool cw,
                 std::vector<Extent> shape, DType dtype) {
    out.push_back(BufferExtents{name, role, cw, std::move(shape), dtype});
  };
  using E = Extent;

  switch (config.recipe) {
  case Recipe::Delayed:
  case Recipe::Current: {
    // Hopper is TN-only: columnwise data is a physical transpose. On sm_100
    // `_data` is read with the mirrored transpose flag instead.
    if (rowwise || (columnwise && target == Target::SM100))
      add("_data", Data, !rowwise, logicalExtents(rank), config.dtype);
    if (columnwise && target == Target::SM90)
      add("_transpose", Data, true, transposedExtents(rank), config.dtype);
    add("_scale_inv", Scale, false, {E::constant(1)}, DType::F32);
    break;
  }
  case Recipe::Block: {
    const int64_t B = kFP8BlockSize;
    const int64_t A = kScaleTileCols;
    if (rowwise) {
      add("_rowwise_data", Data, false, logicalExtents(rank), config.dtype);
      std::vector<Extent> s =
          config.blockDim == 1
              ? std::vector<Extent>{E::ceilDiv(k, B), E::roundUp(m, A)}
              : std::vector<Extent>{E::ceilDiv(m, B),
                                    E::roundUp(E::ceilDiv(k, B), A)};
      add("_rowwise_scale_inv", Scale, false, s, DType::F32);
    }
    if (columnwise) {
      add("_columnwise_data", Data, true, transposedExtents(rank),
          config.dtype);
      std::vector<Extent> s =
          config.blockDim == 1
              ? std::vector<Extent>{E::ceilDiv(m, B), E::roundUp(k, A)}
              : std::vector<Extent>{E::ceilDiv(k, B),
                                    E::roundUp(E::ceilDiv(m, B), A)};
      add("_columnwise_scale_inv", Scale, true, s, DType::F32);
    }
    break;
  }
  case Recipe::MXFP8: {
    const int64_t B = kMXFP8BlockSize;
    const int64_t R = kScaleTileRows, A = kScaleTileCols;
    if (rowwise) {
      add("_rowwise_data", Data, false, logicalExtents(rank), config.dtype);
      add("_rowwise_scale_inv", Scale, false,
          {E::roundUp(m, R), E::roundUp(E::ceilDiv(k, B), A)}, DType::E8M0);
    }
    if (columnwise) {
      add("_columnwise_data", Data, true, logicalExtents(rank), config.dtype);
      add("_columnwise_scale_inv", Scale, true,
          {E::roundUp(E::ceilDiv(m, B), A), E::roundUp(k, R)}, DType::E8M0);
    }
    break;
  }
  case Recipe::NVFP4: {
    const int64_t B = kNVFP4BlockSize;
    const int64_t R = kScaleTileRows, A = kScaleTileCols;
    if (rowwise) {
      // Two values a byte; K % 16 == 0 makes the halving exact.
      std::vector<Extent> d = logicalExtents(rank);
      d.back() = E::exactDiv(k, 2);
      add("_rowwise_data", Data, false, d, DType::E2M1x2);
      add("_rowwise_scale_inv", Scale, false,
          {E::roundUp(m, R), E::roundUp(E::ceilDiv(k, B), A)}, DType::E4M3);
    }
    if (columnwise) {
      add("_columnwise_data", Data, true, {k, E::exactDiv(m, 2)},
          DType::E2M1x2);
      add("_columnwise_scale_inv", Scale, true,
          {E::roundUp(k, R), E::roundUp(E::ceilDiv(m, B), A)}, DType::E4M3);
    }
    if (rowwise)
      add("_amax_rowwise", Amax, false, {config.rowScaled ? m : E::constant(1)},
          DType::F32);
    if (columnwise)
      add("_amax_columnwise", Amax, true,
          {config.rowScaled ? k : E::constant(1)}, DType::F32);
    break;
  }
  }
  return true;
}

Shape unpaddedShape(const BufferExtents &buffer, const Shape &shape) {
  Shape out;
  for (const Extent &e : buffer.shape)
    out.push_back(e.kind() == Extent::Kind::RoundUp ? e.lhs().evaluate(shape)
                                                    : e.evaluate(shape));
  return out;
}

bool findExtent(const std::vector<BufferExtents> &buffers, const Extent &extent,
                size_t *buffer, size_t *axis, int64_t *factor) {
  // An exact extent first, then an exact division of it.
  for (int pass = 0; pass < 2; ++pass)
    for (size_t b = 0; b < buffers.size(); ++b)
      for (size_t a = 0; a < buffers[b].shape.size(); ++a) {
        const Extent &e = buffers[b].shape[a];
        bool exact = pass == 0 && e == extent;
        bool divided = pass == 1 && e.kind() == Extent::Kind::ExactDiv &&
                       e.lhs() == extent;
        if (!exact && !divided)
          continue;
        *buffer = b;
        *axis = a;
        *factor = exact ? 1 : e.value();
        return true;
      }
  return false;
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

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
  std::vector<BufferExtents> extents;
  if (!getBufferExtents(config, static_cast<int64_t>(shape.size()), usage,
                        target, extents, error))
    return fail(error ? *error : "invalid layout request");
  std::string msg = verifyShape(config, shape);
  if (!msg.empty())
    return fail(msg);

  // The extents of this shape; an overflow in any of them is an error
  // naming the buffer.
  std::string overflowBuffer;
  for (const BufferExtents &e : extents) {
    Shape s;
    for (const Extent &x : e.shape)
      s.push_back(x.evaluate(shape));
    if (overflowBuffer.empty()) {
      for (int64_t d : s)
        if (d == -1)
          overflowBuffer = e.name;
      int64_t n = numElements(s);
      if (n == -1 || (n != kDynamic && mulDim(n, dtypeBytes(e.dtype)) == -1))
        overflowBuffer = e.name;
    }
    out.push_back(
        BufferDesc{e.name, e.role, e.columnwise, std::move(s), e.dtype});
  }
  if (!overflowBuffer.empty())
    return fail("the size of buffer " + overflowBuffer + " overflows int64");
  return true;
}

} // namespace te::format

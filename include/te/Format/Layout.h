//===- Layout.h - Buffer layouts of quantized tensors ------------*- C++
//-*-===//
//
// Part of te. Dependency-free C++17.
//
//===----------------------------------------------------------------------===//
//
// The one source of truth for which buffers a quantized tensor has: names in
// TransformerEngine's flatten (`_INNER_TENSORS`) order, shapes (including
// padding), element types -- as a function of the quantizer, the logical
// shape, the usage and the target (docs/formats.md §3, §4; §9: follow the C++
// layouts). Also each recipe's shape rules.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_LAYOUT_H
#define TE_FORMAT_LAYOUT_H

#include "te/Format/Quantizer.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace te::format {

/// A dimension not known at compile time (equal to MLIR's
/// ShapedType::kDynamic). Layout arithmetic on it yields kDynamic.
inline constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

using Shape = std::vector<int64_t>;

/// What a buffer holds.
enum class BufferRole : uint8_t { Data, ScaleInv, Amax };

struct BufferDesc {
  std::string name; ///< TE attribute name, e.g. "_rowwise_scale_inv"
  BufferRole role;
  bool columnwise; ///< belongs to the columnwise representation
  Shape shape;     ///< padded, as allocated by TE's C++ create_tensor
  DType dtype;     ///< U8 data is described by its real type (E4M3, ...)
};

/// One extent of a buffer as an expression of the logical dimensions
/// d0..d_{n-1}: what a layout rule computes, so that a compiler can evaluate
/// it at compile time (evaluate()) or emit it as index arithmetic when a
/// dimension is only known at run time. Divisors and multiples are
/// constants.
class Extent {
public:
  enum class Kind : uint8_t {
    Const,    ///< value()
    Dim,      ///< logical dimension dimIndex()
    Mul,      ///< lhs() * rhs()
    CeilDiv,  ///< ceil(lhs() / value())
    ExactDiv, ///< lhs() / value(), exact by the recipe's shape rules
    RoundUp,  ///< ceil(lhs() / value()) * value()
  };

  static Extent constant(int64_t value);
  static Extent dim(int64_t index);
  static Extent mul(const Extent &lhs, const Extent &rhs);
  static Extent ceilDiv(const Extent &lhs, int64_t divisor);
  static Extent exactDiv(const Extent &lhs, int64_t divisor);
  static Extent roundUp(const Extent &lhs, int64_t multiple);

  Kind kind() const { return kind_; }
  /// Const: the constant; Dim: the dimension's index; CeilDiv, ExactDiv,
  /// RoundUp: the constant divisor or multiple.
  int64_t value() const { return value_; }
  int64_t dimIndex() const { return value_; }
  const Extent &lhs() const { return *lhs_; }
  const Extent &rhs() const { return *rhs_; }

  /// Structural equality.
  bool operator==(const Extent &other) const;
  bool operator!=(const Extent &other) const { return !(*this == other); }

  /// The extent of a tensor of logical shape `shape`: kDynamic if it depends
  /// on a dynamic dimension, -1 on int64 overflow (the dimension arithmetic
  /// below).
  int64_t evaluate(const Shape &shape) const;

  /// e.g. "roundup(ceildiv(d1, 32), 4)".
  std::string str() const;

private:
  Extent(Kind kind, int64_t value, std::shared_ptr<const Extent> lhs = nullptr,
         std::shared_ptr<const Extent> rhs = nullptr)
      : kind_(kind), value_(value), lhs_(std::move(lhs)), rhs_(std::move(rhs)) {
  }
  Kind kind_;
  int64_t value_;
  std::shared_ptr<const Extent> lhs_, rhs_;
};

/// The flattened leading dimension M = d0 * ... * d_{n-2} of a rank-`rank`
/// tensor (d0 for rank 2; the constant 1 for rank 0 and 1).
Extent rowsExtent(int64_t rank);
/// The last dimension K = d_{n-1} (the constant 1 for rank 0).
Extent colsExtent(int64_t rank);

/// A buffer whose shape is given as extents of the logical dimensions.
struct BufferExtents {
  std::string name;
  BufferRole role;
  bool columnwise;
  std::vector<Extent> shape;
  DType dtype;
};

/// The ordered buffers of every tensor of rank `rank` quantized with `config`
/// holding `usage` on `target`, their shapes as expressions of the logical
/// dimensions: the layout rules themselves. getBufferLayout evaluates them
/// for one shape. Returns false and sets `*error` for an invalid config or
/// usage, or a rank the recipe forbids. The recipe's divisibility rules
/// (verifyShape) are not checked: they need the dimensions.
bool getBufferExtents(const QuantizerConfig &config, int64_t rank, Usage usage,
                      Target target, std::vector<BufferExtents> &out,
                      std::string *error = nullptr);

/// The shape of `buffer` for a tensor of logical shape `shape` without the
/// padding of its scale matrix to whole [128 x 4] tiles: each extent with its
/// outer roundup removed (roundup(ceildiv(d1, 32), 4) -> ceildiv(d1, 32)).
/// The scales of the tensor's blocks fill this part; the rest is padding.
/// Data and amax buffers have no padding: their shape is returned.
Shape unpaddedShape(const BufferExtents &buffer, const Shape &shape);

/// Where a quantized tensor's buffers hold `extent` (e.g. a logical
/// dimension, or rowsExtent): the first buffer axis whose extent is
/// `extent` (`*factor` = 1) or exactDiv(extent, c) (`*factor` = c), so that
/// extent = the buffer's size along `*axis` times `*factor`. False if no
/// buffer holds it exactly (e.g. a leading dimension of an NVFP4 tensor with
/// columnwise usage alone, whose data is 2-D).
bool findExtent(const std::vector<BufferExtents> &buffers, const Extent &extent,
                size_t *buffer, size_t *axis, int64_t *factor);

/// The ordered buffers of a tensor of logical shape `shape` (N-D; leading dims
/// are flattened to M, the last is K) quantized with `config` holding `usage`
/// on `target`. Returns false and sets `*error` for an invalid request
/// (an invalid config (verifyConfig), a shape the recipe forbids
/// (verifyShape), an empty usage, an int64 overflow, ...).
///
/// Buffers (docs/formats.md §3; C++ create_tensor layouts; M = d0*..*d_{n-2},
/// K = d_{n-1}; only the requested usage's buffers appear):
/// * Delayed / Current: `_data` (logical shape, config.dtype) if rowwise, or
///   columnwise on sm_100 (where it also serves columnwise reads; it is
///   marked columnwise only when the usage is columnwise alone);
///   `_transpose` (d_{n-1}, d0..d_{n-2}) if columnwise on sm_90;
///   `_scale_inv` (1,) F32 always. A 0-d tensor (rank 0 is valid for these
///   two recipes only) has 0-d `_data` and `_transpose`, the one element.
/// * Block: `_rowwise_data` (logical), `_rowwise_scale_inv` F32 1D
///   (ceil(K/128), rup(M,4)) / 2D (ceil(M/128), rup(ceil(K/128),4));
///   `_columnwise_data` (d_{n-1}, d0..d_{n-2}), `_columnwise_scale_inv`
///   1D (ceil(M/128), rup(K,4)) / 2D (ceil(K/128), rup(ceil(M/128),4)).
/// * MXFP8: `_rowwise_data` (logical), `_rowwise_scale_inv` E8M0
///   (rup(M,128), rup(ceil(K/32),4)); `_columnwise_data` (logical, not
///   transposed), `_columnwise_scale_inv` (rup(ceil(M/32),4), rup(K,128)).
/// * NVFP4: `_rowwise_data` (d0..d_{n-2}, K/2) E2M1x2, `_rowwise_scale_inv`
///   E4M3 (rup(M,128), rup(ceil(K/16),4)); `_columnwise_data` (K, M/2)
///   E2M1x2 (always 2-D, §9.1), `_columnwise_scale_inv`
///   (rup(K,128), rup(ceil(M/16),4)); then `_amax_rowwise` (1,) or (M,) if
///   rowScaled, `_amax_columnwise` (1,) or (K,) if rowScaled (§9.2), F32.
bool getBufferLayout(const QuantizerConfig &config, const Shape &shape,
                     Usage usage, Target target, std::vector<BufferDesc> &out,
                     std::string *error = nullptr);

/// Checks the recipe's shape rules (rank 0 for per-tensor scaling only;
/// MXFP8: dims % 32 where TE's PyTorch layer requires it; NVFP4: M % 16 and
/// K % 16; ...). Dynamic dims pass. Returns an
/// empty string or a message naming the dimension and the rule, e.g.
/// "NVFP4 needs the last dimension divisible by 16, got 100".
std::string verifyShape(const QuantizerConfig &config, const Shape &shape);

/// Target rules that do not change a layout but that TE enforces: MXFP8 and
/// NVFP4 need sm_100 (docs/formats.md §1.3); block scaling on sm_100 is
/// emulated with MXFP8 GEMMs and needs power-of-two scales (§3.4). Returns an
/// empty string or a one-line message. getBufferLayout does not call it, so
/// that a CPU emulation can still ask for any layout.
std::string verifyTarget(const QuantizerConfig &config, Target target);

/// Flattened 2-D view [M, K] of an N-D shape (M = product of leading dims).
/// Rank-1 shapes are [1, K]; rank 0 gives [1, 1]. M is kDynamic if any
/// leading dim is; M is -1 if the product overflows int64 (or a dim is
/// negative).
void flatten2D(const Shape &shape, int64_t &m, int64_t &k);

/// Number of elements of a shape, or kDynamic if any dim is dynamic. Returns
/// -1 on int64 overflow or a negative static dim.
int64_t numElements(const Shape &shape);

/// Bytes of one element (E2M1x2: one byte holds two values).
int64_t dtypeBytes(DType t);

/// A shape as messages write it: "[32, ?, 64]" ("?" for kDynamic), "[]" for
/// rank 0.
std::string shapeString(const Shape &shape);

/// The buffer named `name` in `buffers`, or null.
const BufferDesc *findBuffer(const std::vector<BufferDesc> &buffers,
                             const std::string &name);

/// Dimension arithmetic of layouts, exposed so that other layers never
/// re-derive a formula: kDynamic in gives kDynamic out; -1 signals int64
/// overflow (or a negative argument).
int64_t ceilDivDim(int64_t a, int64_t b); ///< ceil(a / b), b > 0
int64_t roundUpDim(int64_t a, int64_t b); ///< ceil(a / b) * b, b > 0
int64_t mulDim(int64_t a, int64_t b);     ///< a * b

} // namespace te::format

#endif // TE_FORMAT_LAYOUT_H

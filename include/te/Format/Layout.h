//===- Layout.h - Buffer layouts of quantized tensors ------------*- C++ -*-===//
//
// Part of te. Dependency-free C++17.
//
//===----------------------------------------------------------------------===//
//
// The one source of truth for which buffers a quantized tensor has: names in
// TransformerEngine's flatten (`_INNER_TENSORS`) order, shapes (including
// padding), element types -- as a function of the quantizer, the logical
// shape, the usage and the target (te-formats.md §3, §4; §9: follow the C++
// layouts). Also each recipe's shape rules.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_LAYOUT_H
#define TE_FORMAT_LAYOUT_H

#include "te/Format/Quantizer.h"

#include <cstdint>
#include <limits>
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
  std::string name;  ///< TE attribute name, e.g. "_rowwise_scale_inv"
  BufferRole role;
  bool columnwise;   ///< belongs to the columnwise representation
  Shape shape;       ///< padded, as allocated by TE's C++ create_tensor
  DType dtype;       ///< U8 data is described by its real type (E4M3, ...)
};

/// The ordered buffers of a tensor of logical shape `shape` (N-D; leading dims
/// are flattened to M, the last is K) quantized with `config` holding `usage`
/// on `target`. Returns false and sets `*error` for an invalid request
/// (a shape the recipe forbids, an empty usage, a rank-0 shape, ...).
bool getBufferLayout(const QuantizerConfig &config, const Shape &shape,
                     Usage usage, Target target, std::vector<BufferDesc> &out,
                     std::string *error = nullptr);

/// Checks the recipe's shape rules (MXFP8: dims % 32 where TE's PyTorch layer
/// requires it; NVFP4: M % 16 and K % 16; ...). Dynamic dims pass. Returns an
/// empty string or a message naming the dimension and the rule, e.g.
/// "NVFP4 needs the last dimension divisible by 16, got 100".
std::string verifyShape(const QuantizerConfig &config, const Shape &shape);

/// Flattened 2-D view [M, K] of an N-D shape (M = product of leading dims).
/// Rank-1 shapes are [1, K].
void flatten2D(const Shape &shape, int64_t &m, int64_t &k);

/// Number of elements of a shape, or kDynamic. Returns -1 on int64 overflow.
int64_t numElements(const Shape &shape);

/// Bytes of one element (E2M1x2: one byte holds two values).
int64_t dtypeBytes(DType t);

} // namespace te::format

#endif // TE_FORMAT_LAYOUT_H

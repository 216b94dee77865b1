//===- Quantizer.h - Quantizer configuration of every recipe ----*- C++ -*-===//
//
// Part of te. Dependency-free C++17: no MLIR, no LLVM, no CUDA runtime.
//
//===----------------------------------------------------------------------===//
//
// The static configuration of a TransformerEngine quantizer, one struct for
// every recipe (te-formats.md §3). This is the value that the dialect's
// quantizer attributes carry and that the runtime's C ABI mirrors. Live state
// (scales, amax history) is never part of it.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_QUANTIZER_H
#define TE_FORMAT_QUANTIZER_H

#include <cstdint>
#include <string>

namespace te::format {

/// The recipes (TransformerEngine quantizer classes).
enum class Recipe : uint8_t {
  Delayed, ///< Float8Quantizer: per-tensor FP8, delayed scaling.
  Current, ///< Float8CurrentScalingQuantizer: per-tensor FP8, current scaling.
  Block,   ///< Float8BlockQuantizer: 1x128 or 128x128 blocks, fp32 scales.
  MXFP8,   ///< MXFP8Quantizer: 1x32 / 32x1 (or 32x32) blocks, E8M0 scales.
  NVFP4,   ///< NVFP4Quantizer: 1x16 (or 16x16) blocks, E4M3 + fp32 scales.
};

/// Element types of logical tensors and of buffers.
enum class DType : uint8_t {
  U8,     ///< raw bytes
  F32,
  F16,
  BF16,
  E4M3,   ///< float8_e4m3fn (MLIR f8E4M3FN)
  E5M2,   ///< float8_e5m2 (MLIR f8E5M2)
  E8M0,   ///< float8_e8m0fnu (MLIR f8E8M0FNU), MXFP8 scales
  E2M1x2, ///< two float4_e2m1fn per byte, element 2i in the low nibble
};

/// The GPU generation a layout is for: sm_90 is TN-only (per-tensor FP8
/// columnwise data is a physical transpose); sm_100 is not.
enum class Target : uint8_t { SM90, SM100 };

/// Which representations a quantized tensor holds (a bit set).
enum Usage : uint8_t {
  UsageNone = 0,
  Rowwise = 1,
  Columnwise = 2,
  RowwiseAndColumnwise = 3,
};

enum class AmaxAlgo : uint8_t { Max, MostRecent };

/// How an MXFP8 E8M0 scale is derived from amax / fp8_max: TE's kernels round
/// the exponent up (so no element overflows); the OCP MX spec floors it.
enum class E8M0Rounding : uint8_t { Up, Floor };

/// NVFP4 4over6 candidate selection error.
enum class ErrMode : uint8_t { MAE, MSE };

/// The static configuration of one quantizer. Fields that a recipe does not
/// use keep their defaults; verifyConfig() rejects contradictions.
struct QuantizerConfig {
  Recipe recipe = Recipe::Current;
  /// Element type of the quantized data: E4M3 / E5M2 (FP8 recipes), E2M1x2
  /// (NVFP4).
  DType dtype = DType::E4M3;

  // Current scaling and block scaling.
  bool pow2Scales = false; ///< round scales down to a power of two
  float amaxEpsilon = 0.0f;

  // Block scaling: 1 = 1x128 tiles, 2 = 128x128 tiles.
  int blockDim = 1;

  // MXFP8.
  bool mx2D = false; ///< 32x32 blocks (weights)
  E8M0Rounding e8m0Rounding = E8M0Rounding::Up;

  // NVFP4.
  bool rht = false;          ///< random Hadamard transform on columnwise
  uint32_t rhtSignMask = 0;  ///< bit i set: s_i = -1 (TE's 0xD7E8 by default)
  bool nvfp4_2D = false;     ///< 16x16 blocks (weights)
  bool stochasticRounding = false;
  bool rowScaled = false;    ///< one global amax per row
  bool use4over6 = false;
  float e4m3Max = 448.0f;    ///< 448, or 256 with 4over6
  ErrMode errMode = ErrMode::MAE;

  // Delayed scaling.
  int margin = 0;
  int historyLength = 1024;
  AmaxAlgo amaxAlgo = AmaxAlgo::Max;

  bool operator==(const QuantizerConfig &o) const;
  bool operator!=(const QuantizerConfig &o) const { return !(*this == o); }
};

/// Returns an empty string if `config` is a combination TransformerEngine
/// accepts, otherwise a one-line message naming the offending fields
/// ("NVFP4 row-scaled is incompatible with RHT").
std::string verifyConfig(const QuantizerConfig &config);

const char *recipeName(Recipe r);   ///< "delayed", "current", "block", ...
const char *dtypeName(DType t);     ///< "f32", "bf16", "f8E4M3FN", ...

} // namespace te::format

#endif // TE_FORMAT_QUANTIZER_H

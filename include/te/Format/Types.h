//===- Types.h - Enumerations shared by every Format header -----*- C++ -*-===//
//
// Part of te. Dependency-free C++17; also compiles as CUDA (nvcc -x cu).
//
//===----------------------------------------------------------------------===//
//
// The small enums of the Format library (recipes, element types, targets,
// usages, algorithm choices). They live apart from Quantizer.h so that the
// __host__ __device__ headers (Codecs.h, ScaleRules.h, Blocks.h, ...) can use
// them without pulling in <string>.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_TYPES_H
#define TE_FORMAT_TYPES_H

#include <cstdint>

namespace te::format {

/// The recipes (TransformerEngine quantizer classes).
enum class Recipe : uint8_t {
#define TE_FORMAT_RECIPE(Enum, ...) Enum,
#include "te/Format/Recipes.def"
};

/// The number of recipes (Recipe's values are 0 .. kNumRecipes - 1).
inline constexpr int kNumRecipes = 0
#define TE_FORMAT_RECIPE(...) +1
#include "te/Format/Recipes.def"
    ;

/// Element types of logical tensors and of buffers.
enum class DType : uint8_t {
  U8, ///< raw bytes
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

/// TransformerEngine's general_gemm layouts (docs/formats.md §5): the first
/// letter is transa, the second transb. The rules of each layout are in
/// Gemm.h.
enum class GemmLayout : uint8_t { TN, NN, NT };

/// Which representations a quantized tensor holds (a bit set).
enum Usage : uint8_t {
  UsageNone = 0,
  Rowwise = 1,
  Columnwise = 2,
  RowwiseAndColumnwise = 3,
};

enum class AmaxAlgo : uint8_t { Max, MostRecent };

/// How an MXFP8 E8M0 scale is derived from a block amax. `Up` is TE's kernel
/// rule, e8m0RoundUp(amax * fl(1/fp8Max)), so no element overflows. `Floor`
/// is the OCP MX v1.0 rule, 2^(floor(log2(amax)) - emax_elem) with emax_elem
/// = 8 (E4M3) / 15 (E5M2); elements above fp8Max then saturate.
enum class E8M0Rounding : uint8_t { Up, Floor };

/// NVFP4 4over6 candidate selection error.
enum class ErrMode : uint8_t { MAE, MSE };

/// Block sizes of the block-scaled recipes (docs/formats.md §3.3-3.5).
inline constexpr int kMXFP8BlockSize = 32; ///< 1x32 / 32x1 / 32x32
inline constexpr int kNVFP4BlockSize = 16; ///< 1x16 / 16x16
inline constexpr int kFP8BlockSize = 128;  ///< Float8Block: 1x128 / 128x128
inline constexpr int kRHTSize = 16;        ///< random Hadamard transform
/// cuBLAS block-scale tiles: scale matrices are padded to [128 x 4] tiles
/// (docs/formats.md §3.3, §4), the swizzle works on 512-byte tiles.
inline constexpr int kScaleTileRows = 128;
inline constexpr int kScaleTileCols = 4;
/// TE's default NVFP4 RHT sign mask: s = [1,1,1,-1,1,-1,-1,-1,-1,-1,-1,1,-1,
/// 1,-1,-1], bit i set iff s_i = -1 (docs/formats.md §3.5).
inline constexpr uint32_t kDefaultRHTSignMask = 0xD7E8;

} // namespace te::format

#endif // TE_FORMAT_TYPES_H

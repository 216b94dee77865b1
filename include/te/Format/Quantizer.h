//===- Quantizer.h - Quantizer configuration of every recipe ----*- C++ -*-===//
//
// Part of te. Dependency-free C++17: no MLIR, no LLVM, no CUDA runtime.
//
//===----------------------------------------------------------------------===//
//
// The static configuration of a TransformerEngine quantizer, one struct for
// every recipe (docs/formats.md §3). This is the value that the dialect's
// quantizer attributes carry and that the runtime's C ABI mirrors. Live state
// (scales, amax history) is never part of it.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_QUANTIZER_H
#define TE_FORMAT_QUANTIZER_H

#include "te/Format/RecipeTraits.h"
#include "te/Format/Types.h"

#include <cstdint>
#include <string>

namespace te::format {

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
  bool rht = false;         ///< random Hadamard transform on columnwise
  uint32_t rhtSignMask = 0; ///< bit i set: s_i = -1 (TE's 0xD7E8 by default)
  bool nvfp4_2D = false;    ///< 16x16 blocks (weights)
  bool stochasticRounding = false;
  bool rowScaled = false; ///< one global amax per row
  bool use4over6 = false;
  float e4m3Max = 448.0f; ///< 448, or 256 with 4over6
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
/// ("NVFP4 row-scaled is incompatible with RHT"). The first violated rule is
/// reported, in this order:
/// * the recipe is known; dtype: E4M3 or E5M2 for delayed / current / block /
///   MXFP8, E2M1x2 for NVFP4;
/// * fields of other recipes keep their defaults ("mx2D is an MXFP8 option,
///   not valid for current scaling"): pow2Scales and amaxEpsilon belong to
///   current and block scaling; blockDim to block; mx2D and e8m0Rounding to
///   MXFP8; rht, rhtSignMask, nvfp4_2D, stochasticRounding, rowScaled,
///   use4over6, e4m3Max, errMode to NVFP4; margin, historyLength, amaxAlgo to
///   delayed scaling;
/// * amaxEpsilon finite and >= 0; blockDim 1 or 2; historyLength >= 1;
///   margin >= 0;
/// * NVFP4: row-scaled is incompatible with RHT, 2D and stochastic rounding;
///   4over6 is incompatible with RHT and stochastic rounding; e4m3Max is 448
///   or 256, and 256 only with 4over6; errMode MSE only with 4over6;
///   rhtSignMask only with rht and below 2^16.
/// (TE's "2D x 2D block GEMM" and "pre-RHT amax" rules concern pairs of
/// quantizers or unexposed fields and are not checked here.)
std::string verifyConfig(const QuantizerConfig &config);

/// Whether a high-precision tensor of element type `input` can be quantized
/// with `config` into a tensor holding `usage`. Every recipe takes f32, f16
/// and bf16, except that NVFP4 with RHT takes bf16 only when `usage` includes
/// the columnwise copy: TE quantizes that copy through a bf16 Hadamard
/// transform (docs/formats.md §3.5). Other element types are not inputs.
bool quantizerAcceptsInput(const QuantizerConfig &config, Usage usage,
                           DType input);

/// Whether a quantize with `config` may take its amax reduced across a
/// process group (te.allreduce_max, te_rt_comm_quantize): the recipe's
/// groupAmax (current scaling, NVFP4), except NVFP4 with per-row global
/// scales, whose amaxes are per row (docs/formats.md §3.5).
inline bool amaxReducibleAcrossGroup(const QuantizerConfig &config) {
  return recipeTraits(config.recipe).groupAmax && !config.rowScaled;
}

/// How many precomputed fp32 amaxes a quantize with `config` takes
/// (te_rt_quantize_args::amax_in): the recipe's amaxInputs, none for NVFP4
/// with per-row global scales.
inline int amaxInputs(const QuantizerConfig &config) {
  return config.rowScaled ? 0 : recipeTraits(config.recipe).amaxInputs;
}

const char *recipeName(Recipe r); ///< "delayed", "current", "block", ...
const char *dtypeName(DType t);   ///< "f32", "bf16", "f8E4M3FN", ...
const char *targetName(Target t); ///< "sm_90", "sm_100"
const char *usageName(Usage u);   ///< "none", "rowwise", "columnwise", "both"
/// The element type `t` stores, as MLIR and the quantizer syntax spell it:
/// dtypeName, except "f4E2M1FN" for E2M1x2 (whose bytes hold two).
const char *elementTypeName(DType t);

/// The default configuration of `recipe` (TE's defaults, docs/formats.md §2-3):
/// E4M3 everywhere except NVFP4 (E2M1x2); block: 1x128 and pow2 scales (TE's
/// Float8BlockQuantizer default force_pow_2_scales=True); NVFP4: no RHT, 1D,
/// no SR, e4m3Max 448. Every other field keeps its struct default.
QuantizerConfig defaultConfig(Recipe recipe);

} // namespace te::format

#endif // TE_FORMAT_QUANTIZER_H

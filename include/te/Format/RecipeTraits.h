//===- RecipeTraits.h - What each recipe is, in one table -------*- C++ -*-===//
//
// Part of te. Dependency-free C++17, usable from CUDA device code.
//
//===----------------------------------------------------------------------===//
//
// The facts about a recipe that the dialect, the passes, the runtime, comm
// and Python decide by, one row per recipe stamped from Recipes.def. A layer
// asks `recipeTraits(r).perTensor`, never `r == Delayed || r == Current`, so
// adding a recipe is one line of Recipes.def plus its kernels and codecs
// (docs/guide/extending.md). Facts that also depend on a quantizer's fields
// (row-scaled NVFP4, 128x128 blocks) are functions of the whole
// QuantizerConfig in Quantizer.h and Gemm.h, built on this table.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_RECIPETRAITS_H
#define TE_FORMAT_RECIPETRAITS_H

#include "te/Format/HostDevice.h"
#include "te/Format/Types.h"

namespace te::format {

/// One recipe's facts; the fields are described in Recipes.def.
struct RecipeTraits {
  Recipe recipe;
  const char *name;    ///< "delayed", "current", "block", "mxfp8", "nvfp4"
  const char *title;   ///< "delayed scaling", ..., "MXFP8", "NVFP4"
  const char *family;  ///< "per-tensor FP8", "FP8 block scaling", ...
  bool perTensor;      ///< one fp32 scale for the whole tensor
  bool liveScale;      ///< the quantize reads the caller's live scale
  int amaxInputs;      ///< precomputed amaxes a quantize takes (0, 1, 2)
  bool groupAmax;      ///< amax reducible across a process group
  int blockSize;       ///< elements per scaling block along a row (0: none)
  DType scaleType;     ///< element type of the stored scale_inv
  bool emulatedOnSM90; ///< GEMM emulated on sm_90, native on sm_100
  bool swizzledScales; ///< scales may be stored GEMM-ready (swizzled)

  /// Whether the recipe quantizes with per-block scales (not per-tensor).
  TE_HD constexpr bool blockScaled() const { return blockSize != 0; }
};

/// Whether `r` is one of the recipes (a value read from a descriptor or a C
/// struct may not be).
TE_HD constexpr bool isKnownRecipe(Recipe r) {
  // Recipe's underlying type is unsigned: no value is below 0.
  return static_cast<unsigned>(r) < static_cast<unsigned>(kNumRecipes);
}

/// The facts of recipe `r`. An unknown value gives a row with every fact
/// false and the name "unknown" (check isKnownRecipe first where the value
/// comes from outside).
TE_HD constexpr RecipeTraits recipeTraits(Recipe r) {
  switch (r) {
#define TE_FORMAT_RECIPE(Enum, Name, Title, Family, PerTensor, LiveScale,      \
                         AmaxInputs, GroupAmax, BlockSize, ScaleType,          \
                         EmulatedOnSM90, SwizzledScales)                       \
  case Recipe::Enum:                                                           \
    return RecipeTraits{Recipe::Enum,                                          \
                        Name,                                                  \
                        Title,                                                 \
                        Family,                                                \
                        PerTensor != 0,                                        \
                        LiveScale != 0,                                        \
                        AmaxInputs,                                            \
                        GroupAmax != 0,                                        \
                        BlockSize,                                             \
                        DType::ScaleType,                                      \
                        EmulatedOnSM90 != 0,                                   \
                        SwizzledScales != 0};
#include "te/Format/Recipes.def"
  }
  return RecipeTraits{
      r,     "unknown", "an unknown recipe", "unknown", false, false, 0,
      false, 0,         DType::U8,           false,     false};
}

} // namespace te::format

#endif // TE_FORMAT_RECIPETRAITS_H

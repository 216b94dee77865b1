//===- HeadersCudaCheck.cu - Format headers compile as CUDA ---------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Compile-only: every __host__ __device__ function of the Format headers is
// instantiated in a kernel, so nvcc type-checks the device side too.
//
//===----------------------------------------------------------------------===//

#include "te/Format/Blocks.h"
#include "te/Format/Codecs.h"
#include "te/Format/Hadamard.h"
#include "te/Format/HostDevice.h"
#include "te/Format/Philox.h"
#include "te/Format/RecipeTraits.h"
#include "te/Format/ScaleRules.h"
#include "te/Format/Swizzle.h"
#include "te/Format/Types.h"

using namespace te::format;

__global__ void teFormatHeaderCheckKernel(const float *x, uint8_t *o,
                                          float *f) {
  int i = threadIdx.x;
  o[i] = encodeE4M3(x[i]) ^ encodeE5M2(x[i]) ^ encodeE2M1(x[i]) ^
         e8m0RoundUp(x[i]) ^ e8m0Floor(x[i]) ^ encodeFP8(x[i], DType::E5M2);
  f[i] = decodeE4M3(o[i]) + decodeE5M2(o[i]) + decodeE2M1(o[i]) +
         decodeE8M0(o[i]) + e8m0Reciprocal(o[i]) + decodeFP8(o[i], DType::E4M3);
  f[i] += bf16ToFloat(floatToBF16(x[i])) + f16ToFloat(floatToF16(x[i])) +
          bf16ToFloat(doubleToBF16(x[i]));
  f[i] += computeScaleFromAmax(x[i], fp8Max(DType::E4M3), true, 0.f,
                               valueForInfBlock(DType::BF16));
  f[i] += nvfp4ElementFactor(
      nvfp4BlockScaleCode(x[i], nvfp4GlobalEncodeScale(x[0], 448.f)),
      nvfp4GlobalDecodeScale(2.f));
  f[i] += nvfp4DequantFactor(o[i], x[1], 448.f) + mxfp8ElementFactor(o[i]);
  uint16_t b[16];
  rht16(x, kDefaultRHTSignMask, b);
  f[i] += b[i] + rhtMatrixEntry(0xD7E8u, i & 15, 3);
  o[i] ^= stochasticRoundE2M1(x[i], philoxRandomByte(1, 2, i));
  uint8_t nib[256];
  o[i] ^= quantizeNVFP4Tile(x, 16, true, 3.f, true, 256.f, ErrMode::MSE, nib);
  uint8_t sc;
  quantizeNVFP4Block(x, 16, 1, 1.f, 3.f, true, 256.f, ErrMode::MAE, nib, &sc);
  o[i] ^= sc ^ nib[3];
  o[i] ^= quantizeMXFP8Block(x, 32, 1, DType::E4M3, E8M0Rounding::Floor, nib);
  f[i] += quantizeFP8BlockWithAmax(x, 128, 1, 3.f, DType::E5M2, true, 0.f,
                                   DType::F32, nib);
  float hist[4] = {1, 2, 3, 4};
  float s = 1, si;
  f[i] += delayedScalingUpdate(hist, 4, &s, &si, AmaxAlgo::Max, 0, 448.f);
  f[i] += static_cast<float>(swizzledScaleOffset(i, i, 128, 4));
  const RecipeTraits t = recipeTraits(static_cast<Recipe>(i % kNumRecipes));
  f[i] += (t.perTensor ? 1.f : 0.f) + t.blockSize + t.amaxInputs +
          (isKnownRecipe(t.recipe) && t.blockScaled() ? 1.f : 0.f);
}

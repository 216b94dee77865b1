//===- Gemm.h - The GEMM rules of TransformerEngine -------------*- C++ -*-===//
//
// Part of te. Dependency-free C++17.
//
//===----------------------------------------------------------------------===//
//
// What a quantized GEMM reads and accepts (docs/formats.md §5, TE's
// general_gemm and CanonicalizeGemmInput; cublaslt-fp8-hopper.md for the
// element types): which representation each operand of a layout is read
// from, the M, N, K and result shape of each layout, which pairs of
// quantizers may meet in one GEMM. The dialect's verifiers and the runtime's
// te_rt_gemm both ask these functions, so that they accept the same GEMMs.
// Messages are one line, without a subject, so that each layer can put its
// own in front ("'te.gemm' op ", "gemm ").
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_GEMM_H
#define TE_FORMAT_GEMM_H

#include "te/Format/Layout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace te::format {

/// "TN", "NN", "NT".
const char *gemmLayoutName(GemmLayout layout);

/// TE's transa and transb of a layout: its first and second letter is T.
bool gemmTransA(GemmLayout layout);
bool gemmTransB(GemmLayout layout);

/// Where M, N and K lie in each operand's 2-D view [rows, cols] (leading
/// dimensions flattened, flatten2D): 0 for rows, 1 for cols. In row-major
/// terms TN: A [N, K], B [M, K]; NN: A [K, N], B [M, K]; NT: A [K, N],
/// B [K, M]; D is [M, N] (D = B·Aᵀ, B·A, Bᵀ·A).
struct GemmAxes {
  int aN, aK; ///< axes of A's view holding N and K
  int bM, bK; ///< axes of B's view holding M and K
};
GemmAxes gemmAxes(GemmLayout layout);

/// The representation each operand is read from: A rowwise if transa (TN),
/// else columnwise; B columnwise if transb (NT), else rowwise.
struct GemmUsages {
  Usage a, b;
};
GemmUsages gemmOperandUsages(GemmLayout layout);

/// The layouts of Linear's three GEMMs (docs/formats.md §5, TE's
/// module/linear.py): fprop general_gemm(W, X, TN), Y = X · Wᵀ; dgrad
/// general_gemm(W, dY, NN), dX = dY · W; wgrad general_gemm(X, dY, NT),
/// dW = dYᵀ · X.
inline constexpr GemmLayout kLinearFpropLayout = GemmLayout::TN;
inline constexpr GemmLayout kLinearDgradLayout = GemmLayout::NN;
inline constexpr GemmLayout kLinearWgradLayout = GemmLayout::NT;

/// The representations Linear's backward reads of the quantized tensors its
/// forward saves: the input as operand A of wgrad, the weight as operand A
/// of dgrad (gemmOperandUsages of kLinearWgradLayout and kLinearDgradLayout;
/// columnwise both).
struct LinearSavedUsages {
  Usage input, weight;
};
LinearSavedUsages linearSavedUsages();

/// The representations Linear quantizes each tensor with when it trains:
/// every usage one of its three GEMMs reads (gemmOperandUsages of the fprop,
/// dgrad and wgrad layouts). The input: fprop's B (rowwise) and wgrad's A
/// (columnwise); the weight: fprop's A (rowwise) and dgrad's A (columnwise);
/// the output gradient dY: dgrad's B (rowwise) and wgrad's B (columnwise).
struct LinearQuantizedUsages {
  Usage input, weight, gradOutput;
};
LinearQuantizedUsages linearQuantizedUsages();

/// Checks that operands holding `a` and `b` have the representations
/// `layout` reads. Returns "" or e.g. "layout TN reads operand A rowwise,
/// but it holds only columnwise".
std::string verifyGemmUsages(GemmLayout layout, Usage a, Usage b);

/// One dimension of the result: dimension `axis` of operand A (`operand` 0)
/// or B (`operand` 1).
struct GemmResultDim {
  int operand;
  int64_t axis;
};

/// The result's logical shape as dimensions of the operands (of ranks
/// `aRank` and `bRank`, valid for `layout`, see gemmShape): TN and NN keep
/// B's leading dimensions and append N (A's dimension 0 for TN, 1 for NN);
/// NT gives [M, N] = [B's last, A's last].
std::vector<GemmResultDim> gemmResultDims(GemmLayout layout, int64_t aRank,
                                          int64_t bRank);

/// The sizes of a GEMM: M, N, K (kDynamic where a dimension they depend on
/// is) and the result's logical shape.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  Shape result;
};

/// The shape rules of a GEMM of operands with logical shapes `a` and `b`
/// (dynamic dimensions allowed), in this order: both operands of rank >= 1
/// (a 0-d tensor is not a matrix); in TN and NN, A of rank 2 (D takes B's
/// leading dimensions); A's and B's K equal where both are known; K
/// divisible by 16 where known (verifyGemmContraction). Returns "" and sets
/// `*out`, or the first message.
std::string gemmShape(GemmLayout layout, const Shape &a, const Shape &b,
                      GemmShape *out);

/// The GEMM shape rule that needs the sizes (TE's cuBLASLt FP8 GEMMs): the
/// contraction dimension K divisible by 16. kDynamic passes. Returns "" or
/// "needs the contraction dimension K divisible by 16, got 40".
std::string verifyGemmContraction(int64_t k);

/// The recipe family of `recipe` as messages name it: "per-tensor FP8"
/// (delayed and current scaling), "FP8 block scaling", "MXFP8", "NVFP4".
const char *recipeFamilyName(Recipe recipe);

/// Whether two recipes belong to one family (per-tensor FP8 operands of
/// delayed and current scaling meet in one GEMM).
bool sameRecipeFamily(Recipe a, Recipe b);

/// TE's rules for two quantized operands that meet in the GEMM `gemm`
/// ("GEMM", "fprop GEMM", ...), named `aName` and `bName`, in this order:
/// * one recipe family ("GEMM mixes recipe families: A is MXFP8, B is
///   NVFP4");
/// * not two 128x128-block operands (TE: mixed 1Dx2D is allowed, 2Dx2D is
///   not);
/// * not two f8E5M2 operands: cuBLASLt's FP8 GEMM takes E4M3 x E4M3,
///   E4M3 x E5M2 and E5M2 x E4M3 (cublaslt-fp8-hopper.md; PyTorch refuses
///   E5M2 x E5M2 with "Type restrictions imposed by cuBLASLt").
/// Returns "" or the message, which starts with `gemm`.
std::string verifyGemmOperands(const char *gemm, const char *aName,
                               const QuantizerConfig &a, const char *bName,
                               const QuantizerConfig &b);

/// Whether a tensor's columnwise data holds its rowwise values: the exact
/// transpose with the same scales, so that the columnwise copy dequantizes
/// to the rowwise values (per-tensor FP8, docs/formats.md §3.1, and 128x128
/// blocks, §3.4). Other recipes quantize each copy from the input with its
/// own blocks.
bool columnwiseHoldsRowwiseValues(const QuantizerConfig &config);

/// How a GEMM of MXFP8 or NVFP4 operands runs where the hardware has no
/// block-scaled GEMM (sm_90): exact emulation, both operands dequantized
/// (NVFP4 without its global scales, which enter the GEMM's alpha) and a
/// high-precision GEMM. `BF16` where every dequantized value is exact in
/// bf16 (MXFP8; NVFP4 block scales), `F32` for NVFP4 with per-row global
/// scales, and for an RHT on one operand's columnwise copy that the other
/// does not cancel (only NT with the same sign mask on both operands cancels:
/// the product of two transformed copies is the product of the originals),
/// whose inverse is applied in fp32. `None` for the FP8 recipes, whose
/// GEMMs are native on sm_90. The runtime's cuda backend and the compiler
/// (te-share-emulated-operands) both decide by this function.
enum class GemmEmulation : uint8_t { None, BF16, F32 };
GemmEmulation gemmEmulation(GemmLayout layout, const QuantizerConfig &a,
                            const QuantizerConfig &b);

} // namespace te::format

#endif // TE_FORMAT_GEMM_H

//===- QuantizerSyntax.h - Parse the te dialect's quantizer syntax -*- C++
//-*-===//
//
// Part of te. No MLIR: a hand parser of exactly the syntax of the dialect's
// quantizer attributes (include/te/Dialect/TE/IR/TEAttrs.td):
//
//   quantizer ::= `#te.` recipe `<` element-type (`,` field `=` value)* `>`
//   value     ::= integer | float | `true` | `false` | keyword
//
// recipes and fields:
//   delayed  f8E4M3FN|f8E5M2  margin, history, algo (max|most_recent)
//   current  f8E4M3FN|f8E5M2  pow2_scales, amax_epsilon
//   block    f8E4M3FN|f8E5M2  dims (1|2), pow2_scales (default true),
//                             amax_epsilon
//   mxfp8    f8E4M3FN|f8E5M2  block_2d, e8m0_rounding (up|floor)
//   nvfp4    f4E2M1FN         rht, rht_sign_mask (default 0xD7E8, used with
//                             rht), block_2d, stochastic_rounding,
//                             row_scaled, four_over_six, e4m3_max, err_mode
//                             (mae|mse)
//
//===----------------------------------------------------------------------===//

#ifndef TE_TOOLS_TE_QUANTIZE_QUANTIZERSYNTAX_H
#define TE_TOOLS_TE_QUANTIZE_QUANTIZERSYNTAX_H

#include "te_rt.h"

#include <string>

namespace te::tools {

/// Parses `text` into `out`. Returns false with a one-line message in
/// `*error` ("expected '<' after '#te.mxfp8'", "unknown field 'foo' of
/// #te.current", ...). The configuration itself is not verified here
/// (te_rt_quantizer_verify does that).
bool parseQuantizer(const std::string &text, te_rt_quantizer &out,
                    std::string *error);

} // namespace te::tools

#endif // TE_TOOLS_TE_QUANTIZE_QUANTIZERSYNTAX_H

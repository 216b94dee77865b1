//===- QuantizerSyntax.h - Parse the te dialect's quantizer syntax -*- C++
//-*-===//
//
// Part of te. No MLIR: a hand parser of the syntax of the dialect's
// quantizer attributes,
//
//   quantizer ::= `#te.` recipe `<` element-type (`,` field `=` value)* `>`
//   value     ::= integer | float | `true` | `false` | keyword
//
// whose recipes, fields, spellings and defaults are the Format library's
// description of it (include/te/Format/QuantizerSyntax.h), the one the
// dialect reads too.
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

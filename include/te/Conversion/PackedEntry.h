//===- PackedEntry.h - The packed entry wrapper of a lowered module -*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// How te-run, te.compile and the AOT objects call an entry function: the
// entry's harness signature, computed from the func-level module, and the
// packed wrapper `void _te_packed_<entry>(void **args)` added to the lowered
// module (the calling convention is runtime/include/te_call.h's, which the
// runtime side's call frames follow). The pass te-packed-entry (Passes.td)
// applies addPackedEntry.
//
//===----------------------------------------------------------------------===//

#ifndef TE_CONVERSION_PACKEDENTRY_H
#define TE_CONVERSION_PACKEDENTRY_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
namespace te {

/// The harness signature of `function` (te_call.h: `f32[32,64], bf16[?,64]
/// -> f32`), with quantized tensors as their buffers laid out for `target`
/// (cpu and sm_90: sm_90's layouts; sm_100: sm_100's), or, in the
/// high-precision twin (`reference`), as their nominal tensors. A
/// quantized argument must be static. Fails with `error` for a type the
/// harness cannot pass (unranked, an unsupported element type).
LogicalResult getEntrySignature(func::FuncOp function, StringRef target,
                                bool reference, std::string &signature,
                                std::string &error);

/// Adds `void _te_packed_<entry>(ptr args)` to the lowered (LLVM dialect)
/// module: it loads the i-th parameter of `_mlir_ciface_<entry>` from the
/// pointer args[i], calls it and stores a returned value through
/// args[#parameters]. `signature` must describe the C interface (its slot
/// count is checked). Also adds the constant strings
/// `_te_signature_<entry>` (the signature) and, when `target` is not empty,
/// `_te_target_<entry>`, and the byte `_te_shape_checks_<entry>` when the
/// module has `te.shape_checks`. The entry (and any function `main`) gets
/// internal linkage, so that it does not clash with a C program's. With
/// `checkedMalloc`, the module's calls of `malloc` go to
/// te_run_checked_malloc (te_call.h) instead.
LogicalResult addPackedEntry(ModuleOp module, StringRef entry,
                             StringRef signature, StringRef target,
                             bool checkedMalloc, std::string &error);

} // namespace te
} // namespace mlir

#endif // TE_CONVERSION_PACKEDENTRY_H

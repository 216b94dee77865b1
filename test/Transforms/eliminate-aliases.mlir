// RUN: te-opt %s --te-eliminate-aliases --split-input-file --allow-unregistered-dialect | FileCheck %s
// Idempotence: a second run changes nothing.
// RUN: te-opt %s --te-eliminate-aliases --split-input-file --allow-unregistered-dialect > %t.once.mlir
// RUN: te-opt %t.once.mlir --te-eliminate-aliases --split-input-file --allow-unregistered-dialect > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

//===----------------------------------------------------------------------===//
// (a) No result aliases an operand or another result.
//===----------------------------------------------------------------------===//

// Cache miss (docs/formats.md §6): the quantized weight is returned as the
// saved weight (wt_save) and as the new workspace. The duplicate result goes;
// the caller's uses of it take the other result.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func private @forward_miss
// CHECK-SAME: -> (tensor<64x128xbf16>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
// CHECK: %[[WQ:.*]] = te.quantize
// CHECK: return %{{.*}}, %[[WQ]] : tensor<64x128xbf16>, !te.qtensor
func.func private @forward_miss(%w: tensor<64x128xbf16>) -> (tensor<64x128xbf16>, !W, !W) {
  %y = "test.fprop"(%w) : (tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  return %y, %wq, %wq : tensor<64x128xbf16>, !W, !W
}
// CHECK-LABEL: func.func @caller_miss
// CHECK: %[[R:.*]]:2 = call @forward_miss(%{{.*}}) : (tensor<64x128xbf16>) -> (tensor<64x128xbf16>, !te.qtensor
// CHECK: "test.save"(%[[R]]#1)
// CHECK: "test.cache"(%[[R]]#1)
func.func @caller_miss(%w: tensor<64x128xbf16>) {
  %r:3 = call @forward_miss(%w) : (tensor<64x128xbf16>) -> (tensor<64x128xbf16>, !W, !W)
  "test.save"(%r#1) : (!W) -> ()
  "test.cache"(%r#2) : (!W) -> ()
  return
}

// -----

// Cache hit: the saved weight is the incoming workspace. The result that
// returns an argument goes; the caller uses the operand it passed.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func private @forward_hit
// CHECK-SAME: (%{{.*}}: tensor<32x64xbf16>, %{{.*}}: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) -> tensor<32x64xbf16>
// CHECK: return %{{.*}} : tensor<32x64xbf16>
func.func private @forward_hit(%x: tensor<32x64xbf16>, %cache: !W) -> (tensor<32x64xbf16>, !W) {
  %y = "test.fprop"(%x, %cache) : (tensor<32x64xbf16>, !W) -> tensor<32x64xbf16>
  return %y, %cache : tensor<32x64xbf16>, !W
}
// CHECK-LABEL: func.func @caller_hit
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xbf16>, %[[CACHE:.*]]: !te.qtensor
// CHECK: %[[R:.*]] = call @forward_hit(%[[X]], %[[CACHE]]) : (tensor<32x64xbf16>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) -> tensor<32x64xbf16>
// CHECK: "test.save"(%[[R]], %[[CACHE]])
func.func @caller_hit(%x: tensor<32x64xbf16>, %cache: !W) {
  %r:2 = call @forward_hit(%x, %cache) : (tensor<32x64xbf16>, !W) -> (tensor<32x64xbf16>, !W)
  "test.save"(%r#0, %r#1) : (tensor<32x64xbf16>, !W) -> ()
  return
}

// -----

// A backward that takes the saved weight and the workspace, which every
// caller passes as the same value: one argument remains (private function).

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func private @backward
// CHECK-SAME: (%[[A:.*]]: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) -> tensor<64x128xbf16>
// CHECK: "test.dgrad"(%[[A]], %[[A]])
func.func private @backward(%saved: !W, %workspace: !W) -> tensor<64x128xbf16> {
  %d = "test.dgrad"(%saved, %workspace) : (!W, !W) -> tensor<64x128xbf16>
  return %d : tensor<64x128xbf16>
}
// CHECK-LABEL: func.func @caller_backward
// CHECK-SAME: (%[[W:.*]]: !te.qtensor
// CHECK: call @backward(%[[W]]) : (!te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) -> tensor<64x128xbf16>
func.func @caller_backward(%w: !W) -> tensor<64x128xbf16> {
  %r = call @backward(%w, %w) : (!W, !W) -> tensor<64x128xbf16>
  return %r : tensor<64x128xbf16>
}

// -----

// Public functions keep their signatures (see
// eliminate-aliases-public.mlir): the repeated result and the returned
// argument are copies.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func @public_results
// CHECK-SAME: (%[[W:.*]]: tensor<64x128xbf16>, %[[CACHE:.*]]: !te.qtensor<{{.*}}>) -> (!te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>) {
// CHECK: %[[Q:.*]] = te.quantize %[[W]]
// CHECK: %[[QB:.*]]:3 = te.buffers %[[Q]]
// CHECK: %[[Q2:.*]] = te.from_buffers
// CHECK: %[[CB:.*]]:3 = te.buffers %[[CACHE]]
// CHECK: %[[C2:.*]] = te.from_buffers
// CHECK: return %[[Q]], %[[Q2]], %[[C2]] : !te.qtensor
func.func @public_results(%w: tensor<64x128xbf16>, %cache: !W) -> (!W, !W, !W) {
  %q = te.quantize %w : tensor<64x128xbf16> -> !W
  return %q, %q, %cache : !W, !W, !W
}

// -----

// Arguments are merged only if *every* call passes the same value, and
// never for a public function (its callers are not all known).

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func private @two_callers
// CHECK-SAME: (%{{.*}}: !te.qtensor<{{.*}}>, %{{.*}}: !te.qtensor<{{.*}}>)
func.func private @two_callers(%a: !W, %b: !W) {
  return
}
// CHECK-LABEL: func.func @public_callee
// CHECK-SAME: (%{{.*}}: !te.qtensor<{{.*}}>, %{{.*}}: !te.qtensor<{{.*}}>)
func.func @public_callee(%a: !W, %b: !W) {
  return
}
func.func @callers(%w: !W, %v: !W) {
  call @two_callers(%w, %w) : (!W, !W) -> ()
  call @two_callers(%w, %v) : (!W, !W) -> ()
  call @public_callee(%w, %w) : (!W, !W) -> ()
  return
}

// -----

// A function whose symbol is used other than by func.call keeps its
// signature.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func private @referenced
// CHECK-SAME: -> (!te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>)
// CHECK: return %{{.*}}, %{{.*}} : !te.qtensor
func.func private @referenced(%w: !W) -> (!W, !W) {
  return %w, %w : !W, !W
}
func.func @take_reference() -> ((!W) -> (!W, !W)) {
  %f = func.constant @referenced : (!W) -> (!W, !W)
  return %f : (!W) -> (!W, !W)
}

// -----

// With several returns a result goes only if it aliases in all of them.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func private @branches
// CHECK-SAME: -> (!te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>)
func.func private @branches(%c: i1) -> (!W, !W) {
  %a = "test.make"() : () -> !W
  %b = "test.make"() : () -> !W
  cf.cond_br %c, ^same, ^different
^same:
  return %a, %a : !W, !W
^different:
  return %a, %b : !W, !W
}
func.func @call_branches(%c: i1) {
  %r:2 = call @branches(%c) : (i1) -> (!W, !W)
  "test.use"(%r#0, %r#1) : (!W, !W) -> ()
  return
}

// -----

// Before decomposition: a cache miss te.linear stops returning the weight
// twice (new_workspace is saved_weight, cache_weight is dropped), and a cache
// hit's saved weight is the workspace operand.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func @linear_miss
// CHECK: %{{.*}}, %{{.*}}, %[[WS:.*]] = te.linear
// CHECK-NOT: cache_weight
// CHECK-SAME: : tensor<32x128xbf16>, tensor<64x128xbf16>
// CHECK: "test.use"(%[[WS]], %[[WS]])
func.func @linear_miss(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  %y, %xs, %ws, %new = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>, cache_weight}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  "test.use"(%ws, %new) : (!W, !W) -> ()
  return
}
// CHECK-LABEL: func.func @linear_hit
// CHECK-SAME: %[[CACHE:[^:]*]]: !te.qtensor
// CHECK: te.linear {{.*}} workspace(%[[CACHE]]
// CHECK: "test.use"(%[[CACHE]])
func.func @linear_hit(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %cache: !W) {
  %y, %xs, %ws = te.linear %x, %w workspace(%cache : !W)
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  "test.use"(%ws) : (!W) -> ()
  return
}

// -----

// An scf.for result that passes its init through is the init (scf
// canonicalization).

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func @loop_pass_through
// CHECK-SAME: %[[W:[^:]*]]: !te.qtensor
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: "test.use"(%[[W]])
func.func @loop_pass_through(%w: !W, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %w) -> (!W) {
    "test.body"(%acc) : (!W) -> ()
    scf.yield %acc : !W
  }
  "test.use"(%r) : (!W) -> ()
  return
}

//===----------------------------------------------------------------------===//
// (b) Equal quantizations are done once.
//===----------------------------------------------------------------------===//

// -----

// The same value quantized by the same quantizer for a rowwise and a
// columnwise consumer: one quantization with both usages; each consumer sees
// a view with the usage it had (te.buffers + te.from_buffers, no copy).

// CHECK-LABEL: func.func @share_union_of_usages
// CHECK-SAME: (%[[W:.*]]: tensor<64x128xbf16>)
// CHECK: %[[Q:.*]] = te.quantize %[[W]] : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
// CHECK-NOT: te.quantize
// CHECK: %[[B:.*]]:4 = te.buffers %[[Q]] : {{.*}} -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>, tensor<64x128xf8E4M3FN>, tensor<4x128xf8E8M0FNU>
// CHECK-DAG: %[[ROW:.*]] = te.from_buffers %[[B]]#0, %[[B]]#1 : {{.*}} -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK-DAG: %[[COL:.*]] = te.from_buffers %[[B]]#2, %[[B]]#3 : {{.*}} -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
// CHECK-NOT: te.quantize
// CHECK-NOT: te.buffers
// CHECK: "test.fprop"(%[[ROW]])
// CHECK: "test.dgrad"(%[[COL]])
func.func @share_union_of_usages(%w: tensor<64x128xbf16>) {
  %r = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  "test.fprop"(%r) : (!te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>) -> ()
  %c = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
  "test.dgrad"(%c) : (!te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>) -> ()
  return
}

// -----

// Quantizers are compared as values: the same configuration spelled with a
// default written out is the same attribute.

// CHECK-LABEL: func.func @share_equal_attributes
// CHECK-COUNT-1: te.quantize
// CHECK-NOT: te.quantize
func.func @share_equal_attributes(%w: tensor<64x128xbf16>) {
  %a = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.block<f8E4M3FN>, rowwise>
  %b = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.block<f8E4M3FN, dims = 1, pow2_scales = true>, rowwise>
  "test.use"(%a, %b) : (!te.qtensor<64x128xbf16, #te.block<f8E4M3FN>, rowwise>,
      !te.qtensor<64x128xbf16, #te.block<f8E4M3FN, dims = 1, pow2_scales = true>, rowwise>) -> ()
  return
}

// -----

// Different quantizers, different inputs or different random streams are
// different quantizations.

// CHECK-LABEL: func.func @no_share
// CHECK-COUNT-5: te.quantize
// CHECK-NOT: te.quantize
func.func @no_share(%w: tensor<64x128xbf16>, %v: tensor<64x128xbf16>, %s0: i64, %s1: i64, %o: i64) {
  %a = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %b = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E5M2>, rowwise>
  %c = te.quantize %v : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %d = te.quantize %w seed %s0 offset %o : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>
  %e = te.quantize %w seed %s1 offset %o : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>
  "test.use"(%a, %b, %c, %d, %e) : (!te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>, !te.qtensor<64x128xbf16, #te.mxfp8<f8E5M2>, rowwise>, !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>, !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>, !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>) -> ()
  return
}

// -----

// Delayed scaling: the same live scale gives the same bits and the same
// amax; the second amax is the first.

!Q = !te.qtensor<64x128xbf16, #te.delayed<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func @share_delayed
// CHECK: %[[Q:.*]], %[[AMAX:.*]] = te.quantize %{{.*}} scale %{{.*}} :
// CHECK-NOT: te.quantize
// CHECK: "test.use"(%[[Q]], %[[Q]], %[[AMAX]], %[[AMAX]])
func.func @share_delayed(%w: tensor<64x128xbf16>, %s: tensor<1xf32>) {
  %a, %aa = te.quantize %w scale %s : tensor<64x128xbf16> -> !Q, tensor<1xf32>
  %b, %ba = te.quantize %w scale %s : tensor<64x128xbf16> -> !Q, tensor<1xf32>
  "test.use"(%a, %b, %aa, %ba) : (!Q, !Q, tensor<1xf32>, tensor<1xf32>) -> ()
  return
}

// -----

// Only a dominating quantization is reused: the two branches of an scf.if
// each keep theirs, a quantization after the scf.if reuses the one before it.

!Q = !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK-LABEL: func.func @dominance
// CHECK: scf.if
// CHECK:   te.quantize
// CHECK: else
// CHECK:   te.quantize
// CHECK: %[[Q:.*]] = te.quantize
// CHECK-NOT: te.quantize
// CHECK: "test.use"(%{{.*}}, %[[Q]], %[[Q]])
func.func @dominance(%c: i1, %w: tensor<64x128xbf16>, %v: tensor<64x128xbf16>) {
  %r = scf.if %c -> (!Q) {
    %a = te.quantize %v : tensor<64x128xbf16> -> !Q
    scf.yield %a : !Q
  } else {
    %b = te.quantize %v : tensor<64x128xbf16> -> !Q
    scf.yield %b : !Q
  }
  %x = te.quantize %w : tensor<64x128xbf16> -> !Q
  %y = te.quantize %w : tensor<64x128xbf16> -> !Q
  "test.use"(%r, %x, %y) : (!Q, !Q, !Q) -> ()
  return
}

//===----------------------------------------------------------------------===//
// (c) Loop-invariant quantizations are hoisted.
//===----------------------------------------------------------------------===//

// -----

// A microbatch loop: the weight is quantized for fprop (rowwise) and for
// dgrad (columnwise) in every iteration, the microbatch input from a slice
// that depends on the iteration. After the pass the weight is quantized once,
// before the loop, with both usages; the input stays in the loop.

!WR = !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
!WC = !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
!X = !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK-LABEL: func.func @microbatch_loop
// CHECK-SAME: (%[[X:.*]]: tensor<?x128xbf16>, %[[W:.*]]: tensor<64x128xbf16>,
// CHECK: %[[WQ:.*]] = te.quantize %[[W]] : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
// CHECK-DAG: %[[ROW:.*]] = te.from_buffers {{.*}} -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK-DAG: %[[COL:.*]] = te.from_buffers {{.*}} -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
// CHECK: scf.for
// CHECK:   %[[SLICE:.*]] = tensor.extract_slice %[[X]]
// CHECK:   %[[XQ:.*]] = te.quantize %[[SLICE]]
// CHECK-NOT: te.quantize
// CHECK:   "test.fprop"(%[[ROW]], %[[XQ]])
// CHECK:   "test.dgrad"(%[[COL]])
func.func @microbatch_loop(%x: tensor<?x128xbf16>, %w: tensor<64x128xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %n step %c1 {
    %row = arith.muli %i, %c32 : index
    %xi = tensor.extract_slice %x[%row, 0] [32, 128] [1, 1] : tensor<?x128xbf16> to tensor<32x128xbf16>
    %wr = te.quantize %w : tensor<64x128xbf16> -> !WR
    %xq = te.quantize %xi : tensor<32x128xbf16> -> !X
    "test.fprop"(%wr, %xq) : (!WR, !X) -> ()
    %wc = te.quantize %w : tensor<64x128xbf16> -> !WC
    "test.dgrad"(%wc) : (!WC) -> ()
  }
  return
}

// -----

// Nested loops: out of every loop the weight does not depend on.

!Q = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK-LABEL: func.func @nested_loops
// CHECK: te.quantize
// CHECK: scf.for
// CHECK:   scf.for
// CHECK-NOT: te.quantize
// CHECK:     "test.use"
func.func @nested_loops(%w: tensor<64x128xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %q = te.quantize %w : tensor<64x128xbf16> -> !Q
      "test.use"(%q) : (!Q) -> ()
    }
  }
  return
}

// -----

// A weight updated in the loop (loop-carried) is quantized in every
// iteration; a random stream that depends on the iteration as well.

!Q = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
!S = !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>
// CHECK-LABEL: func.func @loop_variant
// CHECK: scf.for
// CHECK: te.quantize
// CHECK: te.quantize
func.func @loop_variant(%w0: tensor<64x128xbf16>, %v: tensor<64x128xbf16>, %seed: i64, %n: index) -> tensor<64x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%w = %w0) -> (tensor<64x128xbf16>) {
    %q = te.quantize %w : tensor<64x128xbf16> -> !Q
    %off = arith.index_cast %i : index to i64
    %s = te.quantize %v seed %seed offset %off : tensor<64x128xbf16> -> !S
    %w2 = "test.update"(%w, %q, %s) : (tensor<64x128xbf16>, !Q, !S) -> tensor<64x128xbf16>
    scf.yield %w2 : tensor<64x128xbf16>
  }
  return %r : tensor<64x128xbf16>
}

// RUN: te-opt %s --allow-unregistered-dialect --te-eliminate-aliases | FileCheck %s --check-prefix=DEFAULT
// RUN: te-opt %s --allow-unregistered-dialect --te-eliminate-aliases=keep-public-signatures | FileCheck %s --check-prefix=KEEP

// Public functions: by default their aliased results go too (the module is
// the compilation unit); keep-public-signatures leaves them, and the calls of
// them, alone. Private functions are rewritten either way.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>

// DEFAULT-LABEL: func.func @entry
// DEFAULT-SAME: (%{{.*}}: tensor<64x128xbf16>, %{{.*}}: !te.qtensor<{{.*}}>) -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
// DEFAULT: return %{{.*}} : !te.qtensor
// KEEP-LABEL: func.func @entry
// KEEP-SAME: -> (!te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>) {
// KEEP: %[[R:.*]] = call @helper
// KEEP: return %[[R]], %[[R]], %{{.*}} : !te.qtensor
func.func @entry(%w: tensor<64x128xbf16>, %cache: !W) -> (!W, !W, !W) {
  %q:2 = call @helper(%w) : (tensor<64x128xbf16>) -> (!W, !W)
  return %q#0, %q#1, %cache : !W, !W, !W
}

// DEFAULT-LABEL: func.func private @helper
// DEFAULT-SAME: -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
// KEEP-LABEL: func.func private @helper
// KEEP-SAME: -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
func.func private @helper(%w: tensor<64x128xbf16>) -> (!W, !W) {
  %q = te.quantize %w : tensor<64x128xbf16> -> !W
  return %q, %q : !W, !W
}

// A public callee's calls keep their results under keep-public-signatures.
// KEEP-LABEL: func.func @calls_entry
// KEEP: call @entry({{.*}}) : (tensor<64x128xbf16>, !te.qtensor<{{.*}}>) -> (!te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>)
func.func @calls_entry(%w: tensor<64x128xbf16>, %cache: !W) {
  %r:3 = call @entry(%w, %cache) : (tensor<64x128xbf16>, !W) -> (!W, !W, !W)
  "test.use"(%r#0, %r#1, %r#2) : (!W, !W, !W) -> ()
  return
}

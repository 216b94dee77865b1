// RUN: te-opt %s --te-eliminate-aliases --split-input-file --allow-unregistered-dialect | FileCheck %s

// Shared quantizations (te-eliminate-aliases (b)) and the amax reduction
// group: a quantization with a group and one without compute different
// scales (the gathered tensor's amax, the shard's), so they are not shared;
// two with the same group are (every rank shares them alike).

// CHECK-LABEL: func.func @group_or_not
// CHECK: te.quantize %{{.*}} group "tp" : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.quantize %{{.*}} : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.quantize %{{.*}} group "sp" : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK-NOT: te.quantize
func.func @group_or_not(%w: tensor<64x128xbf16>) {
  %a = te.quantize %w group "tp" : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %b = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %c = te.quantize %w group "sp" : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  "test.use"(%a, %b, %c) : (!te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
      !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
      !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @same_group
// CHECK: %[[Q:.*]] = te.quantize %{{.*}} group "tp" : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK-NOT: te.quantize
// CHECK: "test.use"(%[[Q]], %[[Q]])
func.func @same_group(%w: tensor<64x128xbf16>) {
  %a = te.quantize %w group "tp" : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %b = te.quantize %w group "tp" : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  "test.use"(%a, %b) : (!te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
      !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>) -> ()
  return
}

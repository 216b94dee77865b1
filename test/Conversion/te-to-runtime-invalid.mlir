// RUN: te-opt %s --split-input-file --allow-unregistered-dialect --convert-te-to-runtime -verify-diagnostics

// A buffer-level op that no pattern lowers is illegal: the pattern says
// why, the conversion names the op it left.
func.func @on_tensors(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %d = tensor.empty() : tensor<32x64xf8E4M3FN>
  %s = tensor.empty() : tensor<1xf32>
  // expected-error @+2 {{is still on tensors; run one-shot bufferization before convert-te-to-runtime}}
  // expected-error @+1 {{failed to legalize operation 'te.quantize_buffers' that was explicitly marked illegal}}
  %r:2 = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) : tensor<32x64xf32>
      -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %r#0, %r#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

func.func @amax(%x: tensor<32x64xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{has no runtime lowering on tensors: run te-expand-qtensors and one-shot bufferization first}}
  %a = te.amax %x : tensor<32x64xf32>
  return %a : tensor<1xf32>
}

// -----

func.func @update_scale(%a: tensor<1xf32>, %h: tensor<16xf32>, %s: tensor<1xf32>)
    -> (tensor<16xf32>, tensor<1xf32>) {
  // expected-error @+1 {{has no runtime lowering on tensors: run te-expand-qtensors and one-shot bufferization first}}
  %h2, %s2 = te.update_scale %a, %h, %s
      {quantizer = #te.delayed<f8E4M3FN, history = 16>} : tensor<16xf32>
  return %h2, %s2 : tensor<16xf32>, tensor<1xf32>
}

// -----

func.func @allreduce(%a: tensor<1xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{has no runtime lowering on tensors: run te-expand-qtensors and one-shot bufferization first}}
  %r = te.allreduce_max %a group "tp" : tensor<1xf32>
  return %r : tensor<1xf32>
}

// -----

func.func @amax_on_tensors(%x: tensor<32x64xf32>) -> tensor<1xf32> {
  %e = tensor.empty() : tensor<1xf32>
  // expected-error @+2 {{is still on tensors; run one-shot bufferization before convert-te-to-runtime}}
  // expected-error @+1 {{failed to legalize operation 'te.amax_buffers' that was explicitly marked illegal}}
  %a = te.amax_buffers %x outs(%e : tensor<1xf32>) : tensor<32x64xf32> -> tensor<1xf32>
  return %a : tensor<1xf32>
}


// -----

// Outside a function there is no entry to hold the call's constants.
%x = "test.source"() : () -> memref<32x64xbf16>
%a = "test.source"() : () -> memref<1xf32>
// expected-error @+2 {{'te.amax_buffers' op is not in a function}}
// expected-error @+1 {{failed to legalize operation 'te.amax_buffers' that was explicitly marked illegal}}
te.amax_buffers %x outs(%a : memref<1xf32>) : memref<32x64xbf16>

// -----

// The runtime writes an emulated operand of a static size only.
func.func @emulated_dynamic(%d: memref<?x128xf8E4M3FN>, %s: memref<?x4xf8E8M0FNU>,
                            %o: memref<?xbf16>) {
  // expected-error @+2 {{needs a static operand shape}}
  // expected-error @+1 {{failed to legalize operation 'te.emulated_operand_buffers' that was explicitly marked illegal}}
  te.emulated_operand_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN> usage rowwise
      reads rowwise shape [?, 128] outs(%o : memref<?xbf16>)
      : memref<?x128xf8E4M3FN>, memref<?x4xf8E8M0FNU>
  return
}

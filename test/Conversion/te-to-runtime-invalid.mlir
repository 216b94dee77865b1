// RUN: te-opt %s --split-input-file --convert-te-to-runtime -verify-diagnostics

func.func @on_tensors(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %d = tensor.empty() : tensor<32x64xf8E4M3FN>
  %s = tensor.empty() : tensor<1xf32>
  // expected-error @+1 {{is still on tensors; run one-shot bufferization before convert-te-to-runtime}}
  %r:2 = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) : tensor<32x64xf32>
      -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %r#0, %r#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

func.func @amax(%x: tensor<32x64xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{is not lowered to the runtime yet}}
  %a = te.amax %x : tensor<32x64xf32>
  return %a : tensor<1xf32>
}


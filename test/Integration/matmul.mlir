// High-precision matrix products as users write them: linalg.matmul,
// linalg.batch_matmul with a transposed operand and a dynamic batch, and a
// product between elementwise ops. On GPU targets te-linalg-to-gpu makes
// each product one call of te_rt_mlir_matmul (cuBLASLt, fp32 products and
// sums); on the cpu target they run as linalg loops. The fills make the
// expected values exact: A = 1, B = 0.5 gives K * 0.5 everywhere.
//
// RUN: te-run %s --entry mm --fill 0=1 --fill 1=0.5 | FileCheck %s --check-prefix=MM
// MM: result 0: f32[64,32] min 64 max 64 mean 64
//
// RUN: te-run %s --entry bmm_t --dynamic-dim 3 --fill 0=1 --fill 1=0.5 | FileCheck %s --check-prefix=BMM
// BMM: result 0: f32[3,16,24] min 32 max 32 mean 32
//
// y = tanh(x W1) W2, x = 0.25, W1 = 1, W2 = 0.5: tanh(0.25 * 32) * 0.5 * 64.
// RUN: te-run %s --entry two_layers --fill 0=0.25 --fill 1=1 --fill 2=0.5 | FileCheck %s --check-prefix=TWO
// TWO: result 0: f32[8,16] min 32 max 32 mean 32
//
// Random operands (the GPU check compares the cuda backend with these).
// RUN: te-run %s --entry mm --seed 3 | FileCheck %s --check-prefix=RAND
// RUN: te-run %s --entry bmm_t --dynamic-dim 5 --seed 4 | FileCheck %s --check-prefix=RANDB
// RAND: result 0: f32[64,32]
// RANDB: result 0: f32[5,16,24]
//
// The GPU lowering: one runtime call per product, no kernel for it.
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU
// GPU-LABEL: func.func @mm
// GPU: call @te_rt_mlir_matmul
// GPU-NOT: reduce_rows
// GPU-LABEL: func.func @bmm_t
// GPU: call @te_rt_mlir_matmul
// GPU-LABEL: func.func @two_layers
// GPU: call @te_rt_mlir_matmul
// GPU: gpu.launch {{.*}}elementwise
// GPU: call @te_rt_mlir_matmul

func.func @mm(%a: tensor<64x128xbf16>, %b: tensor<128x32xbf16>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xbf16>, tensor<128x32xbf16>)
                     outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// B stored [batch, N, K] (transposed), C = f32.
func.func @bmm_t(%a: tensor<?x16x64xf16>, %b: tensor<?x24x64xf16>) -> tensor<?x16x24xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x16x64xf16>
  %e = tensor.empty(%n) : tensor<?x16x24xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16x24xf32>) -> tensor<?x16x24xf32>
  %r = linalg.batch_matmul
         indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>,
                          affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>,
                          affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
         ins(%a, %b : tensor<?x16x64xf16>, tensor<?x24x64xf16>)
         outs(%c : tensor<?x16x24xf32>) -> tensor<?x16x24xf32>
  return %r : tensor<?x16x24xf32>
}

func.func @two_layers(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x64xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x32xf32>, tensor<32x64xf32>)
                     outs(%c1 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %ta = tensor.empty() : tensor<8x64xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x64xf32>) outs(%ta : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.tanh %in : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%t, %w2 : tensor<8x64xf32>, tensor<64x16xf32>)
                     outs(%c2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

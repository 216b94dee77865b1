// An entry that returns one of its arguments between computed results, and
// a result twice: te-eliminate-aliases keeps the signature of a public
// function (it returns copies instead), so te-run, which reads the signature
// before the pipeline, prints every result in its place. (It used to drop
// the aliased results, and te-run read the later results shifted.)
//
// RUN: te-run %s --fill 0=1 --fill 1=2 | FileCheck %s
// CHECK: result 0: f32[4] min 3 max 3
// CHECK-NEXT: result 1: f32[4] min 1 max 1
// CHECK-NEXT: result 2: f32[4] min 2 max 2
// CHECK-NEXT: result 3: f32[4] min 3 max 3
// CHECK-NEXT: result 4: f32[2,4] min 2 max 2
// CHECK-NEXT: result 5: f32[4] min 2 max 2
//
// Bit for bit what the same program without aliasing computes (@reference
// takes the copies as arguments); --repeat frees the returned buffers
// between calls (each distinct allocation once, never an argument's).
// RUN: rm -rf %t && mkdir -p %t
// RUN: te-run %s --entry reference --fill 0=1 --fill 1=2 --output-dir %t --quiet
// RUN: te-run %s --fill 0=1 --fill 1=2 --repeat 3 --compare %t/result0.npy --compare %t/result1.npy --compare %t/result2.npy --compare %t/result3.npy --compare %t/result4.npy --compare %t/result5.npy | FileCheck %s --check-prefix=CMP
// CMP-COUNT-6: PASS
// CMP: timing: step_ms={{.*}} repeat=3
//
// Ahead of time (target cpu) the same.
// RUN: env TE_BUILD_DIR=%te_lib_dir/.. %te_src_root/scripts/te-aot.sh compile %s %t/aot.o --target cpu > /dev/null
// RUN: %te_src_root/scripts/te-aot.sh link %t/aot.o %t/aot %te_lib_dir > /dev/null
// RUN: %t/aot --signature-file %t/aot.sig --fill 0=1 --fill 1=2 | FileCheck %s
//
// The .sig file: the signature, then the target; a file of the signature
// alone is read as target cpu; a GPU target needs --backend cuda.
// RUN: FileCheck %s --check-prefix=SIG < %t/aot.sig
// SIG: f32[4], f32[2,4] -> f32[4], f32[4], f32[4], f32[4], f32[2,4], f32[4]
// SIG-NEXT: target cpu
// RUN: head -n 1 %t/aot.sig > %t/old.sig
// RUN: %t/aot --signature-file %t/old.sig --fill 0=1 --fill 1=2 | FileCheck %s
// RUN: not %t/aot --signature-file %t/aot.sig --target sm_90 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: te-aot-run: error: compiled for sm_90: run it with --backend cuda, or compile with --target cpu

#map = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<4xf32>, %b: tensor<2x4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>) {
  %row = tensor.extract_slice %b[0, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %sum = linalg.add ins(%a, %row : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %prod = linalg.mul ins(%a, %row : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  return %sum, %a, %prod, %sum, %b, %prod
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>
}

func.func @reference(%a: tensor<4xf32>, %b: tensor<2x4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>) {
  %row = tensor.extract_slice %b[0, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %sum = linalg.add ins(%a, %row : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %sum2 = linalg.add ins(%a, %row : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %prod = linalg.mul ins(%a, %row : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %prod2 = linalg.mul ins(%a, %row : tensor<4xf32>, tensor<4xf32>) outs(%e3 : tensor<4xf32>) -> tensor<4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %a2 = linalg.copy ins(%a : tensor<4xf32>) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %e5 = tensor.empty() : tensor<2x4xf32>
  %b2 = linalg.copy ins(%b : tensor<2x4xf32>) outs(%e5 : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %sum, %a2, %prod, %sum2, %b2, %prod2
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>
}

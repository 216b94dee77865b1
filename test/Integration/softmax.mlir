// linalg.softmax through te-pipeline (te-decompose-aggregates: max, exp,
// sum, division) on the cpu backend, against an independent oracle:
// Inputs/softmax.py writes the inputs and their softmax computed in double
// precision (Python's math, rounded once to f32). Every fourth row (for
// dimension 0: column) is shifted by +90, where exp overflows f32 unless
// the maximum is subtracted first.
//
// RUN: rm -rf %t && %python %S/Inputs/softmax.py %t
//
// f32 over the last dimension, over dimension 0, and a dynamic batch of 37:
// within 1e-5 relative of the oracle.
// RUN: te-run %s --entry last --input %t/rows.npy --compare %t/want-rows.npy --rtol 1e-5 | FileCheck %s --check-prefix=PASS
// RUN: te-run %s --entry first --input %t/cols.npy --compare %t/want-cols.npy --rtol 1e-5 | FileCheck %s --check-prefix=PASS
// RUN: te-run %s --entry dynamic --input %t/rows37.npy --compare %t/want-rows37.npy --rtol 1e-5 | FileCheck %s --check-prefix=PASS
// A helper of dynamic shape inlined into a caller of a static input and an
// output of run-time size: canonicalization (in the inliner) folds the
// input's cast, leaving a static input and a dynamic output.
// RUN: te-run %s --entry inlined --input %t/rows.npy --input 64 --compare %t/want-rows.npy --rtol 1e-5 | FileCheck %s --check-prefix=PASS
//
// bf16 (the oracle computed from the same bf16 values): computed in f32 and
// rounded once, so within half a bf16 ulp (2^-8 relative) plus the f32
// computation's error.
// RUN: te-run %s --entry bf16 --input %t/rows-bf16.npy --compare %t/want-rows-bf16.npy --rtol 0.004 | FileCheck %s --check-prefix=PASS
// Decomposed in bf16 instead (softmax-in-f32=false), the sum of a row of
// 1000 stalls and the result is off by ~12% (normwise).
// RUN: te-opt %s --te-decompose-aggregates="softmax-in-f32=false" | not te-run - --entry bf16 --input %t/rows-bf16.npy --compare %t/want-rows-bf16.npy --rtol 0.004 | FileCheck %s --check-prefix=BF16SUM
//
// sm_90 compiles the same functions into kernels (the op itself has no GPU
// lowering; its decomposition has), and with the CUDA toolkit into a fatbin
// whose kernels are named after the softmax's line. @last is six kernels:
// the max (partials, combine), exp(x - max), the sum (partials, combine),
// the division; the fills of the two reductions' outputs are folded into
// their combine kernels.
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU --implicit-check-not='{{^ *}}linalg.'
// RUN: %if cuda-toolkit %{ te-opt %s --te-pipeline="target=sm_90" | FileCheck %s --check-prefix=FATBIN --implicit-check-not='{{^ *}}linalg.' %}
//
// PASS: result 0: PASS
// BF16SUM: result 0: FAIL
//
// GPU-LABEL: func.func @last(
// GPU-COUNT-6: gpu.launch
// GPU-NOT: gpu.launch
// GPU-LABEL: func.func @first(
// GPU: gpu.launch
// GPU-LABEL: func.func @dynamic(
// GPU: gpu.launch
// GPU-LABEL: func.func @bf16(
// GPU: gpu.launch
// GPU-LABEL: func.func @inlined(
// GPU: gpu.launch
//
// FATBIN-DAG: gpu.binary @last_reduce_rows_L[[#@LINE+14]]_kernel
// FATBIN-DAG: gpu.binary @last_reduce_combine_L[[#@LINE+13]]_kernel
// FATBIN-DAG: gpu.binary @last_elementwise_L[[#@LINE+12]]_kernel
// FATBIN-DAG: gpu.binary @first_reduce_columns_L[[#@LINE+17]]_kernel
// FATBIN-DAG: gpu.binary @dynamic_reduce_rows_L[[#@LINE+24]]_kernel
// FATBIN-DAG: gpu.binary @bf16_elementwise_L[[#@LINE+29]]_kernel
// FATBIN-DAG: llvm.func @last(
// FATBIN-DAG: llvm.func @first(
// FATBIN-DAG: llvm.func @dynamic(
// FATBIN-DAG: llvm.func @bf16(
// FATBIN-DAG: llvm.func @inlined(

func.func @last(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<64x1000xf32>) outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}

func.func @first(%x: tensor<1000x64xf32>) -> tensor<1000x64xf32> {
  %e = tensor.empty() : tensor<1000x64xf32>
  %y = linalg.softmax dimension(0) ins(%x : tensor<1000x64xf32>) outs(%e : tensor<1000x64xf32>) -> tensor<1000x64xf32>
  return %y : tensor<1000x64xf32>
}

func.func @dynamic(%x: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x1000xf32>
  %e = tensor.empty(%n) : tensor<?x1000xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<?x1000xf32>) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

func.func @bf16(%x: tensor<64x1000xbf16>) -> tensor<64x1000xbf16> {
  %e = tensor.empty() : tensor<64x1000xbf16>
  %y = linalg.softmax dimension(1) ins(%x : tensor<64x1000xbf16>) outs(%e : tensor<64x1000xbf16>) -> tensor<64x1000xbf16>
  return %y : tensor<64x1000xbf16>
}

func.func private @softmax_rows(%x: tensor<?x1000xf32>, %e: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %y = linalg.softmax dimension(1) ins(%x : tensor<?x1000xf32>) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

func.func @inlined(%x: tensor<64x1000xf32>, %n: index) -> tensor<?x1000xf32> {
  %d = tensor.cast %x : tensor<64x1000xf32> to tensor<?x1000xf32>
  %e = tensor.empty(%n) : tensor<?x1000xf32>
  %y = call @softmax_rows(%d, %e) : (tensor<?x1000xf32>, tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

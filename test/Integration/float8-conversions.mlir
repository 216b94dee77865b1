// Conversions of the narrow float types written by hand: arith.extf from
// f8E4M3FN and f8E5M2 (te-expand-float8-extensions) for every code that is
// not a NaN, a dequantization by hand (the codes times a per-row scale), and
// a round trip through f4E2M1FN (arith-expand), compared exactly with a
// Python oracle of the OCP formulas. The same programs compile for sm_90.
//
// RUN: rm -rf %t && %python %S/Inputs/float8-conversions.py %t
// RUN: te-run %s --entry decode_e4m3 --input %t/e4m3.npy --compare %t/want-e4m3.npy --exact 0 | FileCheck %s
// RUN: te-run %s --entry decode_e5m2 --input %t/e5m2.npy --compare %t/want-e5m2.npy --exact 0 | FileCheck %s
// RUN: te-run %s --entry dequantize --input %t/rows.npy --input %t/scales.npy --compare %t/want-dequantized.npy --exact 0 | FileCheck %s
// RUN: te-run %s --entry f4_round_trip --input %t/f4-in.npy --compare %t/want-f4.npy --exact 0 | FileCheck %s
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU
// Seeded (gpu-programs.py compiles it for gpu-check).
// RUN: te-run %s --entry dequantize_bytes --dynamic-dim 96 --seed 2 --fill 0=57 | FileCheck %s --check-prefix=RAN
// CHECK: result 0: PASS
// RAN: result 0: f32[96,96]
// GPU-LABEL: func.func @decode_e4m3
// GPU-NOT: arith.extf
// GPU: gpu.launch

func.func @decode_e4m3(%codes: tensor<?xf8E4M3FN>) -> tensor<?xf32> {
  %r = arith.extf %codes : tensor<?xf8E4M3FN> to tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @decode_e5m2(%codes: tensor<?xf8E5M2>) -> tensor<?xf32> {
  %r = arith.extf %codes : tensor<?xf8E5M2> to tensor<?xf32>
  return %r : tensor<?xf32>
}

// FP8 data with one scale per row, dequantized by hand.
func.func @dequantize(%q: tensor<?x?xf8E4M3FN>, %scale: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %q, %c0 : tensor<?x?xf8E4M3FN>
  %n = tensor.dim %q, %c1 : tensor<?x?xf8E4M3FN>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%q, %scale : tensor<?x?xf8E4M3FN>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f8E4M3FN, %s: f32, %o: f32):
    %v = arith.extf %x : f8E4M3FN to f32
    %d = arith.mulf %v, %s : f32
    linalg.yield %d : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @f4_round_trip(%x: tensor<?xf32>) -> tensor<?xf32> {
  %t = arith.truncf %x : tensor<?xf32> to tensor<?xf4E2M1FN>
  %r = arith.extf %t : tensor<?xf4E2M1FN> to tensor<?xf32>
  return %r : tensor<?xf32>
}

// The same from the codes' bytes (i8; the harness generates integers).
func.func @dequantize_bytes(%q: tensor<?x?xi8>, %scale: tensor<?xf32>) -> tensor<?x?xf32> {
  %codes = arith.bitcast %q : tensor<?x?xi8> to tensor<?x?xf8E4M3FN>
  %r = call @dequantize(%codes, %scale) : (tensor<?x?xf8E4M3FN>, tensor<?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

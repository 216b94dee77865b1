// Sizes that overflow 64-bit integers in te-check-shapes's own arithmetic
// (offset + size, offset + (size - 1) * stride, an indexing map's value at
// the last iteration, a reshape's element count): each is a failed check,
// its value the largest index (9223372036854775807), never a check that
// wraps around and lets the op read or write outside its tensor. Run on the
// cpu backend; te-run exits 1.
//
// An extract_slice at offset 2^63 - 8 (offset + 8 wraps to -2^63).
// RUN: te-run %s --entry slice_at --fill 1=3 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry slice_at --fill 1=9223372036854775800 2>&1 | FileCheck %s --check-prefix=OFFSET
// OFFSET: te-run: runtime error in shape check: tensor.extract_slice at {{.*}}: dimension 0 of the source (the slice's offset + size) is 16, expected at least 9223372036854775807
//
// An insert_slice of 4 elements with stride 2^62 (3 * 2^62 wraps to -2^62).
// RUN: te-run %s --entry insert_strided --fill 2=5 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry insert_strided --fill 2=4611686018427387904 2>&1 | FileCheck %s --check-prefix=STRIDE
// STRIDE: te-run: runtime error in shape check: tensor.insert_slice at {{.*}}: dimension 0 of the destination (the slice's offset + (size - 1) * stride + 1) is 16, expected at least 9223372036854775807
//
// The same with the offset taking the sum past 2^63: offset + (size - 1) *
// stride overflows in the addition.
// RUN: not te-run %s --entry extract_strided --fill 1=4611686018427387904 --fill 2=3074457345618258603 2>&1 | FileCheck %s --check-prefix=SUM
// SUM: te-run: runtime error in shape check: tensor.extract_slice at {{.*}}: dimension 0 of the source (the slice's offset + (size - 1) * stride + 1) is 16, expected at least 9223372036854775807
//
// A reshape of 16 elements to [2^62 + 4, 4] (2^64 + 16 wraps to 16), and
// to [-1, -16] (negative sizes whose product is 16).
// RUN: te-run %s --entry reshape --fill 1=2 --fill 2=8 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry reshape --fill 1=4611686018427387908 --fill 2=4 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RUN: not te-run %s --entry reshape --fill 1=-1 --fill 2=-16 2>&1 | FileCheck %s --check-prefix=NEGSHAPE
// RESHAPE: te-run: runtime error in shape check: tensor.reshape at {{.*}}: the source's element count (the new shape's element count) is 16, expected 9223372036854775807
// NEGSHAPE: te-run: runtime error in shape check: tensor.reshape at {{.*}}: dimension 0 of the new shape is -1, expected at least 0
//
// A linalg.generic reading x[d0 * 2^61] over 9 iterations (8 * 2^61 + 1
// wraps to 1), and x[(d0 * 2^61) floordiv 3] (the product overflows, the
// quotient would not).
// RUN: te-run %s --entry spread --fill 1=1 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry spread --fill 1=9 2>&1 | FileCheck %s --check-prefix=MAP
// RUN: not te-run %s --entry spread_halved --fill 1=9 2>&1 | FileCheck %s --check-prefix=HALVED
// MAP: te-run: runtime error in shape check: linalg.generic at {{.*}}: dimension 0 of operand 0 (indexed by d0 * 2305843009213693952: its largest value + 1) is 4, expected at least 9223372036854775807
// HALVED: te-run: runtime error in shape check: linalg.generic at {{.*}}: dimension 0 of operand 0 (indexed by (d0 * 2305843009213693952) floordiv 3: its largest value + 1) is 4, expected at least 9223372036854775807
//
// PASS: result 0: f32

func.func @slice_at(%x: tensor<16xf32>, %off: index) -> tensor<8xf32> {
  %s = tensor.extract_slice %x[%off] [8] [1] : tensor<16xf32> to tensor<8xf32>
  return %s : tensor<8xf32>
}

func.func @insert_strided(%x: tensor<16xf32>, %v: tensor<4xf32>, %stride: index) -> tensor<16xf32> {
  %r = tensor.insert_slice %v into %x[0] [4] [%stride] : tensor<4xf32> into tensor<16xf32>
  return %r : tensor<16xf32>
}

func.func @extract_strided(%x: tensor<16xf32>, %off: index, %stride: index) -> tensor<4xf32> {
  %r = tensor.extract_slice %x[%off] [4] [%stride] : tensor<16xf32> to tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @reshape(%x: tensor<16xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
  %shape = tensor.from_elements %a, %b : tensor<2xindex>
  %r = tensor.reshape %x(%shape) : (tensor<16xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

#spread = affine_map<(d0) -> (d0 * 2305843009213693952)>
#halved = affine_map<(d0) -> ((d0 * 2305843009213693952) floordiv 3)>
#id = affine_map<(d0) -> (d0)>

func.func @spread(%x: tensor<4xf32>, %n: index) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#spread, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @spread_halved(%x: tensor<4xf32>, %n: index) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#halved, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

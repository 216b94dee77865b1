// RUN: te-opt %s --split-input-file --te-expand-float8-extensions --verify-diagnostics | FileCheck %s

// te-expand-float8-extensions: arith.extf from an 8-bit float type as
// integer arithmetic on its code (fields and special codes from the type's
// APFloat semantics); arith.truncf to one is an error.

// f8E4M3FN: 3 mantissa bits, bias 7 (exponent + 120 in f32), NaN at 0x7F
// and 0xFF, subnormals m * 2^-9.
// CHECK-LABEL: func.func @e4m3
// CHECK-SAME: (%[[X:.*]]: f8E4M3FN)
// CHECK: %[[B:.*]] = arith.bitcast %[[X]] : f8E4M3FN to i8
// CHECK: %[[C:.*]] = arith.extui %[[B]] : i8 to i32
// CHECK: %[[S:.*]] = arith.shrui %[[C]], %c7_i32
// CHECK: %[[ES:.*]] = arith.shrui %[[C]], %c3_i32
// CHECK: %[[E:.*]] = arith.andi %[[ES]], %c15_i32
// CHECK: %[[M:.*]] = arith.andi %[[C]], %c7_i32
// CHECK: arith.addi %[[E]], %c120_i32
// CHECK: arith.shli %[[M]], %c20_i32
// CHECK: %[[MF:.*]] = arith.uitofp %[[M]] : i32 to f32
// CHECK: arith.mulf %[[MF]], %cst : f32
// CHECK: arith.cmpi eq, %[[C]], %c127_i32
// CHECK: arith.cmpi eq, %[[C]], %c255_i32
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: return %[[F]]
func.func @e4m3(%x: f8E4M3FN) -> f32 {
  %y = arith.extf %x : f8E4M3FN to f32
  return %y : f32
}

// -----

// f8E5M2 on vectors, to bf16: bias 15 (exponent + 112), two mantissa bits,
// infinities and NaNs at the codes of exponent 31 (8 codes); the f32 value
// rounded to bf16 exactly.
// CHECK-LABEL: func.func @e5m2
// CHECK: arith.bitcast %{{.*}} : vector<4xf8E5M2> to vector<4xi8>
// CHECK: arith.addi %{{.*}}, %cst_{{[0-9]+}} : vector<4xi32>
// CHECK-COUNT-8: arith.cmpi eq, %{{.*}} : vector<4xi32>
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
func.func @e5m2(%x: vector<4xf8E5M2>) -> vector<4xbf16> {
  %y = arith.extf %x : vector<4xf8E5M2> to vector<4xbf16>
  return %y : vector<4xbf16>
}

// -----

// f8E4M3FNUZ: bias 8, the one NaN at 0x80 (no negative zero).
// CHECK-LABEL: func.func @fnuz
// CHECK: arith.addi %{{.*}}, %c119_i32
// CHECK-COUNT-1: arith.cmpi eq, %{{.*}}, %c128_i32
// CHECK-NOT: arith.cmpi eq, %{{.*}}, %c{{[0-9]+}}_i32 : i32
// CHECK: arith.extf %{{.*}} : f32 to f64
func.func @fnuz(%x: f8E4M3FNUZ) -> f64 {
  %y = arith.extf %x : f8E4M3FNUZ to f64
  return %y : f64
}

// -----

// Types arith-expand lowers are left to it.
// CHECK-LABEL: func.func @left
// CHECK-NEXT: arith.extf %{{.*}} : f8E8M0FNU to f32
// CHECK-NEXT: arith.extf %{{.*}} : f4E2M1FN to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f4E2M1FN
func.func @left(%x: f8E8M0FNU, %y: f4E2M1FN, %z: f32) -> (f32, f32, f4E2M1FN) {
  %a = arith.extf %x : f8E8M0FNU to f32
  %b = arith.extf %y : f4E2M1FN to f32
  %c = arith.truncf %z : f32 to f4E2M1FN
  return %a, %b, %c : f32, f32, f4E2M1FN
}

// -----

func.func @to_fp8(%x: f32) -> f8E4M3FN {
  // expected-error @+1 {{'arith.truncf' op a conversion to 'f8E4M3FN' has no lowering on any target (MLIR 22); quantize with te.quantize (TransformerEngine's scaling and saturation)}}
  %y = arith.truncf %x : f32 to f8E4M3FN
  return %y : f8E4M3FN
}

// -----

func.func @from_fp6(%x: f6E3M2FN) -> f32 {
  // expected-error @+1 {{'arith.extf' op a conversion from 'f6E3M2FN' has no lowering on any target; dequantize with te.dequantize}}
  %y = arith.extf %x : f6E3M2FN to f32
  return %y : f32
}

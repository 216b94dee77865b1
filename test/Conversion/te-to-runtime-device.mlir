// convert-te-to-runtime{device-memory=true} (GPU targets): tensor data is
// in the context's memory, so the host's own accesses of it go through the
// runtime.
//
// RUN: te-opt %s --convert-te-to-runtime="device-memory=true" --split-input-file | FileCheck %s

// A buffer only the runtime sees: te_rt_mlir_alloc / te_rt_mlir_free. The
// allocation is an llvm.call of an llvm.func (a func.call's result would cost
// upstream's func-to-llvm a walk of the block per call).
// CHECK: llvm.func @te_rt_mlir_alloc(i64, i64) -> !llvm.ptr
// CHECK-LABEL: func.func @raw
// CHECK: %[[P:.*]] = llvm.call @te_rt_mlir_alloc(%{{.*}}, %{{.*}}) : (i64, i64) -> !llvm.ptr
// CHECK: %[[PA:.*]] = llvm.ptrtoint %[[P]]
// CHECK: llvm.insertvalue %[[PA]], %{{.*}}[23]
// CHECK: call @te_rt_mlir_quantize(
// CHECK: call @te_rt_mlir_free(%[[P]])
// CHECK-NOT: aligned_alloc
func.func @raw(%x: memref<32x64xbf16>) {
  %d = memref.alloc() {alignment = 64 : i64} : memref<32x64xf8E4M3FN>
  %s = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
  memref.dealloc %d : memref<32x64xf8E4M3FN>
  memref.dealloc %s : memref<1xf32>
  return
}

// -----

// A row slice (dynamic offset) is passed as its address, without a copy.
// CHECK-LABEL: func.func @slice
// CHECK: memref.extract_strided_metadata
// CHECK: call @te_rt_mlir_quantize
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.copy
func.func @slice(%x: memref<?x64xbf16>, %row: index, %d: memref<32x64xf8E4M3FN>, %s: memref<1xf32>) {
  %v = memref.subview %x[%row, 0] [32, 64] [1, 1] : memref<?x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
  te.quantize_buffers %v quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16, strided<[64, 1], offset: ?>>
  return
}

// -----

// A column slice is copied into a contiguous buffer by a kernel
// (linalg.copy, lowered by te-linalg-to-gpu).
// CHECK-LABEL: func.func @column
// CHECK: memref.alloc
// CHECK: linalg.copy
// CHECK: call @te_rt_mlir_quantize
func.func @column(%x: memref<32x128xbf16>, %d: memref<32x64xf8E4M3FN>, %s: memref<1xf32>) {
  %v = memref.subview %x[0, 64] [32, 64] [1, 1] : memref<32x128xbf16> to memref<32x64xbf16, strided<[128, 1], offset: 64>>
  te.quantize_buffers %v quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16, strided<[128, 1], offset: 64>>
  return
}

// -----

// The host reads a scalar (tensor.extract of a loss) and writes one:
// through a stack slot and te_rt_mlir_read / te_rt_mlir_write; a contiguous
// copy is one te_rt_mlir_copy.
// CHECK-LABEL: func.func @scalars
// CHECK: %[[SLOT:.*]] = memref.alloca() : memref<1xf32>
// CHECK: call @te_rt_mlir_read(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK: %[[V:.*]] = memref.load %[[SLOT]]
// CHECK: memref.alloca() : memref<1xf32>
// CHECK: call @te_rt_mlir_write
// CHECK: call @te_rt_mlir_copy
// CHECK: return %[[V]]
func.func @scalars(%l: memref<f32>, %m: memref<4xf32>, %a: memref<16xbf16>, %b: memref<16xbf16>) -> f32 {
  %c2 = arith.constant 2 : index
  %v = memref.load %l[] : memref<f32>
  memref.store %v, %m[%c2] : memref<4xf32>
  memref.copy %a, %b : memref<16xbf16> to memref<16xbf16>
  return %v : f32
}

// -----

// A dense constant (a global) is uploaded at the function's start and freed
// before it returns.
// CHECK-LABEL: func.func @constant
// CHECK: %[[H:.*]] = memref.get_global @table
// CHECK: %[[D:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: call @te_rt_mlir_write
// CHECK: call @te_rt_mlir_amax
// CHECK: memref.dealloc %[[D]]
// CHECK: return
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, -2.0, 3.0, 0.5]>
func.func @constant(%a: memref<1xf32>) {
  %t = memref.get_global @table : memref<4xf32>
  te.amax_buffers %t outs(%a : memref<1xf32>) : memref<4xf32>
  return
}

// -----

// Small buffers only the host touches (upstream deallocation's bookkeeping
// arrays and its helper function) stay on the host stack; the helper keeps
// its host loads and stores.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: te_rt_mlir_read
// CHECK: memref.load
// CHECK-LABEL: func.func @bookkeeping
// CHECK: memref.alloca() : memref<4xindex>
// CHECK-NOT: te_rt_mlir_write
// CHECK: call @helper
// CHECK-NOT: memref.dealloc
func.func private @helper(%a: memref<?xindex>) -> index {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xindex>
  return %v : index
}
func.func @bookkeeping(%i: index) -> index {
  %c0 = arith.constant 0 : index
  %b = memref.alloc() : memref<4xindex>
  memref.store %i, %b[%c0] : memref<4xindex>
  %c = memref.cast %b : memref<4xindex> to memref<?xindex>
  %r = call @helper(%c) : (memref<?xindex>) -> index
  memref.dealloc %b : memref<4xindex>
  return %r : index
}

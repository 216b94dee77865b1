// convert-te-to-runtime's statistics (-mlir-pass-statistics): the calls
// emitted per entry point, the buffers only the runtime sees and the host's
// accesses of device memory. Counted only where LLVM counts statistics (lit
// feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: te-opt %s --convert-te-to-runtime="device-memory=true" -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// CHECK: ConvertTEToRuntime
// CHECK-DAG: (S) 2 quantize-calls
// CHECK-DAG: (S) 1 dequantize-calls
// CHECK-DAG: (S) 0 gemm-calls
// CHECK-DAG: (S) 1 amax-calls
// CHECK-DAG: (S) 2 runtime-only-buffers
// CHECK-DAG: (S) 2 host-accesses
// CHECK-DAG: (S) 2 attention-calls
func.func @counted(%x: memref<32x64xbf16>, %out: memref<32x64xbf16>, %a: memref<1xf32>) -> f32 {
  %d = memref.alloc() {alignment = 64 : i64} : memref<32x64xf8E4M3FN>
  %s = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise group "tp"
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
  te.dequantize_buffers %d, %s quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%out : memref<32x64xbf16>) : memref<32x64xf8E4M3FN>, memref<1xf32>
  te.amax_buffers %out outs(%a : memref<1xf32>) : memref<32x64xbf16>
  memref.dealloc %d : memref<32x64xf8E4M3FN>
  memref.dealloc %s : memref<1xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<1xf32>
  memref.store %v, %a[%c0] : memref<1xf32>
  return %v : f32
}

func.func @attention(%q: memref<4x16x64xbf16>, %o: memref<4x16x64xbf16>, %l: memref<4x16xf32>,
                     %dq: memref<4x16x64xbf16>) {
  te.attention_buffers %q, %q, %q {scale = 0.125 : f32}
      outs(%o, %l : memref<4x16x64xbf16>, memref<4x16xf32>)
      : memref<4x16x64xbf16>, memref<4x16x64xbf16>, memref<4x16x64xbf16>
  te.attention_grad_buffers %q, %q, %q, %o, %l, %o {scale = 0.125 : f32}
      outs(%dq, %dq, %dq : memref<4x16x64xbf16>, memref<4x16x64xbf16>, memref<4x16x64xbf16>)
      : memref<4x16x64xbf16>, memref<4x16x64xbf16>, memref<4x16x64xbf16>,
        memref<4x16x64xbf16>, memref<4x16xf32>, memref<4x16x64xbf16>
  return
}

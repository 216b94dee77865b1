// RUN: te-opt %s --split-input-file --convert-te-to-runtime | FileCheck %s

// te.attention_buffers -> te_rt_mlir_attention(desc), te.attention_grad_buffers
// -> te_rt_mlir_attention_grad(desc): descriptors of te_rt_abi.def, every
// operand 4-D [batch, heads, rows, cols] with its sizes and strides in
// elements. te_rt_abi::attention (52 words): magic TE_RT_ABI_MAGIC('A')
// (0x7465410005 = 499914964997), dtype (F32 1, F16 2, BF16 3), then q, k,
// v, o each as address, 4 sizes, 4 strides (words 2-10, 11-19, 20-28,
// 29-37), lse (38), scale_bits (39), causal (40), mask_kind (41: 0 none,
// 1 additive, 2 boolean), mask_dtype (42: U8 0), mask address (43), sizes
// (44-47), strides (48-51). Addresses are inserted at run time, the rest is
// one constant where the shapes are static.

// A 4-D grouped-query forward, a boolean mask broadcast over batch and
// heads (strides 0), causal, scale 0.125 (bits 0x3E000000 = 1040187392).
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[Q:[^:]*]]: memref<2x8x128x64xbf16>, %[[K:[^:]*]]: memref<2x2x17x64xbf16>, %[[V:[^:]*]]: memref<2x2x17x32xbf16>, %[[M:[^:]*]]: memref<1x1x128x17xi1>, %[[O:[^:]*]]: memref<2x8x128x32xbf16>, %[[L:[^:]*]]: memref<2x8x128xf32>
// CHECK-DAG: %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.array<52 x i64>
// CHECK-DAG: %[[C:.*]] = llvm.mlir.constant(dense<[499914964997, 3, 0, 2, 8, 128, 64, 65536, 8192, 64, 1, 0, 2, 2, 17, 64, 2176, 1088, 64, 1, 0, 2, 2, 17, 32, 1088, 544, 32, 1, 0, 2, 8, 128, 32, 32768, 4096, 32, 1, 0, 1040187392, 1, 2, 0, 0, 1, 1, 128, 17, 0, 0, 17, 1]> : tensor<52xi64>) : !llvm.array<52 x i64>
// CHECK-DAG: %[[QP:.*]] = memref.extract_aligned_pointer_as_index %[[Q]]
// CHECK-DAG: %[[QA:.*]] = arith.index_cast %[[QP]] : index to i64
// CHECK-DAG: %[[KP:.*]] = memref.extract_aligned_pointer_as_index %[[K]]
// CHECK-DAG: %[[KA:.*]] = arith.index_cast %[[KP]] : index to i64
// CHECK-DAG: %[[VP:.*]] = memref.extract_aligned_pointer_as_index %[[V]]
// CHECK-DAG: %[[VA:.*]] = arith.index_cast %[[VP]] : index to i64
// CHECK-DAG: %[[MP:.*]] = memref.extract_aligned_pointer_as_index %[[M]]
// CHECK-DAG: %[[MA:.*]] = arith.index_cast %[[MP]] : index to i64
// CHECK-DAG: %[[OP:.*]] = memref.extract_aligned_pointer_as_index %[[O]]
// CHECK-DAG: %[[OA:.*]] = arith.index_cast %[[OP]] : index to i64
// CHECK-DAG: %[[LP:.*]] = memref.extract_aligned_pointer_as_index %[[L]]
// CHECK-DAG: %[[LA:.*]] = arith.index_cast %[[LP]] : index to i64
// CHECK: %[[W1:.*]] = llvm.insertvalue %[[QA]], %[[C]][2]
// CHECK: %[[W2:.*]] = llvm.insertvalue %[[KA]], %[[W1]][11]
// CHECK: %[[W3:.*]] = llvm.insertvalue %[[VA]], %[[W2]][20]
// CHECK: %[[W4:.*]] = llvm.insertvalue %[[OA]], %[[W3]][29]
// CHECK: %[[W5:.*]] = llvm.insertvalue %[[LA]], %[[W4]][38]
// CHECK: %[[W6:.*]] = llvm.insertvalue %[[MA]], %[[W5]][43]
// CHECK: llvm.store %[[W6]], %[[SLOT]]
// CHECK: call @te_rt_mlir_attention(%[[SLOT]]) : (!llvm.ptr) -> ()
// CHECK-NOT: te.attention_buffers
func.func @forward(%q: memref<2x8x128x64xbf16>, %k: memref<2x2x17x64xbf16>,
                   %v: memref<2x2x17x32xbf16>, %m: memref<1x1x128x17xi1>,
                   %o: memref<2x8x128x32xbf16>, %l: memref<2x8x128xf32>) {
  te.attention_buffers %q, %k, %v mask %m {causal, scale = 0.125 : f32}
      outs(%o, %l : memref<2x8x128x32xbf16>, memref<2x8x128xf32>)
      : memref<2x8x128x64xbf16>, memref<2x2x17x64xbf16>, memref<2x2x17x32xbf16>, memref<1x1x128x17xi1>
  return
}

// -----

// 3-D [N, L, E] with a dynamic N is [1, N, L, E] (batch stride 0), N read
// at run time (memref.dim, word 4 of q's sizes, 13 of k's, 22 of v's, 31 of
// o's); an f32 additive mask [1, L, S] (mask_kind 1, mask_dtype F32);
// no lse (word 38 stays 0); scale 0.5 (1056964608).
// CHECK-LABEL: func.func @forward_3d
// CHECK-SAME: %[[Q:[^:]*]]: memref<?x100x64xf32>
// CHECK-DAG: %[[C:.*]] = llvm.mlir.constant(dense<[499914964997, 1, 0, 1, 0, 100, 64, 0, 6400, 64, 1, 0, 1, 0, 17, 64, 0, 1088, 64, 1, 0, 1, 0, 17, 64, 0, 1088, 64, 1, 0, 1, 0, 100, 64, 0, 6400, 64, 1, 0, 1056964608, 0, 1, 1, 0, 1, 1, 100, 17, 0, 0, 17, 1]> : tensor<52xi64>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[N:.*]] = memref.dim %[[Q]], %[[C0]]
// CHECK-DAG: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: llvm.insertvalue %[[N64]], %{{.*}}[4]
// CHECK: call @te_rt_mlir_attention(
func.func @forward_3d(%q: memref<?x100x64xf32>, %k: memref<?x17x64xf32>,
                      %m: memref<1x100x17xf32>, %o: memref<?x100x64xf32>) {
  te.attention_buffers %q, %k, %k mask %m {scale = 0.5 : f32}
      outs(%o : memref<?x100x64xf32>)
      : memref<?x100x64xf32>, memref<?x17x64xf32>, memref<?x17x64xf32>, memref<1x100x17xf32>
  return
}

// -----

// Heads split by a transpose ([B, S, H, D] viewed as [B, H, S, D]): the
// view is passed as it is, its strides [65536, 64, 512, 1] in the
// descriptor, its address with its offset (extract_strided_metadata); no
// copy.
// CHECK-LABEL: func.func @strided
// CHECK-SAME: %[[Q:[^:]*]]: memref<2x8x128x64xbf16, strided<[65536, 64, 512, 1], offset: ?>>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK-DAG: llvm.mlir.constant(dense<[499914964997, 3, 0, 2, 8, 128, 64, 65536, 64, 512, 1,
// CHECK-DAG: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:4, %{{.*}}:4 = memref.extract_strided_metadata %[[Q]]
// CHECK: call @te_rt_mlir_attention(
// CHECK-NOT: memref.copy
func.func @strided(%q: memref<2x8x128x64xbf16, strided<[65536, 64, 512, 1], offset: ?>>,
                   %o: memref<2x8x128x64xbf16>) {
  te.attention_buffers %q, %q, %q {scale = 0.125 : f32}
      outs(%o : memref<2x8x128x64xbf16>)
      : memref<2x8x128x64xbf16, strided<[65536, 64, 512, 1], offset: ?>>,
        memref<2x8x128x64xbf16, strided<[65536, 64, 512, 1], offset: ?>>,
        memref<2x8x128x64xbf16, strided<[65536, 64, 512, 1], offset: ?>>
  return
}

// -----

// A last dimension that is not contiguous (stride 2) is copied to a
// row-major buffer before the call; an output of that layout is copied
// back after it.
// CHECK-LABEL: func.func @copied
// CHECK-SAME: %[[Q:[^:]*]]: memref<4x8x16xf16, strided<[256, 32, 2]>>, %{{[^:]*}}: memref<4x8x16xf16>, %[[O:[^:]*]]: memref<4x8x16xf16, strided<[256, 32, 2]>>
// CHECK: %[[T:.*]] = memref.alloc() : memref<4x8x16xf16>
// CHECK: linalg.copy ins(%[[Q]] : {{.*}}) outs(%[[T]] : memref<4x8x16xf16>)
// CHECK: %[[U:.*]] = memref.alloc() : memref<4x8x16xf16>
// CHECK: call @te_rt_mlir_attention(
// CHECK: memref.dealloc %[[T]]
// CHECK: linalg.copy ins(%[[U]] : memref<4x8x16xf16>) outs(%[[O]] : {{.*}})
// CHECK: memref.dealloc %[[U]]
func.func @copied(%q: memref<4x8x16xf16, strided<[256, 32, 2]>>, %k: memref<4x8x16xf16>,
                  %o: memref<4x8x16xf16, strided<[256, 32, 2]>>) {
  te.attention_buffers %q, %k, %k {scale = 0.25 : f32}
      outs(%o : memref<4x8x16xf16, strided<[256, 32, 2]>>)
      : memref<4x8x16xf16, strided<[256, 32, 2]>>, memref<4x8x16xf16>, memref<4x8x16xf16>
  return
}

// -----

// The backward: te_rt_abi::attention_grad (72 words), magic
// TE_RT_ABI_MAGIC('a') = 499917062149; q, k, v, o as the forward's (words
// 2-37), dout (38) and its strides (39-42), lse (43), dq (44) and strides
// (45-48), dk (49, 50-53), dv (54, 55-58), scale_bits (59), causal (60),
// mask words (61-71). A 3-D grouped-query backward, no mask.
// CHECK-LABEL: func.func @backward
// CHECK-DAG: llvm.alloca %{{.*}} x !llvm.array<72 x i64>
// CHECK-DAG: llvm.mlir.constant(dense<[499917062149, 3, 0, 1, 8, 16, 64, 0, 1024, 64, 1, 0, 1, 2, 16, 64, 0, 1024, 64, 1, 0, 1, 2, 16, 64, 0, 1024, 64, 1, 0, 1, 8, 16, 64, 0, 1024, 64, 1, 0, 0, 1024, 64, 1, 0, 0, 0, 1024, 64, 1, 0, 0, 1024, 64, 1, 0, 0, 1024, 64, 1, 1040187392, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<72xi64>)
// CHECK: call @te_rt_mlir_attention_grad(%{{.*}}) : (!llvm.ptr) -> ()
// CHECK-NOT: te.attention_grad_buffers
func.func @backward(%q: memref<8x16x64xbf16>, %k: memref<2x16x64xbf16>, %o: memref<8x16x64xbf16>,
                    %l: memref<8x16xf32>, %do: memref<8x16x64xbf16>,
                    %dq: memref<8x16x64xbf16>, %dk: memref<2x16x64xbf16>, %dv: memref<2x16x64xbf16>) {
  te.attention_grad_buffers %q, %k, %k, %o, %l, %do {causal, scale = 0.125 : f32}
      outs(%dq, %dk, %dv : memref<8x16x64xbf16>, memref<2x16x64xbf16>, memref<2x16x64xbf16>)
      : memref<8x16x64xbf16>, memref<2x16x64xbf16>, memref<2x16x64xbf16>,
        memref<8x16x64xbf16>, memref<8x16xf32>, memref<8x16x64xbf16>
  return
}

// -----

// Buffers only the runtime sees (static, identity layout, used by te ops
// and deallocs only) are plain pointers: the lse saved between the forward
// and the backward.
// CHECK-LABEL: func.func @runtime_only
// CHECK: %[[P:.*]] = llvm.call @aligned_alloc(
// CHECK: call @te_rt_mlir_attention(
// CHECK: call @te_rt_mlir_attention_grad(
// CHECK: llvm.call @free(%[[P]])
func.func @runtime_only(%q: memref<8x16x64xbf16>, %o: memref<8x16x64xbf16>,
                        %dq: memref<8x16x64xbf16>, %dk: memref<8x16x64xbf16>,
                        %dv: memref<8x16x64xbf16>) {
  %l = memref.alloc() : memref<8x16xf32>
  te.attention_buffers %q, %q, %q {scale = 0.125 : f32}
      outs(%o, %l : memref<8x16x64xbf16>, memref<8x16xf32>)
      : memref<8x16x64xbf16>, memref<8x16x64xbf16>, memref<8x16x64xbf16>
  te.attention_grad_buffers %q, %q, %q, %o, %l, %o {scale = 0.125 : f32}
      outs(%dq, %dk, %dv : memref<8x16x64xbf16>, memref<8x16x64xbf16>, memref<8x16x64xbf16>)
      : memref<8x16x64xbf16>, memref<8x16x64xbf16>, memref<8x16x64xbf16>,
        memref<8x16x64xbf16>, memref<8x16xf32>, memref<8x16x64xbf16>
  memref.dealloc %l : memref<8x16xf32>
  return
}

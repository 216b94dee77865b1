// te-linalg-to-gpu: every linalg op and strided copy on memrefs becomes a
// gpu.launch (GPU targets keep tensor data in device memory).
//
// RUN: te-opt %s --te-linalg-to-gpu --canonicalize --split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// Elementwise, static, identity layouts: 8 bf16 lanes per thread (16-byte
// vector accesses), 128 * 1024 / 8 / 256 = 64 blocks of 256 threads, the
// region on vectors.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[C64]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C256]]
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<128x1024xbf16>, vector<8xbf16>
// CHECK: arith.extf {{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: math.tanh {{.*}} : vector<8xf32>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<128x1024xbf16>, vector<8xbf16>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @elementwise(%h: memref<128x1024xbf16>, %a: memref<128x1024xbf16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<128x1024xbf16>) outs(%a : memref<128x1024xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %x = arith.extf %in : bf16 to f32
    %t = math.tanh %x : f32
    %r = arith.truncf %t : f32 to bf16
    linalg.yield %r : bf16
  }
  return
}

// -----

// A microbatch slice (dynamic offset): the host picks the vector kernel when
// the offset keeps 16-byte alignment, the scalar one otherwise.
// CHECK-LABEL: func.func @slice
// CHECK: memref.extract_strided_metadata
// CHECK: arith.remui
// CHECK: scf.if
// CHECK: gpu.launch
// CHECK: vector.load
// CHECK: } else {
// CHECK: gpu.launch
// CHECK-NOT: vector.load
// CHECK: memref.load
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @slice(%x: memref<?x256xbf16>, %row: index, %acc: memref<128x256xf32>) {
  %s = memref.subview %x[%row, 0] [128, 256] [1, 1]
      : memref<?x256xbf16> to memref<128x256xbf16, strided<[256, 1], offset: ?>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<128x256xbf16, strided<[256, 1], offset: ?>>) outs(%acc : memref<128x256xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    %r = arith.addf %out, %e : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Bias broadcast along the rows: the bias is read as a vector along the
// innermost loop; a fill writes its scalar to every lane (a constant vector
// once folded).
// CHECK-LABEL: func.func @bias
// CHECK: gpu.launch
// CHECK-COUNT-2: vector.load
// CHECK: vector.store
// CHECK: gpu.launch
// CHECK: vector.store %[[ZEROS:.*]], %{{.*}} : memref<64x512xf32>, vector<4xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias(%x: memref<64x512xbf16>, %b: memref<512xbf16>, %y: memref<64x512xbf16>, %z: memref<64x512xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<64x512xbf16>, memref<512xbf16>) outs(%y : memref<64x512xbf16>) {
  ^bb0(%a: bf16, %c: bf16, %out: bf16):
    %r = arith.addf %a, %c : bf16
    linalg.yield %r : bf16
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%z : memref<64x512xf32>)
  return
}

// -----

// A reduction over every element (a loss): chunks of the reduction per
// block, 8 bf16 lanes per thread (16-byte loads), four loads per loop
// iteration, the lanes combined in order, then across the block with
// gpu.all_reduce into a temporary buffer; then one block per output
// combines the chunks (threads striding them, gpu.all_reduce) and adds the
// initial value. Kernels are named after the function, their role and the
// op's line.
// CHECK-LABEL: func.func @loss
// 128 * 256 elements in chunks of at least 4 * 256 * 8: 4 chunks.
// CHECK: %[[P:.*]] = memref.alloc() : memref<4xf32>
// CHECK: gpu.launch {{.*}} function(@loss_reduce_rows_L{{[0-9]+}}_kernel)
// CHECK: scf.for
// CHECK-COUNT-4: vector.load %{{.*}} : memref<128x256xbf16>, vector<8xbf16>
// CHECK: scf.yield %{{.*}} : vector<8xf32>
// CHECK: scf.for
// CHECK: vector.extract %{{.*}}[7] : f32 from vector<8xf32>
// CHECK: gpu.all_reduce add %{{.*}} uniform
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: gpu.launch {{.*}} function(@loss_reduce_combine_L{{[0-9]+}}_kernel)
// CHECK: scf.for
// CHECK: memref.load %[[P]]
// CHECK: gpu.all_reduce add
// CHECK: memref.load %{{.*}}[] : memref<f32>
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK: memref.dealloc %[[P]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @loss(%y: memref<128x256xbf16>, %l: memref<f32>) {
  linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%y : memref<128x256xbf16>) outs(%l : memref<f32>) {
  ^bb0(%a: bf16, %acc: f32):
    %f = arith.extf %a : bf16 to f32
    %d = arith.mulf %f, %f : f32
    %r = arith.addf %acc, %d : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A column reduction (a bias gradient): one thread per 8 adjacent outputs
// (16-byte loads, a vector accumulator), each output summed in row order,
// no block reduction. The combine kernel: 8 threads per output (32 outputs
// per block of 256), each folding every 8th chunk, the 8 results folded in
// order through workgroup memory into the output.
// CHECK-LABEL: func.func @dbias
// CHECK: gpu.launch {{.*}} function(@dbias_reduce_columns_L{{[0-9]+}}_kernel)
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.for
// CHECK-COUNT-4: vector.load %{{.*}} : memref<2048x4096xbf16>, vector<8xbf16>
// CHECK: arith.addf %{{.*}} : vector<8xf32>
// CHECK: vector.store %{{.*}} : memref<{{[0-9]+}}xf32>, vector<8xf32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c128, {{.*}} threads({{.*}}) in (%{{.*}} = %c256, {{.*}} function(@dbias_reduce_combine_L{{[0-9]+}}_kernel) workgroup(%[[SLOTS:.*]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.for %{{.*}} step %c32
// CHECK-COUNT-4: memref.load %{{.*}} : memref<{{[0-9]+}}xf32>
// CHECK: memref.store %{{.*}}, %[[SLOTS]]
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<4096xf32>
// CHECK-COUNT-8: memref.load %[[SLOTS]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @dbias(%g: memref<2048x4096xbf16>, %db: memref<4096xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%g : memref<2048x4096xbf16>) outs(%db : memref<4096xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %f = arith.extf %a : bf16 to f32
    %r = arith.addf %acc, %f : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A max reduction: the identity is -inf, the block reduction a max.
// CHECK-LABEL: func.func @rowmax
// CHECK: arith.constant dense<0xFF800000> : vector<4xf32>
// CHECK: gpu.all_reduce maxnumf
func.func @rowmax(%x: memref<64x4096xf32>, %m: memref<64xf32>) {
  linalg.reduce ins(%x : memref<64x4096xf32>) outs(%m : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maxnumf %in, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// -----

// A copy into a column slice (tensor.insert_slice at a column offset) is a
// kernel; a contiguous copy is left to convert-te-to-runtime (one memcpy).
// CHECK-LABEL: func.func @copies
// CHECK: gpu.launch
// CHECK: vector.load %{{.*}} : memref<32x64xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}} : memref<32x64xf32, strided<[128, 1], offset: 64>>, vector<4xf32>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<32x64xf32> to memref<32x64xf32>
func.func @copies(%a: memref<32x64xf32>, %b: memref<32x128xf32>, %c: memref<32x64xf32>) {
  %s = memref.subview %b[0, 64] [32, 64] [1, 1] : memref<32x128xf32> to memref<32x64xf32, strided<[128, 1], offset: 64>>
  memref.copy %a, %s : memref<32x64xf32> to memref<32x64xf32, strided<[128, 1], offset: 64>>
  memref.copy %a, %c : memref<32x64xf32> to memref<32x64xf32>
  return
}

// -----

// A row reduction over a slice with a dynamic offset and row stride: the
// host picks the 16-byte kernel when the offset and stride keep vector
// accesses aligned, the scalar one otherwise; each kernel has its own name.
// CHECK-LABEL: func.func @rowsum_slice
// CHECK: %[[META:.*]], %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata
// CHECK: scf.if
// CHECK: gpu.launch {{.*}} function(@rowsum_slice_reduce_rows_L[[L:[0-9]+]]_kernel)
// CHECK: vector.load {{.*}} vector<8xbf16>
// CHECK: gpu.launch {{.*}} function(@rowsum_slice_reduce_combine_L[[L]]_kernel)
// CHECK: } else {
// CHECK: gpu.launch {{.*}} function(@rowsum_slice_reduce_rows_L[[L]]_kernel_0)
// CHECK-NOT: vector.load
// CHECK: gpu.launch {{.*}} function(@rowsum_slice_reduce_combine_L[[L]]_kernel_0)
func.func @rowsum_slice(%x: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %s: memref<?xf32>) {
  linalg.reduce ins(%x : memref<?x?xbf16, strided<[?, 1], offset: ?>>) outs(%s : memref<?xf32>) dimensions = [1]
    (%in: bf16, %acc: f32) {
      %f = arith.extf %in : bf16 to f32
      %r = arith.addf %f, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// -----

// A matrix product is one call of the runtime's cuBLASLt matmul: sizes,
// then per operand its first element's address, te_rt_dtype (bf16 = 3,
// f32 = 1), transpose flag (A, B), row stride and batch stride.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: gpu.launch
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 128 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 256 : i64
// CHECK-DAG: %[[BF16:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[F32:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i64
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %c2 : index
// CHECK: call @te_rt_mlir_matmul(%[[C1]], %[[M]], %[[N]], %[[K]], %{{.*}}, %[[BF16]], %[[NO]], %{{.*}}, %[[Z]], %{{.*}}, %[[BF16]], %[[NO]], %[[N]], %[[Z]], %{{.*}}, %[[F32]], %[[N]], %[[Z]], %c1_i32)
func.func @matmul(%a: memref<128x256xbf16, strided<[512, 1], offset: ?>>, %b: memref<256x64xbf16>, %c: memref<128x64xf32>) {
  linalg.matmul ins(%a, %b : memref<128x256xbf16, strided<[512, 1], offset: ?>>, memref<256x64xbf16>) outs(%c : memref<128x64xf32>)
  return
}

// -----

// A batched product with B stored transposed ([batch, N, K]): trans_b = 1,
// batch strides from the layouts.
// CHECK-LABEL: func.func @batch_matmul_bt
// CHECK: %[[B:.*]] = memref.dim %{{.*}}, %c0
// CHECK: %[[BATCH:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK: call @te_rt_mlir_matmul(%[[BATCH]], {{.*}}, %c1_i32, %c256_i64, %c16384_i64, {{.*}}, %c8192_i64, %c1_i32)
func.func @batch_matmul_bt(%a: memref<?x128x256xf16>, %b: memref<?x64x256xf16>, %c: memref<?x128x64xf16>) {
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
    ins(%a, %b : memref<?x128x256xf16>, memref<?x64x256xf16>) outs(%c : memref<?x128x64xf16>)
  return
}

// -----

// A column-major operand (no unit innermost stride), mixed operand types
// or an integer product are not the runtime's: they stay reductions.
// CHECK-LABEL: func.func @not_dense
// CHECK-NOT: te_rt_mlir_matmul
// CHECK: gpu.launch {{.*}}reduce_rows
// CHECK: gpu.launch {{.*}}reduce_rows
// CHECK: gpu.launch {{.*}}reduce_rows
func.func @not_dense(%a: memref<32x64xf32, strided<[1, 32]>>, %b: memref<64x16xf32>, %c: memref<32x16xf32>,
                     %h: memref<32x64xf16>, %i: memref<32x64xi32>, %j: memref<64x16xi32>, %k: memref<32x16xi32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf32, strided<[1, 32]>>, memref<64x16xf32>) outs(%c : memref<32x16xf32>)
  linalg.matmul ins(%h, %b : memref<32x64xf16>, memref<64x16xf32>) outs(%c : memref<32x16xf32>)
  linalg.matmul ins(%i, %j : memref<32x64xi32>, memref<64x16xi32>) outs(%k : memref<32x16xi32>)
  return
}

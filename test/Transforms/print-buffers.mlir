// RUN: te-opt %s -split-input-file --te-print-buffers -o /dev/null | FileCheck %s
// RUN: te-opt %s -split-input-file --pass-pipeline='builtin.module(te-print-buffers)' | FileCheck %s --check-prefix=IR

// te-print-buffers prints, for every quantized value, the buffers of its
// layout. Every expectation is computed by hand from docs/formats.md §3 for the
// logical shape 2x96x160 (M = 192 leading rows, K = 160; rup(x, a) = ceil(x/a)*a):
//
// * per-tensor FP8 (§3.1): _data = logical shape; on sm_90 columnwise is
//   _transpose = (K, d0, d1) = 160x2x96; on sm_100 _data serves both;
//   _scale_inv = 1xf32.
// * block 1x128 (§3.4): rowwise scales (ceil(K/128), rup(M, 4)) = 2x192,
//   columnwise data (K, d0, d1) = 160x2x96, scales (ceil(M/128), rup(K, 4))
//   = 2x160; 128x128: (ceil(M/128), rup(ceil(K/128), 4)) = 2x4 and
//   (ceil(K/128), rup(ceil(M/128), 4)) = 2x4; fp32.
// * MXFP8 (§3.3): data not transposed, rowwise scales (rup(M, 128),
//   rup(ceil(K/32), 4)) = 256x8, columnwise (rup(ceil(M/32), 4), rup(K, 128))
//   = 8x256, E8M0. 32x32 blocks keep the same layout.
// * NVFP4 (§3.5, §9.1): rowwise data (d0, d1, K/2) = 2x96x80 packed in i8,
//   scales (rup(M, 128), rup(ceil(K/16), 4)) = 256x12 E4M3; columnwise data
//   2-D (K, M/2) = 160x96, scales (rup(K, 128), rup(ceil(M/16), 4)) = 256x12;
//   amaxes 1xf32, or (M) = 192 / (K) = 160 when row-scaled (§9.2).

// The IR is unchanged.
// IR-LABEL: func.func @delayed
// IR-SAME: %arg0: !te.qtensor<2x96x160xbf16, #te.delayed<f8E4M3FN>, rowwise>

// sm_90 (no te.target attribute).
// CHECK: te-buffers @delayed %arg0 : _data 2x96x160xf8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @delayed %arg1 : _transpose 160x2x96xf8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @delayed %arg2 : _data 2x96x160xf8E4M3FN, _transpose 160x2x96xf8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @current %arg0 : _data 2x96x160xf8E5M2, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @current %arg1 : _transpose 160x2x96xf8E5M2, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @current %arg2 : _data 2x96x160xf8E5M2, _transpose 160x2x96xf8E5M2, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @block1d %arg0 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 2x192xf32{{$}}
// CHECK-NEXT: te-buffers @block1d %arg1 : _columnwise_data 160x2x96xf8E4M3FN, _columnwise_scale_inv 2x160xf32{{$}}
// CHECK-NEXT: te-buffers @block1d %arg2 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 2x192xf32, _columnwise_data 160x2x96xf8E4M3FN, _columnwise_scale_inv 2x160xf32{{$}}
// CHECK-NEXT: te-buffers @block2d %arg0 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 2x4xf32{{$}}
// CHECK-NEXT: te-buffers @block2d %arg1 : _columnwise_data 160x2x96xf8E4M3FN, _columnwise_scale_inv 2x4xf32{{$}}
// CHECK-NEXT: te-buffers @block2d %arg2 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 2x4xf32, _columnwise_data 160x2x96xf8E4M3FN, _columnwise_scale_inv 2x4xf32{{$}}
// CHECK-NEXT: te-buffers @mxfp8 %arg0 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 256x8xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8 %arg1 : _columnwise_data 2x96x160xf8E4M3FN, _columnwise_scale_inv 8x256xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8 %arg2 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 256x8xf8E8M0FNU, _columnwise_data 2x96x160xf8E4M3FN, _columnwise_scale_inv 8x256xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8_2d %arg0 : _rowwise_data 2x96x160xf8E5M2, _rowwise_scale_inv 256x8xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8_2d %arg1 : _columnwise_data 2x96x160xf8E5M2, _columnwise_scale_inv 8x256xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8_2d %arg2 : _rowwise_data 2x96x160xf8E5M2, _rowwise_scale_inv 256x8xf8E8M0FNU, _columnwise_data 2x96x160xf8E5M2, _columnwise_scale_inv 8x256xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @nvfp4 %arg0 : _rowwise_data 2x96x80xi8, _rowwise_scale_inv 256x12xf8E4M3FN, _amax_rowwise 1xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4 %arg1 : _columnwise_data 160x96xi8, _columnwise_scale_inv 256x12xf8E4M3FN, _amax_columnwise 1xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4 %arg2 : _rowwise_data 2x96x80xi8, _rowwise_scale_inv 256x12xf8E4M3FN, _columnwise_data 160x96xi8, _columnwise_scale_inv 256x12xf8E4M3FN, _amax_rowwise 1xf32, _amax_columnwise 1xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4_rowscaled %arg0 : _rowwise_data 2x96x80xi8, _rowwise_scale_inv 256x12xf8E4M3FN, _amax_rowwise 192xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4_rowscaled %arg1 : _columnwise_data 160x96xi8, _columnwise_scale_inv 256x12xf8E4M3FN, _amax_columnwise 160xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4_rowscaled %arg2 : _rowwise_data 2x96x80xi8, _rowwise_scale_inv 256x12xf8E4M3FN, _columnwise_data 160x96xi8, _columnwise_scale_inv 256x12xf8E4M3FN, _amax_rowwise 192xf32, _amax_columnwise 160xf32{{$}}

func.func @delayed(
    %r: !te.qtensor<2x96x160xbf16, #te.delayed<f8E4M3FN>, rowwise>,
    %c: !te.qtensor<2x96x160xbf16, #te.delayed<f8E4M3FN>, columnwise>,
    %rc: !te.qtensor<2x96x160xbf16, #te.delayed<f8E4M3FN>, rowwise|columnwise>) {
  return
}

func.func @current(
    %r: !te.qtensor<2x96x160xbf16, #te.current<f8E5M2>, rowwise>,
    %c: !te.qtensor<2x96x160xbf16, #te.current<f8E5M2>, columnwise>,
    %rc: !te.qtensor<2x96x160xbf16, #te.current<f8E5M2>, rowwise|columnwise>) {
  return
}

func.func @block1d(
    %r: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN>, rowwise>,
    %c: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN>, columnwise>,
    %rc: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>) {
  return
}

func.func @block2d(
    %r: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise>,
    %c: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN, dims = 2>, columnwise>,
    %rc: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>) {
  return
}

func.func @mxfp8(
    %r: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
    %c: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E4M3FN>, columnwise>,
    %rc: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>) {
  return
}

func.func @mxfp8_2d(
    %r: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E5M2, block_2d = true>, rowwise>,
    %c: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E5M2, block_2d = true>, columnwise>,
    %rc: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E5M2, block_2d = true>, rowwise|columnwise>) {
  return
}

func.func @nvfp4(
    %r: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise>,
    %c: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>,
    %rc: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>) {
  return
}

func.func @nvfp4_rowscaled(
    %r: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, row_scaled = true>, rowwise>,
    %c: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, row_scaled = true>, columnwise>,
    %rc: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, row_scaled = true>, rowwise|columnwise>) {
  return
}

// -----

// On sm_100 the per-tensor FP8 `_data` serves both usages (§3.1); the other
// recipes do not depend on the target.
// CHECK: te-buffers @delayed %arg0 : _data 2x96x160xf8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @delayed %arg1 : _data 2x96x160xf8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @delayed %arg2 : _data 2x96x160xf8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @current %arg0 : _data 2x96x160xf8E5M2, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @current %arg1 : _data 2x96x160xf8E5M2, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @current %arg2 : _data 2x96x160xf8E5M2, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @block1d %arg0 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 2x192xf32{{$}}
// CHECK-NEXT: te-buffers @block1d %arg1 : _columnwise_data 160x2x96xf8E4M3FN, _columnwise_scale_inv 2x160xf32{{$}}
// CHECK-NEXT: te-buffers @block1d %arg2 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 2x192xf32, _columnwise_data 160x2x96xf8E4M3FN, _columnwise_scale_inv 2x160xf32{{$}}
// CHECK-NEXT: te-buffers @block2d %arg0 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 2x4xf32{{$}}
// CHECK-NEXT: te-buffers @block2d %arg1 : _columnwise_data 160x2x96xf8E4M3FN, _columnwise_scale_inv 2x4xf32{{$}}
// CHECK-NEXT: te-buffers @block2d %arg2 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 2x4xf32, _columnwise_data 160x2x96xf8E4M3FN, _columnwise_scale_inv 2x4xf32{{$}}
// CHECK-NEXT: te-buffers @mxfp8 %arg0 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 256x8xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8 %arg1 : _columnwise_data 2x96x160xf8E4M3FN, _columnwise_scale_inv 8x256xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8 %arg2 : _rowwise_data 2x96x160xf8E4M3FN, _rowwise_scale_inv 256x8xf8E8M0FNU, _columnwise_data 2x96x160xf8E4M3FN, _columnwise_scale_inv 8x256xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8_2d %arg0 : _rowwise_data 2x96x160xf8E5M2, _rowwise_scale_inv 256x8xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8_2d %arg1 : _columnwise_data 2x96x160xf8E5M2, _columnwise_scale_inv 8x256xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @mxfp8_2d %arg2 : _rowwise_data 2x96x160xf8E5M2, _rowwise_scale_inv 256x8xf8E8M0FNU, _columnwise_data 2x96x160xf8E5M2, _columnwise_scale_inv 8x256xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @nvfp4 %arg0 : _rowwise_data 2x96x80xi8, _rowwise_scale_inv 256x12xf8E4M3FN, _amax_rowwise 1xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4 %arg1 : _columnwise_data 160x96xi8, _columnwise_scale_inv 256x12xf8E4M3FN, _amax_columnwise 1xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4 %arg2 : _rowwise_data 2x96x80xi8, _rowwise_scale_inv 256x12xf8E4M3FN, _columnwise_data 160x96xi8, _columnwise_scale_inv 256x12xf8E4M3FN, _amax_rowwise 1xf32, _amax_columnwise 1xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4_rowscaled %arg0 : _rowwise_data 2x96x80xi8, _rowwise_scale_inv 256x12xf8E4M3FN, _amax_rowwise 192xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4_rowscaled %arg1 : _columnwise_data 160x96xi8, _columnwise_scale_inv 256x12xf8E4M3FN, _amax_columnwise 160xf32{{$}}
// CHECK-NEXT: te-buffers @nvfp4_rowscaled %arg2 : _rowwise_data 2x96x80xi8, _rowwise_scale_inv 256x12xf8E4M3FN, _columnwise_data 160x96xi8, _columnwise_scale_inv 256x12xf8E4M3FN, _amax_rowwise 192xf32, _amax_columnwise 160xf32{{$}}
module attributes {te.target = #te.target<sm_100>} {
  func.func @delayed(
      %r: !te.qtensor<2x96x160xbf16, #te.delayed<f8E4M3FN>, rowwise>,
      %c: !te.qtensor<2x96x160xbf16, #te.delayed<f8E4M3FN>, columnwise>,
      %rc: !te.qtensor<2x96x160xbf16, #te.delayed<f8E4M3FN>, rowwise|columnwise>) {
    return
  }

  func.func @current(
      %r: !te.qtensor<2x96x160xbf16, #te.current<f8E5M2>, rowwise>,
      %c: !te.qtensor<2x96x160xbf16, #te.current<f8E5M2>, columnwise>,
      %rc: !te.qtensor<2x96x160xbf16, #te.current<f8E5M2>, rowwise|columnwise>) {
    return
  }

  func.func @block1d(
      %r: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN>, rowwise>,
      %c: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN>, columnwise>,
      %rc: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>) {
    return
  }

  func.func @block2d(
      %r: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise>,
      %c: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN, dims = 2>, columnwise>,
      %rc: !te.qtensor<2x96x160xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>) {
    return
  }

  func.func @mxfp8(
      %r: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
      %c: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E4M3FN>, columnwise>,
      %rc: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>) {
    return
  }

  func.func @mxfp8_2d(
      %r: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E5M2, block_2d = true>, rowwise>,
      %c: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E5M2, block_2d = true>, columnwise>,
      %rc: !te.qtensor<2x96x160xbf16, #te.mxfp8<f8E5M2, block_2d = true>, rowwise|columnwise>) {
    return
  }

  func.func @nvfp4(
      %r: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise>,
      %c: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>,
      %rc: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>) {
    return
  }

  func.func @nvfp4_rowscaled(
      %r: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, row_scaled = true>, rowwise>,
      %c: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, row_scaled = true>, columnwise>,
      %rc: !te.qtensor<2x96x160xbf16, #te.nvfp4<f4E2M1FN, row_scaled = true>, rowwise|columnwise>) {
    return
  }
}

// -----

// Op results and region arguments are quantized values too; a dynamic
// dimension stays `?` (M dynamic: the row-padded scale dimension is unknown).
// CHECK: te-buffers @values %arg0 : _rowwise_data ?x64xf8E4M3FN, _rowwise_scale_inv ?x4xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @values %result = te.quantize : _rowwise_data 32x64xf8E4M3FN, _rowwise_scale_inv 128x4xf8E8M0FNU{{$}}
// CHECK-NEXT: te-buffers @values %result_0 = te.quantize : _data 32x64xf8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @values %arg5 : _data 32x64xf8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @values %0 = scf.for : _data 32x64xf8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NOT: te-buffers
func.func @values(%d: !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
                  %x: tensor<32x64xbf16>, %s: tensor<1xf32>, %n: index) {
  %q = te.quantize %x : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %p, %amax = te.quantize %x scale %s : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %p)
      -> (!te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>) {
    scf.yield %a : !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>
  }
  return
}

// -----

// A 0-d tensor (one element), per-tensor scaling: _data and _transpose are
// the element itself, _scale_inv is (1,) (TE's Float8Tensor of shape []).
// CHECK: te-buffers @scalar %result = te.quantize : _data f8E4M3FN, _transpose f8E4M3FN, _scale_inv 1xf32{{$}}
// CHECK-NEXT: te-buffers @scalar %result_0 = te.quantize : _data f8E5M2, _scale_inv 1xf32{{$}}
func.func @scalar(%x: tensor<bf16>, %s: tensor<1xf32>) -> (tensor<f32>, tensor<f32>) {
  %q = te.quantize %x : tensor<bf16> -> !te.qtensor<bf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %d, %amax = te.quantize %x scale %s : tensor<bf16>
      -> !te.qtensor<bf16, #te.delayed<f8E5M2>, rowwise>, tensor<1xf32>
  %a = te.dequantize %q : !te.qtensor<bf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<f32>
  %b = te.dequantize %d : !te.qtensor<bf16, #te.delayed<f8E5M2>, rowwise> -> tensor<f32>
  return %a, %b : tensor<f32>, tensor<f32>
}

// RUN: te-opt %s -split-input-file -verify-diagnostics

// te.emulated_operand_buffers and the GEMM's a_emulated / b_emulated: every
// verifier message. MXFP8 [64, 128] rowwise on sm_90 has the buffers
// 64x128xf8E4M3FN and 128x4xf8E8M0FNU.

func.func @not_block_scaled(%d: tensor<64x128xf8E4M3FN>, %s: tensor<1xf32>,
                            %o: tensor<8192xbf16>) {
  // expected-error @below {{emulated GEMM operands are MXFP8 or NVFP4, got per-tensor FP8}}
  %e = te.emulated_operand_buffers %d, %s quantizer #te.current<f8E4M3FN>
      usage rowwise reads rowwise shape [64, 128] outs(%o : tensor<8192xbf16>)
      : tensor<64x128xf8E4M3FN>, tensor<1xf32> -> tensor<8192xbf16>
  return
}

// -----

module attributes {te.target = #te.target<sm_100>} {
func.func @sm100(%d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>,
                 %o: tensor<8192xbf16>) {
  // expected-error @below {{emulated GEMM operands exist on sm_90 only, the module targets sm_100}}
  %e = te.emulated_operand_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN>
      usage rowwise reads rowwise shape [64, 128] outs(%o : tensor<8192xbf16>)
      : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> tensor<8192xbf16>
  return
}
}

// -----

func.func @two_copies(%d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>,
                      %o: tensor<8192xbf16>) {
  // expected-error @below {{reads one copy, rowwise or columnwise, got 'rowwise|columnwise'}}
  %e = te.emulated_operand_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN>
      usage rowwise reads rowwise|columnwise shape [64, 128] outs(%o : tensor<8192xbf16>)
      : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> tensor<8192xbf16>
  return
}

// -----

func.func @copy_not_held(%d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>,
                         %o: tensor<8192xbf16>) {
  // expected-error @below {{reads the columnwise copy of a tensor holding only rowwise}}
  %e = te.emulated_operand_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN>
      usage rowwise reads columnwise shape [64, 128] outs(%o : tensor<8192xbf16>)
      : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> tensor<8192xbf16>
  return
}

// -----

func.func @scalar(%d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>,
                  %o: tensor<1xbf16>) {
  // expected-error @below {{needs an operand of rank >= 1 (a GEMM operand)}}
  %e = te.emulated_operand_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN>
      usage rowwise reads rowwise shape [] outs(%o : tensor<1xbf16>)
      : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> tensor<1xbf16>
  return
}

// -----

func.func @wrong_output(%d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>,
                        %o: tensor<64x128xbf16>) {
  // expected-error @below {{the output must be 8192xbf16 (the operand's rows x cols in bf16), got 64x128xbf16}}
  %e = te.emulated_operand_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN>
      usage rowwise reads rowwise shape [64, 128] outs(%o : tensor<64x128xbf16>)
      : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> tensor<64x128xbf16>
  return
}

// -----

func.func @two_outputs(%d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>,
                       %o: tensor<8192xbf16>) {
  // expected-error @below {{writes one bf16 operand, got 2 'outs' operands}}
  %e:2 = te.emulated_operand_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN>
      usage rowwise reads rowwise shape [64, 128] outs(%o, %o : tensor<8192xbf16>, tensor<8192xbf16>)
      : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> tensor<8192xbf16>, tensor<8192xbf16>
  return
}

// -----

func.func @wrong_buffers(%d: tensor<64x128xf8E4M3FN>, %o: tensor<8192xbf16>) {
  // expected-error @below {{input expects 2 buffers on sm_90 (_rowwise_data, _rowwise_scale_inv), got 1}}
  %e = te.emulated_operand_buffers %d quantizer #te.mxfp8<f8E4M3FN>
      usage rowwise reads rowwise shape [64, 128] outs(%o : tensor<8192xbf16>)
      : tensor<64x128xf8E4M3FN> -> tensor<8192xbf16>
  return
}

// -----

// A GEMM emulated in bf16 takes an emulated operand of its operand's size.
func.func @gemm_wrong_size(%w: tensor<64x128xf8E4M3FN>, %ws: tensor<128x4xf8E8M0FNU>,
                           %x: tensor<32x128xf8E4M3FN>, %xs: tensor<128x4xf8E8M0FNU>,
                           %e: tensor<4096xbf16>, %o: tensor<32x64xbf16>) {
  // expected-error @below {{'a_emulated' must be 8192xbf16 (the operand's rows x cols in bf16), got 4096xbf16}}
  %y = te.gemm_buffers layout TN
      a(%w, %ws : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) quantizer #te.mxfp8<f8E4M3FN> usage rowwise shape [64, 128]
      b(%x, %xs : tensor<32x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) quantizer #te.mxfp8<f8E4M3FN> usage rowwise shape [32, 128]
      a_emulated(%e : tensor<4096xbf16>) b_emulated(%e : tensor<4096xbf16>)
      outs(%o : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  return
}

// -----

// FP8 GEMMs are native: no emulated operands.
func.func @gemm_native(%w: tensor<64x128xf8E4M3FN>, %s: tensor<1xf32>,
                       %x: tensor<32x128xf8E4M3FN>, %e: tensor<8192xbf16>,
                       %o: tensor<32x64xbf16>) {
  // expected-error @below {{takes emulated operands only for a GEMM emulated in bf16 on sm_90 (MXFP8; NVFP4 without per-row scales or an RHT that the GEMM does not cancel)}}
  %y = te.gemm_buffers layout TN
      a(%w, %s : tensor<64x128xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [64, 128]
      b(%x, %s : tensor<32x128xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 128]
      a_emulated(%e : tensor<8192xbf16>)
      outs(%o : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  return
}

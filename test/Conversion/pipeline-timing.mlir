// te-pipeline with --mlir-timing: the report names every stage, in the
// order of docs/guide/passes.md (no pass of its own legalizes: te-set-target
// makes the remark of an emulated GEMM). With reference=true the twin's
// convert-te-to-reference runs after te-decompose-linear.
//
// RUN: te-opt %s --te-pipeline="target=sm_90" --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefixes=REMARK90,TIMING,NATIVE
// RUN: te-opt %s --te-pipeline="target=cpu reference=true" --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefixes=TIMING,REFERENCE
// RUN: te-opt %s --te-pipeline="target=cpu lower-to-llvm=false" --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefixes=REMARKCPU,NOLLVM
// RUN: te-opt %s --te-pipeline="target=sm_100" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM100 --allow-empty
//
// The remark, once per function and emulated recipe (NVFP4 and MXFP8 on
// sm_90 / cpu), without the op printed:
// REMARK90: remark: nvfp4 GEMM has no native kernel on sm_90: the runtime emulates it exactly (operands dequantized to bf16, or fp32 where bf16 is not exact, and a cuBLASLt GEMM); remarked once per function, remarks=false silences it
// REMARK90-NOT: see current operation
// REMARK90: remark: mxfp8 GEMM has no native kernel on sm_90: the runtime emulates it exactly (operands dequantized to bf16, or fp32 where bf16 is not exact, and a cuBLASLt GEMM); remarked once per function, remarks=false silences it
// REMARK90-NOT: remark
// REMARKCPU: remark: nvfp4 GEMM has no native kernel on cpu: the runtime emulates it exactly (dequantized operands, float64 dot products); remarked once per function, remarks=false silences it
// REMARKCPU: remark: mxfp8 GEMM has no native kernel on cpu: the runtime emulates it exactly (dequantized operands, float64 dot products); remarked once per function, remarks=false silences it
// sm_100 has native MXFP8 and NVFP4 GEMMs: no remark.
// SM100-NOT: remark
//
// TIMING: Execution time report
// TIMING: Wall Time
// TIMING: Parser
// TIMING-NEXT: TESetTarget
// TIMING-NEXT: Inliner
// TIMING: ConvertElementwiseToLinalgPass
// TIMING: TEDecomposeAggregates
// TIMING: TEExpandIntegerPowers
// TIMING: TEDefineIntegerDivision
// TIMING: TEExpandFloat8Extensions
// NATIVE-NEXT: TESplitArgReductions
// TIMING: TEInferShapes
// TIMING-NEXT: TEDecomposeLinear
// REFERENCE-NEXT: ConvertTEToReference
// TIMING-NEXT: TEFuseAccumulate
// TIMING-NEXT: TEInferUsages
// TIMING-NEXT: TEEliminateAliases
// TIMING-NEXT: TEExpandQTensors
// TIMING-NEXT: Canonicalizer
// TIMING-NEXT: TEFuseElementwise
// REFERENCE-NEXT: TEFuseQuantize
// NATIVE-NEXT: TEShareEmulatedOperands
// TIMING-NEXT: TECheckShapes
// TIMING-NEXT: TEBufferizeBoundaries
// TIMING-NEXT: TEConstantGlobals
// TIMING-NEXT: OneShotBufferizePass
// TIMING-NEXT: TEFoldAttentionTransposes
//
// Buffer deallocation: the te program is straight-line code, which
// TEDeallocate frees directly; the twin (linalg on buffers) runs the
// upstream deallocation pipeline inside it. The report lists the nested
// passes of TEDeallocate and LowerIfPresent under the first
// 'builtin.module' Pipeline entry.
// TIMING-NEXT: TEDeallocate
//
// On a GPU target: tensor data in device memory, every op on it a kernel
// (te-linalg-to-gpu, twice: convert-te-to-runtime copies strided operands),
// the kernels outlined, compiled and embedded.
// NATIVE-NEXT: TEExpandReshapes
// NATIVE-NEXT: ConvertBufferizationToMemRefPass
// NATIVE-NEXT: TELinalgToGPU
// NATIVE-NEXT: ConvertTEToRuntime
// NATIVE-NEXT: TELinalgToGPU
// NATIVE-NEXT: GpuLaunchSinkIndexComputationsPass
// NATIVE-NEXT: GpuKernelOutliningPass
// REFERENCE-NEXT: 'builtin.module' Pipeline
// REFERENCE-NEXT: ExpandReallocPass
// REFERENCE: OwnershipBasedBufferDeallocationPass
// REFERENCE: TESplitDeallocs
// REFERENCE: LowerDeallocationsPass
//
// The lowering stages before convert-to-llvm run only when the module has
// ops they lower (te-pipeline's LowerIfPresent, one walk): the te program
// has none left, its fp32 twin has linalg, scf and float arith (on host
// functions bf16 arithmetic promoted to f32, then arith-expand with bf16
// conversions; on kernels arith-expand without).
// REFERENCE: ConvertLinalgToLoopsPass
// REFERENCE-NEXT: Pipeline Collection : ['func.func', 'gpu.module']
// REFERENCE-NEXT: 'func.func' Pipeline
// REFERENCE-NEXT: ArithEmulateUnsupportedFloats
// REFERENCE-NEXT: ArithExpandOpsPass
// REFERENCE-NEXT: SCFToControlFlowPass
// REFERENCE-NEXT: TEExpandReshapes
// REFERENCE-NEXT: ConvertTEToRuntime
// TIMING-NEXT: LowerIfPresent
// TIMING-NEXT: TELowerChecks
// NATIVE-NOT: Pipeline
// NATIVE-NEXT: GpuNVVMAttachTarget
// NATIVE-NEXT: TESplitEntryBlocks
// NATIVE-NEXT: FinalizeMemRefToLLVMConversionPass
// NATIVE: GpuToLLVMConversionPass
// NATIVE-NEXT: GpuModuleToBinaryPass
// NATIVE-NEXT: TEStripBinaryProperties
// TIMING-NEXT: ConvertToLLVMPass
// TIMING-NEXT: ReconcileUnrealizedCastsPass
// TIMING-NEXT: Output
// TIMING: Total
//
// Without the LLVM stages, the pipeline ends with convert-te-to-runtime.
// NOLLVM: Execution time report
// NOLLVM: TESetTarget
// NOLLVM: ConvertTEToRuntime
// NOLLVM-NOT: ConvertToLLVMPass
// NOLLVM: Total

func.func @nvfp4(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>) -> tensor<32x64xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>
  %xq = te.quantize %x : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise> -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}

func.func @mxfp8_linear(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<32x64xbf16> {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y : tensor<32x64xbf16>
}

// Not emulated anywhere: no remark.
func.func @current(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>) -> tensor<32x64xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %xq = te.quantize %x : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}

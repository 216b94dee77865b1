/*===- te-capi-test.c - test of the te C API ----------------------*- C -*-===*\
|*                                                                            *|
|* Part of te.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: %te-capi-test 2>&1 | FileCheck %s
 *
 * Builds quantizers and !te.qtensor types through the C API, queries their
 * buffers, parses a module and runs te passes on it; with --pipeline, runs
 * te-pipeline (PIPE lines, checked by pipeline.test when the library has the
 * pipeline, no-pipeline.test otherwise). Only
 * libTECAPI.so is linked. Expected buffer shapes are derived by hand from
 * docs/formats.md §3 (see each CHECK). */

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "te-c/Attributes.h"
#include "te-c/Dialect.h"
#include "te-c/Passes.h"
#include "te-c/Types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef str, void *userData) {
  (void)userData;
  fwrite(str.data, 1, str.length, stdout);
}

static void printAttr(const char *label, MlirAttribute attr) {
  printf("%s: ", label);
  if (mlirAttributeIsNull(attr))
    printf("<null>");
  else
    mlirAttributePrint(attr, printToStdout, NULL);
  printf("\n");
}

static void printType(const char *label, MlirType type) {
  printf("%s: ", label);
  if (mlirTypeIsNull(type))
    printf("<null>");
  else
    mlirTypePrint(type, printToStdout, NULL);
  printf("\n");
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diag, void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diag, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static void printPipelineError(MlirStringRef line, void *userData) {
  int *count = (int *)userData;
  ++*count;
  printf("pipeline error: %.*s\n", (int)line.length, line.data);
}

/* Prints every buffer of `type` on `target`, one line each. */
static void printBuffers(const char *label, MlirType type,
                         MlirTETarget target) {
  intptr_t n = mlirTEQTensorTypeGetNumBuffers(type, target);
  printf("%s: %ld buffers\n", label, (long)n);
  for (intptr_t i = 0; i < n; ++i) {
    MlirStringRef name = mlirTEQTensorTypeGetBufferName(type, target, i);
    MlirType bufferType = mlirTEQTensorTypeGetBufferType(type, target, i);
    printf("  %.*s role=%d columnwise=%d rank=%ld ", (int)name.length,
           name.data, (int)mlirTEQTensorTypeGetBufferRole(type, target, i),
           (int)mlirTEQTensorTypeIsBufferColumnwise(type, target, i),
           (long)mlirShapedTypeGetRank(bufferType));
    mlirTypePrint(bufferType, printToStdout, NULL);
    printf("\n");
  }
}

static void testQuantizers(MlirContext ctx) {
  printf("@quantizers\n");
  MlirType e4m3 = mlirFloat8E4M3FNTypeGet(ctx);
  MlirType e5m2 = mlirFloat8E5M2TypeGet(ctx);
  MlirType e2m1 = mlirFloat4E2M1FNTypeGet(ctx);

  MlirAttribute delayed =
      mlirTEDelayedAttrGet(ctx, e5m2, 2, 16, MlirTEAmaxAlgoMostRecent);
  // CHECK-LABEL: @quantizers
  // CHECK: delayed: #te.delayed<f8E5M2, margin = 2, history = 16, algo = most_recent>
  printAttr("delayed", delayed);
  // CHECK: delayed fields: quantizer=1 delayed=1 current=0 margin=2 history=16 algo=1 recipe=delayed
  MlirStringRef recipe = mlirTEQuantizerAttrGetRecipe(delayed);
  printf(
      "delayed fields: quantizer=%d delayed=%d current=%d margin=%d "
      "history=%d algo=%d recipe=%.*s\n",
      mlirAttributeIsATEQuantizer(delayed), mlirAttributeIsATEDelayed(delayed),
      mlirAttributeIsATECurrent(delayed), mlirTEDelayedAttrGetMargin(delayed),
      mlirTEDelayedAttrGetHistory(delayed),
      (int)mlirTEDelayedAttrGetAlgo(delayed), (int)recipe.length, recipe.data);
  // CHECK: delayed element type: f8E5M2
  printType("delayed element type", mlirTEQuantizerAttrGetElementType(delayed));

  // Fields equal to their defaults are not printed.
  // CHECK: current: #te.current<f8E4M3FN, pow2_scales = true>
  MlirAttribute current = mlirTECurrentAttrGet(ctx, e4m3, true, 0.0f);
  printAttr("current", current);
  // CHECK: current fields: pow2=1 eps=0.5
  MlirAttribute currentEps = mlirTECurrentAttrGet(ctx, e4m3, false, 0.5f);
  printf("current fields: pow2=%d eps=%g\n",
         mlirTECurrentAttrGetPow2Scales(current),
         mlirTECurrentAttrGetAmaxEpsilon(currentEps));

  // TE's block defaults (1x128, pow2 scales) print as the bare type.
  // CHECK: block: #te.block<f8E4M3FN>
  // CHECK: block2: #te.block<f8E4M3FN, dims = 2, pow2_scales = false>
  // CHECK: block fields: dims=2 pow2=0 eps=0
  printAttr("block", mlirTEBlockAttrGet(ctx, e4m3, 1, true, 0.0f));
  MlirAttribute block2 = mlirTEBlockAttrGet(ctx, e4m3, 2, false, 0.0f);
  printAttr("block2", block2);
  printf("block fields: dims=%d pow2=%d eps=%g\n",
         mlirTEBlockAttrGetDims(block2), mlirTEBlockAttrGetPow2Scales(block2),
         mlirTEBlockAttrGetAmaxEpsilon(block2));

  // CHECK: mxfp8: #te.mxfp8<f8E4M3FN, block_2d = true, e8m0_rounding = floor>
  // CHECK: mxfp8 fields: mxfp8=1 block2d=1 rounding=1
  MlirAttribute mxfp8 =
      mlirTEMXFP8AttrGet(ctx, e4m3, true, MlirTEE8M0RoundingFloor);
  printAttr("mxfp8", mxfp8);
  printf("mxfp8 fields: mxfp8=%d block2d=%d rounding=%d\n",
         mlirAttributeIsATEMXFP8(mxfp8), mlirTEMXFP8AttrGetBlock2D(mxfp8),
         (int)mlirTEMXFP8AttrGetE8M0Rounding(mxfp8));

  // The C constructor and the parser build the same uniqued attribute;
  // TE's RHT sign mask 0xD7E8 is the default with rht.
  MlirTENVFP4Options options = mlirTENVFP4OptionsGetDefault();
  options.rht = true;
  options.rhtSignMask = 0xD7E8;
  options.stochasticRounding = true;
  MlirAttribute nvfp4 = mlirTENVFP4AttrGet(ctx, e2m1, &options);
  MlirAttribute parsed = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "#te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>"));
  // CHECK: nvfp4: #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>
  // CHECK: nvfp4 equals parsed: 1
  printAttr("nvfp4", nvfp4);
  printf("nvfp4 equals parsed: %d\n", mlirAttributeEqual(nvfp4, parsed));
  // CHECK: nvfp4 fields: nvfp4=1 rht=1 mask=0xd7e8 2d=0 sr=1 rows=0 4o6=0 max=448 err=0
  MlirTENVFP4Options got = mlirTENVFP4AttrGetOptions(nvfp4);
  printf("nvfp4 fields: nvfp4=%d rht=%d mask=0x%x 2d=%d sr=%d rows=%d 4o6=%d "
         "max=%g err=%d\n",
         mlirAttributeIsATENVFP4(nvfp4), got.rht, (unsigned)got.rhtSignMask,
         got.block2D, got.stochasticRounding, got.rowScaled, got.fourOverSix,
         got.e4m3Max, (int)got.errMode);
  // CHECK: nvfp4 4over6: #te.nvfp4<f4E2M1FN, four_over_six = true, e4m3_max = 256.0, err_mode = mse>
  options = mlirTENVFP4OptionsGetDefault();
  options.fourOverSix = true;
  options.e4m3Max = 256.0f;
  options.errMode = MlirTEErrModeMSE;
  printAttr("nvfp4 4over6", mlirTENVFP4AttrGet(ctx, e2m1, &options));

  // CHECK: target: #te.target<sm_100> is=1 value=1
  MlirAttribute target = mlirTETargetAttrGet(ctx, MlirTETargetSM100);
  printf("target: ");
  mlirAttributePrint(target, printToStdout, NULL);
  printf(" is=%d value=%d\n", mlirAttributeIsATETarget(target),
         (int)mlirTETargetAttrGetValue(target));

  // Not a quantizer.
  // CHECK: unit: quantizer=0 recipe='' element type null=1
  MlirAttribute unit = mlirUnitAttrGet(ctx);
  recipe = mlirTEQuantizerAttrGetRecipe(unit);
  printf("unit: quantizer=%d recipe='%.*s' element type null=%d\n",
         mlirAttributeIsATEQuantizer(unit), (int)recipe.length, recipe.data,
         mlirTypeIsNull(mlirTEQuantizerAttrGetElementType(unit)));

  // Invalid configurations: a diagnostic from the dialect (the attribute's
  // verifier, then Format's verifyConfig) and a null attribute.
  // CHECK: diagnostic: 'history' of #te.delayed (the amax history length) must be >= 1, got 0
  // CHECK: bad history: <null>
  printAttr("bad history",
            mlirTEDelayedAttrGet(ctx, e4m3, 0, 0, MlirTEAmaxAlgoMax));
  // CHECK: diagnostic: quantized element type must be f8E4M3FN, f8E5M2 or f4E2M1FN, got 'bf16'
  // CHECK: bad dtype: <null>
  printAttr("bad dtype",
            mlirTECurrentAttrGet(ctx, mlirBF16TypeGet(ctx), false, 0.0f));
  // CHECK: diagnostic: NVFP4 row-scaled is incompatible with RHT
  // CHECK: bad nvfp4: <null>
  options = mlirTENVFP4OptionsGetDefault();
  options.rht = true;
  options.rhtSignMask = 0xD7E8;
  options.rowScaled = true;
  printAttr("bad nvfp4", mlirTENVFP4AttrGet(ctx, e2m1, &options));
  // CHECK: diagnostic: invalid MlirTEAmaxAlgo 7
  // CHECK: bad algo: <null>
  printAttr("bad algo",
            mlirTEDelayedAttrGet(ctx, e4m3, 0, 16, (MlirTEAmaxAlgo)7));
  // CHECK: diagnostic: invalid MlirTEE8M0Rounding -1
  // CHECK: bad rounding: <null>
  printAttr("bad rounding",
            mlirTEMXFP8AttrGet(ctx, e4m3, false, (MlirTEE8M0Rounding)-1));
  // CHECK: diagnostic: invalid MlirTEErrMode 2
  // CHECK: bad err mode: <null>
  options = mlirTENVFP4OptionsGetDefault();
  options.errMode = (MlirTEErrMode)2;
  printAttr("bad err mode", mlirTENVFP4AttrGet(ctx, e2m1, &options));
  // CHECK: diagnostic: invalid MlirTETarget 5
  // CHECK: bad target: <null>
  printAttr("bad target", mlirTETargetAttrGet(ctx, (MlirTETarget)5));
}

static void testQTensors(MlirContext ctx) {
  printf("@qtensors\n");
  // CHECK-LABEL: @qtensors
  MlirType bf16 = mlirBF16TypeGet(ctx);
  MlirType e4m3 = mlirFloat8E4M3FNTypeGet(ctx);
  MlirAttribute mxfp8 =
      mlirTEMXFP8AttrGet(ctx, e4m3, false, MlirTEE8M0RoundingUp);

  int64_t shape[] = {128, 64};
  MlirType q =
      mlirTEQTensorTypeGet(2, shape, bf16, mxfp8, MlirTEUsageRowwiseColumnwise);
  // CHECK: mxfp8 qtensor: !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  printType("mxfp8 qtensor", q);
  // CHECK: queries: is=1 rank=2 dims=128,64 usage=3 quantizer=1
  printf("queries: is=%d rank=%ld dims=%ld,%ld usage=%d quantizer=%d\n",
         mlirTypeIsATEQTensor(q), (long)mlirTEQTensorTypeGetRank(q),
         (long)mlirTEQTensorTypeGetDimSize(q, 0),
         (long)mlirTEQTensorTypeGetDimSize(q, 1),
         (int)mlirTEQTensorTypeGetUsage(q),
         mlirAttributeEqual(mlirTEQTensorTypeGetQuantizer(q), mxfp8));
  // CHECK: nominal: bf16
  printType("nominal", mlirTEQTensorTypeGetNominalType(q));

  // MXFP8, M = 128, K = 64 (docs/formats.md §3.3): data not transposed;
  // rowwise scales (rup(M,128), rup(ceil(K/32),4)) = (128, 4);
  // columnwise scales (rup(ceil(M/32),4), rup(K,128)) = (4, 128).
  // CHECK: mxfp8 sm_90: 4 buffers
  // CHECK-NEXT: _rowwise_data role=0 columnwise=0 rank=2 tensor<128x64xf8E4M3FN>
  // CHECK-NEXT: _rowwise_scale_inv role=1 columnwise=0 rank=2 tensor<128x4xf8E8M0FNU>
  // CHECK-NEXT: _columnwise_data role=0 columnwise=1 rank=2 tensor<128x64xf8E4M3FN>
  // CHECK-NEXT: _columnwise_scale_inv role=1 columnwise=1 rank=2 tensor<4x128xf8E8M0FNU>
  printBuffers("mxfp8 sm_90", q, MlirTETargetSM90);

  // Per-tensor FP8 (§3.2): on sm_90 the columnwise copy is a transpose; on
  // sm_100 `_data` serves both usages.
  MlirAttribute current = mlirTECurrentAttrGet(ctx, e4m3, false, 0.0f);
  MlirType qc = mlirTEQTensorTypeGet(2, shape, bf16, current,
                                     MlirTEUsageRowwiseColumnwise);
  // CHECK: current sm_90: 3 buffers
  // CHECK-NEXT: _data role=0 columnwise=0 rank=2 tensor<128x64xf8E4M3FN>
  // CHECK-NEXT: _transpose role=0 columnwise=1 rank=2 tensor<64x128xf8E4M3FN>
  // CHECK-NEXT: _scale_inv role=1 columnwise=0 rank=1 tensor<1xf32>
  // CHECK: current sm_100: 2 buffers
  // CHECK-NEXT: _data role=0 columnwise=0 rank=2 tensor<128x64xf8E4M3FN>
  // CHECK-NEXT: _scale_inv role=1 columnwise=0 rank=1 tensor<1xf32>
  printBuffers("current sm_90", qc, MlirTETargetSM90);
  printBuffers("current sm_100", qc, MlirTETargetSM100);

  // NVFP4 (§3.5), M = 32, K = 64, rowwise: packed data (M, K/2) as i8;
  // E4M3 scales (rup(M,128), rup(ceil(K/16),4)) = (128, 4); one amax.
  MlirTENVFP4Options nvfp4Options = mlirTENVFP4OptionsGetDefault();
  MlirAttribute nvfp4 =
      mlirTENVFP4AttrGet(ctx, mlirFloat4E2M1FNTypeGet(ctx), &nvfp4Options);
  int64_t small[] = {32, 64};
  MlirType qn = mlirTEQTensorTypeGet(2, small, bf16, nvfp4, MlirTEUsageRowwise);
  // CHECK: nvfp4 sm_100: 3 buffers
  // CHECK-NEXT: _rowwise_data role=0 columnwise=0 rank=2 tensor<32x32xi8>
  // CHECK-NEXT: _rowwise_scale_inv role=1 columnwise=0 rank=2 tensor<128x4xf8E4M3FN>
  // CHECK-NEXT: _amax_rowwise role=2 columnwise=0 rank=1 tensor<1xf32>
  printBuffers("nvfp4 sm_100", qn, MlirTETargetSM100);

  // Dynamic dimensions stay dynamic in the buffers.
  int64_t dynamic[] = {mlirShapedTypeGetDynamicSize(), 64};
  MlirType qd =
      mlirTEQTensorTypeGet(2, dynamic, bf16, mxfp8, MlirTEUsageRowwise);
  // CHECK: dynamic: !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  // CHECK: dynamic sm_90: 2 buffers
  // CHECK-NEXT: _rowwise_data role=0 columnwise=0 rank=2 tensor<?x64xf8E4M3FN>
  // CHECK-NEXT: _rowwise_scale_inv role=1 columnwise=0 rank=2 tensor<?x4xf8E8M0FNU>
  printType("dynamic", qd);
  printBuffers("dynamic sm_90", qd, MlirTETargetSM90);

  // Out of range: empty name, null type.
  // CHECK: out of range: name='' null=1
  MlirStringRef name = mlirTEQTensorTypeGetBufferName(q, MlirTETargetSM90, 4);
  printf(
      "out of range: name='%.*s' null=%d\n", (int)name.length, name.data,
      mlirTypeIsNull(mlirTEQTensorTypeGetBufferType(q, MlirTETargetSM90, -1)));
  // CHECK: diagnostic: invalid MlirTETarget 9
  // CHECK: bad target buffers: -1
  printf("bad target buffers: %ld\n",
         (long)mlirTEQTensorTypeGetNumBuffers(q, (MlirTETarget)9));

  // Invalid types: Format's shape rules, the type's own rules.
  int64_t bad[] = {64, 100};
  // CHECK: diagnostic: MXFP8 needs the last dimension divisible by 32, got 100
  // CHECK: bad shape: <null>
  printType("bad shape",
            mlirTEQTensorTypeGet(2, bad, bf16, mxfp8, MlirTEUsageRowwise));
  // CHECK: diagnostic: !te.qtensor nominal type must be bf16, f16 or f32, got 'f8E4M3FN'
  // CHECK: bad nominal: <null>
  printType("bad nominal",
            mlirTEQTensorTypeGet(2, shape, e4m3, mxfp8, MlirTEUsageRowwise));
  // CHECK: diagnostic: !te.qtensor needs a te quantizer attribute, got unit
  // CHECK: bad quantizer: <null>
  printType("bad quantizer",
            mlirTEQTensorTypeGet(2, shape, bf16, mlirUnitAttrGet(ctx),
                                 MlirTEUsageRowwise));
  // CHECK: diagnostic: invalid MlirTEUsage 0
  // CHECK: bad usage: <null>
  printType("bad usage",
            mlirTEQTensorTypeGet(2, shape, bf16, mxfp8, (MlirTEUsage)0));
  // CHECK: diagnostic: !te.qtensor needs a shape, got rank -1
  // CHECK: bad rank: <null>
  printType("bad rank",
            mlirTEQTensorTypeGet(-1, shape, bf16, mxfp8, MlirTEUsageRowwise));
  // A 0-d tensor: per-tensor scaling only.
  // CHECK: diagnostic: MXFP8 needs rank >= 1 (a 0-d tensor has no blocks); per-tensor current and delayed scaling quantize 0-d tensors
  // CHECK: rank 0: <null>
  printType("rank 0",
            mlirTEQTensorTypeGet(0, NULL, bf16, mxfp8, MlirTEUsageRowwise));
  // CHECK: rank 0 current: !te.qtensor<bf16, #te.current<f8E4M3FN>, rowwise>
  printType("rank 0 current",
            mlirTEQTensorTypeGet(0, NULL, bf16, current, MlirTEUsageRowwise));
}

static const char *kExpandProgram =
    "func.func @main(%q: !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, "
    "rowwise>)\n"
    "    -> tensor<128x64xf32> {\n"
    "  %y = te.dequantize %q\n"
    "      : !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>\n"
    "      -> tensor<128x64xf32>\n"
    "  return %y : tensor<128x64xf32>\n"
    "}\n";

/* The function type of the first function of `module`. */
static MlirType firstFunctionType(MlirModule module) {
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  return mlirTypeAttrGetValue(mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("function_type")));
}

static void testParseAndPasses(MlirContext ctx) {
  printf("@passes\n");
  // CHECK-LABEL: @passes
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(kExpandProgram));
  if (mlirModuleIsNull(module)) {
    printf("cannot parse\n");
    exit(1);
  }
  // CHECK: module target: 0
  printf("module target: %d\n", (int)mlirTEModuleGetTarget(module));
  MlirType qtensor = mlirFunctionTypeGetInput(firstFunctionType(module), 0);
  intptr_t numBuffers =
      mlirTEQTensorTypeGetNumBuffers(qtensor, MlirTETargetSM90);

  // te-expand-qtensors, by name through the upstream pass manager: the
  // qtensor argument becomes its buffers, exactly those the C API reports.
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult added = mlirOpPassManagerAddPipeline(
      opm, mlirStringRefCreateFromCString("te-expand-qtensors"), printToStdout,
      NULL);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirLogicalResult ran = mlirPassManagerRunOnOp(pm, moduleOp);
  // CHECK: te-expand-qtensors: added=1 ran=1
  printf("te-expand-qtensors: added=%d ran=%d\n",
         mlirLogicalResultIsSuccess(added), mlirLogicalResultIsSuccess(ran));
  mlirPassManagerDestroy(pm);

  // CHECK: expanded: (tensor<128x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) -> tensor<128x64xf32>
  // CHECK: inputs=2 buffers=2 same=1
  MlirType expanded = firstFunctionType(module);
  printType("expanded", expanded);
  int same = mlirFunctionTypeGetNumInputs(expanded) == numBuffers;
  for (intptr_t i = 0; same && i < numBuffers; ++i)
    same = mlirTypeEqual(
        mlirFunctionTypeGetInput(expanded, i),
        mlirTEQTensorTypeGetBufferType(qtensor, MlirTETargetSM90, i));
  printf("inputs=%ld buffers=%ld same=%d\n",
         (long)mlirFunctionTypeGetNumInputs(expanded), (long)numBuffers, same);

  // An unknown pass name is an error of the upstream parser.
  pm = mlirPassManagerCreate(ctx);
  added = mlirOpPassManagerAddPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString("te-no-such-pass"), printToStdout, NULL);
  // CHECK: 'te-no-such-pass' does not refer to a registered pass or pass pipeline
  // CHECK: unknown pass added=0
  printf("\nunknown pass added=%d\n", mlirLogicalResultIsSuccess(added));
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
}

static const char *kPipelineProgram =
    "func.func @main(%x: tensor<128x64xbf16>) -> tensor<128x64xf32> {\n"
    "  %q = te.quantize %x : tensor<128x64xbf16>\n"
    "      -> !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise>\n"
    "  %y = te.dequantize %q\n"
    "      : !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise>\n"
    "      -> tensor<128x64xf32>\n"
    "  return %y : tensor<128x64xf32>\n"
    "}\n";

static void printSignatureText(MlirStringRef text, void *userData) {
  (void)userData;
  printf("signature callback: %.*s\n", (int)text.length, text.data);
}

static void testPipeline(MlirContext ctx) {
  printf("@pipeline\n");
  // PIPE-LABEL: @pipeline
  // PIPE: has pipeline: 1
  printf("has pipeline: %d\n", mlirTEHasPipeline());

  int errors = 0;
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(kPipelineProgram));
  // The entry's harness signature, before lowering; the module itself is
  // not a function.
  MlirOperation function =
      mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirLogicalResult signed_ =
      mlirTEGetEntrySignature(function, mlirStringRefCreateFromCString("cpu"),
                              printSignatureText, NULL);
  // PIPE: signature callback: bf16[128,64] -> f32[128,64]
  // PIPE: signature ok=1
  printf("signature ok=%d\n", mlirLogicalResultIsSuccess(signed_));
  signed_ = mlirTEGetEntrySignature(mlirModuleGetOperation(module),
                                    mlirStringRefCreateFromCString("cpu"),
                                    printSignatureText, NULL);
  // PIPE: signature callback: not a func.func
  // PIPE: module signature ok=0
  printf("module signature ok=%d\n", mlirLogicalResultIsSuccess(signed_));
  mlirOperationSetAttributeByName(
      function, mlirStringRefCreateFromCString("llvm.emit_c_interface"),
      mlirUnitAttrGet(ctx));
  MlirLogicalResult result =
      mlirTERunPipeline(module, mlirStringRefCreateFromCString("target=cpu"),
                        printPipelineError, &errors);
  // The packed wrapper of the lowered entry; a wrong signature is refused.
  MlirLogicalResult packed = mlirTEAddPackedEntry(
      module, mlirStringRefCreateFromCString("main"),
      mlirStringRefCreateFromCString("f32 -> f32"),
      mlirStringRefCreateFromCString("cpu"), true, printSignatureText, NULL);
  // PIPE: signature callback: the C interface of @main (!llvm.func<void (ptr, ptr)>) does not match its signature f32 -> f32
  // PIPE: wrong packed entry ok=0
  printf("wrong packed entry ok=%d\n", mlirLogicalResultIsSuccess(packed));
  packed = mlirTEAddPackedEntry(
      module, mlirStringRefCreateFromCString("main"),
      mlirStringRefCreateFromCString("bf16[128,64] -> f32[128,64]"),
      mlirStringRefCreateFromCString("cpu"), true, printSignatureText, NULL);
  // PIPE: packed entry ok=1
  printf("packed entry ok=%d\n", mlirLogicalResultIsSuccess(packed));
  // PIPE: te-pipeline: ok=1 errors=0 target=0
  printf("te-pipeline: ok=%d errors=%d target=%d\n",
         mlirLogicalResultIsSuccess(result), errors,
         (int)mlirTEModuleGetTarget(module));
  // No te type or op is left; the module is in the LLVM dialect and calls
  // the runtime.
  // PIPE: llvm.func internal @main
  // PIPE-NOT: te.quantize
  // PIPE-NOT: !te.qtensor
  // PIPE: llvm.call @te_rt_
  // PIPE: llvm.func @_te_packed_main
  // PIPE: @_te_signature_main("bf16[128,64] -> f32[128,64]\00")
  // PIPE: @_te_target_main("cpu\00")
  // PIPE: end of lowered module
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\nend of lowered module\n");
  mlirModuleDestroy(module);

  // Malformed options.
  errors = 0;
  module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(kPipelineProgram));
  result = mlirTERunPipeline(
      module, mlirStringRefCreateFromCString("target=sm_90 no-such-option=1"),
      printPipelineError, &errors);
  // PIPE: pipeline error: te-pipeline: invalid options 'target=sm_90 no-such-option=1': {{.*}}no-such-option
  // PIPE: bad options: ok=0 errors=1
  printf("bad options: ok=%d errors=%d\n", mlirLogicalResultIsSuccess(result),
         errors);

  // A failing pass: its diagnostic arrives as one line with its location.
  errors = 0;
  result =
      mlirTERunPipeline(module, mlirStringRefCreateFromCString("target=sm_75"),
                        printPipelineError, &errors);
  // PIPE: pipeline error: {{.*}}: te-set-target: target must be cpu, sm_90 or sm_100, got 'sm_75'
  // PIPE: bad target: ok=0 errors=1
  printf("bad target: ok=%d errors=%d\n", mlirLogicalResultIsSuccess(result),
         errors);

  // A NULL callback is allowed.
  result = mlirTERunPipeline(
      module, mlirStringRefCreateFromCString("target=sm_75"), NULL, NULL);
  // PIPE: no callback: ok=0
  printf("no callback: ok=%d\n", mlirLogicalResultIsSuccess(result));
  mlirModuleDestroy(module);
}

int main(int argc, char **argv) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirTERegisterRequiredDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__te__(), ctx);
  mlirRegisterTEPasses();
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);

  if (argc > 1 && strcmp(argv[1], "--pipeline") == 0) {
    /* pipeline.test / no-pipeline.test: te-pipeline only. */
    testPipeline(ctx);
    mlirContextDestroy(ctx);
    printf("done\n");
    return 0;
  }
  testQuantizers(ctx);
  testQTensors(ctx);
  testParseAndPasses(ctx);
  mlirContextDestroy(ctx);

  // CHECK: api version 1, namespace te
  MlirStringRef ns =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__te__());
  printf("api version %d, namespace %.*s\n", mlirTEGetAPIVersion(),
         (int)ns.length, ns.data);
  // CHECK: done
  printf("done\n");
  return 0;
}

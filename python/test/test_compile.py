"""te.compile: a te module lowered through the C API, JIT-compiled and run
on numpy arrays, against the runtime's own quantize / dequantize / GEMM."""

import unittest

import numpy as np

import te
from te import compiler
from common import sample

MODULE = """
func.func @mxfp8_roundtrip(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %q = te.quantize %x : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>
  %y = te.dequantize %q : !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<64x128xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %r = linalg.copy ins(%y : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

func.func @current_tn(%w: tensor<64x128xf32>, %x: tensor<32x128xf32>, %b: tensor<64xf32>) -> tensor<32x64xf32> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN bias(%b : tensor<64xf32>)
      : !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

func.func @current_buffers(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %d0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %s0 = tensor.empty() : tensor<1xf32>
  %d, %s = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

func.func @current_group(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %d0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %s0 = tensor.empty() : tensor<1xf32>
  %d, %s = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise group "tp"
      outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

func.func @masked_argmax(%x: tensor<4x50xf32>, %mask: tensor<4x50xi1>, %bias: tensor<4xi16>, %base: index)
    -> (tensor<4xi32>, tensor<4xindex>, i1) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i32
  %em = tensor.empty() : tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%em : tensor<4xf32>) -> tensor<4xf32>
  %i0 = linalg.fill ins(%c0 : i32) outs(%ei : tensor<4xi32>) -> tensor<4xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x, %mask : tensor<4x50xf32>, tensor<4x50xi1>) outs(%m0, %i0 : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%a: f32, %keep: i1, %m: f32, %i: i32):
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %a, %m : f32
    %take = arith.andi %gt, %keep : i1
    %v = arith.select %take, %a, %m : f32
    %k = arith.select %take, %jc, %i : i32
    linalg.yield %v, %k : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  %ep = tensor.empty() : tensor<4xindex>
  %pos = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
      ins(%r#1, %bias : tensor<4xi32>, tensor<4xi16>) outs(%ep : tensor<4xindex>) {
  ^bb0(%k: i32, %b: i16, %o: index):
    %b32 = arith.extsi %b : i16 to i32
    %s = arith.addi %k, %b32 : i32
    %si = arith.index_cast %s : i32 to index
    %t = arith.addi %si, %base : index
    linalg.yield %t : index
  } -> tensor<4xindex>
  %c0i = arith.constant 0 : index
  %first = tensor.extract %mask[%c0i, %c0i] : tensor<4x50xi1>
  return %r#1, %pos, %first : tensor<4xi32>, tensor<4xindex>, i1
}

func.func @two_results(%x: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %e = tensor.empty() : tensor<8x32xf32>
  %a = linalg.copy ins(%x : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %f = tensor.empty() : tensor<8x32xf32>
  %b = linalg.add ins(%x, %x : tensor<8x32xf32>, tensor<8x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %a, %b : tensor<8x32xf32>, tensor<8x32xf32>
}
"""


@unittest.skipUnless(compiler.has_compiler(),
                     "te's C API or libte_py_jit is not built "
                     "(TE_ENABLE_MLIR, MLIR_LINK_MLIR_DYLIB)")
class Compile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prog = te.compile(MODULE)

    @classmethod
    def tearDownClass(cls):
        cls.prog.close()

    def test_signature(self):
        args, results = self.prog.signature("current_tn")
        self.assertEqual([repr(a) for a in args],
                         ["float32[64,128]", "float32[32,128]", "float32[64]"])
        self.assertEqual([repr(r) for r in results], ["float32[32,64]"])

    def test_integer_and_bool_tensors(self):
        args, results = self.prog.signature("masked_argmax")
        self.assertEqual([repr(a) for a in args],
                         ["float32[4,50]", "bool[4,50]", "int16[4]",
                          "int64"])
        self.assertEqual([repr(r) for r in results],
                         ["int32[4]", "int64[4]", "bool"])
        rng = np.random.default_rng(5)
        x = rng.standard_normal((4, 50)).astype(np.float32)
        mask = rng.random((4, 50)) < 0.5
        mask[:, 0] = True
        bias = np.array([-3, 0, 7, 300], dtype=np.int16)
        idx, pos, first = self.prog.run("masked_argmax", x, mask, bias, 1000)
        # numpy: the first maximum among the kept entries.
        want = np.argmax(np.where(mask, x, -np.inf), axis=1).astype(np.int32)
        self.assertEqual(idx.dtype, np.int32)
        np.testing.assert_array_equal(idx, want)
        self.assertEqual(pos.dtype, np.int64)
        np.testing.assert_array_equal(pos, want.astype(np.int64) + bias + 1000)
        self.assertIs(bool(first), True)

    def test_quantize_dequantize_matches_runtime(self):
        # Target cpu executes sm_90 layouts.
        x = sample((64, 128), 1)
        y = self.prog.run("mxfp8_roundtrip", x)
        q = te.quantize(x, "#te.mxfp8<f8E4M3FN>", usage="rowwise",
                        target="sm_90")
        self.assertEqual(y.tobytes(), te.dequantize(q).tobytes())

    def test_gemm_matches_runtime(self):
        w, x, b = sample((64, 128), 2), sample((32, 128), 3), sample((64,), 4)
        y = self.prog.run("current_tn", w, x, b)
        qw = te.quantize(w, "#te.current<f8E4M3FN>", usage="rowwise")
        qx = te.quantize(x, "#te.current<f8E4M3FN>", usage="rowwise")
        self.assertEqual(y.tobytes(), te.gemm(qw, qx, "TN", bias=b).tobytes())

    def test_several_results(self):
        x = sample((8, 32), 5)
        a, b = self.prog.run("two_results", x)
        np.testing.assert_array_equal(a, x)
        np.testing.assert_array_equal(b, x + x)

    def test_fp8_results_are_bits(self):
        x = sample((32, 64), 6)
        data, scale_inv = self.prog.run("current_buffers", x)
        self.assertEqual(data.dtype, np.uint8)
        q = te.quantize(x, "#te.current<f8E4M3FN>", usage="rowwise")
        bufs = q.buffers()
        self.assertEqual(data.tobytes(), bufs["_data"].tobytes())
        self.assertEqual(scale_inv.tobytes(), bufs["_scale_inv"].tobytes())

    def test_runtime_error_inside_the_program(self):
        # The runtime's sticky status of the call, with its message.
        with self.assertRaises(te.Error) as cm:
            self.prog.run("current_group", sample((32, 64), 7))
        self.assertIn("no communicator is registered for process group "
                      "'tp'", str(cm.exception))
        # The context is usable afterwards.
        self.prog.run("current_buffers", sample((32, 64), 8))

    def test_dynamic_operands_of_their_own_sizes(self):
        # Each `?` takes its array's size; operands whose sizes disagree are
        # a runtime error naming the op and both sizes (te-check-shapes),
        # not a read past the smaller one.
        prog = te.compile("""
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
""")
        a = np.arange(35, dtype=np.float32).reshape(5, 7) % 5 - 2
        b = np.arange(21, dtype=np.float32).reshape(7, 3) % 3 - 1
        np.testing.assert_array_equal(prog.run("matmul", a, b), a @ b)
        with self.assertRaises(te.Error) as cm:
            prog.run("matmul", a, b[:6])
        self.assertIn("shape check: linalg.matmul at", str(cm.exception))
        self.assertIn("is 6, expected 7", str(cm.exception))
        # The context is usable afterwards.
        np.testing.assert_array_equal(prog.run("matmul", a, b), a @ b)

    def test_zero_dimensional_tensor(self):
        # A 0-d array (or a Python float) is a tensor<f32> argument, and the
        # 0-d result comes back 0-d.
        prog = te.compile("""
func.func @twice(%x: tensor<f32>) -> tensor<f32> {
  %r = arith.addf %x, %x : tensor<f32>
  return %r : tensor<f32>
}
""")
        for x in (np.array(3.0, np.float32), np.float32(3.0), 3.0):
            r = prog.run("twice", x)
            self.assertEqual(np.shape(r), ())
            self.assertEqual(float(r), 6.0)
        prog.close()

    def test_argument_errors(self):
        with self.assertRaises(ValueError):
            self.prog.run("mxfp8_roundtrip", sample((64, 64)))
        with self.assertRaises(TypeError):
            self.prog.run("current_tn", sample((64, 128)))
        with self.assertRaises(KeyError):
            self.prog.run("nope", sample((64, 128)))

    def test_parse_error_carries_diagnostics(self):
        with self.assertRaises(te.CompileError) as cm:
            te.compile("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {")
        self.assertIn("error: expected", str(cm.exception))

    def test_verifier_error_carries_diagnostics(self):
        bad = """
func.func @f(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %q = te.quantize %x : tensor<3x5xf32> -> !te.qtensor<3x5xf32, #te.mxfp8<f8E4M3FN>, rowwise>
  %y = te.dequantize %q : !te.qtensor<3x5xf32, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}
"""
        with self.assertRaises(te.CompileError) as cm:
            te.compile(bad)
        self.assertRegex(str(cm.exception), r"\S")

    def test_unknown_target_refused(self):
        # GPU targets compile (test_program.py runs one); others are refused.
        with self.assertRaisesRegex(ValueError, "target expects one of cpu, "
                                    "sm_90, sm_100, got 'sm_80'"):
            te.compile(MODULE, target="sm_80")


if __name__ == "__main__":
    unittest.main()

"""te.torch: PyTorch modules imported into te programs, compiled for the cpu
target and run on torch tensors, against torch eager in fp32 (recipe None:
tight; FP8 recipes: against eager with the recipe's quantization emulated
here in numpy, and against plain eager at the error FP8 implies)."""

import math
import os
import re
import unittest

import numpy as np

import te

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import te.torch as tt
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

SKIP = ("torch is not installed (Debian: python3-torch; "
        "scripts/install-deps.sh installs it)")

if HAVE_TORCH:
    class MLP(nn.Module):
        def __init__(self, d=64, f=128, approximate="none"):
            super().__init__()
            self.fc1 = nn.Linear(d, f)
            self.act = nn.GELU(approximate=approximate)
            self.fc2 = nn.Linear(f, d)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class RMSNorm(nn.Module):
        def __init__(self, d, eps=1e-6):
            super().__init__()
            self.eps = eps
            self.weight = nn.Parameter(torch.rand(d) + 0.5)

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) +
                                   self.eps) * self.weight

    class Attention(nn.Module):
        """Causal self-attention, through the private SDPA of torch 1.13
        (the public one where it exists) or written out."""

        def __init__(self, d, heads, explicit, seq):
            super().__init__()
            self.heads, self.explicit = heads, explicit
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.register_buffer(
                "causal", torch.ones(seq, seq, dtype=torch.bool).tril())

        def forward(self, x):
            B, T, C = x.shape[0], x.shape[1], x.shape[2]
            D = C // self.heads
            qkv = self.qkv(x)
            q = qkv[..., :C].view(B, T, self.heads, D).transpose(1, 2)
            k = qkv[..., C:2 * C].view(B, T, self.heads, D).transpose(1, 2)
            v = qkv[..., 2 * C:].view(B, T, self.heads, D).transpose(1, 2)
            if self.explicit:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D))
                att = att.masked_fill(~self.causal[:T, :T], float("-inf"))
                y = F.softmax(att, dim=-1) @ v
            elif hasattr(F, "_scaled_dot_product_attention"):
                y, _ = F._scaled_dot_product_attention(q, k, v, None, 0.0,
                                                       False, True)
            else:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(y.transpose(1, 2).reshape(B, T, C))

    class Block(nn.Module):
        """Pre-LN transformer block: attention and a GELU (tanh) MLP."""

        def __init__(self, d=64, heads=4, explicit=False, seq=16):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.attn = Attention(d, heads, explicit, seq)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = MLP(d, 4 * d, "tanh")

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class SwiGLU(nn.Module):
        def __init__(self, d=64, f=128):
            super().__init__()
            self.norm = RMSNorm(d)
            self.w1 = nn.Linear(d, f, bias=False)
            self.w3 = nn.Linear(d, f, bias=False)
            self.w2 = nn.Linear(f, d, bias=False)

        def forward(self, x):
            h = self.norm(x)
            return x + self.w2(F.silu(self.w1(h)) * self.w3(h))

    class Tagger(nn.Module):
        def __init__(self, vocab=50, d=32):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.ln = nn.LayerNorm(d)
            self.drop = nn.Dropout(0.1)
            self.head = nn.Linear(d, vocab)

        def forward(self, idx):
            return self.head(torch.relu(self.drop(self.ln(self.emb(idx)))))

    class Cumulative(nn.Module):
        def forward(self, x):
            return torch.cumsum(x, dim=-1)

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 16)
            self.inner = nn.Sequential(nn.ReLU(), Cumulative())

        def forward(self, x):
            return self.inner(self.fc(x))


def rel_err(y, ref):
    return float((y - ref).norm() / ref.norm())


def e4m3_current(x):
    """x quantized to E4M3 with a per-tensor current scale (448 / amax)
    and dequantized: TransformerEngine's Float8CurrentScalingQuantizer,
    in numpy (round to nearest even, subnormals below 2^-6)."""
    a = x.detach().numpy().astype(np.float32)
    amax = np.float32(np.max(np.abs(a)))
    if amax == 0:
        return x.clone()
    scale = np.float32(448.0) / amax
    y = (a * scale).astype(np.float64)
    mag = np.abs(y)
    e = np.floor(np.log2(np.where(mag > 0, mag, 1.0)))
    quantum = np.exp2(np.maximum(e, -6.0) - 3.0)
    q = np.clip(np.round(y / quantum) * quantum, -448.0, 448.0)
    out = (q.astype(np.float32) * (np.float32(1.0) / scale)).astype(
        np.float32)
    return torch.from_numpy(out)


class FakeQuantLinears:
    """Within the block, every F.linear quantizes its input and weight
    with `quant` first (the oracle of a recipe's te.linear)."""

    def __init__(self, quant):
        self.quant = quant

    def __enter__(self):
        self.saved = F.linear
        q, orig = self.quant, self.saved

        def linear(x, w, b=None):
            shape = x.shape
            x2 = q(x.reshape(-1, shape[-1])).reshape(shape)
            return orig(x2, q(w), b)
        F.linear = linear

    def __exit__(self, *exc):
        F.linear = self.saved


@unittest.skipUnless(HAVE_TORCH, SKIP)
class ImportTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def check(self, model, inputs, atol=2e-5, rtol=2e-5, recipe=None):
        model.eval()
        fn = tt.compile(model, inputs, recipe=recipe)
        with torch.no_grad():
            ref = model(*inputs)
        y = fn(*inputs)
        self.assertIsInstance(y, torch.Tensor)
        self.assertEqual(y.shape, ref.shape)
        self.assertEqual(y.dtype, ref.dtype)
        torch.testing.assert_close(y, ref, atol=atol, rtol=rtol)
        return fn

    def test_mlp_fp32_dynamic_batch(self):
        model = MLP()
        fn = self.check(model, (torch.randn(8, 64),))
        # Weights first (in named_parameters order), the input's batch ?.
        self.assertEqual(fn.imported.param_names,
                         ["fc1.weight", "fc1.bias", "fc2.weight",
                          "fc2.bias"])
        self.assertIn("%arg4: tensor<?x64xf32>", fn.text)
        self.assertIn("math.erf", fn.text)
        self.assertNotIn("te.linear", fn.text)  # recipe None
        for batch in (1, 5, 24):
            x = torch.randn(batch, 64)
            with torch.no_grad():
                torch.testing.assert_close(fn(x), model(x), atol=2e-5,
                                           rtol=2e-5)

    def test_parameters_read_at_each_call(self):
        model = MLP().eval()
        x = torch.randn(8, 64)
        fn = tt.compile(model, (x,))
        with torch.no_grad():
            model.fc2.weight.mul_(-2.0)
            model.fc1.bias.add_(0.5)
            ref = model(x)
        torch.testing.assert_close(fn(x), ref, atol=2e-5, rtol=2e-5)

    def test_gelu_tanh_and_layernorm(self):
        model = nn.Sequential(nn.LayerNorm(64), MLP(64, 96, "tanh"))
        fn = self.check(model, (torch.randn(4, 7, 64) * 3 + 1,))
        self.assertIn("math.tanh", fn.text)
        self.assertIn("math.rsqrt", fn.text)

    def test_rmsnorm_silu(self):
        fn = self.check(SwiGLU(), (torch.randn(2, 8, 64),))
        self.assertIn("tensor<?x8x64xf32>", fn.text)

    def test_embedding_relu_dropout_eval(self):
        model = Tagger()
        idx = torch.randint(0, 50, (3, 9))
        fn = self.check(model, (idx,))
        self.assertIn("tensor.extract", fn.text)
        idx2 = torch.randint(0, 50, (6, 9))
        with torch.no_grad():
            torch.testing.assert_close(fn(idx2), model.eval()(idx2),
                                       atol=2e-5, rtol=2e-5)

    def test_block_private_sdpa_causal(self):
        model = Block(explicit=False)
        fn = self.check(model, (torch.randn(2, 16, 64),))
        attn = [l for l in fn.text.splitlines() if "te.attention" in l]
        self.assertEqual(len(attn), 1, fn.text)
        self.assertIn("{causal}", attn[0])
        self.assertNotIn("linalg.softmax", fn.text)
        x = torch.randn(5, 16, 64)
        with torch.no_grad():
            torch.testing.assert_close(fn(x), model(x), atol=2e-5,
                                       rtol=2e-5)

    def test_block_explicit_attention(self):
        model = Block(explicit=True)
        fn = self.check(model, (torch.randn(2, 16, 64),))
        attn = [l for l in fn.text.splitlines() if "te.attention" in l]
        self.assertEqual(len(attn), 1, fn.text)
        # The causal buffer is the mask; 1/sqrt(16) the scale.
        self.assertRegex(attn[0], r"mask %\w+ \{scale = 0x3E800000 : f32\}")
        self.assertNotIn("linalg.softmax", fn.text)
        self.assertNotIn("linalg.batch_matmul", fn.text)

    def test_attention_weights_used_elsewhere_stay_unfused(self):
        class Probs(nn.Module):
            def forward(self, q, k, v):
                p = torch.softmax(q @ k.transpose(-2, -1) * 0.5, dim=-1)
                return p @ v, p

        q, k, v = (torch.randn(3, 2, 8, 16) for _ in range(3))
        model = Probs()
        fn = tt.compile(model, (q, k, v))
        self.assertNotIn("te.attention", fn.text)
        self.assertIn("linalg.softmax", fn.text)
        y, p = fn(q, k, v)
        ry, rp = model(q, k, v)
        torch.testing.assert_close(y, ry, atol=2e-5, rtol=2e-5)
        torch.testing.assert_close(p, rp, atol=2e-6, rtol=2e-5)

    def test_fp8_current_mlp(self):
        model = MLP().eval()
        x = torch.randn(32, 64)
        recipe = tt.Float8CurrentScaling()
        fn = tt.compile(model, (x,), recipe=recipe)
        lin = [l for l in fn.text.splitlines() if "te.linear" in l]
        self.assertEqual(len(lin), 2, fn.text)
        self.assertIn("#te.current<f8E4M3FN>", fn.text)
        y = fn(x)
        with torch.no_grad(), FakeQuantLinears(e4m3_current):
            emulated = model(x)
        with torch.no_grad():
            exact = model(x)
        # Same quantization: only the f32 sums' order differs (a value at
        # a rounding boundary of fc2's input may land one E4M3 step away).
        self.assertLess(rel_err(y, emulated), 1e-4)
        # E4M3 keeps 3 mantissa bits: each quantized operand is off by up
        # to 2^-4 relative, ~2^-4/sqrt(3) rms, through two layers.
        self.assertLess(rel_err(y, exact), 0.1)
        self.assertGreater(rel_err(y, exact), 1e-3)  # it did quantize

    def test_fp8_recipes_block(self):
        model = Block(explicit=False).eval()
        x = torch.randn(2, 16, 64)
        with torch.no_grad():
            exact = model(x)
        for recipe, attr in ((tt.Float8BlockScaling(), "#te.block<"),
                             (tt.MXFP8BlockScaling(), "#te.mxfp8<")):
            with self.subTest(recipe=type(recipe).__name__):
                fn = tt.compile(model, (x,), recipe=recipe)
                self.assertEqual(fn.text.count("te.linear"), 4)
                self.assertIn(attr, fn.text)
                # Four FP8 linears around the attention: ~3% each.
                self.assertLess(rel_err(fn(x), exact), 0.1)

    def test_bf16_block(self):
        model = Block(explicit=False).eval()
        x = torch.randn(2, 16, 64)
        with torch.no_grad():
            exact = model(x)
            model.to(torch.bfloat16)
            xb = x.to(torch.bfloat16)
            eager = model(xb)
        fn = tt.compile(model, (xb,))
        self.assertIn("tensor<?x16x64xbf16>", fn.text)
        y = fn(xb)
        self.assertEqual(y.dtype, torch.bfloat16)
        # te rounds where eager does (once per op, bf16 8-bit mantissa):
        # as far from fp32 as eager bf16 is, and close to it.
        bf16_err = rel_err(eager.float(), exact)
        self.assertLess(rel_err(y.float(), exact), 2 * bf16_err + 1e-3)
        self.assertLess(rel_err(y.float(), eager.float()), 1e-2)

    def test_nvfp4_bf16_mlp(self):
        model = MLP().eval()
        x = torch.randn(32, 64)
        with torch.no_grad():
            exact = model(x)
        model.to(torch.bfloat16)
        recipe = tt.NVFP4BlockScaling(disable_stochastic_rounding=True)
        fn = tt.compile(model, (x.to(torch.bfloat16),), recipe=recipe)
        self.assertIn("#te.nvfp4<f4E2M1FN, rht = true>", fn.text)
        err = rel_err(fn(x.to(torch.bfloat16)).float(), exact)
        # E2M1 keeps 1 mantissa bit (steps up to 1/3 relative, 16-value
        # blocks): ~10% rms per operand, two operands, two layers.
        self.assertLess(err, 0.3)
        self.assertGreater(err, 1e-2)

    def test_graph_module_input(self):
        model = MLP().eval()
        gm = torch.fx.symbolic_trace(model)
        x = torch.randn(8, 64)
        fn = tt.compile(gm, (x,))
        with torch.no_grad():
            torch.testing.assert_close(fn(x), model(x), atol=2e-5,
                                       rtol=2e-5)
        self.assertEqual(fn.imported.param_names[0], "fc1.weight")

    # --- errors

    def test_unsupported_op_names_op_and_module(self):
        with self.assertRaises(tt.UnsupportedOpError) as cm:
            tt.import_module(Outer().eval(), (torch.randn(4, 16),))
        e = cm.exception
        self.assertIsInstance(e, te.Error)
        self.assertEqual(e.op, "aten.cumsum.default")
        self.assertEqual(e.module, "inner.1")
        self.assertRegex(str(e), r"unsupported op aten\.cumsum\.default in "
                         r"module 'inner\.1'")

    def test_dropout_in_training_mode(self):
        model = Tagger().train()
        with self.assertRaisesRegex(tt.UnsupportedOpError,
                                    r"dropout in module 'drop'.*eval\(\)"):
            tt.import_module(model, (torch.randint(0, 50, (2, 4)),))

    def test_wrong_input_rank_and_shape(self):
        fn = tt.compile(MLP().eval(), (torch.randn(8, 64),))
        with self.assertRaisesRegex(tt.InputError, r"input 0: expected a "
                                    r"rank-2 tensor \(shape \(batch, 64\)\)"
                                    r", got rank 3"):
            fn(torch.randn(2, 8, 64))
        with self.assertRaisesRegex(tt.InputError, r"input 0: expected shape"
                                    r" \(batch, 64\), got \(8, 32\)"):
            fn(torch.randn(8, 32))
        with self.assertRaisesRegex(tt.InputError, "takes 1 input"):
            fn(torch.randn(8, 64), torch.randn(8, 64))
        self.assertTrue(issubclass(tt.InputError, te.Error))

    def test_quantized_rows_checked_at_each_call(self):
        model = MLP().eval()
        fn = tt.compile(model, (torch.randn(8, 64),),
                        recipe=tt.Float8CurrentScaling())
        fn(torch.randn(16, 64))
        with self.assertRaisesRegex(tt.InputError, r"quantized linear in "
                                    r"module 'fc1' needs its flattened "
                                    r"leading dimensions divisible by 8.*"
                                    r"got 12 at batch 12"):
            fn(torch.randn(12, 64))

    def test_private_sdpa_masks(self):
        class Masked(nn.Module):
            def __init__(self, additive):
                super().__init__()
                if additive:
                    mask = torch.randn(8, 8)
                else:
                    mask = torch.rand(8, 8) > 0.4
                    mask[:, 0] = True
                self.register_buffer("mask", mask)

            def forward(self, q, k, v):
                if hasattr(F, "_scaled_dot_product_attention"):
                    return F._scaled_dot_product_attention(
                        q, k, v, self.mask, 0.0, False, False)[0]
                return F.scaled_dot_product_attention(q, k, v, self.mask)

        q, k, v = (torch.randn(2, 3, 8, 16) for _ in range(3))
        for additive in (True, False):
            with self.subTest(additive=additive):
                model = Masked(additive)
                fn = tt.compile(model, (q, k, v))
                self.assertRegex(fn.text, r"te.attention %arg1, %arg2, "
                                 r"%arg3 mask %\w+\n.*tensor<1x1x8x8x" +
                                 ("f32" if additive else "i1"))
                torch.testing.assert_close(fn(q, k, v), model(q, k, v),
                                           atol=2e-5, rtol=2e-5)

    def test_recipe_misuse(self):
        x = torch.randn(16, 64)
        with self.assertRaisesRegex(tt.RecipeError, "DelayedScaling cannot "
                                    "quantize te.linear"):
            tt.import_module(MLP().eval(), (x,),
                             recipe=tt.DelayedScaling())
        with self.assertRaisesRegex(tt.RecipeError, "recipe str is not "
                                    "supported"):
            tt.import_module(MLP().eval(), (x,), recipe="fp8")
        with self.assertRaisesRegex(tt.RecipeError, "divisible by 16.*got "
                                    "64 and 40"):
            tt.import_module(MLP(64, 40).eval(), (x,),
                             recipe=tt.Float8CurrentScaling())
        with self.assertRaisesRegex(tt.RecipeError, "leading dimensions "
                                    "divisible by 8, got 12"):
            tt.import_module(MLP().eval(), (torch.randn(12, 64),),
                             recipe=tt.Float8CurrentScaling(),
                             dynamic_batch=False)


@unittest.skipUnless(HAVE_TORCH, SKIP)
class RecipeTest(unittest.TestCase):
    """The recipes' quantizers, as docs/guide/pytorch.md's table gives them
    from TransformerEngine's defaults."""

    def texts(self, recipe):
        return {k: v.text for k, v in tt.quantizers(recipe).items()}

    def test_defaults(self):
        self.assertEqual(self.texts(tt.Float8CurrentScaling()), {
            "input": "#te.current<f8E4M3FN>",
            "weight": "#te.current<f8E4M3FN>",
            "grad_output": "#te.current<f8E5M2>"})
        self.assertEqual(self.texts(tt.DelayedScaling()), {
            "input": "#te.delayed<f8E4M3FN>",
            "weight": "#te.delayed<f8E4M3FN>",
            "grad_output": "#te.delayed<f8E5M2>"})
        self.assertEqual(self.texts(tt.Float8BlockScaling()), {
            "input": "#te.block<f8E4M3FN>",
            "weight": "#te.block<f8E4M3FN, dims = 2>",
            "grad_output": "#te.block<f8E4M3FN>"})
        self.assertEqual(self.texts(tt.MXFP8BlockScaling()), {
            "input": "#te.mxfp8<f8E4M3FN>",
            "weight": "#te.mxfp8<f8E4M3FN>",
            "grad_output": "#te.mxfp8<f8E4M3FN>"})
        self.assertEqual(self.texts(tt.NVFP4BlockScaling()), {
            "input": "#te.nvfp4<f4E2M1FN, rht = true>",
            "weight": "#te.nvfp4<f4E2M1FN, block_2d = true>",
            "grad_output": "#te.nvfp4<f4E2M1FN, rht = true, "
                           "stochastic_rounding = true>"})

    def test_fields(self):
        t = self.texts(tt.Float8CurrentScaling(fp8_format=tt.Format.E4M3,
                                               use_power_2_scales=True))
        self.assertEqual(t["grad_output"],
                         "#te.current<f8E4M3FN, pow2_scales = true>")
        t = self.texts(tt.DelayedScaling(margin=1, amax_history_len=16,
                                         amax_compute_algo="most_recent"))
        self.assertEqual(t["input"], "#te.delayed<f8E4M3FN, margin = 1, "
                         "history = 16, algo = most_recent>")
        t = self.texts(tt.Float8BlockScaling(use_f32_scales=True,
                                             x_block_scaling_dim=2,
                                             w_block_scaling_dim=1))
        self.assertEqual(t["input"],
                         "#te.block<f8E4M3FN, dims = 2, pow2_scales = false>")
        self.assertEqual(t["weight"],
                         "#te.block<f8E4M3FN, pow2_scales = false>")
        t = self.texts(tt.MXFP8BlockScaling(fp8_format=tt.Format.HYBRID,
                                            enable_2d_quantization=True))
        self.assertEqual(t["weight"], "#te.mxfp8<f8E4M3FN, block_2d = true>")
        self.assertEqual(t["grad_output"], "#te.mxfp8<f8E5M2>")
        t = self.texts(tt.NVFP4BlockScaling(disable_rht=True,
                                            disable_stochastic_rounding=True,
                                            disable_2d_quantization=True))
        self.assertEqual(set(t.values()), {"#te.nvfp4<f4E2M1FN>"})
        t = self.texts(tt.NVFP4BlockScaling(disable_rht=True,
                                            nvfp4_4over6="weights",
                                            nvfp4_4over6_err_mode="MSE"))
        self.assertEqual(t["weight"], "#te.nvfp4<f4E2M1FN, block_2d = true, "
                         "four_over_six = true, e4m3_max = 256.0, "
                         "err_mode = mse>")
        self.assertEqual(t["input"], "#te.nvfp4<f4E2M1FN>")

    def test_transformer_engine_objects(self):
        """A TransformerEngine recipe is read by class name and fields."""
        import dataclasses
        import enum

        class TEFormat(enum.Enum):  # TE's Format: another enum class
            E4M3 = 1
            HYBRID = 2
            E5M2 = 3

        @dataclasses.dataclass
        class Float8CurrentScaling:
            fp8_format: TEFormat = TEFormat.HYBRID
            fp8_quant_fwd_inp: object = tt.QParams(power_2_scale=True)
            fp8_quant_fwd_weight: object = tt.QParams()
            fp8_quant_bwd_grad: object = tt.QParams(amax_epsilon=0.5)
            fp8_dpa: bool = False
            fp8_mha: bool = False
            backward_override: object = None

        self.assertEqual(self.texts(Float8CurrentScaling()), {
            "input": "#te.current<f8E4M3FN, pow2_scales = true>",
            "weight": "#te.current<f8E4M3FN>",
            "grad_output": "#te.current<f8E5M2, amax_epsilon = 0.5>"})
        with self.assertRaisesRegex(tt.RecipeError, "Pure E5M2"):
            tt.quantizers(Float8CurrentScaling(fp8_format=TEFormat.E5M2))

    def test_rejected(self):
        cases = [
            (lambda: tt.Float8CurrentScaling(fp8_format=tt.Format.E5M2),
             "Pure E5M2 training is not supported"),
            (lambda: tt.Float8BlockScaling(x_block_scaling_dim=2),
             r"2D by 2D block gemm not supported"),
            (lambda: tt.Float8BlockScaling(x_block_scaling_dim=3),
             "Only 1D or 2D blocks supported for x"),
            (lambda: tt.Float8BlockScaling(fp8_dpa=True),
             "FP8 attention is not supported for Float8BlockScaling"),
            (lambda: tt.DelayedScaling(backward_override="dequantized"),
             "Delayed scaling only supports backward_override=None"),
            (lambda: tt.NVFP4BlockScaling(nvfp4_4over6="some"),
             "nvfp4_4over6 must be one of"),
            (lambda: tt.quantizers(tt.DelayedScaling(
                amax_compute_algo=lambda h: h.max())),
             "amax_compute_algo must be 'max' or 'most_recent'"),
            (lambda: tt.quantizers(tt.MXFP8BlockScaling(fp8_mha=True)),
             "fp8_dpa / fp8_mha"),
        ]
        for make, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(tt.RecipeError, message):
                    make()
        self.assertTrue(issubclass(tt.RecipeError, te.Error))


class PackageTest(unittest.TestCase):
    def test_version_is_the_projects(self):
        root = os.path.join(os.path.dirname(__file__), "..", "..")
        with open(os.path.join(root, "CMakeLists.txt")) as f:
            m = re.search(r"project\(te VERSION ([0-9.]+)", f.read())
        self.assertEqual(te.__version__, m.group(1))

    def test_signatures_and_typing(self):
        import inspect
        params = inspect.signature(te.quantize).parameters
        for name in ("x", "quantizer", "ctx", "usage", "target", "scale"):
            self.assertIn(name, params)
        self.assertNotIn("kwargs", params)
        self.assertIn("layout", inspect.signature(te.gemm).parameters)
        self.assertTrue(os.path.exists(os.path.join(
            os.path.dirname(te.__file__), "py.typed")))


if __name__ == "__main__":
    unittest.main()

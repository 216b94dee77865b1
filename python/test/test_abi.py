"""te_rt_quantizer for ctypes: generated from te_rt_abi.def and te_rt.h.

The package's Quantizer must have the C struct's size, and its fields must
be those of te_rt_abi.def's quantizer field list. gen_abi.py, which writes
them, must stop with a message on a C type it cannot map and on a table
field the struct lacks, and keep struct members the table does not list.
"""

import ctypes
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

import te
from te import _abi, _lib, _quantizer_fields

HERE = os.path.dirname(os.path.abspath(__file__))
GEN_ABI = os.path.join(HERE, "..", "gen_abi.py")
RT_INCLUDE = os.path.join(HERE, "..", "..", "runtime", "include")

_spec = importlib.util.spec_from_file_location("gen_abi", GEN_ABI)
gen_abi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_abi)

HEADER = """
#define TE_RT_X_RESERVED 24
typedef enum te_rt_kind { TE_RT_KIND_A = 0, TE_RT_KIND_B = 1 } te_rt_kind;
typedef struct te_rt_quantizer {
  te_rt_kind recipe; /**< an enum */
  float amax_epsilon;
  %s
  char _reserved[TE_RT_X_RESERVED];
} te_rt_quantizer;
"""
DEF = """/* TE_RT_ABI_QUANTIZER_FIELD(commented, out) */
#ifndef TE_RT_ABI_QUANTIZER_FIELD
#define TE_RT_ABI_QUANTIZER_FIELD(c_field, config_field)
#endif
TE_RT_ABI_QUANTIZER_FIELD(recipe, recipe)
TE_RT_ABI_QUANTIZER_FIELD(amax_epsilon, amaxEpsilon)
%s
"""


class QuantizerLayout(unittest.TestCase):

    def test_size_is_the_c_struct_size(self):
        syntax = _lib.load_syntax()
        self.assertEqual(ctypes.sizeof(_abi.Quantizer),
                         syntax.te_py_quantizer_size())

    def test_fields_are_the_def_list(self):
        names = [name for name, _ in _abi.Quantizer._fields_]
        fields = gen_abi.def_fields(os.path.join(RT_INCLUDE,
                                                 "te_rt_abi.def"))
        self.assertEqual(tuple(c for c, _ in fields),
                         _quantizer_fields.QUANTIZER_FIELDS)
        for c, _ in fields:
            self.assertIn(c, names)

    def test_fields_read_back_from_the_parser(self):
        # libte_py_syntax fills a C te_rt_quantizer; the fields are read
        # back by name, the last ones included.
        q = te.Quantizer("#te.nvfp4<f4E2M1FN, four_over_six = true, "
                         "e4m3_max = 256.0>")._q
        self.assertEqual((q.recipe, q.dtype, q.use_4over6, q.e4m3_max),
                         (_abi.RECIPE_NVFP4, _abi.E2M1X2, 1, 256.0))
        q = te.Quantizer("#te.delayed<f8E5M2, margin = 2, history = 16, "
                         "algo = most_recent>")._q
        self.assertEqual((q.recipe, q.dtype, q.margin, q.history_length,
                          q.amax_algo),
                         (_abi.RECIPE_DELAYED, _abi.E5M2, 2, 16,
                          _abi.AMAX_MOST_RECENT))


class GenAbi(unittest.TestCase):

    def generate(self, member, field):
        with tempfile.TemporaryDirectory() as d:
            header = os.path.join(d, "te_rt.h")
            table = os.path.join(d, "te_rt_abi.def")
            out = os.path.join(d, "_quantizer_fields.py")
            with open(header, "w") as f:
                f.write(HEADER % member)
            with open(table, "w") as f:
                f.write(DEF % field)
            r = subprocess.run([sys.executable, GEN_ABI, "--def", table,
                                "--header", header, "--output", out],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True)
            text = None
            if os.path.exists(out):
                with open(out) as f:
                    text = f.read()
            return r, text

    def test_types_and_members_outside_the_table(self):
        r, text = self.generate("uint64_t seed;",
                                "TE_RT_ABI_QUANTIZER_FIELD(seed, seed)")
        self.assertEqual(r.returncode, 0, r.stderr)
        ns = {}
        exec(text, ns)
        self.assertEqual(ns["QUANTIZER_FIELDS"],
                         ("recipe", "amax_epsilon", "seed"))
        self.assertEqual(ns["FIELDS"], [
            ("recipe", ctypes.c_int), ("amax_epsilon", ctypes.c_float),
            ("seed", ctypes.c_uint64), ("_reserved", ctypes.c_char * 24)])

    def test_unknown_type(self):
        r, text = self.generate("long double wide;",
                                "TE_RT_ABI_QUANTIZER_FIELD(wide, wide)")
        self.assertEqual(r.returncode, 1)
        self.assertIsNone(text)
        self.assertIn("member 'wide' of te_rt_quantizer has C type "
                      "'long double', which gen_abi.py does not map to "
                      "ctypes", r.stderr)

    def test_table_field_the_struct_lacks(self):
        r, text = self.generate("int32_t margin;",
                                "TE_RT_ABI_QUANTIZER_FIELD(history, history)")
        self.assertEqual(r.returncode, 1)
        self.assertIsNone(text)
        self.assertIn("lists quantizer field(s) history that te_rt_quantizer",
                      r.stderr)


RECIPES_DEF = os.path.join(HERE, "..", "..", "include", "te", "Format",
                           "Recipes.def")
ROW = ('TE_FORMAT_RECIPE(%s, "%s", "t", "f", 1, 0, 0, 0, 0, F32, 0, 0)\n')


class Enums(unittest.TestCase):
    """_enums.py (te_rt.h's enumerators) and _recipes.py (Recipes.def)."""

    def test_values_are_the_c_header(self):
        # The values the library itself reports back: a quantizer parsed by
        # libte_py_syntax (C) carries the C enumerators.
        q = te.Quantizer("#te.mxfp8<f8E5M2>")._q
        self.assertEqual((q.recipe, q.dtype), (_abi.RECIPE_MXFP8, _abi.E5M2))
        q = te.Quantizer("#te.block<f8E4M3FN>")._q
        self.assertEqual((q.recipe, q.dtype), (_abi.RECIPE_BLOCK, _abi.E4M3))
        self.assertEqual(_abi.STATUS_NAMES[_abi.OK], "OK")
        self.assertEqual(_abi.DTYPE_NAMES[_abi.E2M1X2], "e2m1x2")

    def test_recipes_against_the_spec(self):
        # docs/formats.md §3 (per-tensor FP8, 1x128 / 1x32 / 1x16 blocks)
        # and §1.3 (MXFP8 and NVFP4 GEMMs need sm_100).
        from te import _recipes
        self.assertEqual([t.name for t in _recipes.TRAITS],
                         ["delayed", "current", "block", "mxfp8", "nvfp4"])
        self.assertEqual([t.per_tensor for t in _recipes.TRAITS],
                         [True, True, False, False, False])
        self.assertEqual([t.block_size for t in _recipes.TRAITS],
                         [0, 0, 128, 32, 16])
        self.assertEqual([t.emulated_on_sm90 for t in _recipes.TRAITS],
                         [False, False, False, True, True])
        for t in _recipes.TRAITS:
            self.assertEqual(getattr(_abi, "RECIPE_" + t.name.upper()),
                             t.value)
        self.assertEqual(te.Quantizer("#te.nvfp4<f4E2M1FN>").default_target,
                         "sm_100")
        self.assertTrue(te.Quantizer("#te.delayed<f8E4M3FN>").per_tensor)
        self.assertFalse(te.Quantizer("#te.block<f8E4M3FN>").per_tensor)

    def run_gen(self, header, recipes):
        with tempfile.TemporaryDirectory() as d:
            paths = {}
            for name, text in (("te_rt.h", header), ("Recipes.def", recipes),
                               ("te_rt_abi.def", DEF % "")):
                paths[name] = os.path.join(d, name)
                with open(paths[name], "w") as f:
                    f.write(text)
            out = {n: os.path.join(d, n) for n in ("q.py", "e.py", "r.py")}
            r = subprocess.run(
                [sys.executable, GEN_ABI, "--def", paths["te_rt_abi.def"],
                 "--header", paths["te_rt.h"], "--output", out["q.py"],
                 "--enums-output", out["e.py"], "--recipes",
                 paths["Recipes.def"], "--recipes-output", out["r.py"]],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                universal_newlines=True)
            texts = {}
            for n, p in out.items():
                if os.path.exists(p):
                    with open(p) as f:
                        texts[n] = f.read()
            return r, texts

    def header(self, recipes):
        return (HEADER % "") + (
            "typedef enum te_rt_recipe { %s } te_rt_recipe;\n" % ", ".join(
                "TE_RT_RECIPE_%s = %d" % (n.upper(), i)
                for i, n in enumerate(recipes)))

    def test_generates_both_modules(self):
        r, texts = self.run_gen(self.header(["one", "two"]),
                                ROW % ("One", "one") + ROW % ("Two", "two"))
        self.assertEqual(r.returncode, 0, r.stderr)
        ns = {}
        exec(texts["e.py"], ns)
        self.assertEqual((ns["KIND_B"], ns["RECIPE_TWO"]), (1, 1))
        self.assertEqual(ns["ENUMERATORS"]["te_rt_recipe"],
                         {0: "RECIPE_ONE", 1: "RECIPE_TWO"})
        ns = {}
        exec(texts["r.py"], ns)
        self.assertEqual([(t.value, t.name, t.per_tensor, t.scale_type)
                          for t in ns["TRAITS"]],
                         [(0, "one", True, "f32"), (1, "two", True, "f32")])

    def test_recipe_enum_differs_from_the_def(self):
        r, texts = self.run_gen(self.header(["one", "three"]),
                                ROW % ("One", "one") + ROW % ("Two", "two"))
        self.assertEqual(r.returncode, 1)
        self.assertEqual(texts, {})
        self.assertIn("te_rt_recipe in", r.stderr)
        self.assertIn("TE_RT_RECIPE_TWO", r.stderr)

    def test_row_with_a_missing_column(self):
        r, texts = self.run_gen(
            self.header(["one"]),
            'TE_FORMAT_RECIPE(One, "one", "t", "f", 1, 0, 0, 0, 0, F32, 0)\n')
        self.assertEqual(r.returncode, 1)
        self.assertIn("has 11 columns, expected 12", r.stderr)

    def test_flag_that_is_not_0_or_1(self):
        r, texts = self.run_gen(
            self.header(["one"]),
            'TE_FORMAT_RECIPE(One, "one", "t", "f", 2, 0, 0, 0, 0, F32, 0, 0)'
            '\n')
        self.assertEqual(r.returncode, 1)
        self.assertIn("per_tensor of One is '2', not 0 or 1", r.stderr)

    def test_no_rows(self):
        r, texts = self.run_gen(self.header(["one"]), "// none\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no TE_FORMAT_RECIPE rows", r.stderr)

    def test_enumerator_without_a_value(self):
        r, texts = self.run_gen(
            "typedef enum te_rt_x { TE_RT_X_A, TE_RT_X_B = 1 } te_rt_x;\n"
            + (HEADER % ""), ROW % ("One", "one"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("enumerator 'TE_RT_X_A' of te_rt_x has no literal "
                      "value", r.stderr)

    def test_enumerator_without_the_prefix(self):
        r, texts = self.run_gen(
            "typedef enum te_rt_x { X_A = 0 } te_rt_x;\n" + self.header(
                ["one"]), ROW % ("One", "one"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("enumerator X_A of te_rt_x does not start with TE_RT_",
                      r.stderr)

    def test_the_committed_def_generates(self):
        rows = gen_abi.recipe_rows(RECIPES_DEF)
        self.assertEqual(len(rows), 5)
        gen_abi.check_recipe_enum(os.path.join(RT_INCLUDE, "te_rt.h"),
                                  RECIPES_DEF)


if __name__ == "__main__":
    unittest.main()

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


if __name__ == "__main__":
    unittest.main()

"""The package as users read it: help() shows every public function's
parameters with type hints and a docstring; te.__version__; py.typed."""

import inspect
import os
import pydoc
import re
import unittest

import te

PUBLIC = [te.quantize, te.dequantize, te.gemm, te.amax, te.compile, te.load,
          te.Program.run, te.Program.signature, te.Array.numpy,
          te.Array.__dlpack__]


class ApiTest(unittest.TestCase):
    def test_signatures_have_hints_and_docs(self):
        for f in PUBLIC:
            with self.subTest(function=f.__qualname__):
                sig = inspect.signature(f)
                for name, p in sig.parameters.items():
                    if name == "self" or p.kind is p.VAR_KEYWORD:
                        continue
                    if f is te.Array.__dlpack__:
                        continue  # the DLPack protocol's own keywords
                    self.assertIsNot(p.annotation, p.empty,
                                     f"{f.__qualname__}: {name}")
                if f is not te.Array.__dlpack__:
                    self.assertIsNot(sig.return_annotation, sig.empty)
                self.assertTrue((f.__doc__ or "").strip())

    def test_help_shows_parameters(self):
        text = pydoc.render_doc(te.quantize, renderer=pydoc.plaintext)
        for part in ("x: Any", "quantizer: Union[str, te.quantizer."
                     "Quantizer]", "usage: str = 'rowwise,columnwise'",
                     "Quantizes `x` with `quantizer`"):
            self.assertIn(part, text)
        text = pydoc.render_doc(te.load, renderer=pydoc.plaintext)
        self.assertIn("Opens a program compiled ahead of time", text)

    def test_version_and_py_typed(self):
        self.assertRegex(te.__version__, r"^\d+\.\d+\.\d+")
        here = os.path.dirname(te.__file__)
        self.assertTrue(os.path.exists(os.path.join(here, "py.typed")))
        self.assertTrue(re.match(r"^\d+$", str(te.api_version())))


if __name__ == "__main__":
    unittest.main()

#===- run-install-test.cmake - the te package from an install tree ----------===#
#
# cmake -DTE_BINARY_DIR=... -DPYTHON=... -DPY_DIR=<TE_PYTHON_INSTALL_DIR>
#       -P run-install-test.cmake
#
# Installs the build into <build>/python/install-test and imports te from
# there (PYTHONPATH = the installed package's parent only): the package must
# load libte_rt (and its parser library) from the prefix, quantize, and, when
# the JIT library was installed, compile and run a module.
#
#===------------------------------------------------------------------------===#

set(prefix ${TE_BINARY_DIR}/python/install-test)
file(REMOVE_RECURSE ${prefix})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${TE_BINARY_DIR}
  --prefix ${prefix} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python install test: cmake --install failed:\n${err}")
endif()
if(IS_ABSOLUTE "${PY_DIR}")
  message(STATUS "python install test: TE_PYTHON_INSTALL_DIR is absolute; skipped")
  return()
endif()

set(script [=[
import os, sys
import numpy as np
import te
from te import _lib
prefix = os.path.realpath(sys.argv[1])
here = os.path.realpath(os.path.dirname(te.__file__))
assert here.startswith(prefix), here
q = te.quantize(np.ones((32, 64), np.float32), "#te.mxfp8<f8E4M3FN>")
assert te.dequantize(q).tolist() == np.ones((32, 64)).tolist()
lib = os.path.realpath(_lib.path_of_loaded())
assert lib.startswith(prefix), lib
if os.path.exists(os.path.join(here, "libte_py_jit.so")):
    src = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}"""
    with te.compile(src) as p:
        assert p.run("main", np.arange(4, dtype=np.float32)).tolist() == [0, 2, 4, 6]
    print("compile: ok")
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        import te.torch as tt
        assert os.path.realpath(tt.__file__).startswith(prefix), tt.__file__
        m = torch.nn.Linear(16, 16).eval()
        x = torch.randn(8, 16)
        with torch.no_grad():
            assert float((tt.compile(m, (x,))(x) - m(x)).abs().max()) < 1e-5
        print("te.torch: ok")
assert te.__version__[0].isdigit() and "unknown" not in te.__version__, \
    te.__version__
print("te from", here, "with", lib, ": ok")
]=])
file(WRITE ${prefix}/check.py "${script}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=TE_RT_LIBRARY
    --unset=TE_CAPI_LIBRARY --unset=LD_LIBRARY_PATH
    PYTHONPATH=${prefix}/${PY_DIR}
    ${PYTHON} ${prefix}/check.py ${prefix}
  WORKING_DIRECTORY ${prefix}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python install test failed:\n${out}\n${err}")
endif()

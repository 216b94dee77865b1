#===- run-runtime-install-test.cmake - a runtime-only install ----------------===#
#
# cmake -DTE_SOURCE_DIR=... -DTE_BINARY_DIR=... -DPYTHON=... -DGENERATOR=...
#       -DMAKE_PROGRAM=... -P run-runtime-install-test.cmake
#
# Builds the runtime alone (cmake -S runtime, cpu only, no MLIR), installs it
# into a temporary prefix and checks what a GPU machine without MLIR gets:
# libte_rt, libte_call, te-quantize, te-aot-run and the Python package's
# runtime part; the tools run with LD_LIBRARY_PATH unset; a C consumer
# (runtime-all/) configures with find_package(TE) and no COMPONENTS while MLIR
# cannot be found, links TE::te_rt and TE::te_call, and runs; the installed
# Python package quantizes and reports that it has no compiler.
#
#===------------------------------------------------------------------------===#

set(here ${CMAKE_CURRENT_LIST_DIR})
set(work ${TE_BINARY_DIR}/test/Package/runtime-install)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})
set(generator -G "${GENERATOR}")
if(MAKE_PROGRAM)
  list(APPEND generator -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
set(clean_env ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
  --unset=PYTHONPATH --unset=TE_RT_LIBRARY --unset=TE_CALL_LIBRARY)

function(run step)
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "runtime install test: ${step} failed (${rc}):\n"
      "${out}\n${err}")
  endif()
  message(STATUS "runtime install test: ${step}: ok")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

function(expect step pattern)
  if(NOT last_output MATCHES "${pattern}")
    message(FATAL_ERROR "runtime install test: ${step}: expected "
      "'${pattern}' in:\n${last_output}")
  endif()
endfunction()

set(launchers)
find_program(ccache ccache)
if(ccache)
  set(launchers -DCMAKE_C_COMPILER_LAUNCHER=${ccache}
    -DCMAKE_CXX_COMPILER_LAUNCHER=${ccache})
endif()
run("configure" ${CMAKE_COMMAND} ${generator} -S ${TE_SOURCE_DIR}/runtime
  -B ${work}/build -DCMAKE_BUILD_TYPE=Release -DTE_ENABLE_CUDA=OFF
  -DTE_BUILD_TESTS=OFF ${launchers})
run("build" ${CMAKE_COMMAND} --build ${work}/build)
set(prefix ${work}/install)
run("install" ${CMAKE_COMMAND} --install ${work}/build --prefix ${prefix})

set(py lib/python3/dist-packages/te)
foreach(file bin/te-quantize bin/te-aot-run lib/libte_call.so.1
    lib/cmake/te/TEConfig.cmake include/te_call.h include/te_rt.h
    ${py}/__init__.py ${py}/program.py ${py}/_location.py
    ${py}/_quantizer_fields.py ${py}/libte_py_syntax.so ${py}/torch/__init__.py)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "runtime install test: ${file} is not installed")
  endif()
endforeach()
if(EXISTS ${prefix}/${py}/libte_py_jit.so OR
   EXISTS ${prefix}/lib/cmake/te/TETargets.cmake)
  message(FATAL_ERROR "runtime install test: MLIR parts in a runtime install")
endif()

run("te-aot-run --version" ${clean_env} ${prefix}/bin/te-aot-run --version)
expect("te-aot-run --version" "te-aot-run \\(te\\) [0-9]")
run("te-quantize --help" ${clean_env} ${prefix}/bin/te-quantize --help)

run("configure consumer" ${CMAKE_COMMAND} ${generator}
  -S ${here}/runtime-all -B ${work}/consumer
  -DTE_DIR=${prefix}/lib/cmake/te -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON)
run("build consumer" ${CMAKE_COMMAND} --build ${work}/consumer)
run("run consumer" ${clean_env} ${work}/consumer/te-call-consumer)
expect("run consumer"
  "te_call api 1\n2 args, 1 results, target sm_90, shape checks 1\narg 0: bf16 rank 2 dims -1,64\nerror: signature 'f32\\[4\\]' has no '->'")

if(PYTHON)
  set(script [=[
import os, sys
import numpy as np
import te
prefix = os.path.realpath(sys.argv[1])
assert os.path.realpath(te.__file__).startswith(prefix), te.__file__
from te import _call, _lib
q = te.quantize(np.ones((32, 64), np.float32), "#te.mxfp8<f8E4M3FN>")
assert te.dequantize(q).tolist() == np.ones((32, 64)).tolist()
assert os.path.realpath(_lib.path_of_loaded()).startswith(prefix)
lib = _call.load()
assert lib.te_call_api_version() == 1
assert not te.has_compiler()
print("runtime package: ok")
]=])
  file(WRITE ${work}/check.py "${script}")
  run("python package" ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
    --unset=TE_RT_LIBRARY --unset=TE_CALL_LIBRARY --unset=TE_CAPI_LIBRARY
    PYTHONPATH=${prefix}/lib/python3/dist-packages
    ${PYTHON} ${work}/check.py ${prefix})
  expect("python package" "runtime package: ok")
endif()

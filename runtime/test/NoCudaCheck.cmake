#===- NoCudaCheck.cmake - libte_rt runs without the CUDA libraries ----------===#
#
# cmake -DLIB=<libte_rt.so> -DSMOKE=<te-rt-smoke> -DREADELF=<readelf>
#       -DHAVE_CUDA=ON|OFF -P NoCudaCheck.cmake
#
# 1. libte_rt has no NEEDED entry for a CUDA library (cudart, cuBLASLt, the
#    driver): the loader never looks for one when libte_rt loads.
# 2. te-rt-smoke runs the cpu backend with LD_LIBRARY_PATH pointing nowhere
#    and the loader's trace on (LD_DEBUG=libs): no CUDA library is searched
#    for or opened.
# 3. Asking for the cuda backend with cuBLASLt hidden (TE_RT_CUBLASLT_LIBRARY
#    names a file that does not exist) is TE_RT_BACKEND_UNAVAILABLE with a
#    message naming that file; in a build without CUDA, the message says so.
#
#===------------------------------------------------------------------------===#

set(cuda_libs "libcuda\\.so|libcudart|libcublas")

execute_process(COMMAND ${READELF} -d ${LIB}
  RESULT_VARIABLE rc OUTPUT_VARIABLE dyn ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${LIB} failed: ${err}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dyn}")
foreach(entry IN LISTS needed)
  if(entry MATCHES "${cuda_libs}")
    message(FATAL_ERROR "libte_rt needs a CUDA library at load time: ${entry}")
  endif()
endforeach()
message(STATUS "no CUDA library among the NEEDED entries: ok")

execute_process(COMMAND ${CMAKE_COMMAND} -E env
    LD_LIBRARY_PATH=/nonexistent LD_DEBUG=libs ${SMOKE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE trace)
if(NOT rc EQUAL 0 OR NOT out MATCHES "cpu: ok")
  message(FATAL_ERROR "the cpu backend failed (${rc}):\n${out}")
endif()
if(trace MATCHES "(${cuda_libs})[^\n]*")
  message(FATAL_ERROR "a cpu-only run looked for a CUDA library: "
    "${CMAKE_MATCH_0}")
endif()
message(STATUS "cpu backend without CUDA libraries: ok")

set(hidden libcublasLt-hidden-by-te-test.so.13)
execute_process(COMMAND ${CMAKE_COMMAND} -E env
    LD_LIBRARY_PATH=/nonexistent TE_RT_CUBLASLT_LIBRARY=${hidden} ${SMOKE} cuda
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "cuda: available 0")
  message(FATAL_ERROR "cuda backend status (${rc}):\n${out}\n${err}")
endif()
if(HAVE_CUDA)
  set(expected "cuda: backend unavailable: [^\n]*${hidden}")
else()
  set(expected "cuda: backend unavailable: [^\n]*built without CUDA")
endif()
string(REPLACE "." "\\." expected "${expected}")
if(NOT out MATCHES "${expected}")
  message(FATAL_ERROR "expected '${expected}' in:\n${out}")
endif()
message(STATUS "cuda backend without cuBLASLt: ${CMAKE_MATCH_0}: ok")

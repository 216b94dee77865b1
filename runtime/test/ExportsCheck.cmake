# The dynamic symbols libte_rt defines are its C ABI alone (lib/te_rt.exports):
# te_rt_*, the GPU dialect's host ABI (mgpu*) and the memref allocation hooks
# (_mlir_memref_to_llvm_*). Any other exported definition -- a C++ internal,
# a symbol of a statically linked C++ runtime -- can interpose or be
# interposed by another copy in the same process (PyTorch's libstdc++).
#   cmake -DLIB=<libte_rt.so> -DREADELF=<readelf> -P ExportsCheck.cmake
execute_process(COMMAND ${READELF} --dyn-syms -W ${LIB}
  OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${LIB}")
endif()
string(REPLACE "\n" ";" lines "${syms}")
set(count 0)
set(bad "")
foreach(line IN LISTS lines)
  # Num: Value Size Type Bind Vis Ndx Name
  if(line MATCHES "^ *[0-9]+: +[0-9a-f]+ +[0-9]+ +(FUNC|OBJECT|TLS|IFUNC) +(GLOBAL|WEAK|UNIQUE) +DEFAULT +([0-9]+) +([^ @]+)")
    set(name "${CMAKE_MATCH_4}")
    math(EXPR count "${count} + 1")
    if(NOT name MATCHES "^(te_rt_|mgpu|_mlir_memref_to_llvm_)")
      list(APPEND bad "${name}")
    endif()
  endif()
endforeach()
if(count LESS 20)
  message(FATAL_ERROR "${LIB}: only ${count} exported definitions read; "
    "the readelf output was not understood")
endif()
if(bad)
  list(LENGTH bad n)
  list(SUBLIST bad 0 10 first)
  message(FATAL_ERROR "${LIB} exports ${n} symbols outside its C ABI, e.g. "
    "${first}")
endif()
message(STATUS "${LIB}: ${count} exported definitions, all of the C ABI")

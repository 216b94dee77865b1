#===- run-package-test.cmake - downstream consumers of the TE package ------===#
#
# cmake -DTE_SOURCE_DIR=... -DTE_BINARY_DIR=... -DFILECHECK=... -DMLIR_DIR=...
#       -DGENERATOR=... -DMAKE_PROGRAM=... -P run-package-test.cmake
#
# 1. installs the build (cmake --install) into <build>/test/Package/work and
#    checks that every public header and libte_rt.so.<API version> are there;
# 2. runs each installed tool (te-opt, te-run, te-quantize) on a real input
#    (tools.mlir) with LD_LIBRARY_PATH unset: their RUNPATHs must find
#    libte_rt and libMLIR;
# 3. configures, builds and runs a C++ project (cxx/) and a C project (c/)
#    against the install tree, and the C project against the build tree,
#    checking their output with FileCheck against layout.mlir;
# 4. builds and runs a runtime-only consumer (runtime/, find_package(TE
#    COMPONENTS runtime)) with MLIR made unfindable, against this install and
#    against the install of a runtime-only build (cmake -S runtime, cpu only);
# 5. configures a host project that embeds te (embedded/, TE_BUILD_EMBEDDED)
#    and checks that te's targets land in te's own build directory.
#
#===------------------------------------------------------------------------===#

set(here ${CMAKE_CURRENT_LIST_DIR})
set(work ${TE_BINARY_DIR}/test/Package/work)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})

function(run step)
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: ${step} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "package test: ${step}: ok")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

# check_output(step output [check-file [prefix]]): FileCheck of `output`.
function(check_output step output)
  set(check_file ${here}/layout.mlir)
  set(prefix CHECK)
  if(ARGC GREATER 2)
    set(check_file ${ARGV2})
  endif()
  if(ARGC GREATER 3)
    set(prefix ${ARGV3})
  endif()
  file(WRITE ${work}/${step}.out "${output}")
  run("${step} (FileCheck)" ${FILECHECK} ${check_file}
      --check-prefix=${prefix} --input-file ${work}/${step}.out)
endfunction()

set(generator -G ${GENERATOR})
if(MAKE_PROGRAM)
  list(APPEND generator -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()

run("install" ${CMAKE_COMMAND} --install ${TE_BINARY_DIR}
    --prefix ${work}/install)
file(GLOB rt_headers RELATIVE ${TE_SOURCE_DIR}/runtime/include
     ${TE_SOURCE_DIR}/runtime/include/*.h ${TE_SOURCE_DIR}/runtime/include/*.def)
list(TRANSFORM rt_headers PREPEND include/)
file(STRINGS ${TE_SOURCE_DIR}/runtime/include/te_rt.h api_line
     REGEX "^#define TE_RT_API_VERSION [0-9]+")
string(REGEX REPLACE ".* ([0-9]+).*" "\\1" api "${api_line}")
set(installed_files lib/cmake/te/TEConfig.cmake lib/cmake/te/TETargets.cmake
    lib/cmake/te/TERuntimeTargets.cmake
    include/te/Dialect/TE/IR/TEAttrs.h.inc include/te-c/Types.h
    include/te/Format/Layout.h ${rt_headers} lib/libte_rt.so.${api})
function(check_installed prefix)
  foreach(file ${ARGN})
    if(NOT EXISTS ${prefix}/${file})
      message(FATAL_ERROR "package test: ${file} is not installed in ${prefix}")
    endif()
  endforeach()
endfunction()
check_installed(${work}/install ${installed_files})
message(STATUS "package test: installed files (libte_rt.so.${api}, "
  "${rt_headers}): ok")

# The installed tools, found and run without LD_LIBRARY_PATH.
set(bin ${work}/install/bin)
set(clean_env ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH)
file(MAKE_DIRECTORY ${work}/tools)
run("te-opt --version" ${clean_env} ${bin}/te-opt --version)
run("te-opt --te-pipeline" ${clean_env} ${bin}/te-opt ${here}/tools.mlir
    --te-pipeline)
check_output(te-opt "${last_output}" ${here}/tools.mlir OPT)
run("te-run" ${clean_env} ${bin}/te-run ${here}/tools.mlir --fill 0=0.5
    --output-dir ${work}/tools)
check_output(te-run "${last_output}" ${here}/tools.mlir TERUN)
run("te-quantize" ${clean_env} ${bin}/te-quantize
    --quantizer "#te.mxfp8<f8E4M3FN>" --input ${work}/tools/result0.npy
    --output-dir ${work}/tools/quantized)
foreach(file _rowwise_data.npy _rowwise_scale_inv.npy dequantized.npy)
  if(NOT EXISTS ${work}/tools/quantized/${file})
    message(FATAL_ERROR "package test: te-quantize wrote no ${file}")
  endif()
endforeach()

# C++ against the install tree.
run("configure cxx" ${CMAKE_COMMAND} ${generator} -S ${here}/cxx
    -B ${work}/cxx -DCMAKE_BUILD_TYPE=Release
    -DTE_DIR=${work}/install/lib/cmake/te)
run("build cxx" ${CMAKE_COMMAND} --build ${work}/cxx)
run("run cxx" ${work}/cxx/te-layout ${here}/layout.mlir)
check_output(cxx "${last_output}")

# C against the install tree and against the build tree.
foreach(tree install build)
  if(tree STREQUAL "install")
    set(te_dir ${work}/install/lib/cmake/te)
  else()
    set(te_dir ${TE_BINARY_DIR}/lib/cmake/te)
  endif()
  run("configure c (${tree} tree)" ${CMAKE_COMMAND} ${generator}
      -S ${here}/c -B ${work}/c-${tree} -DTE_DIR=${te_dir})
  run("build c (${tree} tree)" ${CMAKE_COMMAND} --build ${work}/c-${tree})
  run("run c (${tree} tree)" ${work}/c-${tree}/te-layout-c ${here}/layout.mlir)
  check_output(c-${tree} "${last_output}")
endforeach()

# The installed C API library: versioned, found through its RUNPATH.
file(GLOB capi ${work}/install/lib/libTECAPI.so.0)
if(NOT capi)
  message(FATAL_ERROR "package test: lib/libTECAPI.so.0 is not installed")
endif()

# Runtime only: find_package(TE COMPONENTS runtime) must not need MLIR.
function(check_runtime_consumer name te_dir)
  run("configure runtime consumer (${name})" ${CMAKE_COMMAND} ${generator}
      -S ${here}/runtime -B ${work}/runtime-${name} -DTE_DIR=${te_dir}
      -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON)
  run("build runtime consumer (${name})" ${CMAKE_COMMAND}
      --build ${work}/runtime-${name})
  run("run runtime consumer (${name})" ${clean_env}
      ${work}/runtime-${name}/te-rt-smoke cuda)
  if(NOT last_output MATCHES "te_rt api ${api}\ncpu: ok\n")
    message(FATAL_ERROR "package test: runtime consumer (${name}):\n"
      "${last_output}")
  endif()
endfunction()
check_runtime_consumer(install ${work}/install/lib/cmake/te)

# A runtime-only build (no MLIR, no CUDA: the cpu backend) and its install.
run("configure runtime-only build" ${CMAKE_COMMAND} ${generator}
    -S ${TE_SOURCE_DIR}/runtime -B ${work}/runtime-only
    -DCMAKE_BUILD_TYPE=Release -DTE_ENABLE_CUDA=OFF -DTE_BUILD_TESTS=OFF)
# All of it: its install has libte_call, te-aot-run, te-quantize and the
# Python package too (run-runtime-install-test.cmake checks them).
run("build runtime-only build" ${CMAKE_COMMAND} --build ${work}/runtime-only)
run("install runtime-only build" ${CMAKE_COMMAND} --install
    ${work}/runtime-only --prefix ${work}/runtime-only-install)
check_installed(${work}/runtime-only-install lib/cmake/te/TEConfig.cmake
  lib/cmake/te/TERuntimeTargets.cmake include/te/Format/Layout.h
  ${rt_headers} lib/libte_rt.so.${api})
if(EXISTS ${work}/runtime-only-install/lib/cmake/te/TETargets.cmake)
  message(FATAL_ERROR "package test: a runtime-only install has TETargets")
endif()
check_runtime_consumer(runtime-only ${work}/runtime-only-install/lib/cmake/te)
# Its package has no mlir component: the C++ consumer (COMPONENTS mlir) must
# fail to configure, saying why.
execute_process(COMMAND ${CMAKE_COMMAND} ${generator} -S ${here}/cxx
    -B ${work}/cxx-runtime-only
    -DTE_DIR=${work}/runtime-only-install/lib/cmake/te
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "without MLIR")
  message(FATAL_ERROR "package test: find_package(TE) of a runtime-only "
    "package should fail for the mlir component (${rc}):\n${err}")
endif()
message(STATUS "package test: the mlir component of a runtime-only package "
  "is reported missing: ok")

# Embedded mode: configure only, then check where te's targets land.
run("configure embedded host" ${CMAKE_COMMAND} ${generator}
    -S ${here}/embedded -B ${work}/embedded -DTE_SOURCE=${TE_SOURCE_DIR}
    -DMLIR_DIR=${MLIR_DIR})
file(READ ${work}/embedded/te-targets.txt targets)
foreach(expected
    "te-opt=${work}/embedded/te/bin/te-opt"
    "MLIRTEDialect=${work}/embedded/te/lib/libMLIRTEDialect.a"
    "TECAPI=${work}/embedded/te/lib/libTECAPI.so")
  string(FIND "${targets}" "${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR
      "package test: embedded: expected '${expected}' in\n${targets}")
  endif()
endforeach()
message(STATUS "package test: embedded targets: ok")

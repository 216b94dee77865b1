#===- run-package-test.cmake - downstream consumers of the TE package ------===#
#
# cmake -DTE_SOURCE_DIR=... -DTE_BINARY_DIR=... -DFILECHECK=... -DMLIR_DIR=...
#       -DGENERATOR=... -DMAKE_PROGRAM=... -P run-package-test.cmake
#
# 1. installs the build (cmake --install) into <build>/test/Package/work;
# 2. configures, builds and runs a C++ project (cxx/) and a C project (c/)
#    against the install tree, and the C project against the build tree,
#    checking their output with FileCheck against layout.mlir;
# 3. configures a host project that embeds te (embedded/, TE_BUILD_EMBEDDED)
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

function(check_output step output)
  file(WRITE ${work}/${step}.out "${output}")
  run("${step} (FileCheck)" ${FILECHECK} ${here}/layout.mlir
      --input-file ${work}/${step}.out)
endfunction()

set(generator -G ${GENERATOR})
if(MAKE_PROGRAM)
  list(APPEND generator -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()

run("install" ${CMAKE_COMMAND} --install ${TE_BINARY_DIR}
    --prefix ${work}/install)
foreach(file lib/cmake/te/TEConfig.cmake lib/cmake/te/TETargets.cmake
        include/te/Dialect/TE/IR/TEAttrs.h.inc include/te-c/Types.h
        include/te_rt.h)
  if(NOT EXISTS ${work}/install/${file})
    message(FATAL_ERROR "package test: ${file} is not installed")
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

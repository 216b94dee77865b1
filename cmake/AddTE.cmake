#===- AddTE.cmake - helpers for te libraries and tools ---------------------===#
#
# CIRCT's pattern: libraries are built with the MLIR macros but exported in
# te's own export set (TETargets), not in MLIRTargets.
#
#===------------------------------------------------------------------------===#

include_guard()

# add_te_library(<name> <sources>... [DEPENDS ...] [MLIR_LIBS ...] [LINK_LIBS ...])
#
# Builds an MLIR-style library. MLIR_LIBS are linked with
# mlir_target_link_libraries so that MLIR_LINK_MLIR_DYLIB=ON links libMLIR.so
# (mlir-anchors.md §2.3); LINK_LIBS are te's own libraries.
function(add_te_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;MLIR_LIBS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    DISABLE_INSTALL
    PARTIAL_SOURCES_INTENDED
    DEPENDS ${ARG_DEPENDS})
  if(ARG_MLIR_LIBS)
    mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  endif()
  if(ARG_LINK_LIBS)
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  endif()
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${TE_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${TE_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  set_property(GLOBAL APPEND PROPERTY TE_ALL_LIBS ${name})
endfunction()

#===- TEInstall.cmake - install rules and the find_package(TE) package -----===#
#
# Included at the end of the top-level CMakeLists.txt. `cmake --install`
# installs headers (with the generated .inc files), the MLIR libraries in
# te's own export set TETargets (namespace TE::), the tools, and
# TEConfig.cmake for find_package(TE CONFIG). The runtime and the Format
# library (export set TERuntimeTargets, the `runtime` component) are installed
# by runtime/cmake/TERuntimeInstall.cmake. The build tree gets a TEConfig.cmake too
# (<build>/lib/cmake/te), so downstream projects can use a build directly.
#
#===------------------------------------------------------------------------===#

include_guard()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TE_INSTALL_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/te)

# Libraries: every add_te_library (dialect, passes, conversions) and the C
# API.
get_property(te_mlir_libs GLOBAL PROPERTY TE_ALL_LIBS)
set(te_export_targets)
foreach(target ${te_mlir_libs} TECAPIShared)
  if(TARGET ${target})
    list(APPEND te_export_targets ${target})
  endif()
endforeach()

if(te_export_targets)
  install(TARGETS ${te_export_targets}
    EXPORT TETargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()

# RUNPATH of the installed binaries. te's own shared libraries (libte_rt,
# libTECAPI) are found relative to the binary ($ORIGIN); libMLIR.so and
# LLVM's libraries in the library directory of the MLIR te was built with
# (LLVM_LIBRARY_DIR: Debian's packages keep it off the loader's default path).
# add_llvm_executable sets only $ORIGIN/../lib; it is replaced here.
file(RELATIVE_PATH te_bin_to_lib /prefix/${CMAKE_INSTALL_BINDIR}
     /prefix/${CMAKE_INSTALL_LIBDIR})
set(te_tool_rpath "\$ORIGIN/${te_bin_to_lib}")
set(te_mlir_rpath)
if(TE_ENABLE_MLIR AND LLVM_LIBRARY_DIR)
  set(te_mlir_rpath "${LLVM_LIBRARY_DIR}")
endif()
foreach(tool te-opt te-quantize te-run)
  if(TARGET ${tool})
    if(tool STREQUAL "te-quantize")
      set_target_properties(${tool} PROPERTIES INSTALL_RPATH "${te_tool_rpath}")
    else()
      set_target_properties(${tool} PROPERTIES
        INSTALL_RPATH "${te_tool_rpath};${te_mlir_rpath}")
    endif()
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} OPTIONAL)
  endif()
endforeach()
if(TARGET TEPlugin)
  set_target_properties(TEPlugin PROPERTIES
    INSTALL_RPATH "\$ORIGIN;${te_mlir_rpath}")
  install(TARGETS TEPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} OPTIONAL)
endif()

# Headers: sources and the generated .inc files (te/Format and the
# runtime's headers come with the runtime's rules).
install(DIRECTORY ${TE_SOURCE_DIR}/include/te ${TE_SOURCE_DIR}/include/te-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
  PATTERN "Format" EXCLUDE)
if(TE_ENABLE_MLIR)
  install(DIRECTORY ${TE_BINARY_DIR}/include/te
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.inc"
    PATTERN "CMakeFiles" EXCLUDE)
endif()

# TEConfig.cmake for the build tree and the install tree.
set(TE_EXPORTED_TARGETS TEFormat te_rt te_call ${te_export_targets})
list(TRANSFORM TE_EXPORTED_TARGETS REPLACE "^TECAPIShared$" "TECAPI")
set(TE_CONFIG_MLIR_TARGETS ${te_mlir_libs} TECAPI)
if(TE_ENABLE_MLIR)
  set(TE_CONFIG_HAS_MLIR ON)
else()
  set(TE_CONFIG_HAS_MLIR OFF)
endif()

if(te_export_targets)
  export(EXPORT TETargets
    FILE ${TE_BINARY_DIR}/lib/cmake/te/TETargets.cmake
    NAMESPACE TE::)
endif()

# Build tree: headers from the source and build trees.
set(TE_CONFIG_CODE "# Build tree of te: ${TE_BINARY_DIR}")
set(TE_CONFIG_INCLUDE_DIRS
  ${TE_SOURCE_DIR}/include ${TE_BINARY_DIR}/include
  ${TE_SOURCE_DIR}/runtime/include)
set(TE_CONFIG_PACKAGE_DIR ${TE_BINARY_DIR}/lib/cmake/te)
configure_file(${TE_SOURCE_DIR}/cmake/TEConfig.cmake.in
  ${TE_BINARY_DIR}/lib/cmake/te/TEConfig.cmake @ONLY)

# Install tree: paths relative to the installed TEConfig.cmake.
set(TE_CONFIG_CODE [[
# Install tree of te: the prefix is three levels above this file
# (<prefix>/lib/cmake/te/TEConfig.cmake).
get_filename_component(TE_INSTALL_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)]])
set(TE_CONFIG_INCLUDE_DIRS "\${TE_INSTALL_PREFIX}/${CMAKE_INSTALL_INCLUDEDIR}")
set(TE_CONFIG_PACKAGE_DIR "\${CMAKE_CURRENT_LIST_DIR}")
configure_file(${TE_SOURCE_DIR}/cmake/TEConfig.cmake.in
  ${TE_BINARY_DIR}/CMakeFiles/TEConfig.install.cmake @ONLY)
write_basic_package_version_file(
  ${TE_BINARY_DIR}/lib/cmake/te/TEConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)

if(te_export_targets)
  install(EXPORT TETargets
    DESTINATION ${TE_INSTALL_PACKAGE_DIR}
    NAMESPACE TE::)
endif()
install(FILES ${TE_BINARY_DIR}/CMakeFiles/TEConfig.install.cmake
  DESTINATION ${TE_INSTALL_PACKAGE_DIR}
  RENAME TEConfig.cmake)
install(FILES ${TE_BINARY_DIR}/lib/cmake/te/TEConfigVersion.cmake
  DESTINATION ${TE_INSTALL_PACKAGE_DIR})

# ctest -L package: downstream projects against this package.
if(TE_BUILD_TESTS AND TE_ENABLE_MLIR AND TARGET TECAPIShared)
  add_subdirectory(${TE_SOURCE_DIR}/test/Package ${TE_BINARY_DIR}/test/Package)
endif()

#===- TERuntimeInstall.cmake - install rules of the runtime ----------------===#
#
# Included by runtime/CMakeLists.txt, in the whole project and in the
# standalone runtime build (cmake -S runtime). Installs libte_rt
# (lib/libte_rt.so.<TE_RT_API_VERSION>), libte_call (te_call.h: calling
# compiled entries), the Format library, every public header of the runtime
# (runtime/include: te_rt.h, te_rt_abi.h, te_rt_abi.def, te_rt_comm.h,
# te_rt_gpu_abi.h, te_call.h) and Format's headers, in the export set
# TERuntimeTargets (TERuntimeTargets.cmake, namespace TE::): the `runtime`
# component of find_package(TE), which needs no MLIR. Also the AOT driver
# te-aot-run and, in a runtime-only build, te-quantize (bin/); the Python
# package installs itself (python/CMakeLists.txt).
#
# The standalone build also writes TEConfig.cmake (TE_HAS_MLIR off) for the
# build tree (<build>/lib/cmake/te) and the install tree; in the whole project
# cmake/TEInstall.cmake writes it.
#
#===------------------------------------------------------------------------===#

include_guard()
if(DEFINED TE_ENABLE_INSTALL AND NOT TE_ENABLE_INSTALL)
  return()
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(te_rt_source_dir ${CMAKE_CURRENT_LIST_DIR}/..)
set(te_rt_standalone OFF)
if(CMAKE_SOURCE_DIR STREQUAL PROJECT_SOURCE_DIR AND PROJECT_NAME STREQUAL "te_rt")
  set(te_rt_standalone ON)
endif()
if(te_rt_standalone)
  set(TE_RT_PACKAGE_BUILD_DIR ${CMAKE_BINARY_DIR}/lib/cmake/te)
else()
  set(TE_RT_PACKAGE_BUILD_DIR ${TE_BINARY_DIR}/lib/cmake/te)
endif()
set(TE_RT_INSTALL_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/te)

install(TARGETS te_rt TEFormat te_call
  EXPORT TERuntimeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${te_rt_source_dir}/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
install(DIRECTORY ${te_rt_source_dir}/../include/te/Format
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/te
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def")

# The AOT driver (and, in a runtime-only build, te-quantize), finding the
# libraries in ../lib.
file(RELATIVE_PATH te_rt_bin_to_lib /prefix/${CMAKE_INSTALL_BINDIR}
     /prefix/${CMAKE_INSTALL_LIBDIR})
set(te_rt_tools te-aot-run)
if(te_rt_standalone)
  list(APPEND te_rt_tools te-quantize)
endif()
foreach(tool ${te_rt_tools})
  if(TARGET ${tool})
    set_target_properties(${tool} PROPERTIES
      INSTALL_RPATH "\$ORIGIN/${te_rt_bin_to_lib}")
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

export(EXPORT TERuntimeTargets
  FILE ${TE_RT_PACKAGE_BUILD_DIR}/TERuntimeTargets.cmake
  NAMESPACE TE::)
install(EXPORT TERuntimeTargets
  DESTINATION ${TE_RT_INSTALL_PACKAGE_DIR}
  NAMESPACE TE::)

if(NOT te_rt_standalone)
  return()
endif()

# TEConfig.cmake of a runtime-only package (cmake/TEConfig.cmake.in).
set(TE_EXPORTED_TARGETS TEFormat te_rt te_call)
set(TE_CONFIG_HAS_MLIR OFF)
set(TE_CONFIG_MLIR_TARGETS)
set(MLIR_DIR "")

set(TE_CONFIG_CODE "# Build tree of te's runtime: ${CMAKE_BINARY_DIR}")
set(TE_CONFIG_INCLUDE_DIRS
  ${te_rt_source_dir}/../include ${te_rt_source_dir}/include)
set(TE_CONFIG_PACKAGE_DIR ${TE_RT_PACKAGE_BUILD_DIR})
configure_file(${te_rt_source_dir}/../cmake/TEConfig.cmake.in
  ${TE_RT_PACKAGE_BUILD_DIR}/TEConfig.cmake @ONLY)

set(TE_CONFIG_CODE [[
# Install tree of te's runtime: the prefix is three levels above this file
# (<prefix>/lib/cmake/te/TEConfig.cmake).
get_filename_component(TE_INSTALL_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)]])
set(TE_CONFIG_INCLUDE_DIRS "\${TE_INSTALL_PREFIX}/${CMAKE_INSTALL_INCLUDEDIR}")
set(TE_CONFIG_PACKAGE_DIR "\${CMAKE_CURRENT_LIST_DIR}")
configure_file(${te_rt_source_dir}/../cmake/TEConfig.cmake.in
  ${CMAKE_BINARY_DIR}/CMakeFiles/TEConfig.install.cmake @ONLY)
write_basic_package_version_file(
  ${TE_RT_PACKAGE_BUILD_DIR}/TEConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/CMakeFiles/TEConfig.install.cmake
  DESTINATION ${TE_RT_INSTALL_PACKAGE_DIR}
  RENAME TEConfig.cmake)
install(FILES ${TE_RT_PACKAGE_BUILD_DIR}/TEConfigVersion.cmake
  DESTINATION ${TE_RT_INSTALL_PACKAGE_DIR})

#===- generate.cmake - the generated references in docs/dialect ------------===#
#
# cmake -DTBLGEN=<mlir-tblgen> -DSOURCE_DIR=<te source> -DINCLUDE_DIRS=<a,b,..>
#       -DOUT_DIR=<dir> [-DCOMPARE_DIR=<dir>] -P docs/generate.cmake
#
# Runs mlir-tblgen for every generated reference of docs/dialect (the
# dialect, its ops, attributes, types, interfaces and enums; the te
# dialect's passes, te's generic passes and the conversion passes) into
# OUT_DIR, with the flags add_mlir_doc uses. With COMPARE_DIR, then fails
# unless each file equals COMPARE_DIR's copy.
#
# `ninja te-doc` runs it with OUT_DIR = docs/dialect; the `docs-dialect`
# test (ctest -L docs) with a fresh directory under the build and
# COMPARE_DIR = docs/dialect, so that committed references that lag the .td
# files fail CI.
#
#===------------------------------------------------------------------------===#

# <committed name>|<.td file, from the source root>|<mlir-tblgen flags, comma-separated>
set(docs
  "TEDialect|include/te/Dialect/TE/IR/TEOps.td|-gen-dialect-doc,-dialect=te"
  "TEOps|include/te/Dialect/TE/IR/TEOps.td|-gen-op-doc"
  "TEAttrs|include/te/Dialect/TE/IR/TEAttrs.td|-gen-attrdef-doc"
  "TETypes|include/te/Dialect/TE/IR/TETypes.td|-gen-typedef-doc"
  "TEInterfaces|include/te/Dialect/TE/IR/TEInterfaces.td|-gen-attr-interface-docs"
  "TEOpInterfaces|include/te/Dialect/TE/IR/TEInterfaces.td|-gen-op-interface-docs"
  "TEEnums|include/te/Dialect/TE/IR/TEEnums.td|-gen-enum-doc"
  "TEPasses|include/te/Dialect/TE/Transforms/Passes.td|-gen-pass-doc"
  "TEGenericPasses|include/te/Transforms/Passes.td|-gen-pass-doc"
  "TEConversionPasses|include/te/Conversion/Passes.td|-gen-pass-doc"
  )

foreach(var TBLGEN SOURCE_DIR OUT_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "docs/generate.cmake: -D${var}=... is required")
  endif()
endforeach()
file(MAKE_DIRECTORY ${OUT_DIR})

set(includes)
string(REPLACE "," ";" INCLUDE_DIRS "${INCLUDE_DIRS}")
foreach(dir ${INCLUDE_DIRS})
  list(APPEND includes -I${dir})
endforeach()

set(stale)
foreach(entry ${docs})
  string(REPLACE "|" ";" entry "${entry}")
  list(GET entry 0 name)
  list(GET entry 1 td)
  list(GET entry 2 flags)
  string(REPLACE "," ";" flags "${flags}")
  get_filename_component(td_dir ${SOURCE_DIR}/${td} DIRECTORY)
  execute_process(
    COMMAND ${TBLGEN} ${flags} -allow-hugo-specific-features -I${td_dir}
            ${includes} ${SOURCE_DIR}/${td} -o ${OUT_DIR}/${name}.md
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mlir-tblgen ${flags} ${td} failed:\n${err}")
  endif()
  if(COMPARE_DIR)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
        ${OUT_DIR}/${name}.md ${COMPARE_DIR}/${name}.md
      RESULT_VARIABLE differs OUTPUT_QUIET ERROR_QUIET)
    if(differs)
      list(APPEND stale ${name}.md)
      find_program(DIFF diff)
      if(DIFF)
        execute_process(COMMAND ${DIFF} -u ${COMPARE_DIR}/${name}.md
                                ${OUT_DIR}/${name}.md
          OUTPUT_VARIABLE d)
        message("${d}")
      endif()
    endif()
  endif()
endforeach()

if(stale)
  message(FATAL_ERROR "docs/dialect is out of date with the .td files: "
    "${stale} differ from the generated references above (regenerate with "
    "`ninja te-doc` and commit docs/dialect)")
endif()
if(COMPARE_DIR)
  message(STATUS "docs/dialect matches the .td files")
endif()

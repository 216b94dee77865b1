#===- Replay.cmake - ctest fuzz-regressions: replay saved fuzz inputs ------===#
#
# cmake -D{MLIR,RUNTIME,NPY}_REPLAY=<replayer> -DFUZZ_DIR=... -P Replay.cmake
# Runs every file of regressions/<kind>/ and corpus/<kind>/ through the
# replayer of that kind; fails if one crashes or reports a sanitizer error.
#
#===------------------------------------------------------------------------===#
foreach(kind mlir runtime npy)
  string(TOUPPER ${kind} KIND)
  set(replay ${${KIND}_REPLAY})
  set(dirs)
  foreach(sub regressions corpus)
    if(IS_DIRECTORY ${FUZZ_DIR}/${sub}/${kind})
      list(APPEND dirs ${FUZZ_DIR}/${sub}/${kind})
    endif()
  endforeach()
  execute_process(COMMAND ${replay} ${dirs}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${kind}: ${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${kind} replay failed (${rc}):\n${out}\n${err}")
  endif()
endforeach()

# docs/validation.md must be exactly what `vramcalc validate --markdown` prints now: the published
# validation table may never drift from the estimator. Run by CTest with -DCLI=<vramcalc> -DSRC=<repo root>.
cmake_policy(SET CMP0007 NEW)  # keep empty lines as list elements
execute_process(COMMAND ${CLI} validate --markdown WORKING_DIRECTORY ${SRC}
                RESULT_VARIABLE rc OUTPUT_VARIABLE now ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vramcalc validate --markdown: exit ${rc}\n${err}")
endif()
if(NOT EXISTS "${SRC}/docs/validation.md")
  message(FATAL_ERROR "docs/validation.md is missing. Regenerate it from the repository root:\n"
                      "  build/native/cli/vramcalc validate --markdown > docs/validation.md")
endif()
file(READ "${SRC}/docs/validation.md" doc)
if(NOT doc STREQUAL now)
  # Name the first line that differs, so the failure says what moved.
  string(REPLACE ";" "," doc_lines "${doc}")  # only for this report: ; would split a CMake list
  string(REPLACE ";" "," now_lines "${now}")
  string(REPLACE "\n" ";" doc_lines "${doc_lines}")
  string(REPLACE "\n" ";" now_lines "${now_lines}")
  list(LENGTH doc_lines n_doc)
  list(LENGTH now_lines n_now)
  set(first "")
  math(EXPR last "${n_doc} - 1")
  foreach(i RANGE 0 ${last})
    if(i GREATER_EQUAL n_now)
      break()
    endif()
    list(GET doc_lines ${i} a)
    list(GET now_lines ${i} b)
    if(NOT a STREQUAL b)
      math(EXPR line_no "${i} + 1")
      set(first "line ${line_no}:\n  docs/validation.md: ${a}\n  vramcalc now:       ${b}\n")
      break()
    endif()
  endforeach()
  message(FATAL_ERROR "docs/validation.md differs from `vramcalc validate --markdown` "
                      "(${n_doc} vs ${n_now} lines). ${first}"
                      "Regenerate it from the repository root and commit it with the change:\n"
                      "  build/native/cli/vramcalc validate --markdown > docs/validation.md")
endif()

# Runs the compiler on SOURCE twice: with -DREALIFY_EXPECT_SUCCESS it must
# compile (control); without it, it must fail and the first line that says
# "error" must contain EXPECT (the op's name, or the whole message).
# Arguments: CXX, SOURCE, INCLUDE, EXPECT; optional DEFINES (a ;-list of
# -D flags for both builds) and ONE_ERROR (ON: the failing build reports
# exactly one error).
foreach(_var CXX SOURCE INCLUDE EXPECT)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_compile_fail.cmake: ${_var} is not set")
  endif()
endforeach()
set(_flags -std=c++20 -fsyntax-only -I${INCLUDE} ${DEFINES})

execute_process(COMMAND ${CXX} ${_flags} -DREALIFY_EXPECT_SUCCESS ${SOURCE}
  RESULT_VARIABLE _control_result ERROR_VARIABLE _control_err OUTPUT_QUIET)
if(NOT _control_result EQUAL 0)
  message(FATAL_ERROR "control build failed; the test source is broken:\n${_control_err}")
endif()

execute_process(COMMAND ${CXX} ${_flags} ${SOURCE}
  RESULT_VARIABLE _result ERROR_VARIABLE _err OUTPUT_QUIET)
if(_result EQUAL 0)
  message(FATAL_ERROR "the source compiled; expected an error naming '${EXPECT}'")
endif()
string(REGEX MATCH "[^\n]*error[^\n]*" _first_error "${_err}")
string(FIND "${_first_error}" "${EXPECT}" _at)
if(_at EQUAL -1)
  message(FATAL_ERROR "the first error line does not contain '${EXPECT}':\n${_first_error}")
endif()
if(ONE_ERROR)
  string(REGEX MATCHALL "error:" _errors "${_err}")
  list(LENGTH _errors _count)
  if(NOT _count EQUAL 1)
    message(FATAL_ERROR "expected one error, got ${_count}:\n${_err}")
  endif()
endif()
message(STATUS "refused as expected: ${_first_error}")

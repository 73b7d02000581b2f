# Runs the compiler on SOURCE twice: with -DREALIFY_EXPECT_SUCCESS it must
# compile (control); without it, it must fail and the first line that says
# "error" must contain EXPECT (the op's name).
# Arguments: CXX, SOURCE, INCLUDE, EXPECT.
foreach(_var CXX SOURCE INCLUDE EXPECT)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_compile_fail.cmake: ${_var} is not set")
  endif()
endforeach()
set(_flags -std=c++20 -fsyntax-only -I${INCLUDE})

execute_process(COMMAND ${CXX} ${_flags} -DREALIFY_EXPECT_SUCCESS ${SOURCE}
  RESULT_VARIABLE _control_result ERROR_VARIABLE _control_err OUTPUT_QUIET)
if(NOT _control_result EQUAL 0)
  message(FATAL_ERROR "control build (-DREALIFY_EXPECT_SUCCESS) failed; the test source is broken:\n${_control_err}")
endif()

execute_process(COMMAND ${CXX} ${_flags} ${SOURCE}
  RESULT_VARIABLE _result ERROR_VARIABLE _err OUTPUT_QUIET)
if(_result EQUAL 0)
  message(FATAL_ERROR "the source compiled without -DREALIFY_EXPECT_SUCCESS: the expected compile error did not happen")
endif()
string(REGEX MATCH "[^\n]*error[^\n]*" _first_error "${_err}")
if(NOT _first_error MATCHES "${EXPECT}")
  message(FATAL_ERROR "the first error line does not name the op '${EXPECT}':\n${_first_error}")
endif()
message(STATUS "refused as expected: ${_first_error}")

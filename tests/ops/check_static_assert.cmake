# Compiles SOURCE with -DREALIFY_EXPECT_SUCCESS (the control: it must
# compile), then once per entry of CASES ("<n>=<text>"): with -DREALIFY_CASE=<n>
# it must fail, and its errors must contain <text> (the static_assert's message).
# Arguments: CXX, SOURCE, INCLUDE, CASES (';'-separated, given as '|'-separated).
foreach(_var CXX SOURCE INCLUDE CASES)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_static_assert.cmake: ${_var} is not set")
  endif()
endforeach()
set(_flags -std=c++20 -fsyntax-only -I${INCLUDE})
execute_process(COMMAND ${CXX} ${_flags} -DREALIFY_EXPECT_SUCCESS ${SOURCE}
  RESULT_VARIABLE _control ERROR_VARIABLE _control_err OUTPUT_QUIET)
if(NOT _control EQUAL 0)
  message(FATAL_ERROR "the control build failed; the test source is broken:\n${_control_err}")
endif()
string(REPLACE "|" ";" _cases "${CASES}")
foreach(_case IN LISTS _cases)
  string(REGEX MATCH "^([0-9]+)=(.*)$" _ "${_case}")
  set(_n "${CMAKE_MATCH_1}")
  set(_text "${CMAKE_MATCH_2}")
  execute_process(COMMAND ${CXX} ${_flags} -DREALIFY_CASE=${_n} ${SOURCE}
    RESULT_VARIABLE _result ERROR_VARIABLE _err OUTPUT_QUIET)
  if(_result EQUAL 0)
    message(FATAL_ERROR "case ${_n} compiled; expected a static_assert containing '${_text}'")
  endif()
  string(FIND "${_err}" "${_text}" _at)
  if(_at EQUAL -1)
    message(FATAL_ERROR "case ${_n} failed without '${_text}':\n${_err}")
  endif()
  message(STATUS "case ${_n} refused: ${_text}")
endforeach()

# The core-only configuration of realify (REALIFY_BUILD_GEMM=OFF), configured
# as a top-level project and not built (realify_simd alone takes minutes):
# its tests, benchmarks and examples are off by default, and nothing of the
# matrix products' library is built, installed, exported or named by
# realify.pc — `cmake --build` then `cmake --install` give realify::core alone.
#   cmake -DSOURCE=… -DBINARY=… -DGENERATOR=… -DCXX=… -P core_only.cmake
foreach(_var SOURCE BINARY GENERATOR CXX)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "core_only.cmake: ${_var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${BINARY}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${BINARY}" -G "${GENERATOR}"
                        "-DCMAKE_CXX_COMPILER=${CXX}" -DREALIFY_BUILD_GEMM=OFF -DREALIFY_SIMD_ARCHS=native
  RESULT_VARIABLE _result OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "configuring with REALIFY_BUILD_GEMM=OFF failed:\n${_out}\n${_err}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY}" --target help
  RESULT_VARIABLE _result OUTPUT_VARIABLE _targets ERROR_QUIET)
if(NOT _result EQUAL 0 OR NOT _targets MATCHES "realify\\.simd")
  message(FATAL_ERROR "cannot list the targets of the core-only build:\n${_targets}")
endif()
foreach(_forbidden "realify\\.gemm" "realify_gemm" "test_[a-z_]+" "bench_[a-z_]+")
  if(_targets MATCHES "${_forbidden}")
    message(FATAL_ERROR "the core-only build has a target matching '${_forbidden}': ${CMAKE_MATCH_0}")
  endif()
endforeach()
file(GLOB_RECURSE _install_scripts "${BINARY}/cmake_install.cmake" "${BINARY}/CMakeFiles/Export/*.cmake")
list(APPEND _install_scripts "${BINARY}/realify.pc" "${BINARY}/realify-config.cmake")
foreach(_file IN LISTS _install_scripts)
  file(STRINGS "${_file}" _lines REGEX "^[^#]*realify_gemm")  # comments aside
  if(_lines)
    message(FATAL_ERROR "${_file} names realify_gemm in the core-only build: ${_lines}")
  endif()
endforeach()
message(STATUS "core-only configuration: realify_simd and realify::core, no realify_gemm")

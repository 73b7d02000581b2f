# The per-instruction-set matrix-product units (src/gemm/gemm_isa.cpp built
# once per level, gemm_isa_<isa>, and gemm_native_avx512.cpp) each compile Eigen with their own instructions. They must not define a global
# symbol another of them also defines — the linker would keep one copy for
# all (an AVX-512 copy on an AVX2 CPU is an illegal instruction) — and every
# Eigen symbol must be in the unit's renamed namespace (realify_eigen_<isa>).
# Arguments: NM, OBJECTS (the ;-separated objects of realify_gemm).
cmake_minimum_required(VERSION 3.20)
foreach(_var NM OBJECTS)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_isa_symbols.cmake: ${_var} is not set")
  endif()
endforeach()
# Linker-generated data every C++ unit with exceptions carries; never code.
set(_allowed "DW.ref.__gxx_personality_v0")

set(_units 0)
set(_seen "")
foreach(_object IN LISTS OBJECTS)
  if(NOT _object MATCHES "gemm_(isa_|(native_))(sse2|avx2|avx512)\\.cpp\\.o(bj)?$")
    continue()
  endif()
  set(_isa "${CMAKE_MATCH_2}${CMAKE_MATCH_3}")
  math(EXPR _units "${_units} + 1")
  execute_process(COMMAND ${NM} -C --defined-only ${_object} OUTPUT_VARIABLE _symbols RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${_object}")
  endif()
  string(REPLACE "\n" ";" _lines "${_symbols}")
  set(_names "")
  foreach(_line IN LISTS _lines)
    # "<address> <type> <name>": only global definitions (upper-case types, u) can be shared
    if(_line MATCHES "^[0-9a-fA-F]+ ([A-Zu]) (.*)$" AND NOT CMAKE_MATCH_2 IN_LIST _allowed)
      list(APPEND _names "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _names)  # complete and base destructors demangle alike
  foreach(_name IN LISTS _names)
    if(_name MATCHES "(^|[^_a-z])Eigen::")
      message(FATAL_ERROR "gemm_${_isa}: an Eigen symbol outside realify_eigen_${_isa}: ${_name}")
    endif()
    string(MD5 _key "${_name}")
    if(DEFINED _owner_${_key})
      message(FATAL_ERROR "gemm_${_isa} and gemm_${_owner_${_key}} both define: ${_name}")
    endif()
    set(_owner_${_key} "${_isa}")
  endforeach()
endforeach()
if(_units LESS 1)
  message(FATAL_ERROR "no gemm_<isa> objects among: ${OBJECTS}")
endif()
message(STATUS "${_units} gemm units, no shared global symbols")

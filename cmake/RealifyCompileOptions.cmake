# The compile options realify sets on individual source files, in one place:
#
#   REALIFY_ISAS
#       the instruction sets realify_simd carries kernels for (the option
#       REALIFY_SIMD_ARCHS: all, native or a list), lowest first;
#   realify_isa_sources(<target> <isa> <sources>...)
#       adds kernel translation units built for one instruction set
#       (sse2, avx2 = AVX2 + FMA3, avx512 = AVX-512F + AVX2 + FMA3) to <target>;
#   realify_isa_unit(<target> <isa> <source>)
#       adds <source> once more, built for <isa>: one source serves every level
#       (the kernel tables, the matrix products);
#   realify_host_sources(<sources>...)
#       compiles benchmark competitors for the machine at hand (-march=native).
#
# Kernel translation units decide their own floating-point semantics: whatever
# the project's CMAKE_CXX_FLAGS say (-march=native, -ffast-math,
# -ffp-contract=fast), each one is built for exactly its instruction set, with
# IEEE semantics and no contraction of a·b + c, so its results do not depend
# on the flags realify was built with. Nothing here reaches a consumer's
# targets.
include_guard(GLOBAL)
include(CheckCXXCompilerFlag)

set(_realify_isa_common -fno-fast-math -ffp-contract=off)
# -march=x86-64 first: a -march=native in CMAKE_CXX_FLAGS must not leak
# instructions of a higher level into a lower level's translation unit.
set(_realify_isa_sse2 -march=x86-64)
set(_realify_isa_avx2 -march=x86-64 -mavx2 -mfma)
set(_realify_isa_avx512 -march=x86-64 -mavx512f -mavx2 -mfma)

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  check_cxx_compiler_flag("-fno-fast-math -ffp-contract=off" REALIFY_COMPILER_HAS_ISA_COMMON)
  check_cxx_compiler_flag("-march=x86-64" REALIFY_COMPILER_HAS_SSE2)
  check_cxx_compiler_flag("-march=x86-64 -mavx2 -mfma" REALIFY_COMPILER_HAS_AVX2)
  check_cxx_compiler_flag("-march=x86-64 -mavx512f -mavx2 -mfma" REALIFY_COMPILER_HAS_AVX512)
  # GCC 12's avx512fintrin.h builds its "don't care" operands from
  # self-initialised variables (_mm512_undefined_*), which -Wuninitialized
  # and -Wmaybe-uninitialized flag once inlined into user code (xsimd's and
  # Eigen's included): the AVX-512 units, and code built for an AVX-512 host,
  # drop exactly those two warnings.
  check_cxx_compiler_flag(-Wno-maybe-uninitialized REALIFY_COMPILER_HAS_WNO_MAYBE_UNINITIALIZED)
  if(REALIFY_COMPILER_HAS_WNO_MAYBE_UNINITIALIZED)
    set(_realify_avx512_warnings -Wno-uninitialized -Wno-maybe-uninitialized)
  endif()
  list(APPEND _realify_isa_avx512 ${_realify_avx512_warnings})
else()
  message(FATAL_ERROR "realify's compiled kernels currently support x86-64 only (got ${CMAKE_SYSTEM_PROCESSOR})")
endif()

# The instruction sets the compiler can build, lowest first.
set(_realify_buildable_isas sse2)
if(REALIFY_COMPILER_HAS_AVX2)
  list(APPEND _realify_buildable_isas avx2)
endif()
if(REALIFY_COMPILER_HAS_AVX512)
  list(APPEND _realify_buildable_isas avx512)
endif()

# The best instruction set of the machine that configures the build: what
# the compiler's -march=native enables (it asks the CPU, and the OS for the
# wider registers' state), among the buildable ones.
function(_realify_native_isa out)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -march=native -dM -E -x c++ -
    INPUT_FILE /dev/null OUTPUT_VARIABLE _macros ERROR_VARIABLE _error RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "REALIFY_SIMD_ARCHS=native: ${CMAKE_CXX_COMPILER} -march=native failed (${_error}); "
                        "name the instruction sets instead, e.g. -DREALIFY_SIMD_ARCHS=sse2;avx2")
  endif()
  set(_isa sse2)
  if(_macros MATCHES "#define __AVX2__ " AND _macros MATCHES "#define __FMA__ " AND "avx2" IN_LIST _realify_buildable_isas)
    set(_isa avx2)
    if(_macros MATCHES "#define __AVX512F__ " AND "avx512" IN_LIST _realify_buildable_isas)
      set(_isa avx512)
    endif()
  endif()
  set(${out} ${_isa} PARENT_SCOPE)
endfunction()

# REALIFY_ISAS: the instruction sets realify_simd carries kernel tables for,
# lowest first (REALIFY_SIMD_ARCHS: all, native, or a list). Whatever the
# choice, the baseline units (scalar.cpp, the engine) are built for plain
# x86-64: any subset works, and a CPU with none of the chosen sets gets a
# realify::error at the first kernel call, not an illegal instruction.
if(NOT DEFINED REALIFY_SIMD_ARCHS OR REALIFY_SIMD_ARCHS STREQUAL "" OR REALIFY_SIMD_ARCHS STREQUAL "all")
  set(REALIFY_ISAS ${_realify_buildable_isas})
elseif(REALIFY_SIMD_ARCHS STREQUAL "native")
  _realify_native_isa(REALIFY_ISAS)
else()
  set(REALIFY_ISAS)
  foreach(_isa sse2 avx2 avx512)  # lowest first, whatever the order asked
    if(_isa IN_LIST REALIFY_SIMD_ARCHS)
      list(APPEND REALIFY_ISAS ${_isa})
    endif()
  endforeach()
  foreach(_isa IN LISTS REALIFY_SIMD_ARCHS)
    if(NOT _isa MATCHES "^(sse2|avx2|avx512)$")
      message(FATAL_ERROR "REALIFY_SIMD_ARCHS=${REALIFY_SIMD_ARCHS}: '${_isa}' is not one of all, native, sse2, avx2, avx512")
    elseif(NOT _isa IN_LIST _realify_buildable_isas)
      message(FATAL_ERROR "REALIFY_SIMD_ARCHS=${REALIFY_SIMD_ARCHS}: ${CMAKE_CXX_COMPILER} cannot build ${_isa} "
                          "(it builds: ${_realify_buildable_isas})")
    endif()
  endforeach()
endif()
if(NOT REALIFY_ISAS)
  message(FATAL_ERROR "REALIFY_SIMD_ARCHS=${REALIFY_SIMD_ARCHS} names no instruction set")
endif()
message(STATUS "realify: realify_simd carries kernels for ${REALIFY_ISAS} (REALIFY_SIMD_ARCHS=${REALIFY_SIMD_ARCHS})")

function(realify_isa_sources target isa)
  if(NOT isa IN_LIST _realify_buildable_isas)
    message(FATAL_ERROR "realify_isa_sources: ${isa} is not one of the buildable instruction sets (${_realify_buildable_isas})")
  endif()
  set(_options ${_realify_isa_${isa}})
  if(REALIFY_COMPILER_HAS_ISA_COMMON)
    list(APPEND _options ${_realify_isa_common})
  endif()
  if(REALIFY_SANITIZE)
    # AddressSanitizer's use-after-scope poisoning of every inlined SIMD
    # temporary makes GCC take two to four times longer on these units
    # (minutes each). A kernel reads and writes the caller's buffers, which
    # stay checked; only the use of a local after its block ends goes
    # unchecked here (the header code keeps the full check).
    list(APPEND _options -fno-sanitize-address-use-after-scope)
  endif()
  target_sources(${target} PRIVATE ${ARGN})
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${_options}")
endfunction()

# A source file carries one set of options in a target, so each level's copy
# of <source> is a two-line unit in the build tree that defines the level and
# includes it: REALIFY_ISA_<LEVEL> (REALIFY_ISA_AVX2, …) to test with #if, and
# REALIFY_ISA_NAME(prefix, suffix), prefix<level>suffix, to name what the copy
# defines (avx2_kernels, gemm_avx2).
function(realify_isa_unit target isa source)
  get_filename_component(_source "${source}" ABSOLUTE)
  get_filename_component(_stem "${source}" NAME_WE)
  string(TOUPPER "${isa}" _isa_upper)
  set(_unit "${CMAKE_CURRENT_BINARY_DIR}/${_stem}_${isa}.cpp")
  file(CONFIGURE OUTPUT "${_unit}" CONTENT
"// ${_stem}.cpp built for ${isa} (realify_isa_unit, cmake/RealifyCompileOptions.cmake).
#define REALIFY_ISA_${_isa_upper} 1
#define REALIFY_ISA_NAME(prefix, suffix) prefix##${isa}##suffix
#include \"${_source}\"
")
  realify_isa_sources(${target} ${isa} "${_unit}")
endfunction()

check_cxx_compiler_flag(-march=native REALIFY_COMPILER_HAS_MARCH_NATIVE)
function(realify_host_sources)
  if(NOT REALIFY_COMPILER_HAS_MARCH_NATIVE)
    return()
  endif()
  foreach(_source IN LISTS ARGN)
    get_source_file_property(_existing ${_source} COMPILE_OPTIONS)
    if(NOT _existing)
      set(_existing)
    endif()
    set_source_files_properties(${_source} PROPERTIES COMPILE_OPTIONS
      "-march=native;${_realify_avx512_warnings};${_existing}")
  endforeach()
endfunction()

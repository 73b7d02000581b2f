# The compile options realify sets on individual source files, in one place:
#
#   realify_isa_sources(<target> <isa> <sources>...)
#       adds kernel translation units built for one instruction set
#       (sse2, avx2 = AVX2 + FMA3, avx512 = AVX-512F + AVX2 + FMA3) to <target>;
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

# The instruction sets the compiler can build, lowest first; sse2 always.
set(REALIFY_ISAS sse2)
if(REALIFY_COMPILER_HAS_AVX2)
  list(APPEND REALIFY_ISAS avx2)
endif()
if(REALIFY_COMPILER_HAS_AVX512)
  list(APPEND REALIFY_ISAS avx512)
endif()

function(realify_isa_sources target isa)
  if(NOT isa IN_LIST REALIFY_ISAS)
    message(FATAL_ERROR "realify_isa_sources: ${isa} is not one of the buildable instruction sets (${REALIFY_ISAS})")
  endif()
  set(_options ${_realify_isa_${isa}})
  if(REALIFY_COMPILER_HAS_ISA_COMMON)
    list(APPEND _options ${_realify_isa_common})
  endif()
  target_sources(${target} PRIVATE ${ARGN})
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${_options}")
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

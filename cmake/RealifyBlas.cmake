# The optional libraries of realify_gemm's matrix products beside Eigen
# (docs/numerics.md, "Which backend runs"): a CBLAS and oneDNN.
#
#   REALIFY_BLAS=AUTO   (default) use every one found
#   REALIFY_BLAS=ON     require at least one: configuration fails without
#   REALIFY_BLAS=OFF    never: the products run on Eigen
#
# CBLAS vendors, in this order, through CMake's FindBLAS: OpenBLAS, BLIS
# (FindBLAS's "FLAME") and MKL (sequential, "Intel10_64lp_seq"). The first one
# FindBLAS finds is checked for its C interface (cblas.h, or mkl_cblas.h,
# declaring cblas_sgemm/dgemm/cgemm/zgemm, which must link). One CBLAS at
# most: they share their symbols' names.
#
# oneDNN: its header oneapi/dnnl/dnnl.h and library dnnl (Debian's
# libdnnl-dev; DNNLROOT or CMAKE_PREFIX_PATH point elsewhere), else its CMake
# package `dnnl` (looked for only when the plain search fails: Debian's
# package config requires OpenCL's headers, which a CPU build does not need).
# It must be built on OpenMP or sequential (realify runs every call on one
# thread: src/gemm/libraries.cpp) and dnnl_sgemm must link.
#
# Sets
#
#   REALIFY_BLAS_FOUND     TRUE when realify_gemm uses a CBLAS
#   REALIFY_BLAS_VENDOR    the BLA_VENDOR it was found with (the package config
#                          finds it again the same way)
#   REALIFY_BLAS_NAME      openblas, blis or mkl (realify::simd::gemm_backend())
#   REALIFY_ONEDNN_FOUND   TRUE when realify_gemm uses oneDNN
#   REALIFY_ONEDNN_PACKAGE TRUE when that is the CMake package's DNNL::dnnl
#                          (the package config finds it again), else the
#                          library file itself is linked
#   REALIFY_GEMM_PC_LIBS   their link flags, for realify.pc
#
# and realify_use_gemm_libraries(<target>), which links them privately and
# passes the definitions the sources test (REALIFY_SIMD_HAVE_BLAS,
# REALIFY_BLAS_<NAME>, REALIFY_BLAS_NAME, REALIFY_CBLAS_HEADER,
# REALIFY_SIMD_HAVE_ONEDNN).
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

set(REALIFY_BLAS AUTO CACHE STRING "Let realify's matrix products run on a CBLAS (OpenBLAS, BLIS, MKL) and oneDNN: AUTO, ON or OFF")
set_property(CACHE REALIFY_BLAS PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${REALIFY_BLAS}" _realify_blas_mode)
if(NOT _realify_blas_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "REALIFY_BLAS is '${REALIFY_BLAS}': it must be AUTO, ON or OFF")
endif()

set(REALIFY_BLAS_FOUND FALSE)
set(_realify_blas_why "REALIFY_BLAS=OFF")
if(NOT _realify_blas_mode STREQUAL "OFF")
  set(_realify_blas_why "none of OpenBLAS, BLIS, MKL was found")
  # vendor;name;header;include path suffixes
  foreach(_candidate
      "OpenBLAS|openblas|cblas.h|openblas-pthread;openblas-openmp;openblas-serial;openblas"
      "FLAME|blis|cblas.h|blis"
      "Intel10_64lp_seq|mkl|mkl_cblas.h|mkl")
    string(REPLACE "|" ";" _fields "${_candidate}")
    list(GET _fields 0 _vendor)
    list(GET _fields 1 _name)
    list(GET _fields 2 _header)
    list(SUBLIST _fields 3 -1 _suffixes)
    set(BLA_VENDOR ${_vendor})
    find_package(BLAS QUIET)
    unset(BLA_VENDOR)
    if(NOT BLAS_FOUND)
      continue()
    endif()
    # The vendor's own header first (Debian's plain cblas.h is whichever BLAS
    # the alternatives system points at).
    find_path(REALIFY_CBLAS_INCLUDE_DIR_${_name} NAMES ${_header} PATH_SUFFIXES ${_suffixes}
      HINTS "$ENV{MKLROOT}/include")
    set(_include_dir "${REALIFY_CBLAS_INCLUDE_DIR_${_name}}")
    set(_realify_blas_why "${_vendor} was found (${BLAS_LIBRARIES}) but not a usable ${_header}")
    if(_include_dir)
      set(_probe "#include <${_header}>
        int main() {
          float s[4] = {1, 2, 3, 4}; double d[4] = {1, 2, 3, 4};
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 1, 1, 1, 1.0f, s, 1, s, 1, 0.0f, s + 2, 1);
          cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 1, 1, 1, 1.0, d, 1, d, 1, 0.0, d + 2, 1);
          cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasConjTrans, 1, 1, 1, s, s, 1, s, 1, s, s + 2, 1);
          cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasConjTrans, 1, 1, 1, d, d, 1, d, 1, d, d + 2, 1);")
      if(_name STREQUAL "openblas")
        string(APPEND _probe "
          openblas_set_num_threads(openblas_get_num_threads()); return openblas_get_corename()[0] == 0;")
      endif()
      string(APPEND _probe "
          return 0;
        }")
      cmake_push_check_state(RESET)
      set(CMAKE_REQUIRED_INCLUDES "${_include_dir}")
      set(CMAKE_REQUIRED_LIBRARIES ${BLAS_LIBRARIES})
      set(CMAKE_REQUIRED_LINK_OPTIONS ${BLAS_LINKER_FLAGS})
      set(CMAKE_REQUIRED_QUIET ON)
      unset(REALIFY_CBLAS_LINKS CACHE)
      check_cxx_source_compiles("${_probe}" REALIFY_CBLAS_LINKS)
      cmake_pop_check_state()
      if(REALIFY_CBLAS_LINKS)
        set(REALIFY_BLAS_FOUND TRUE)
        set(REALIFY_BLAS_VENDOR ${_vendor})
        set(REALIFY_BLAS_NAME ${_name})
        set(REALIFY_CBLAS_HEADER ${_header})
        set(REALIFY_CBLAS_INCLUDE_DIR "${_include_dir}")
      endif()
    endif()
    break()  # the first vendor found decides
  endforeach()
endif()

# oneDNN
set(REALIFY_ONEDNN_FOUND FALSE)
set(REALIFY_ONEDNN_PACKAGE FALSE)
set(_realify_onednn_why "REALIFY_BLAS=OFF")
if(NOT _realify_blas_mode STREQUAL "OFF")
  set(_realify_onednn_why "oneapi/dnnl/dnnl.h and libdnnl were not found")
  find_path(REALIFY_ONEDNN_INCLUDE_DIR NAMES oneapi/dnnl/dnnl.h HINTS "$ENV{DNNLROOT}/include")
  find_library(REALIFY_ONEDNN_LIBRARY NAMES dnnl HINTS "$ENV{DNNLROOT}/lib" "$ENV{DNNLROOT}/lib64")
  set(_onednn_link)
  set(_onednn_include)
  if(REALIFY_ONEDNN_INCLUDE_DIR AND REALIFY_ONEDNN_LIBRARY)
    set(_onednn_link "${REALIFY_ONEDNN_LIBRARY}")
    set(_onednn_include "${REALIFY_ONEDNN_INCLUDE_DIR}")
  else()
    find_package(dnnl CONFIG QUIET)
    if(dnnl_FOUND AND TARGET DNNL::dnnl)
      set(_onednn_link DNNL::dnnl)
      get_target_property(_onednn_include DNNL::dnnl INTERFACE_INCLUDE_DIRECTORIES)
    endif()
  endif()
  if(_onednn_link)
    set(_realify_onednn_why "${_onednn_link} was found, but dnnl_sgemm did not link, or oneDNN runs on neither OpenMP nor one thread")
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_INCLUDES "${_onednn_include}")
    set(CMAKE_REQUIRED_LIBRARIES ${_onednn_link})
    set(CMAKE_REQUIRED_QUIET ON)
    unset(REALIFY_ONEDNN_LINKS CACHE)
    check_cxx_source_compiles("#include <oneapi/dnnl/dnnl.h>
      #if DNNL_CPU_RUNTIME != DNNL_RUNTIME_OMP && DNNL_CPU_RUNTIME != DNNL_RUNTIME_SEQ
      #error \"realify runs oneDNN's calls on one thread through OpenMP's setting\"
      #endif
      int main() {
        float x[4] = {1, 2, 3, 4};
        return dnnl_sgemm('N', 'T', 1, 1, 1, 1.0f, x, 1, x, 1, 0.0f, x + 2, 1) != dnnl_success ||
               dnnl_version()->major < 1;
      }" REALIFY_ONEDNN_LINKS)
    cmake_pop_check_state()
    if(REALIFY_ONEDNN_LINKS)
      set(REALIFY_ONEDNN_FOUND TRUE)
      set(REALIFY_ONEDNN_LINK "${_onednn_link}")
      set(REALIFY_ONEDNN_INCLUDE "${_onednn_include}")
      if(_onednn_link STREQUAL "DNNL::dnnl")
        set(REALIFY_ONEDNN_PACKAGE TRUE)
      endif()
    endif()
  endif()
endif()

# pkg-config: -L<dir> -l<name> for each library (a flag is kept as it is).
set(REALIFY_GEMM_PC_LIBS "")
function(_realify_pc_libs out)
  set(_libs "${${out}}")
  foreach(_library IN LISTS ARGN)
    if(_library MATCHES "^-" OR NOT IS_ABSOLUTE "${_library}")
      string(APPEND _libs " ${_library}")
    else()
      get_filename_component(_dir "${_library}" DIRECTORY)
      get_filename_component(_file "${_library}" NAME_WE)
      string(REGEX REPLACE "^lib" "" _file "${_file}")
      string(APPEND _libs " -L${_dir} -l${_file}")
    endif()
  endforeach()
  string(STRIP "${_libs}" _libs)
  set(${out} "${_libs}" PARENT_SCOPE)
endfunction()

if(REALIFY_BLAS_FOUND)
  set(REALIFY_GEMM_PC_LIBS "${BLAS_LINKER_FLAGS}")
  _realify_pc_libs(REALIFY_GEMM_PC_LIBS ${BLAS_LIBRARIES})
  message(STATUS "realify: matrix products may run on ${REALIFY_BLAS_NAME} (${BLAS_LIBRARIES}, ${REALIFY_CBLAS_INCLUDE_DIR}/${REALIFY_CBLAS_HEADER})")
else()
  message(STATUS "realify: no CBLAS (${_realify_blas_why})")
endif()
if(REALIFY_ONEDNN_FOUND)
  if(REALIFY_ONEDNN_PACKAGE)
    get_target_property(_onednn_location DNNL::dnnl LOCATION)
    _realify_pc_libs(REALIFY_GEMM_PC_LIBS "${_onednn_location}")
  else()
    _realify_pc_libs(REALIFY_GEMM_PC_LIBS "${REALIFY_ONEDNN_LINK}")
  endif()
  message(STATUS "realify: matrix products may run on oneDNN (${REALIFY_ONEDNN_LINK})")
else()
  message(STATUS "realify: no oneDNN (${_realify_onednn_why})")
endif()
if(_realify_blas_mode STREQUAL "ON" AND NOT REALIFY_BLAS_FOUND AND NOT REALIFY_ONEDNN_FOUND)
  message(FATAL_ERROR "REALIFY_BLAS=ON, but ${_realify_blas_why} and ${_realify_onednn_why}. Install one "
                      "(Debian: libopenblas-dev, libblis-dev or libdnnl-dev), point CMake at it (CMAKE_PREFIX_PATH, "
                      "MKLROOT, DNNLROOT), or use REALIFY_BLAS=AUTO/OFF.")
endif()

function(realify_use_gemm_libraries target)
  if(REALIFY_BLAS_FOUND)
    string(TOUPPER "${REALIFY_BLAS_NAME}" _upper)
    target_compile_definitions(${target} PRIVATE REALIFY_SIMD_HAVE_BLAS REALIFY_BLAS_${_upper}
      "REALIFY_BLAS_NAME=\"${REALIFY_BLAS_NAME}\"" "REALIFY_CBLAS_HEADER=<${REALIFY_CBLAS_HEADER}>")
    target_include_directories(${target} SYSTEM PRIVATE "${REALIFY_CBLAS_INCLUDE_DIR}")
    # Private, but a static library's private link items reach its consumers:
    # the package config finds BLAS::BLAS again (realify-config.cmake).
    target_link_libraries(${target} PRIVATE BLAS::BLAS)
  endif()
  if(REALIFY_ONEDNN_FOUND)
    target_compile_definitions(${target} PRIVATE REALIFY_SIMD_HAVE_ONEDNN)
    if(REALIFY_ONEDNN_INCLUDE)
      target_include_directories(${target} SYSTEM PRIVATE ${REALIFY_ONEDNN_INCLUDE})
    endif()
    # the library file (exported as its path) or DNNL::dnnl (found again by the package config)
    target_link_libraries(${target} PRIVATE ${REALIFY_ONEDNN_LINK})
  endif()
endfunction()

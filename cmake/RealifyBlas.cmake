# The optional BLAS backend of realify_gemm's matrix products
# (docs/numerics.md, "Which backend runs"):
#
#   REALIFY_BLAS=AUTO   (default) use a CBLAS when one is found, else Eigen
#   REALIFY_BLAS=ON     require one: configuration fails without it
#   REALIFY_BLAS=OFF    never: the products run on Eigen
#
# Vendors, in this order, through CMake's FindBLAS: OpenBLAS, BLIS (FindBLAS's
# "FLAME") and MKL (sequential, "Intel10_64lp_seq"). The first one FindBLAS
# finds is checked for its C interface (cblas.h, or mkl_cblas.h, declaring
# cblas_sgemm/dgemm/cgemm/zgemm, which must link). Sets
#
#   REALIFY_BLAS_FOUND     TRUE when realify_gemm uses a BLAS
#   REALIFY_BLAS_VENDOR    the BLA_VENDOR it was found with (the package config
#                          finds it again the same way)
#   REALIFY_BLAS_NAME      openblas, blis or mkl (realify::simd::gemm_backend())
#   REALIFY_BLAS_PC_LIBS   its link flags, for realify.pc
#
# and realify_use_blas(<target>), which links the BLAS privately and passes
# the definitions the sources test (REALIFY_SIMD_HAVE_BLAS, REALIFY_BLAS_<NAME>,
# REALIFY_BLAS_NAME, REALIFY_CBLAS_HEADER).
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

set(REALIFY_BLAS AUTO CACHE STRING "Run realify's matrix products on a CBLAS (OpenBLAS, BLIS, MKL): AUTO, ON or OFF")
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

if(REALIFY_BLAS_FOUND)
  # pkg-config: -L<dir> -l<name> for each library (a flag is kept as it is).
  set(REALIFY_BLAS_PC_LIBS "${BLAS_LINKER_FLAGS}")
  foreach(_library IN LISTS BLAS_LIBRARIES)
    if(_library MATCHES "^-" OR NOT IS_ABSOLUTE "${_library}")
      string(APPEND REALIFY_BLAS_PC_LIBS " ${_library}")
    else()
      get_filename_component(_dir "${_library}" DIRECTORY)
      get_filename_component(_file "${_library}" NAME_WE)
      string(REGEX REPLACE "^lib" "" _file "${_file}")
      string(APPEND REALIFY_BLAS_PC_LIBS " -L${_dir} -l${_file}")
    endif()
  endforeach()
  string(STRIP "${REALIFY_BLAS_PC_LIBS}" REALIFY_BLAS_PC_LIBS)
  message(STATUS "realify: matrix products on ${REALIFY_BLAS_NAME} (${BLAS_LIBRARIES}, ${REALIFY_CBLAS_INCLUDE_DIR}/${REALIFY_CBLAS_HEADER})")
elseif(_realify_blas_mode STREQUAL "ON")
  message(FATAL_ERROR "REALIFY_BLAS=ON, but ${_realify_blas_why}. Install one (Debian: libopenblas-dev or "
                      "libblis-dev), point CMake at it (CMAKE_PREFIX_PATH, MKLROOT), or use REALIFY_BLAS=AUTO/OFF.")
else()
  message(STATUS "realify: matrix products on Eigen (${_realify_blas_why})")
endif()

function(realify_use_blas target)
  if(NOT REALIFY_BLAS_FOUND)
    return()
  endif()
  string(TOUPPER "${REALIFY_BLAS_NAME}" _upper)
  target_compile_definitions(${target} PRIVATE REALIFY_SIMD_HAVE_BLAS REALIFY_BLAS_${_upper}
    "REALIFY_BLAS_NAME=\"${REALIFY_BLAS_NAME}\"" "REALIFY_CBLAS_HEADER=<${REALIFY_CBLAS_HEADER}>")
  target_include_directories(${target} SYSTEM PRIVATE "${REALIFY_CBLAS_INCLUDE_DIR}")
  # Private, but a static library's private link items reach its consumers:
  # the package config finds BLAS::BLAS again (realify-config.cmake).
  target_link_libraries(${target} PRIVATE BLAS::BLAS)
endfunction()

# The pkg-config consumer: builds consumer_main.cpp (and the Eigen one) with
# nothing but `pkg-config --cflags --libs`, the way a Makefile user would,
# against the install prefix, and runs them; and consumer_core_main.cpp with
# xtensor's SIMD allocator (XTENSOR_USE_XSIMD), whose xt::xarray is another
# type than the one realify_simd allocates.
#   cmake -DPREFIX=… -DLIBDIR=… -DCXX=… -DSOURCE_DIR=… -DBINARY_DIR=… -P pkg_config.cmake
find_program(PKG_CONFIG NAMES pkg-config pkgconf REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${LIBDIR}/pkgconfig")
file(MAKE_DIRECTORY "${BINARY_DIR}")
foreach(_case "realify;consumer_main.cpp" "realify-eigen;consumer_eigen_main.cpp"
              "realify;consumer_core_main.cpp;-DXTENSOR_USE_XSIMD")
  list(POP_FRONT _case _package _source)  # what remains: the case's defines
  get_filename_component(_name "${_source}" NAME_WE)
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs ${_package}
    OUTPUT_VARIABLE _flags RESULT_VARIABLE _result OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs ${_package} failed")
  endif()
  message(STATUS "pkg-config ${_package}: ${_flags}")
  separate_arguments(_flags UNIX_COMMAND "${_flags}")
  set(_exe "${BINARY_DIR}/${_package}_${_name}")
  execute_process(COMMAND "${CXX}" -std=c++20 -O1 ${_case} "${SOURCE_DIR}/${_source}" ${_flags} -o "${_exe}"
    RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "building ${_source} with the flags of ${_package}.pc failed")
  endif()
  execute_process(COMMAND "${_exe}" RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "${_exe} failed")
  endif()
endforeach()

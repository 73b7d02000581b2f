# Adds a throw-away unary op as docs/contributing.md says, by a scripted edit
# of a scratch copy of the source tree, so the number of files the guide
# names is checked rather than claimed. The edit touches exactly the three
# files the guide names — the op's line with its record
# (include/realify/ops/tags.hpp), its element kernel
# (include/realify/kernels/arithmetic.hpp) and its reference
# (tests/support/reference.hpp) — and nothing else.
#
#   cmake -DSOURCE=<repo> -DSCRATCH=<dir> -DMODE=headers|suites [-DCXX=… -DINCLUDES=a|b|…]
#         [-DGENERATOR=… -DLAUNCHER=…] -P add_unary_op.cmake
#
# MODE=headers (ctest contributing_guide_headers, seconds): compiles one
#   translation unit against the edited headers that checks the op reached
#   the op list, its record, the compiled kernels' table, the dispatch
#   table's lowerings and the suites' view of it (tests/support/op_records.hpp).
# MODE=suites (ctest contributing_guide_suites, label `expensive`, which
#   scripts/run-tests skips: the edit of the op list rebuilds the library):
#   configures the scratch copy, builds the affected suites, regenerates the
#   generated docs (docs/ops.md, docs/simd.md's table) and runs every suite
#   the guide says the op runs in.
cmake_minimum_required(VERSION 3.20)

foreach(var SOURCE SCRATCH MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "add_unary_op.cmake: -D${var}=… is required")
  endif()
endforeach()

# ---- the scratch copy: the files git tracks (or would), as they are now ------------------------
file(REMOVE_RECURSE "${SCRATCH}/src_tree")
set(tree "${SCRATCH}/src_tree")
execute_process(COMMAND git -C "${SOURCE}" ls-files --cached --others --exclude-standard
                OUTPUT_VARIABLE files RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "add_unary_op.cmake: git ls-files failed in ${SOURCE}")
endif()
string(REPLACE "\n" ";" files "${files}")
foreach(f IN LISTS files)
  if(f STREQUAL "" OR NOT EXISTS "${SOURCE}/${f}" OR IS_DIRECTORY "${SOURCE}/${f}")
    continue()
  endif()
  get_filename_component(dir "${tree}/${f}" DIRECTORY)
  file(COPY "${SOURCE}/${f}" DESTINATION "${dir}")
endforeach()

# ---- the edit: three files, as the guide says ---------------------------------------------------
set(edited "")
function(edit path anchor insertion where)
  file(READ "${tree}/${path}" text)
  string(FIND "${text}" "${anchor}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "add_unary_op.cmake: ${path} has no `${anchor}` any more: update this script and docs/contributing.md together")
  endif()
  if(where STREQUAL "after")
    string(LENGTH "${anchor}" n)
    math(EXPR at "${at} + ${n}")
  endif()
  string(SUBSTRING "${text}" 0 ${at} head)
  string(SUBSTRING "${text}" ${at} -1 tail)
  file(WRITE "${tree}/${path}" "${head}${insertion}${tail}")
  set(edited ${edited} ${path} PARENT_SCOPE)
endfunction()

# 1. The op's line, with its record: PyTorch has no such op (no goldens).
edit(include/realify/ops/tags.hpp
     "    X(__VA_ARGS__ trunc, 1, elementwise_safe, unary_math, .torch_complex = false, .sample_scale = 3) \\\n"
     "    X(__VA_ARGS__ twice, 1, math, unary_math, .torch_complex = false, .torch_real = false) \\\n" after)
# 2. Its element kernel: the scalar forms only (the kernels loop over them).
edit(include/realify/kernels/arithmetic.hpp "}  // namespace realify::kernels" [=[
/// A throw-away op of tests/contributing/add_unary_op.cmake.
template <>
struct element<op::twice> {
    static constexpr std::string_view formula = "2a + i·2b";
    static constexpr std::string_view real_formula = "2x on real tensors";
    template <class T>
    cpair<T> operator()(cpair<T> z) const noexcept {
        return {z.re * T(2), z.im * T(2)};
    }
    template <std::floating_point T>
    T operator()(T x) const noexcept {
        return x * T(2);
    }
};

]=] before)
# 3. Its references, complex and real.
edit(tests/support/reference.hpp "}  // namespace realify::reference" [=[
template <class T> cplx<T> twice(cplx<T> a) { return a * T(2); }
template <std::floating_point T> T twice(T x) { return x * T(2); }

]=] before)

list(REMOVE_DUPLICATES edited)
list(LENGTH edited count)
if(NOT count EQUAL 3)
  message(FATAL_ERROR "add_unary_op.cmake: the edit touched ${count} files (${edited}), the guide says 3")
endif()
# The guide states that number.
file(READ "${tree}/docs/contributing.md" guide)
string(FIND "${guide}" "three files by hand" stated)
if(stated EQUAL -1)
  message(FATAL_ERROR "add_unary_op.cmake: docs/contributing.md no longer says `three files by hand`")
endif()
message(STATUS "edited by hand: ${edited}")

if(MODE STREQUAL "headers")
  file(WRITE "${SCRATCH}/twice_reached.cpp" [=[
#include <complex>
#include <type_traits>

#include "realify/dispatch.hpp"
#include "realify/kernels.hpp"
#include "support/op_records.hpp"
#include "support/reference.hpp"

namespace rt = realify::testing;
using tag = realify::op::twice;
// the op list and its record
static_assert(tag::name == "twice" && tag::arity == 1 && !tag::record.torch_complex && !tag::record.torch_real);
static_assert(realify::op::info(tag::id).record.cost == 1);
// the compiled kernels' table and the dispatch table's lowerings
static_assert(realify::simd::elementwise_op_of<tag>.has_value());
static_assert(rt::has_complex_form<tag> && rt::has_real_form<tag> && !rt::real_valued<tag>);
static_assert(realify::dispatch::lowering::documents_form<realify::kernels::element<tag>, true>());
static_assert(realify::dispatch::lowering::documents_form<realify::kernels::element<tag>, false>());
// the scalar forms and the references the suites compare them with
static_assert(std::is_same_v<decltype(realify::reference::twice(std::complex<float>())), std::complex<float>>);
static_assert(std::is_same_v<decltype(realify::reference::twice(1.0L)), long double>);
float real_form(float x) { return realify::kernels::element<tag>{}(x); }
realify::kernels::cpair<double> complex_form(realify::kernels::cpair<double> z) { return realify::kernels::element<tag>{}(z); }
]=])
  string(REPLACE "|" ";" includes "${INCLUDES}")
  set(flags -std=c++20 -fsyntax-only -I${tree}/include -I${tree}/tests)
  foreach(dir IN LISTS includes)  # xtensor's and xsimd's, unless the compiler searches them anyway
    if(NOT dir STREQUAL "" AND NOT dir MATCHES "^/usr(/local)?/include/?$")
      list(APPEND flags -isystem ${dir})
    endif()
  endforeach()
  execute_process(COMMAND ${CXX} ${flags} "${SCRATCH}/twice_reached.cpp" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "add_unary_op.cmake: the op did not reach the tables from the three files")
  endif()
elseif(MODE STREQUAL "suites")
  set(build "${SCRATCH}/build")
  set(configure -S "${tree}" -B "${build}" -DCMAKE_BUILD_TYPE=Release -DREALIFY_SIMD_ARCHS=native
                -DREALIFY_WERROR=ON -DREALIFY_BUILD_BENCHMARKS=OFF -DREALIFY_BUILD_EXAMPLES=OFF -DREALIFY_BLAS=OFF)
  if(GENERATOR)
    list(APPEND configure -G "${GENERATOR}")
  endif()
  if(LAUNCHER)
    list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} ${configure} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "add_unary_op.cmake: configuring the scratch copy failed")
  endif()
  set(suites test_ops_dispatch test_ops_property test_fuzz test_ops_golden test_ops_eager test_graph test_simd)
  execute_process(COMMAND ${CMAKE_COMMAND} --build "${build}" --target ${suites} gen_ops_doc RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "add_unary_op.cmake: building the suites with the new op failed")
  endif()
  # the generated docs are regenerated, not edited
  execute_process(COMMAND ${CMAKE_COMMAND} --build "${build}" --target realify_update_ops_doc RESULT_VARIABLE rc)
  file(READ "${tree}/docs/ops.md" ops_md)
  string(FIND "${ops_md}" "| `twice` |" row)
  if(NOT rc EQUAL 0 OR row EQUAL -1)
    message(FATAL_ERROR "add_unary_op.cmake: docs/ops.md has no row of the new op")
  endif()
  execute_process(COMMAND ctest --test-dir "${build}" --output-on-failure
                          -R "^(OpTags|DispatchTable|property|ops/golden|golden_manifest|Fuzz|EagerUnary|EagerOut|EagerRealTensors|GraphReal|[A-Za-z]*/?ElementwiseKernels|ElementKernels|ElementwiseApi)|ops_doc_is_current"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "add_unary_op.cmake: a suite failed with the new op")
  endif()
else()
  message(FATAL_ERROR "add_unary_op.cmake: MODE is headers or suites")
endif()

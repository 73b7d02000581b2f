// Shared by the consumer projects: uses realify the way a downstream user
// would and returns non-zero if the zero-copy contract does not hold or a
// call split over threads goes wrong.
#include <complex>
#include <cstddef>
#include <cstdio>

#include <realify/realify.hpp>

#ifdef CONSUMER_OWN_TARGETS
// The add_subdirectory consumer links its own targets named realify_simd and
// realify (next to realify::realify): both must be the project's.
int consumer_own_library();
#if CONSUMER_OWN_REALIFY_TARGET != 1
#error "the project's own target realify did not reach this program"
#endif
#endif

int main() {
    xt::xtensor<std::complex<float>, 2> x = xt::zeros<std::complex<float>>({3, 4});
    auto real = realify::view_as_real(x);
    real(1, 2, 1) = 5.0f;  // write the imaginary part of x(1, 2) through the view
    const bool shares_memory = &real(1, 2, 1) == reinterpret_cast<float*>(&x(1, 2)) + 1;
    const bool wrote_through = x(1, 2) == std::complex<float>(0.0f, 5.0f);
    // a matrix product: links the compiled kernels and, when realify_simd was
    // built with one, the BLAS they run on
    xt::xtensor<std::complex<float>, 2> a = {{{1.0f, 1.0f}, {2.0f, 0.0f}}, {{0.0f, -1.0f}, {1.0f, 0.0f}}};
    const auto c = realify::to_complex_tensor(realify::mm(realify::complex_layout_of(a), realify::complex_layout_of(a)));
    const bool product = c(0, 0) == std::complex<float>(0.0f, 0.0f) && c(1, 1) == std::complex<float>(1.0f, -2.0f);
    // a call large enough to be split over threads: the package carries
    // realify_simd's OpenMP link flag, the consumer adds nothing
    const realify::scoped_num_threads two(2);
    xt::xtensor<std::complex<float>, 1> big = xt::ones<std::complex<float>>({std::size_t{1} << 18});
    const auto doubled = realify::add(big, big);
    const bool threads_ok = realify::get_num_threads() == 2 && doubled(12345) == std::complex<float>(2.0f, 0.0f);
    std::printf("realify %d.%d.%d: shares memory %d, writes through %d, product %d (on %.*s), threads %d\n", realify::version_major,
                realify::version_minor, realify::version_patch, shares_memory, wrote_through, product,
                static_cast<int>(realify::simd::gemm_backend().size()), realify::simd::gemm_backend().data(), threads_ok);
#ifdef CONSUMER_OWN_TARGETS
    if (consumer_own_library() != 42) return 1;
#endif
    return shares_memory && wrote_through && product && threads_ok ? 0 : 1;
}

// The Eigen side of the consumer projects: realify::eigen gives Eigen interop.
// Returns non-zero if an Eigen matrix's (…,2) view does not share its memory.
#include <complex>
#include <cstdio>

#include <Eigen/Core>
#include <realify/interop/eigen.hpp>

int main() {
    Eigen::MatrixXcf m = Eigen::MatrixXcf::Zero(2, 3);
    auto real = realify::view_as_real(m);
    real(1, 2, 1) = 4.0f;  // the imaginary part of m(1, 2)
    const bool wrote_through = m(1, 2) == std::complex<float>(0.0f, 4.0f);
    std::printf("realify %d.%d.%d with Eigen %d.%d: writes through %d\n", realify::version_major,
                realify::version_minor, realify::version_patch, EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
                wrote_through);
    return wrote_through ? 0 : 1;
}

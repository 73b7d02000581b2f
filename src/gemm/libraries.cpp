// The GEMM libraries beside Eigen (libraries.hpp): the CBLAS realify_gemm
// was built with and oneDNN, each call on one thread of the library's own.
// Compiled for the baseline ISA: the libraries choose their kernels for the
// CPU themselves.
#include "libraries.hpp"

#include <climits>
#include <mutex>
#include <string>

#ifdef REALIFY_SIMD_HAVE_BLAS
#include REALIFY_CBLAS_HEADER
#endif
#ifdef REALIFY_SIMD_HAVE_ONEDNN
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#endif

#include "realify/errors.hpp"

namespace realify::simd::detail {

namespace {

#ifdef REALIFY_SIMD_HAVE_BLAS
constexpr std::string_view blas_name = REALIFY_BLAS_NAME;
#else
constexpr std::string_view blas_name = "blas";
#endif

[[maybe_unused]] int as_int(std::ptrdiff_t value) { return static_cast<int>(value); }

#ifdef REALIFY_SIMD_HAVE_BLAS
// The BLAS runs each call on one thread: realify's tiles are its threads.
// Its own threading would also change results — OpenBLAS 0.3.21 on 1 and 2
// threads differs in the last bits of 1-6 % of the entries (edge tiles go to
// other kernels). OpenBLAS before 0.3.27 has only a process-wide setting, so
// it is set to 1 whenever a call finds it otherwise. (MKL is linked
// sequential; BLIS runs on one thread unless BLIS_NUM_THREADS says more.)
void one_blas_thread() {
#ifdef REALIFY_BLAS_OPENBLAS
    if (openblas_get_num_threads() == 1) return;
    static std::mutex mutex;
    const std::lock_guard lock(mutex);
    if (openblas_get_num_threads() != 1) openblas_set_num_threads(1);
#endif
}

CBLAS_TRANSPOSE blas_op(bool transposed) { return transposed ? CblasTrans : CblasNoTrans; }
CBLAS_TRANSPOSE blas_op(complex_op op) {
    return op == complex_op::none ? CblasNoTrans : op == complex_op::transpose ? CblasTrans : CblasConjTrans;
}
#endif

#ifdef REALIFY_SIMD_HAVE_ONEDNN
/// oneDNN (built on OpenMP, as Debian's and PyTorch's are) runs a call on
/// omp_get_max_threads() threads of the calling thread's OpenMP settings —
/// the process default on a thread of realify's own pool, a plain
/// std::thread. The calling thread's setting is 1 for the call and restored
/// after it (OpenMP keeps the setting per thread: other threads are not
/// affected).
class one_openmp_thread {
public:
    one_openmp_thread() : previous_(omp_get_max_threads()) {
        if (previous_ != 1) omp_set_num_threads(1);
    }
    ~one_openmp_thread() {
        if (previous_ != 1) omp_set_num_threads(previous_);
    }
    one_openmp_thread(const one_openmp_thread&) = delete;
    one_openmp_thread& operator=(const one_openmp_thread&) = delete;

private:
    int previous_;
};

void check(dnnl_status_t status) {
    if (status != dnnl_success)
        throw error("realify::simd: oneDNN's dnnl_sgemm failed (dnnl_status_t " + std::to_string(int(status)) + ")");
}
#endif

[[noreturn]] void not_built_in(gemm_library library) {
    throw error("realify::simd: the matrix products were asked to run on " + std::string(library_name(library)) +
                ", which realify_gemm was built without");
}

}  // namespace

bool library_built_in(gemm_library library) noexcept {
    switch (library) {
        case gemm_library::eigen: return true;
        case gemm_library::blas:
#ifdef REALIFY_SIMD_HAVE_BLAS
            return true;
#else
            return false;
#endif
        case gemm_library::onednn:
#ifdef REALIFY_SIMD_HAVE_ONEDNN
            return true;
#else
            return false;
#endif
    }
    return false;
}

std::string_view library_name(gemm_library library) noexcept {
    switch (library) {
        case gemm_library::eigen: return "eigen";
        case gemm_library::blas: return blas_name;
        case gemm_library::onednn: return "onednn";
    }
    return "unknown";
}

bool library_has_real(gemm_library library, bool double_precision) noexcept {
    return library_built_in(library) && !(library == gemm_library::onednn && double_precision);
}

bool library_has_complex(gemm_library library) noexcept {
    return library_built_in(library) && library != gemm_library::onednn;
}

std::string library_version(gemm_library library) {
    switch (library) {
        case gemm_library::eigen: return "";
        case gemm_library::blas: {
#ifdef REALIFY_BLAS_OPENBLAS
            std::string config = openblas_get_config();  // "OpenBLAS 0.3.21 DYNAMIC_ARCH …"
            const std::size_t space = config.find(' '), end = config.find(' ', space + 1);
            std::string version = space == std::string::npos ? "" : config.substr(space + 1, end - space - 1);
            return version + " (" + openblas_get_corename() + " kernels)";
#else
            return "";
#endif
        }
        case gemm_library::onednn: {
#ifdef REALIFY_SIMD_HAVE_ONEDNN
            const dnnl_version_t* v = dnnl_version();
            return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
#else
            return "";
#endif
        }
    }
    return "";
}

void library_gemm([[maybe_unused]] gemm_library library, [[maybe_unused]] bool trans_a,
                  [[maybe_unused]] bool trans_b, [[maybe_unused]] std::ptrdiff_t m, [[maybe_unused]] std::ptrdiff_t n,
                  [[maybe_unused]] std::ptrdiff_t k, [[maybe_unused]] float alpha, [[maybe_unused]] const float* a,
                  [[maybe_unused]] std::ptrdiff_t lda, [[maybe_unused]] const float* b,
                  [[maybe_unused]] std::ptrdiff_t ldb, [[maybe_unused]] float beta, [[maybe_unused]] float* c,
                  [[maybe_unused]] std::ptrdiff_t ldc) {
#ifdef REALIFY_SIMD_HAVE_ONEDNN
    if (library == gemm_library::onednn) {
        const one_openmp_thread one;
        check(dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
        return;
    }
#endif
#ifdef REALIFY_SIMD_HAVE_BLAS
    if (library == gemm_library::blas) {
        one_blas_thread();
        cblas_sgemm(CblasRowMajor, blas_op(trans_a), blas_op(trans_b), as_int(m), as_int(n), as_int(k), alpha, a,
                    as_int(lda), b, as_int(ldb), beta, c, as_int(ldc));
        return;
    }
#endif
    not_built_in(library);
}

void library_gemm([[maybe_unused]] gemm_library library, [[maybe_unused]] bool trans_a,
                  [[maybe_unused]] bool trans_b, [[maybe_unused]] std::ptrdiff_t m, [[maybe_unused]] std::ptrdiff_t n,
                  [[maybe_unused]] std::ptrdiff_t k, [[maybe_unused]] double alpha, [[maybe_unused]] const double* a,
                  [[maybe_unused]] std::ptrdiff_t lda, [[maybe_unused]] const double* b,
                  [[maybe_unused]] std::ptrdiff_t ldb, [[maybe_unused]] double beta, [[maybe_unused]] double* c,
                  [[maybe_unused]] std::ptrdiff_t ldc) {
#ifdef REALIFY_SIMD_HAVE_BLAS
    if (library == gemm_library::blas) {
        one_blas_thread();
        cblas_dgemm(CblasRowMajor, blas_op(trans_a), blas_op(trans_b), as_int(m), as_int(n), as_int(k), alpha, a,
                    as_int(lda), b, as_int(ldb), beta, c, as_int(ldc));
        return;
    }
#endif
    not_built_in(library);
}

void library_complex_gemm([[maybe_unused]] std::ptrdiff_t m, [[maybe_unused]] std::ptrdiff_t n,
                          [[maybe_unused]] std::ptrdiff_t k, [[maybe_unused]] const complex_view<float>& a,
                          [[maybe_unused]] const complex_view<float>& b, [[maybe_unused]] float* c,
                          [[maybe_unused]] std::ptrdiff_t ldc) {
#ifdef REALIFY_SIMD_HAVE_BLAS
    one_blas_thread();
    const float one[2] = {1.0f, 0.0f}, zero[2] = {0.0f, 0.0f};
    cblas_cgemm(CblasRowMajor, blas_op(a.op), blas_op(b.op), as_int(m), as_int(n), as_int(k), one, a.data,
                as_int(a.ld), b.data, as_int(b.ld), zero, c, as_int(ldc));
#else
    not_built_in(gemm_library::blas);
#endif
}

void library_complex_gemm([[maybe_unused]] std::ptrdiff_t m, [[maybe_unused]] std::ptrdiff_t n,
                          [[maybe_unused]] std::ptrdiff_t k, [[maybe_unused]] const complex_view<double>& a,
                          [[maybe_unused]] const complex_view<double>& b, [[maybe_unused]] double* c,
                          [[maybe_unused]] std::ptrdiff_t ldc) {
#ifdef REALIFY_SIMD_HAVE_BLAS
    one_blas_thread();
    const double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
    cblas_zgemm(CblasRowMajor, blas_op(a.op), blas_op(b.op), as_int(m), as_int(n), as_int(k), one, a.data,
                as_int(a.ld), b.data, as_int(b.ld), zero, c, as_int(ldc));
#else
    not_built_in(gemm_library::blas);
#endif
}

}  // namespace realify::simd::detail

// The owning tensors of run-time rank, allocated and read once here rather
// than in every unit that makes one (realify/engine/runtime_rank.hpp).
#include <string_view>

#include "realify/dispatch/results.hpp"
#include "realify/engine/runtime_rank.hpp"
#include "realify/engine/xtensor_refs.hpp"

namespace realify {

namespace dispatch {
#define REALIFY_ALLOCATE_RESULT(R) template R allocate_result<R>(const engine::dims&);
REALIFY_RUNTIME_RANK_TENSORS(REALIFY_ALLOCATE_RESULT)
#undef REALIFY_ALLOCATE_RESULT
}  // namespace dispatch

namespace engine {
#define REALIFY_OUTPUT_REF(B) template tensor_ref output_ref<B>(std::string_view, B&);
REALIFY_RUNTIME_RANK_TENSORS(REALIFY_OUTPUT_REF)
#undef REALIFY_OUTPUT_REF
}  // namespace engine

}  // namespace realify

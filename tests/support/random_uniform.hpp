// Reproducible test tensors: every element (each part of a complex one)
// drawn uniformly from [-bound, bound) by a generator seeded with `seed`.
#pragma once

#include <complex>
#include <cstddef>
#include <random>
#include <type_traits>
#include <vector>

#include <xtensor/xarray.hpp>

namespace realify::testing {

template <class E>
xt::xarray<E> random_uniform(const std::vector<std::size_t>& shape, unsigned seed, double bound = 1.0) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-bound, bound);
    xt::xarray<E> a = xt::xarray<E>::from_shape(shape);
    for (auto& x : a) {
        if constexpr (std::is_floating_point_v<E>) {
            x = static_cast<E>(u(gen));
        } else {
            const auto re = static_cast<typename E::value_type>(u(gen));
            x = E(re, static_cast<typename E::value_type>(u(gen)));
        }
    }
    return a;
}

}  // namespace realify::testing

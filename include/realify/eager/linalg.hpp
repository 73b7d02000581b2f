// The eager matrix products: realify::mm, bmm, matmul, dot, vdot on complex layouts.
#pragma once

#include "realify/dispatch.hpp"

namespace realify {

template <class A, class B> auto mm(const A& a, const B& b) { return dispatch::call<op::mm>(a, b); }
template <class A, class B> auto bmm(const A& a, const B& b) { return dispatch::call<op::bmm>(a, b); }
template <class A, class B> auto matmul(const A& a, const B& b) { return dispatch::call<op::matmul>(a, b); }
template <class A, class B> auto dot(const A& a, const B& b) { return dispatch::call<op::dot>(a, b); }
/// Σ conj(a_i)·b_i.
template <class A, class B> auto vdot(const A& a, const B& b) { return dispatch::call<op::vdot>(a, b); }

}  // namespace realify

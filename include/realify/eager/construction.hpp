// The eager constructors: ones_like, zeros_like, full_like (real or complex
// value, kept), scalar_tensor (0-d complex layout), polar(abs, angle).
#pragma once

#include "realify/dispatch.hpp"

namespace realify {

template <class A> auto ones_like(const A& a) { return dispatch::call<op::ones_like>(a); }
template <class A> auto zeros_like(const A& a) { return dispatch::call<op::zeros_like>(a); }
template <class A, class V> auto full_like(const A& a, const V& value) { return dispatch::call<op::full_like>(a, value); }
template <class V> auto scalar_tensor(const V& value) { return dispatch::call<op::scalar_tensor>(value); }
/// abs·(cos angle + i·sin angle) from real tensors (or a tensor and a number).
template <class R, class Theta> auto polar(const R& abs, const Theta& angle) { return dispatch::call<op::polar>(abs, angle); }

}  // namespace realify

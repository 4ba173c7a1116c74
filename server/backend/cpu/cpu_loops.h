// Strided loops of the CPU backend: visit every element of N same-shaped
// views, with a fast path when all are contiguous.
#ifndef ARRAYD_BACKEND_CPU_CPU_LOOPS_H_
#define ARRAYD_BACKEND_CPU_CPU_LOOPS_H_

#include <array>
#include <vector>

#include "array/view.h"

namespace arrayd {
namespace cpu {

// Calls fn(ptr_0, ..., ptr_{N-1}) (as char*) for every element, in C order
// of the collapsed shape. `contiguous_fn(n, ptrs)` is called instead when
// every view is contiguous with its own item size; it gets the base pointers.
template <size_t N, typename Fn, typename ContiguousFn>
void ForEachElement(const std::array<const View*, N>& views, Fn&& fn,
                    ContiguousFn&& contiguous_fn) {
  const View& first = *views[0];
  if (first.size() == 0) return;
  std::vector<Strides> strides;
  Shape shape = CollapseDims(absl::MakeConstSpan(views.data(), N), &strides);
  std::array<char*, N> base;
  for (size_t v = 0; v < N; ++v) base[v] = views[v]->data();
  int nd = static_cast<int>(shape.size());
  if (nd == 0) {
    contiguous_fn(int64_t{1}, base);
    return;
  }
  if (nd == 1) {
    bool contiguous = true;
    for (size_t v = 0; v < N; ++v) {
      contiguous &= strides[v][0] == ItemSize(views[v]->dtype);
    }
    if (contiguous) {
      contiguous_fn(shape[0], base);
      return;
    }
  }
  // Odometer over the outer dimensions; the innermost one is a tight loop.
  std::vector<int64_t> index(nd, 0);
  std::array<char*, N> p = base;
  const int64_t inner = shape[nd - 1];
  std::array<int64_t, N> inner_stride;
  for (size_t v = 0; v < N; ++v) inner_stride[v] = strides[v][nd - 1];
  while (true) {
    std::array<char*, N> q = p;
    for (int64_t i = 0; i < inner; ++i) {
      fn(q);
      for (size_t v = 0; v < N; ++v) q[v] += inner_stride[v];
    }
    int d = nd - 2;
    for (; d >= 0; --d) {
      for (size_t v = 0; v < N; ++v) p[v] += strides[v][d];
      if (++index[d] < shape[d]) break;
      for (size_t v = 0; v < N; ++v) p[v] -= strides[v][d] * shape[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// ForEachElement without a special contiguous loop.
template <size_t N, typename Fn>
void ForEachElement(const std::array<const View*, N>& views, Fn&& fn) {
  std::array<int64_t, N> item;
  for (size_t v = 0; v < N; ++v) item[v] = ItemSize(views[v]->dtype);
  ForEachElement<N>(views, fn, [&](int64_t n, const std::array<char*, N>& base) {
    std::array<char*, N> p = base;
    for (int64_t i = 0; i < n; ++i) {
      fn(p);
      for (size_t v = 0; v < N; ++v) p[v] += item[v];
    }
  });
}

}  // namespace cpu
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CPU_CPU_LOOPS_H_

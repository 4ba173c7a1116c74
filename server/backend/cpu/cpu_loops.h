// Strided loops of the CPU backend: visit every element of N same-shaped
// views, with a fast path when all are contiguous.
#ifndef ARRAYD_BACKEND_CPU_CPU_LOOPS_H_
#define ARRAYD_BACKEND_CPU_CPU_LOOPS_H_

#include <array>
#include <vector>

#include "array/view.h"

namespace arrayd {
namespace cpu {

// Calls inner(rows, n, ptrs, row_steps, steps) for blocks of `rows` runs
// of n elements, in C order of the collapsed shape: run r of view v starts
// at ptrs[v] + r * row_steps[v] (as char*), steps are each view's byte
// stride along a run (0 for a broadcast operand); rows is the collapsed
// shape's second-to-last extent (1 for one dimension). For loops that
// handle short runs badly one call at a time (a broadcast (n, 1) -> (n, 2)
// copy has runs of two).
template <size_t N, typename Inner>
void ForEachBlock(const std::array<const View*, N>& views, Inner&& inner) {
  const View& first = *views[0];
  if (first.size() == 0) return;
  std::vector<Strides> strides;
  Shape shape = CollapseDims(absl::MakeConstSpan(views.data(), N), &strides);
  std::array<char*, N> p;
  for (size_t v = 0; v < N; ++v) p[v] = views[v]->data();
  const int nd = static_cast<int>(shape.size());
  std::array<int64_t, N> step{}, row_step{};
  if (nd == 0) {
    for (size_t v = 0; v < N; ++v) step[v] = ItemSize(views[v]->dtype);
    inner(int64_t{1}, int64_t{1}, p, row_step, step);
    return;
  }
  for (size_t v = 0; v < N; ++v) step[v] = strides[v][nd - 1];
  const int64_t run = shape[nd - 1];
  if (nd == 1) {
    inner(int64_t{1}, run, p, row_step, step);
    return;
  }
  for (size_t v = 0; v < N; ++v) row_step[v] = strides[v][nd - 2];
  const int64_t rows = shape[nd - 2];
  // Odometer over the dimensions outside the block.
  std::vector<int64_t> index(nd, 0);
  while (true) {
    inner(rows, run, p, row_step, step);
    int d = nd - 3;
    for (; d >= 0; --d) {
      for (size_t v = 0; v < N; ++v) p[v] += strides[v][d];
      if (++index[d] < shape[d]) break;
      for (size_t v = 0; v < N; ++v) p[v] -= strides[v][d] * shape[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Calls inner(n, ptrs, steps) for runs of n elements, in C order of the
// collapsed shape: ptrs the run's first element in each view (as char*),
// steps each view's byte stride along the run (0 for a broadcast operand).
// Views that collapse to one dimension are one run: the kernels' loops
// (NumPy's inner loops) special-case contiguous and scalar operands there.
template <size_t N, typename Inner>
void ForEachRun(const std::array<const View*, N>& views, Inner&& inner) {
  ForEachBlock<N>(views,
                  [&](int64_t rows, int64_t n, const std::array<char*, N>& p,
                      const std::array<int64_t, N>& row_step, const std::array<int64_t, N>& step) {
                    std::array<char*, N> q = p;
                    for (int64_t r = 0; r < rows; ++r) {
                      inner(n, q, step);
                      for (size_t v = 0; v < N; ++v) q[v] += row_step[v];
                    }
                  });
}

// Calls fn(ptr_0, ..., ptr_{N-1}) (as char*) for every element, in C order
// of the collapsed shape. `contiguous_fn(n, ptrs)` is called instead for a
// run in which every view is contiguous with its own item size.
template <size_t N, typename Fn, typename ContiguousFn>
void ForEachElement(const std::array<const View*, N>& views, Fn&& fn,
                    ContiguousFn&& contiguous_fn) {
  std::array<int64_t, N> item;
  for (size_t v = 0; v < N; ++v) item[v] = ItemSize(views[v]->dtype);
  ForEachRun<N>(views, [&](int64_t n, std::array<char*, N> p, const std::array<int64_t, N>& step) {
    if (step == item) {
      contiguous_fn(n, p);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      fn(p);
      for (size_t v = 0; v < N; ++v) p[v] += step[v];
    }
  });
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

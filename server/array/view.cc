#include "array/view.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status.h"

namespace arrayd {

int64_t View::size() const { return ShapeSize(shape); }

bool View::IsCContiguous() const {
  if (size() == 0) return true;
  int64_t expected = ItemSize(dtype);
  for (int i = ndim() - 1; i >= 0; --i) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

bool View::IsFContiguous() const {
  if (size() == 0) return true;
  int64_t expected = ItemSize(dtype);
  for (int i = 0; i < ndim(); ++i) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

int64_t ShapeSize(absl::Span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

absl::StatusOr<int64_t> CheckedSize(absl::Span<const int64_t> shape, int itemsize) {
  if (shape.size() > static_cast<size_t>(kMaxDims)) {
    return ValueError(absl::StrCat("maximum supported dimension for an ndarray is ", kMaxDims,
                                   ", found ", shape.size()));
  }
  // As NumPy: the product of the non-zero dimensions must fit, even when a
  // zero makes the array empty ((0, 2**62, 2**62) is refused).
  int64_t size = 1;
  bool too_big = false, empty = false;
  for (int64_t d : shape) {
    if (d < 0) return ValueError("negative dimensions are not allowed");
    if (d == 0) {
      empty = true;
      continue;
    }
    too_big = too_big || __builtin_mul_overflow(size, d, &size);
  }
  int64_t nbytes = 0;
  if (too_big || __builtin_mul_overflow(size, int64_t{itemsize}, &nbytes)) {
    return ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the "
                      "maximum possible size.");
  }
  return empty ? 0 : size;
}

absl::Status CheckView(const View& view) {
  ARRAYD_ASSIGN_OR_RETURN(int64_t size, CheckedSize(view.shape, ItemSize(view.dtype)));
  if (view.strides.size() != view.shape.size()) {
    return absl::InternalError("array with strides of another rank than its shape");
  }
  if (size == 0) return absl::OkStatus();
  // The lowest and highest byte offsets the view reaches, checked.
  int64_t lo = view.offset, hi = view.offset;
  for (size_t i = 0; i < view.shape.size(); ++i) {
    int64_t span = 0;
    if (__builtin_mul_overflow(view.strides[i], view.shape[i] - 1, &span) ||
        __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) {
      return ValueError("array strides reach past the addressable range");
    }
  }
  const int64_t limit = view.buffer ? static_cast<int64_t>(view.buffer->nbytes()) : 0;
  if (lo < 0 || hi > limit - ItemSize(view.dtype)) {
    return absl::InternalError(absl::StrCat("array of shape ", ShapeString(view.shape),
                                            " reaches outside its buffer of ", limit, " bytes"));
  }
  return absl::OkStatus();
}

Strides CStrides(absl::Span<const int64_t> shape, int itemsize) {
  Strides strides(shape.size());
  int64_t s = itemsize;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = s;
    s *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

Strides FStrides(absl::Span<const int64_t> shape, int itemsize) {
  Strides strides(shape.size());
  int64_t s = itemsize;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = s;
    s *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

namespace {

// Contiguous strides that visit the axes in `inner_first` order (the first
// one varies fastest).
Strides StridesInOrder(absl::Span<const int64_t> shape, absl::Span<const int> inner_first,
                       int itemsize) {
  Strides strides(shape.size());
  int64_t s = itemsize;
  for (int axis : inner_first) {
    strides[axis] = s;
    s *= std::max<int64_t>(shape[axis], 1);
  }
  return strides;
}

int64_t Abs(int64_t v) { return v < 0 ? -v : v; }

}  // namespace

absl::StatusOr<Order> ParseOrder(absl::string_view order) {
  if (order.size() == 1) {
    switch (order[0]) {
      case 'C': case 'c': return Order::kC;
      case 'F': case 'f': return Order::kF;
      case 'A': case 'a': return Order::kA;
      case 'K': case 'k': return Order::kK;
      default: break;
    }
  }
  return ValueError(absl::StrCat("order must be one of 'C', 'F', 'A', or 'K' (got '", order, "')"));
}

Strides LikeStrides(const View& like, Order order, int itemsize) {
  const bool c = like.IsCContiguous();
  const bool f = like.IsFContiguous();
  if (order == Order::kA) order = f && !c ? Order::kF : Order::kC;
  if (order == Order::kK) order = c ? Order::kC : f ? Order::kF : Order::kK;
  if (order == Order::kC) return CStrides(like.shape, itemsize);
  if (order == Order::kF) return FStrides(like.shape, itemsize);
  absl::InlinedVector<int, 6> outer_first(like.ndim());
  for (int i = 0; i < like.ndim(); ++i) outer_first[i] = i;
  std::stable_sort(outer_first.begin(), outer_first.end(), [&](int a, int b) {
    return Abs(like.strides[a]) > Abs(like.strides[b]);
  });
  std::reverse(outer_first.begin(), outer_first.end());
  return StridesInOrder(like.shape, outer_first, itemsize);
}

Strides KeepOrderStrides(absl::Span<const View* const> operands, absl::Span<const int64_t> shape,
                         int itemsize) {
  const int nd = static_cast<int>(shape.size());
  // Axes, innermost first, as NumPy's iterator stores them.
  absl::InlinedVector<int, 6> perm(nd);
  for (int i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  auto stride = [&](const View* v, int axis) -> int64_t {
    return shape[axis] == 1 ? 0 : Abs(v->strides[axis]);
  };
  for (int i0 = 1; i0 < nd; ++i0) {
    const int a0 = perm[i0];
    int pos = i0;
    for (int i1 = i0 - 1; i1 >= 0; --i1) {
      const int a1 = perm[i1];
      bool ambiguous = true;
      bool swap = false;
      for (const View* v : operands) {
        const int64_t s0 = stride(v, a0), s1 = stride(v, a1);
        if (s0 == 0 || s1 == 0) continue;
        if (s1 <= s0) {
          swap = false;  // C order wins a conflict between operands
        } else if (ambiguous) {
          swap = true;
        }
        ambiguous = false;
      }
      if (ambiguous) continue;
      if (!swap) break;
      pos = i1;
    }
    if (pos != i0) {
      std::rotate(perm.begin() + pos, perm.begin() + i0, perm.begin() + i0 + 1);
    }
  }
  return StridesInOrder(shape, perm, itemsize);
}

std::string ShapeString(absl::Span<const int64_t> shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ","), ")");
}

View MakeContiguousView(std::shared_ptr<Buffer> buffer, DType dtype, Shape shape) {
  View v;
  v.buffer = std::move(buffer);
  v.dtype = dtype;
  v.strides = CStrides(shape, ItemSize(dtype));
  v.shape = std::move(shape);
  return v;
}

absl::StatusOr<View> ViewAsDType(const View& view, DType dtype) {
  const int old_size = ItemSize(view.dtype);
  const int new_size = ItemSize(dtype);
  View out = view;
  out.dtype = dtype;
  if (old_size == new_size) return out;
  if (view.ndim() == 0) {
    return ValueError("Changing the dtype of a 0d array is only supported if the itemsize is "
                      "unchanged");
  }
  const int last = view.ndim() - 1;
  if (view.shape[last] != 1 && view.size() != 0 && view.strides[last] != old_size) {
    return ValueError("To change to a dtype of a different size, the last axis must be "
                      "contiguous");
  }
  const int64_t bytes = view.shape[last] * old_size;
  if (bytes % new_size != 0) {
    return ValueError("When changing to a larger dtype, its size must be a divisor of the total "
                      "size in bytes of the last axis of the array.");
  }
  out.shape[last] = bytes / new_size;
  out.strides[last] = new_size;
  return out;
}

absl::StatusOr<Shape> BroadcastShapes(absl::Span<const Shape> shapes) {
  size_t ndim = 0;
  for (const Shape& s : shapes) ndim = std::max(ndim, s.size());
  Shape out(ndim, 1);
  for (const Shape& s : shapes) {
    size_t lead = ndim - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[lead + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o == 1) {
        o = s[i];
        continue;
      }
      std::vector<std::string> parts;
      for (const Shape& t : shapes) parts.push_back(ShapeString(t));
      return ValueError(absl::StrCat(
          "operands could not be broadcast together with shapes ", absl::StrJoin(parts, " ")));
    }
  }
  return out;
}

absl::StatusOr<View> BroadcastTo(const View& view, absl::Span<const int64_t> shape) {
  if (shape.size() < view.shape.size()) {
    return ValueError(absl::StrCat("input operand has more dimensions than allowed by the axis ",
                                   "remapping: cannot broadcast ", ShapeString(view.shape),
                                   " to ", ShapeString(shape)));
  }
  View out = view;
  out.writeable = false;
  size_t lead = shape.size() - view.shape.size();
  out.shape.assign(shape.begin(), shape.end());
  out.strides.assign(shape.size(), 0);
  for (size_t i = 0; i < view.shape.size(); ++i) {
    if (view.shape[i] == shape[lead + i]) {
      out.strides[lead + i] = view.strides[i];
    } else if (view.shape[i] != 1) {
      return ValueError(absl::StrCat("operands could not be broadcast together with remapped ",
                                     "shapes [original->remapped]: ", ShapeString(view.shape),
                                     " and requested shape ", ShapeString(shape)));
    }
  }
  return out;
}

absl::StatusOr<absl::InlinedVector<int, 6>> NormalizeAxes(absl::Span<const int64_t> axes,
                                                          int ndim) {
  absl::InlinedVector<int, 6> out;
  std::vector<bool> seen(ndim, false);
  for (int64_t a : axes) {
    if (a < -ndim || a >= ndim) {
      return AxisError(absl::StrCat("axis ", a, " is out of bounds for array of dimension ",
                                    ndim));
    }
    int n = static_cast<int>(a < 0 ? a + ndim : a);
    if (seen[n]) return ValueError("repeated axis");
    seen[n] = true;
    out.push_back(n);
  }
  return out;
}

absl::StatusOr<View> Transpose(const View& view, absl::Span<const int64_t> axes) {
  int nd = view.ndim();
  absl::InlinedVector<int64_t, 6> perm;
  if (axes.empty()) {
    for (int i = nd - 1; i >= 0; --i) perm.push_back(i);
  } else {
    if (static_cast<int>(axes.size()) != nd) return ValueError("axes don't match array");
    perm.assign(axes.begin(), axes.end());
  }
  ARRAYD_ASSIGN_OR_RETURN(auto norm, NormalizeAxes(perm, nd));
  View out = view;
  for (int i = 0; i < nd; ++i) {
    out.shape[i] = view.shape[norm[i]];
    out.strides[i] = view.strides[norm[i]];
  }
  return out;
}

absl::StatusOr<Shape> ResolveReshape(int64_t size, absl::Span<const int64_t> shape) {
  Shape out(shape.begin(), shape.end());
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (unknown >= 0) return ValueError("can only specify one unknown dimension");
      unknown = static_cast<int>(i);
    } else if (out[i] < 0) {
      return ValueError("negative dimensions not allowed");
    } else if (__builtin_mul_overflow(known, out[i], &known)) {
      // A product that wraps could otherwise equal the size (0 into
      // (2**32, 2**32)).
      return ValueError(absl::StrCat("cannot reshape array of size ", size, " into shape ",
                                     ShapeString(shape)));
    }
  }
  if (unknown >= 0) {
    if (known == 0 || size % known != 0) {
      return ValueError(absl::StrCat("cannot reshape array of size ", size, " into shape ",
                                     ShapeString(shape)));
    }
    out[unknown] = size / known;
  } else if (known != size) {
    return ValueError(absl::StrCat("cannot reshape array of size ", size, " into shape ",
                                   ShapeString(shape)));
  }
  ARRAYD_RETURN_IF_ERROR(CheckedSize(out).status());  // at most 64 dimensions
  return out;
}

bool TryReshapeView(const View& view_in, absl::Span<const int64_t> new_dims, View* out) {
  const View view = view_in;  // `out` may alias `view_in`
  *out = view;
  out->shape.assign(new_dims.begin(), new_dims.end());
  int itemsize = ItemSize(view.dtype);
  if (view.size() == 0 || view.IsCContiguous()) {
    out->strides = CStrides(new_dims, itemsize);
    return true;
  }
  // NumPy's _attempt_nocopy_reshape, on the dimensions larger than one.
  std::vector<int64_t> olddims, oldstrides;
  for (int i = 0; i < view.ndim(); ++i) {
    if (view.shape[i] != 1) {
      olddims.push_back(view.shape[i]);
      oldstrides.push_back(view.strides[i]);
    }
  }
  int oldnd = static_cast<int>(olddims.size());
  int newnd = static_cast<int>(new_dims.size());
  Strides newstrides(newnd, 0);
  int oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < newnd && oi < oldnd) {
    int64_t np = new_dims[ni], op = olddims[oi];
    while (np != op) {
      if (np < op) {
        np *= new_dims[nj++];
      } else {
        op *= olddims[oj++];
      }
    }
    for (int ok = oi; ok < oj - 1; ++ok) {
      if (oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]) return false;
    }
    newstrides[nj - 1] = oldstrides[oj - 1];
    for (int nk = nj - 1; nk > ni; --nk) newstrides[nk - 1] = newstrides[nk] * new_dims[nk];
    ni = nj++;
    oi = oj++;
  }
  int64_t last = ni >= 1 ? newstrides[ni - 1] : itemsize;
  for (int nk = ni; nk < newnd; ++nk) newstrides[nk] = last;
  out->strides = std::move(newstrides);
  return true;
}

absl::StatusOr<std::vector<IndexItem>> ParseIndex(absl::Span<const int64_t> encoded) {
  if (encoded.size() % 4 != 0) {
    return ValueError("index attribute must hold 4 integers per item");
  }
  std::vector<IndexItem> items;
  for (size_t i = 0; i < encoded.size(); i += 4) {
    int64_t kind = encoded[i];
    if (kind < 0 || kind > 3) return ValueError(absl::StrCat("bad index item kind ", kind));
    items.push_back(IndexItem{static_cast<IndexItem::Kind>(kind), encoded[i + 1],
                              encoded[i + 2], encoded[i + 3]});
  }
  return items;
}

absl::StatusOr<View> BasicIndex(const View& view, absl::Span<const IndexItem> index) {
  int consumed = 0, ellipses = 0;
  for (const IndexItem& it : index) {
    if (it.kind == IndexItem::kInt || it.kind == IndexItem::kSlice) ++consumed;
    if (it.kind == IndexItem::kEllipsis) ++ellipses;
  }
  if (ellipses > 1) return IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > view.ndim()) {
    return IndexError(absl::StrCat("too many indices for array: array is ", view.ndim(),
                                   "-dimensional, but ", consumed, " were indexed"));
  }
  View out = view;
  out.shape.clear();
  out.strides.clear();
  int dim = 0;
  auto take_slice = [&](int64_t start, int64_t stop, int64_t step) -> absl::Status {
    int64_t n = view.shape[dim];
    if (step == kNone) step = 1;
    if (step == 0) return ValueError("slice step cannot be zero");
    auto adjust = [&](int64_t v, bool is_start) {
      if (v == kNone) return (step < 0) == is_start ? (step < 0 ? n - 1 : n) : (step < 0 ? -1 : 0);
      if (v < 0) {
        v += n;
        if (v < 0) v = step < 0 ? -1 : 0;
      } else if (v >= n) {
        v = step < 0 ? n - 1 : n;
      }
      return v;
    };
    int64_t lo = adjust(start, true), hi = adjust(stop, false);
    int64_t len = 0;
    if (step > 0 && lo < hi) len = (hi - lo - 1) / step + 1;
    if (step < 0 && hi < lo) len = (lo - hi - 1) / (-step) + 1;
    if (len > 0) out.offset += lo * view.strides[dim];
    out.shape.push_back(len);
    out.strides.push_back(view.strides[dim] * step);
    ++dim;
    return absl::OkStatus();
  };
  for (const IndexItem& it : index) {
    switch (it.kind) {
      case IndexItem::kInt: {
        int64_t n = view.shape[dim];
        int64_t i = it.start;
        if (i < -n || i >= n) {
          return IndexError(absl::StrCat("index ", i, " is out of bounds for axis ", dim,
                                         " with size ", n));
        }
        if (i < 0) i += n;
        out.offset += i * view.strides[dim];
        ++dim;
        break;
      }
      case IndexItem::kSlice:
        ARRAYD_RETURN_IF_ERROR(take_slice(it.start, it.stop, it.step));
        break;
      case IndexItem::kEllipsis: {
        int fill = view.ndim() - consumed;
        for (int k = 0; k < fill; ++k) ARRAYD_RETURN_IF_ERROR(take_slice(kNone, kNone, 1));
        break;
      }
      case IndexItem::kNewAxis:
        out.shape.push_back(1);
        out.strides.push_back(0);
        break;
    }
  }
  while (dim < view.ndim()) ARRAYD_RETURN_IF_ERROR(take_slice(kNone, kNone, 1));
  return out;
}

Shape CollapseDims(absl::Span<const View* const> views, std::vector<Strides>* strides) {
  const View& first = *views[0];
  Shape shape;
  strides->assign(views.size(), Strides());
  for (int d = 0; d < first.ndim(); ++d) {
    if (first.shape[d] == 1) continue;
    shape.push_back(first.shape[d]);
    for (size_t v = 0; v < views.size(); ++v) (*strides)[v].push_back(views[v]->strides[d]);
  }
  // Merge dimension i into i-1 when contiguous in every view.
  Shape merged;
  std::vector<Strides> merged_strides(views.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    bool can_merge = !merged.empty();
    for (size_t v = 0; v < views.size() && can_merge; ++v) {
      can_merge = merged_strides[v].back() == (*strides)[v][i] * shape[i];
    }
    if (can_merge) {
      merged.back() *= shape[i];
      for (size_t v = 0; v < views.size(); ++v) merged_strides[v].back() = (*strides)[v][i];
    } else {
      merged.push_back(shape[i]);
      for (size_t v = 0; v < views.size(); ++v) merged_strides[v].push_back((*strides)[v][i]);
    }
  }
  *strides = std::move(merged_strides);
  return merged;
}

void SplitAxes(const View& in, absl::Span<const int> reduced_axes, View* kept, View* reduced) {
  *kept = in;
  *reduced = in;
  kept->shape.clear();
  kept->strides.clear();
  reduced->shape.clear();
  reduced->strides.clear();
  std::vector<bool> is_reduced(in.ndim(), false);
  for (int a : reduced_axes) is_reduced[a] = true;
  for (int d = 0; d < in.ndim(); ++d) {
    View* v = is_reduced[d] ? reduced : kept;
    v->shape.push_back(in.shape[d]);
    v->strides.push_back(in.strides[d]);
  }
}

namespace {
// [lo, hi) byte range touched by a view, relative to its buffer.
void Extent(const View& v, int64_t* lo, int64_t* hi) {
  *lo = *hi = v.offset;
  if (v.size() == 0) return;
  for (int d = 0; d < v.ndim(); ++d) {
    int64_t span = (v.shape[d] - 1) * v.strides[d];
    if (span < 0) *lo += span; else *hi += span;
  }
  *hi += ItemSize(v.dtype);
}
}  // namespace

bool MayOverlap(const View& a, const View& b) {
  if (a.buffer != b.buffer || a.size() == 0 || b.size() == 0) return false;
  int64_t alo, ahi, blo, bhi;
  Extent(a, &alo, &ahi);
  Extent(b, &blo, &bhi);
  return alo < bhi && blo < ahi;
}

}  // namespace arrayd

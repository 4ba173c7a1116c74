// Buffer (refcounted device memory) and View (dtype, shape, byte strides,
// offset into a buffer), with NumPy's view semantics: slicing, transposing,
// broadcasting and most reshapes make views that share the buffer.
#ifndef ARRAYD_ARRAY_VIEW_H_
#define ARRAYD_ARRAY_VIEW_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "array/dtype.h"

namespace arrayd {

// NumPy's limit on the number of dimensions.
inline constexpr int kMaxDims = 64;

using Shape = absl::InlinedVector<int64_t, 6>;
using Strides = absl::InlinedVector<int64_t, 6>;

// A block of memory owned by a backend. Thread-safe to share; the memory is
// returned to its allocator when the last reference goes.
class Buffer {
 public:
  using Releaser = std::function<void(void*, size_t)>;
  Buffer(void* data, size_t nbytes, Releaser release)
      : data_(data), nbytes_(nbytes), release_(std::move(release)) {}
  ~Buffer() {
    if (release_) release_(data_, nbytes_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // Host or device address, depending on the backend that made it.
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }

 private:
  void* data_;
  size_t nbytes_;
  Releaser release_;
};

// An array: a typed, strided window on a buffer. Cheap to copy.
struct View {
  std::shared_ptr<Buffer> buffer;
  DType dtype = DType::kInvalid;
  Shape shape;
  Strides strides;  // in bytes; may be zero or negative
  int64_t offset = 0;  // in bytes, from buffer->data()
  bool writeable = true;  // false for broadcast views, as in NumPy

  int ndim() const { return static_cast<int>(shape.size()); }
  int64_t size() const;
  int64_t nbytes() const { return size() * ItemSize(dtype); }
  // Address of element [0, 0, ...].
  char* data() const { return static_cast<char*>(buffer->data()) + offset; }
  bool IsCContiguous() const;
  bool IsFContiguous() const;
};

int64_t ShapeSize(absl::Span<const int64_t> shape);

// The one checked path for sizes (issue 13: a count that wraps must never
// become a small buffer under a huge shape). The element count of `shape`:
// ValueError for more than kMaxDims dimensions, a negative one, or a count
// whose bytes (times `itemsize`) do not fit int64 ("array is too big").
absl::StatusOr<int64_t> CheckedSize(absl::Span<const int64_t> shape, int itemsize = 1);
// What every array the server binds to a handle must satisfy, whatever op
// made it: a checked shape (CheckedSize), strides as many as dimensions,
// and every element's bytes inside its buffer. A view that fails is an
// error of the op that made it, never stored.
absl::Status CheckView(const View& view);
Strides CStrides(absl::Span<const int64_t> shape, int itemsize);
Strides FStrides(absl::Span<const int64_t> shape, int itemsize);

// NumPy's memory orders (order= of copy, astype, empty_like, ...).
enum class Order { kC, kF, kA, kK };
// "C", "F", "A", "K" (either case); ValueError otherwise.
absl::StatusOr<Order> ParseOrder(absl::string_view order);

// The strides of a new array like `like` in `order`, as NumPy's
// PyArray_NewLikeArray gives them (copy, astype, empty_like): C or F for
// those orders; 'A' is F when `like` is F- and not C-contiguous; 'K' keeps
// `like`'s axis order (C when it is C-contiguous, F when F-contiguous, else
// its axes by decreasing |stride|, stably).
Strides LikeStrides(const View& like, Order order, int itemsize);

// The strides of an elementwise result of `shape` (NumPy's ufunc output,
// order='K'): the axis order the operands share, as NumPy's iterator finds
// it (a stable insertion sort of the axes by |stride|, in which operands
// whose strides are 0 or whose dimension is 1 have no say and, on a
// conflict, C order wins). Every operand has `shape` (broadcast views).
Strides KeepOrderStrides(absl::Span<const View* const> operands,
                         absl::Span<const int64_t> shape, int itemsize);
std::string ShapeString(absl::Span<const int64_t> shape);

// A C-contiguous view of a whole buffer.
View MakeContiguousView(std::shared_ptr<Buffer> buffer, DType dtype, Shape shape);

// `view` reinterpreted as `dtype` (ndarray.view(dtype)): the same strides
// when the item sizes agree, else the last axis (which must be contiguous)
// rescaled; NumPy's ValueError when that is impossible.
absl::StatusOr<View> ViewAsDType(const View& view, DType dtype);

// NumPy's broadcasting of shapes; ValueError when they do not broadcast.
absl::StatusOr<Shape> BroadcastShapes(absl::Span<const Shape> shapes);
// `view` broadcast to `shape` (zero strides); ValueError when impossible.
absl::StatusOr<View> BroadcastTo(const View& view, absl::Span<const int64_t> shape);

// Axes permutation; `axes` empty reverses them. AxisError/ValueError on bad axes.
absl::StatusOr<View> Transpose(const View& view, absl::Span<const int64_t> axes);

// A view with the new shape when the strides allow it (NumPy's
// _attempt_nocopy_reshape); an empty optional-like result (ok() with
// buffer == nullptr) when a copy is needed. ValueError on size mismatch.
// One -1 in `shape` is resolved.
absl::StatusOr<Shape> ResolveReshape(int64_t size, absl::Span<const int64_t> shape);
bool TryReshapeView(const View& view, absl::Span<const int64_t> shape, View* out);

// One item of a basic index, as in OPS.md.
struct IndexItem {
  enum Kind { kInt = 0, kSlice = 1, kEllipsis = 2, kNewAxis = 3 } kind;
  int64_t start, stop, step;  // kInt uses start; kNone marks an omitted bound
};
inline constexpr int64_t kNone = INT64_MIN;
absl::StatusOr<std::vector<IndexItem>> ParseIndex(absl::Span<const int64_t> encoded);
// x[index] as a view, with Python's slice rules; IndexError on bad indices.
absl::StatusOr<View> BasicIndex(const View& view, absl::Span<const IndexItem> index);

// Normalizes axes (negative allowed) for an array of `ndim` dimensions;
// AxisError when out of range, ValueError when repeated.
absl::StatusOr<absl::InlinedVector<int, 6>> NormalizeAxes(absl::Span<const int64_t> axes,
                                                          int ndim);

// Merges adjacent dimensions that are contiguous in every one of `views`
// (which share one shape) and drops size-1 dimensions. Kernels iterate the
// result. Returns the collapsed shape; `strides[i]` receives view i's strides.
Shape CollapseDims(absl::Span<const View* const> views, std::vector<Strides>* strides);

// Splits `in` into its kept dimensions and its reduced ones
// (`reduced_axes`, sorted), as two views of the same buffer; reductions walk
// `kept` for the outputs and `reduced` within each.
void SplitAxes(const View& in, absl::Span<const int> reduced_axes, View* kept, View* reduced);

// True when the two views may touch the same bytes.
bool MayOverlap(const View& a, const View& b);

}  // namespace arrayd

#endif  // ARRAYD_ARRAY_VIEW_H_

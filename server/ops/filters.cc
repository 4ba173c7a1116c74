// The kernels under arrayd.scipy's filters (client-python/arrayd/scipy):
// stencil (scipy.ndimage's correlations and rank filters, the boundary
// mode applied in the kernel), lfilter (scipy.signal's IIR recursion along
// the last axis), label (scipy.ndimage.label's connected components,
// numbered), spline_filter1d (ndimage's spline prefilter), resample (ndimage's zoom and shift,
// one axis at a time) and map_coordinates (ndimage's interpolation at
// arbitrary points).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/compose.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

// stencil(x[, weights], taps, shape, rank, mode, cval): out (of `shape`)
// with out[i] the weighted sum (weights: one per tap, in x's dtype) or the
// rank-th smallest of x[i + taps[k]], taps per-dimension offsets (K x ndim,
// flattened). Without a mode, each tap stays within x: the client padded x
// by the footprint's extent. With one, shape is x's, the offsets may be
// negative and reach past x's edges, which the mode extends (scipy.ndimage's
// modes by their numpy.pad names; cval for constant).
absl::Status RunStencil(OpContext& ctx) {
  if (ctx.num_inputs() < 1 || ctx.num_inputs() > 2) {
    return ValueError("stencil takes x and optionally weights");
  }
  const View& x = ctx.input(0);
  const int nd = x.ndim();
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> offsets, ctx.attrs().Ints("taps"));
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.attrs().Ints("shape"));
  ARRAYD_ASSIGN_OR_RETURN(int64_t rank, ctx.attrs().Int("rank"));
  std::string mode_name;
  if (ctx.attrs().Has("mode")) {
    ARRAYD_ASSIGN_OR_RETURN(mode_name, ctx.attrs().String("mode"));
  }
  ARRAYD_ASSIGN_OR_RETURN(kernels::Boundary mode, compose::BoundaryByName(mode_name, "stencil"));
  ARRAYD_ASSIGN_OR_RETURN(double cval, compose::FloatAttr(ctx.attrs(), "cval", 0.0));
  const bool padded = mode == kernels::Boundary::kPadded;
  if (static_cast<int>(shape.size()) != nd || nd == 0 || offsets.size() % nd != 0) {
    return ValueError("stencil: shape and taps must have x's number of dimensions");
  }
  const int64_t k = static_cast<int64_t>(offsets.size()) / nd;
  if (k < 1 || k > Stream::kMaxStencilTaps) {
    return ValueErrorf("stencil: 1 to ", Stream::kMaxStencilTaps, " taps, not ", k);
  }
  for (int d = 0; d < nd; ++d) {
    if (padded ? shape[d] < 0 || shape[d] > x.shape[d] : shape[d] != x.shape[d]) {
      return ValueError(padded ? "stencil: the output is larger than the padded input"
                               : "stencil: with a mode, the output has x's shape");
    }
    if (!padded && x.shape[d] == 0) return ValueError("stencil: an empty axis has no boundary");
  }
  Stream::StencilBoundary boundary{mode, cval, offsets, std::vector<int64_t>(nd, 0),
                                   std::vector<int64_t>(nd, 0)};
  std::vector<int64_t> taps(k, 0);
  for (int64_t t = 0; t < k; ++t) {
    for (int d = 0; d < nd; ++d) {
      const int64_t o = offsets[t * nd + d];
      if (padded ? o < 0 || o > x.shape[d] - shape[d]
                 : o <= -Stream::kMaxStencilExtent || o >= Stream::kMaxStencilExtent) {
        return ValueErrorf("stencil: tap ", t, " reaches outside the ",
                           padded ? "padded input" : "footprint's largest extent");
      }
      boundary.lo[d] = std::max(boundary.lo[d], -o);
      boundary.hi[d] = std::max(boundary.hi[d], o);
      taps[t] += o * x.strides[d];
    }
  }
  for (int d = 0; d < nd && !padded; ++d) {
    if (boundary.lo[d] + boundary.hi[d] >= Stream::kMaxStencilExtent) {
      return ValueErrorf("stencil: a footprint over ", Stream::kMaxStencilExtent,
                         " elements along an axis");
    }
  }
  const bool weighted = ctx.num_inputs() == 2;
  if (weighted ? !Stream::FilterDType(x.dtype)
               : (IsComplex(x.dtype) || x.dtype == DType::kFloat16)) {
    return TypeErrorf("stencil: ", weighted ? "weighted sums" : "rank selection",
                      " do not support ", DTypeName(x.dtype));
  }
  std::optional<View> w;
  if (weighted) {
    if (ctx.input(1).size() != k) return ValueError("stencil: one weight per tap");
    ARRAYD_ASSIGN_OR_RETURN(w, ctx.ContiguousCopy(ctx.input(1), x.dtype));
  } else if (rank < 0 || rank >= k) {
    return ValueErrorf("stencil: rank ", rank, " outside [0, ", k, ")");
  }
  View in = x;
  in.shape = Shape(shape.begin(), shape.end());
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(x.dtype, in.shape));
  if (out.size() > 0) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Stencil(in, taps, w ? &*w : nullptr, rank, out,
                                                padded ? nullptr : &boundary));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// lfilter(b, a, x[, zi]) -> (y, zf): scipy.signal.lfilter along the last
// axis of the 2-D x (rows, n), in x's floating dtype (b, a and zi cast to
// it); zi and zf (rows, max(len(a), len(b)) - 1). The client checks a[0].
absl::Status RunLfilter(OpContext& ctx) {
  if (ctx.num_inputs() < 3 || ctx.num_inputs() > 4) {
    return ValueError("lfilter takes b, a, x and optionally zi");
  }
  const View& x = ctx.input(2);
  if (!Stream::FilterDType(x.dtype)) {
    return TypeErrorf("lfilter: x must be floating, not ", DTypeName(x.dtype));
  }
  const View& b0 = ctx.input(0);
  const View& a0 = ctx.input(1);
  if (x.ndim() != 2 || b0.ndim() != 1 || a0.ndim() != 1 || b0.size() < 1 || a0.size() < 1) {
    return ValueError("lfilter: b and a must be non-empty 1-D arrays and x 2-D");
  }
  const int64_t m = std::max(b0.size(), a0.size()) - 1;
  if (m > Stream::kMaxLinearFilterOrder) {
    return ValueErrorf("lfilter: an order up to ", Stream::kMaxLinearFilterOrder, ", not ", m);
  }
  const int64_t rows = x.shape[0];
  std::optional<View> zi;
  if (ctx.num_inputs() == 4) {
    if (ctx.input(3).shape != Shape{rows, m}) {
      return ValueErrorf("lfilter: zi must be (", rows, ", ", m, ")");
    }
    ARRAYD_ASSIGN_OR_RETURN(zi, ctx.ContiguousCopy(ctx.input(3), x.dtype));
  }
  ARRAYD_ASSIGN_OR_RETURN(View b, ctx.ContiguousCopy(b0, x.dtype));
  ARRAYD_ASSIGN_OR_RETURN(View a, ctx.ContiguousCopy(a0, x.dtype));
  View xc = x;
  if (!x.IsCContiguous()) {
    ARRAYD_ASSIGN_OR_RETURN(xc, ctx.ContiguousCopy(x));
  }
  ARRAYD_ASSIGN_OR_RETURN(View y, ctx.NewArray(x.dtype, x.shape));
  ARRAYD_ASSIGN_OR_RETURN(View zf, ctx.NewArray(x.dtype, {rows, m}));
  if (rows > 0) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().LinearFilter(b, a, xc, zi ? &*zi : nullptr, y, zf));
  }
  ctx.SetResult(0, y);
  ctx.SetResult(1, zf);
  return absl::OkStatus();
}

// The C-contiguous v as the (outer, v.shape[axis], inner) 3-D view the
// backends' axis filters take.
View AroundAxis(View v, int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= v.shape[d];
  for (int64_t d = axis + 1; d < v.ndim(); ++d) inner *= v.shape[d];
  v.shape = {outer, v.shape[axis], inner};
  v.strides = CStrides(v.shape, ItemSize(v.dtype));
  return v;
}

// resample(x, index, weights, axis) -> out: x resampled along axis by k
// taps an output point, out[..., i, ...] = sum over j of weights[i, j] *
// x[..., index[i, j], ...] (index, weights: (m, k); an index outside [0, n)
// is clipped to it, as take(mode='clip')); out has x's shape with m along
// axis, in x's floating dtype (weights cast to it). The interpolations of
// scipy.ndimage's zoom and shift, one axis at a time.
absl::Status RunResample(OpContext& ctx) {
  const View& x = ctx.input(0);
  const View& index = ctx.input(1);
  const View& weights = ctx.input(2);
  if (!Stream::FilterDType(x.dtype)) {
    return TypeErrorf("resample: x must be floating, not ", DTypeName(x.dtype));
  }
  if (!IsInteger(index.dtype)) {
    return TypeErrorf("resample: index must be integer, not ", DTypeName(index.dtype));
  }
  if (index.ndim() != 2 || weights.shape != index.shape || index.shape[1] < 1) {
    return ValueError("resample: index and weights must both be (m, k), k >= 1");
  }
  ARRAYD_ASSIGN_OR_RETURN(int64_t axis, ctx.attrs().Int("axis"));
  const int nd = x.ndim();
  if (axis < -nd || axis >= nd) {
    return AxisError(absl::StrCat("axis ", axis, " is out of bounds for array of dimension ", nd));
  }
  if (axis < 0) axis += nd;
  const int64_t n = x.shape[axis], m = index.shape[0];
  if (n == 0 && m > 0) return ValueError("resample: cannot resample an empty axis");
  Shape shape = x.shape;
  shape[axis] = m;
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(x.dtype, shape));
  if (out.size() == 0) {
    ctx.SetResult(0, out);
    return absl::OkStatus();
  }
  View xc = x;
  if (!x.IsCContiguous()) {
    ARRAYD_ASSIGN_OR_RETURN(xc, ctx.ContiguousCopy(x));
  }
  ARRAYD_ASSIGN_OR_RETURN(View idx, ctx.ContiguousCopy(index, DType::kInt64));
  ARRAYD_ASSIGN_OR_RETURN(View w, ctx.ContiguousCopy(weights, x.dtype));
  ARRAYD_RETURN_IF_ERROR(
      ctx.stream().Resample(AroundAxis(xc, axis), idx, w, AroundAxis(out, axis)));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// spline_filter1d(x, *, axis, order, mode) -> out: scipy.ndimage's spline
// prefilter of order (2 to 5) along axis, x extended past its ends by mode
// (numpy.pad's name: reflect, symmetric or wrap; the client maps SciPy's
// modes to these), in x's floating dtype.
absl::Status RunSplineFilter1d(OpContext& ctx) {
  const View& x = ctx.input(0);
  if (!Stream::FilterDType(x.dtype)) {
    return TypeErrorf("spline_filter1d: x must be floating, not ", DTypeName(x.dtype));
  }
  ARRAYD_ASSIGN_OR_RETURN(int64_t axis, ctx.attrs().Int("axis"));
  ARRAYD_ASSIGN_OR_RETURN(int64_t order, ctx.attrs().Int("order"));
  ARRAYD_ASSIGN_OR_RETURN(std::string mode_name, ctx.attrs().String("mode"));
  const int nd = x.ndim();
  if (axis < -nd || axis >= nd) {
    return AxisError(absl::StrCat("axis ", axis, " is out of bounds for array of dimension ", nd));
  }
  if (axis < 0) axis += nd;
  ARRAYD_ASSIGN_OR_RETURN(kernels::Boundary mode,
                          compose::BoundaryByName(mode_name, "spline_filter1d"));
  if (mode != kernels::Boundary::kReflect && mode != kernels::Boundary::kSymmetric &&
      mode != kernels::Boundary::kWrap) {
    return ValueError("spline_filter1d: mode must be 'reflect', 'symmetric' or 'wrap'");
  }
  // The poles of the B-spline's inverse filter (Unser's), and warm-ups with
  // |z|^warm below 1e-17.
  kernels::SplinePoles poles{};
  switch (order) {
    case 2: poles.count = 1; poles.z[0] = std::sqrt(8.0) - 3.0; break;
    case 3: poles.count = 1; poles.z[0] = std::sqrt(3.0) - 2.0; break;
    case 4:
      poles.count = 2;
      poles.z[0] = std::sqrt(664.0 - std::sqrt(438976.0)) + std::sqrt(304.0) - 19.0;
      poles.z[1] = std::sqrt(664.0 + std::sqrt(438976.0)) - std::sqrt(304.0) - 19.0;
      break;
    case 5:
      poles.count = 2;
      poles.z[0] = std::sqrt(67.5 - std::sqrt(4436.25)) + std::sqrt(26.25) - 6.5;
      poles.z[1] = std::sqrt(67.5 + std::sqrt(4436.25)) - std::sqrt(26.25) - 6.5;
      break;
    default: return ValueError("spline_filter1d: order must be 2 to 5");
  }
  for (int64_t p = 0; p < poles.count; ++p) {
    poles.warm[p] = static_cast<int64_t>(std::ceil(std::log(1e-17) / std::log(std::fabs(poles.z[p]))));
  }
  poles.mode = static_cast<int64_t>(mode);
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(x.dtype, x.shape));
  if (out.size() > 0) {
    View xc = x;
    if (!x.IsCContiguous()) {
      ARRAYD_ASSIGN_OR_RETURN(xc, ctx.ContiguousCopy(x));
    }
    ARRAYD_RETURN_IF_ERROR(
        ctx.stream().SplineFilter(AroundAxis(xc, axis), poles, AroundAxis(out, axis)));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// How each of SciPy's interpolation modes folds a coordinate, extends the
// coefficients past their edges (the extension the client padded them by
// before this op) and whether it rounds order 0 before folding.
struct InterpMode {
  const char* name;
  kernels::InterpFold fold;
  kernels::Boundary taps;
  bool constant, round0;
};
constexpr InterpMode kInterpModes[] = {
    {"constant", kernels::InterpFold::kNone, kernels::Boundary::kReflect, true, false},
    {"grid-constant", kernels::InterpFold::kNone, kernels::Boundary::kConstant, false, false},
    {"nearest", kernels::InterpFold::kNone, kernels::Boundary::kEdge, false, false},
    {"mirror", kernels::InterpFold::kMirror, kernels::Boundary::kReflect, false, true},
    {"reflect", kernels::InterpFold::kReflect, kernels::Boundary::kSymmetric, false, true},
    {"grid-mirror", kernels::InterpFold::kReflect, kernels::Boundary::kSymmetric, false, true},
    {"wrap", kernels::InterpFold::kWrap, kernels::Boundary::kReflect, false, false},
    {"grid-wrap", kernels::InterpFold::kGridWrap, kernels::Boundary::kWrap, false, false},
};

// map_coordinates(coeffs, coords, order, mode, cval, shift) -> out:
// coeffs' spline interpolation of `order` (0-5) at coords (d, ...): along
// each of coeffs' last d axes (the axes before them a batch), a point's
// coordinate plus shift, folded by SciPy's `mode`; taps past the edges read
// coeffs as the mode extends it, cval for the constant modes. out:
// coeffs.shape[:-d] + coords.shape[1:], coeffs' dtype. The interpolation of
// scipy.ndimage's map_coordinates, affine_transform and rotate, one kernel.
absl::Status RunMapCoordinates(OpContext& ctx) {
  const View& coeffs = ctx.input(0);
  const View& coords = ctx.input(1);
  const auto real_float = [](DType t) { return t == DType::kFloat32 || t == DType::kFloat64; };
  if (!real_float(coeffs.dtype)) {
    return TypeErrorf("map_coordinates: coeffs must be float32 or float64, not ",
                      DTypeName(coeffs.dtype));
  }
  if (!real_float(coords.dtype)) {
    return TypeErrorf("map_coordinates: coords must be float32 or float64, not ",
                      DTypeName(coords.dtype));
  }
  constexpr int kMaxDims = sizeof(kernels::InterpParams::n) / sizeof(long long);
  const int64_t d = coords.ndim() >= 1 ? coords.shape[0] : 0;
  if (d < 1 || d > kMaxDims || d > coeffs.ndim()) {
    return ValueErrorf("map_coordinates: coords must be (d, ...) with 1 <= d <= ", kMaxDims,
                       " and at most coeffs' ", coeffs.ndim(), " dimensions");
  }
  ARRAYD_ASSIGN_OR_RETURN(int64_t order, ctx.attrs().Int("order"));
  if (order < 0 || order > 5)
    return ValueErrorf("map_coordinates: spline order ", order, " not in 0-5");
  ARRAYD_ASSIGN_OR_RETURN(std::string mode_name, ctx.attrs().String("mode"));
  const InterpMode* mode = nullptr;
  for (const InterpMode& m : kInterpModes) {
    if (mode_name == m.name) mode = &m;
  }
  if (mode == nullptr) {
    return ValueErrorf("map_coordinates: boundary mode '", mode_name, "' not supported");
  }
  kernels::InterpParams p{};
  ARRAYD_ASSIGN_OR_RETURN(p.cval, compose::FloatAttr(ctx.attrs(), "cval", 0.0));
  ARRAYD_ASSIGN_OR_RETURN(p.shift, compose::FloatAttr(ctx.attrs(), "shift", 0.0));
  const int nbatch = coeffs.ndim() - static_cast<int>(d);
  p.d = d;
  p.order = order;
  p.fold = static_cast<long long>(mode->fold);
  p.tap_mode = static_cast<long long>(mode->taps);
  p.constant = mode->constant ? 1 : 0;
  p.round0 = mode->round0 && order == 0 ? 1 : 0;
  p.points = coords.size() / d;
  p.space = 1;
  for (int a = static_cast<int>(d) - 1; a >= 0; --a) {
    p.n[a] = coeffs.shape[nbatch + a];
    p.stride[a] = p.space;
    p.space *= p.n[a];
  }
  Shape shape(coeffs.shape.begin(), coeffs.shape.begin() + nbatch);
  shape.insert(shape.end(), coords.shape.begin() + 1, coords.shape.end());
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(coeffs.dtype, shape));
  if (out.size() > 0 && p.space == 0) {
    return ValueError("map_coordinates: cannot interpolate an empty axis");
  }
  if (out.size() > 0) {
    View cc = coeffs, xc = coords;
    if (!coeffs.IsCContiguous()) {
      ARRAYD_ASSIGN_OR_RETURN(cc, ctx.ContiguousCopy(coeffs));
    }
    if (!coords.IsCContiguous()) {
      ARRAYD_ASSIGN_OR_RETURN(xc, ctx.ContiguousCopy(coords));
    }
    ARRAYD_RETURN_IF_ERROR(ctx.stream().MapCoordinates(cc, xc, p, out));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// label(mask, neighbors) -> (labels, count): scipy.ndimage.label's
// components of mask's nonzero elements, numbered from 1 in C order (int32;
// int64 from 2^31 elements), and their number (0-d int64); neighbors:
// per-dimension offsets (K x ndim, flattened) of the structure's elements
// that precede its center in C order.
absl::Status RunLabel(OpContext& ctx) {
  const View& mask = ctx.input(0);
  const int nd = mask.ndim();
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> neighbors, ctx.attrs().Ints("neighbors"));
  // The kernels take the offsets by value: at most 256 of them in all.
  if (nd == 0 || neighbors.size() % nd != 0 ||
      static_cast<int64_t>(neighbors.size()) / nd > Stream::kMaxLabelNeighbors ||
      neighbors.size() > 256) {
    return ValueErrorf("label: up to ", Stream::kMaxLabelNeighbors,
                       " neighbors (256 offsets in all) of mask's number of dimensions");
  }
  for (size_t t = 0; t < neighbors.size(); ++t) {
    const int64_t extent = mask.shape[t % nd];
    if (neighbors[t] < -extent || neighbors[t] > extent) {
      return ValueErrorf("label: neighbor offset ", neighbors[t], " beyond dimension ", t % nd,
                         " of ", extent);
    }
  }
  const DType ltype =
      mask.size() < (int64_t{1} << 31) ? DType::kInt32 : DType::kInt64;
  ARRAYD_ASSIGN_OR_RETURN(View m, ctx.ContiguousCopy(mask, DType::kBool));
  ARRAYD_ASSIGN_OR_RETURN(View labels, ctx.NewArray(ltype, mask.shape));
  ARRAYD_ASSIGN_OR_RETURN(View count, ctx.NewArray(DType::kInt64, {}));
  if (labels.size() > 0) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Label(m, neighbors, labels, count));
  } else {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(count, Scalar::Int(0)));
  }
  ctx.SetResult(0, labels);
  ctx.SetResult(1, count);
  return absl::OkStatus();
}

}  // namespace

void RegisterFilterOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kIndex;
  r->Register(f,
              "stencil(xs[], *, taps: ints, shape: ints, rank: int = -1, mode: str = '', "
              "cval: float = 0.0) -> out",
              "scipy.ndimage's filters: out[i] is the weighted sum (xs[1] the weights) or the "
              "rank-th smallest of x[i + taps[k]] (taps: K x ndim offsets), over x padded by "
              "the client or, with a mode (numpy.pad's name of it), past x's edges.",
              RunStencil);
  r->Register(f, "lfilter(xs[]) -> (y, zf)",
              "scipy.signal.lfilter(b, a, x[, zi]) along the last axis of the 2-D x.",
              RunLfilter);
  r->Register(f, "resample(x, index, weights, *, axis: int) -> out",
              "x along axis at k taps an output point: out[..., i, ...] = sum over j of "
              "weights[i, j] * x[..., index[i, j], ...] (index clipped to the axis); zoom and "
              "shift of scipy.ndimage.",
              RunResample);
  r->Register(f, "spline_filter1d(x, *, axis: int, order: int, mode: str) -> out",
              "scipy.ndimage's spline prefilter of order (2 to 5) along axis, x extended past "
              "its ends as numpy.pad's mode (reflect, symmetric or wrap) extends it; two "
              "recursions a pole, by chunks.",
              RunSplineFilter1d);
  r->Register(f,
              "map_coordinates(coeffs, coords, *, order: int, mode: str, cval: float = 0.0, "
              "shift: float = 0.0) -> out",
              "coeffs' spline interpolation of order at coords (d, ...) along its last d axes "
              "(the others a batch), each coordinate plus shift folded by SciPy's mode; "
              "scipy.ndimage's map_coordinates, affine_transform and rotate.",
              RunMapCoordinates);
  r->Register(f, "label(mask, *, neighbors: ints) -> (labels, count)",
              "scipy.ndimage.label: mask's connected components numbered from 1 in C order "
              "of their first elements (int32; int64 from 2^31 elements), 0 for zeros, and "
              "their number.",
              RunLabel);
}

}  // namespace arrayd

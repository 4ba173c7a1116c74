// Random streams: Philox4x32-10, counter-based. A generator is its seed and
// a counter: the `seed` attribute carries the seed's 64-bit words (uint64
// bit patterns; a client splits a larger integer into words, low first, and
// concatenates those of a seed sequence), and the Philox key is derived
// from them here, once for every client (KeyFromSeed). The `offset`
// attribute is the counter of the first Philox block; a block gives four
// float32 or two float64 values, so element i of a draw is value i % K of
// block offset + i / K (K = 4 or 2) under the key, on every backend and for
// any launch shape. Clients keep (seed, offset) per generator and advance
// the offset by the blocks each op's doc says it uses (ceil(n / K) for a
// draw of n values), so no op waits for the server.
//
// random_integers, random_poisson and random_permutation are composites of
// float64 uniform draws and other ops (ops/compose.h), written once here.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/compose.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

using compose::Run;

uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

absl::StatusOr<uint64_t> U64Attr(const Attrs& attrs, const std::string& name) {
  ARRAYD_ASSIGN_OR_RETURN(Scalar s, attrs.GetScalar(name));
  if (s.kind == Scalar::kUInt) return s.u;
  if (s.kind == Scalar::kInt) return static_cast<uint64_t>(s.i);
  return TypeError(absl::StrCat("attribute '", name, "' must be an integer"));
}

// The Philox key of a seed: splitmix64 folded over its words, key =
// splitmix64(key ^ word) from key 0 (no words: the seed 0).
absl::StatusOr<uint64_t> KeyFromSeed(const Attrs& attrs) {
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> words, attrs.Ints("seed"));
  if (words.empty()) words.push_back(0);
  uint64_t key = 0;
  for (int64_t w : words) key = SplitMix64(key ^ static_cast<uint64_t>(w));
  return key;
}

// The Philox stream of the op: its key and first block.
struct Stream0 {
  uint64_t key = 0;
  uint64_t offset = 0;
};

absl::StatusOr<Stream0> StreamOf(const Attrs& attrs) {
  Stream0 s;
  ARRAYD_ASSIGN_OR_RETURN(s.key, KeyFromSeed(attrs));
  ARRAYD_ASSIGN_OR_RETURN(s.offset, U64Attr(attrs, "offset"));
  return s;
}

// Philox blocks of a float64 draw of `n` values.
uint64_t Float64Blocks(int64_t n) { return static_cast<uint64_t>((n + 1) / 2); }

absl::StatusOr<View> Draw(OpContext& ctx, RandomDist dist, uint64_t key, uint64_t offset,
                          DType dtype, const Shape& shape) {
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, shape));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().Random(dist, key, offset, out));
  return out;
}

// The parameters of random_normal (loc, scale) or random_uniform (low, high)
// as views broadcast to `shape`: two array inputs, else 0-d constants of
// `dtype` from the attributes; nullopt when neither is given (the
// standard draw).
absl::StatusOr<std::optional<std::pair<View, View>>> Params(OpContext& ctx, const char* first,
                                                           const char* second, double first_default,
                                                           double second_default, DType dtype,
                                                           const Shape& shape) {
  if (ctx.num_inputs() == 2) {
    ARRAYD_ASSIGN_OR_RETURN(View a, BroadcastTo(ctx.input(0), shape));
    ARRAYD_ASSIGN_OR_RETURN(View b, BroadcastTo(ctx.input(1), shape));
    return std::make_optional(std::make_pair(a, b));
  }
  if (ctx.num_inputs() != 0) {
    return ValueError(absl::StrCat("takes 0 or 2 parameter inputs (", first, ", ", second, "), got ",
                                   ctx.num_inputs()));
  }
  if (!ctx.attrs().Has(first) && !ctx.attrs().Has(second)) return std::optional<std::pair<View, View>>();
  ARRAYD_ASSIGN_OR_RETURN(double a, compose::FloatAttr(ctx.attrs(), first, first_default));
  ARRAYD_ASSIGN_OR_RETURN(double b, compose::FloatAttr(ctx.attrs(), second, second_default));
  ARRAYD_ASSIGN_OR_RETURN(View av, compose::Constant(ctx, dtype, Scalar::Float(a)));
  ARRAYD_ASSIGN_OR_RETURN(View bv, compose::Constant(ctx, dtype, Scalar::Float(b)));
  return std::make_optional(std::make_pair(av, bv));
}

// random_uniform / random_normal: the standard draw, then (with parameters)
// low + U * (high - low) or loc + Z * scale, as NumPy's Generator.uniform
// and normal.
absl::Status RunRandom(OpContext& ctx, RandomDist dist) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  ARRAYD_ASSIGN_OR_RETURN(Stream0 s, StreamOf(ctx.attrs()));
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return TypeError(absl::StrCat("Unsupported dtype dtype('", DTypeName(dtype),
                                  "') for random; float32 and float64 are supported"));
  }
  const bool uniform = dist == RandomDist::kUniform;
  if (uniform && ctx.num_inputs() == 0 && (ctx.attrs().Has("low") || ctx.attrs().Has("high"))) {
    ARRAYD_ASSIGN_OR_RETURN(double low, compose::FloatAttr(ctx.attrs(), "low", 0.0));
    ARRAYD_ASSIGN_OR_RETURN(double high, compose::FloatAttr(ctx.attrs(), "high", 1.0));
    if (!std::isfinite(high - low)) return OverflowError("high - low range exceeds valid bounds");
  }
  if (!uniform && ctx.num_inputs() == 0 && ctx.attrs().Has("scale")) {
    ARRAYD_ASSIGN_OR_RETURN(double scale, compose::FloatAttr(ctx.attrs(), "scale", 1.0));
    if (scale < 0) return ValueError("scale < 0");
  }
  ARRAYD_ASSIGN_OR_RETURN(auto params, uniform ? Params(ctx, "low", "high", 0.0, 1.0, dtype, shape)
                                               : Params(ctx, "loc", "scale", 0.0, 1.0, dtype, shape));
  ARRAYD_ASSIGN_OR_RETURN(View out, Draw(ctx, dist, s.key, s.offset, dtype, shape));
  if (params) {
    auto [first, second] = *params;
    View factor = second;  // scale, or high - low
    if (uniform) {
      if (ctx.num_inputs() == 0) {  // high - low of the host values, as NumPy's scalar path
        ARRAYD_ASSIGN_OR_RETURN(double low, compose::FloatAttr(ctx.attrs(), "low", 0.0));
        ARRAYD_ASSIGN_OR_RETURN(double high, compose::FloatAttr(ctx.attrs(), "high", 1.0));
        ARRAYD_ASSIGN_OR_RETURN(factor, compose::Constant(ctx, dtype, Scalar::Float(high - low)));
      } else {
        ARRAYD_ASSIGN_OR_RETURN(factor, Run(ctx, "subtract", {second, first}));
      }
    }
    ARRAYD_ASSIGN_OR_RETURN(View scaled, Run(ctx, "multiply", {out, factor}));
    ARRAYD_ASSIGN_OR_RETURN(out, Run(ctx, "add", {scaled, first}));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// -log(1 - u), never log(0): exponential variates from uniform ones.
absl::StatusOr<View> ExponentialOf(OpContext& ctx, const View& u) {
  ARRAYD_ASSIGN_OR_RETURN(View neg, Run(ctx, "negative", {u}));
  ARRAYD_ASSIGN_OR_RETURN(View log, Run(ctx, "log1p", {neg}));
  return Run(ctx, "negative", {log});
}

// random_exponential(scales[], *, shape, dtype, scale): -log(1 - U) from one
// uniform draw (ceil(n / K) blocks), times scale (an attribute, or an array
// input broadcast to shape) when given.
absl::Status RunExponential(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  DType dtype = DType::kFloat64;
  if (ctx.attrs().Has("dtype")) {
    ARRAYD_ASSIGN_OR_RETURN(dtype, ctx.attrs().GetDType("dtype"));
  }
  ARRAYD_ASSIGN_OR_RETURN(Stream0 s, StreamOf(ctx.attrs()));
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return TypeError(absl::StrCat("Unsupported dtype dtype('", DTypeName(dtype),
                                  "') for random; float32 and float64 are supported"));
  }
  if (ctx.num_inputs() > 1) {
    return ValueError(absl::StrCat("random_exponential takes 0 or 1 inputs, got ", ctx.num_inputs()));
  }
  std::optional<View> scale;
  if (ctx.num_inputs() == 1) {
    ARRAYD_ASSIGN_OR_RETURN(scale, BroadcastTo(ctx.input(0), shape));
  } else if (ctx.attrs().Has("scale")) {
    ARRAYD_ASSIGN_OR_RETURN(double v, compose::FloatAttr(ctx.attrs(), "scale", 1.0));
    if (v < 0) return ValueError("scale < 0");
    ARRAYD_ASSIGN_OR_RETURN(scale, compose::Constant(ctx, dtype, Scalar::Float(v)));
  }
  ARRAYD_ASSIGN_OR_RETURN(View u, Draw(ctx, RandomDist::kUniform, s.key, s.offset, dtype, shape));
  ARRAYD_ASSIGN_OR_RETURN(View out, ExponentialOf(ctx, u));
  if (scale) {
    ARRAYD_ASSIGN_OR_RETURN(out, Run(ctx, "multiply", {out, *scale}));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// Integers of any int64 or uint64 value, and their differences.
using Wide = __int128;

// The range [lowest, highest] of integer (or bool) dtype d.
std::pair<Wide, Wide> IntegerRange(DType d) {
  if (d == DType::kBool) return {0, 1};
  const int bits = 8 * ItemSize(d);
  if (Kind(d) == DTypeKind::kUnsigned) return {0, (Wide{1} << bits) - 1};
  return {-(Wide{1} << (bits - 1)), (Wide{1} << (bits - 1)) - 1};
}

// An integer attribute: int64, or uint64 (above INT64_MAX it travels as
// its decimal string).
absl::StatusOr<Wide> IntegerAttr(const Attrs& attrs, const std::string& name) {
  ARRAYD_ASSIGN_OR_RETURN(Scalar s, attrs.GetScalar(name));
  if (s.kind == Scalar::kInt) return Wide{s.i};
  if (s.kind == Scalar::kUInt) return Wide{s.u};
  return TypeError(absl::StrCat("attribute '", name, "' must be an integer"));
}

// random_integers: NumPy's Generator.integers(low, high, endpoint) for an
// integer or bool dtype. With span = high - low (+ 1 with endpoint):
// span <= 2^53: floor(U * span) from one float64 draw (ceil(n / 2) blocks);
// larger: two 32-bit halves from two float64 draws, the second starting
// ceil(n / 2) blocks on (2 * ceil(n / 2) blocks), reduced modulo span.
absl::Status RunIntegers(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  DType dtype = DType::kInt64;
  if (ctx.attrs().Has("dtype")) {
    ARRAYD_ASSIGN_OR_RETURN(dtype, ctx.attrs().GetDType("dtype"));
  }
  ARRAYD_ASSIGN_OR_RETURN(Wide low, IntegerAttr(ctx.attrs(), "low"));
  ARRAYD_ASSIGN_OR_RETURN(Wide high, IntegerAttr(ctx.attrs(), "high"));
  ARRAYD_ASSIGN_OR_RETURN(bool endpoint, ctx.attrs().Bool("endpoint", false));
  ARRAYD_ASSIGN_OR_RETURN(Stream0 s, StreamOf(ctx.attrs()));
  if (!IsInteger(dtype) && dtype != DType::kBool) {
    return TypeError(absl::StrCat("Unsupported dtype ", DTypeName(dtype), " for integers"));
  }
  const Wide last = endpoint ? high : high - 1;  // inclusive
  const auto [lowest, highest] = IntegerRange(dtype);
  if (low < lowest) return ValueError(absl::StrCat("low is out of bounds for ", DTypeName(dtype)));
  if (last > highest)
    return ValueError(absl::StrCat("high is out of bounds for ", DTypeName(dtype)));
  if (low > last) return ValueError(endpoint ? "low > high" : "low >= high");
  const uint64_t span_minus_1 = static_cast<uint64_t>(last - low);
  const DType f64 = DType::kFloat64;
  View k;
  if (span_minus_1 < (uint64_t{1} << 53)) {
    const double span = static_cast<double>(span_minus_1) + 1;
    ARRAYD_ASSIGN_OR_RETURN(View u, Draw(ctx, RandomDist::kUniform, s.key, s.offset, f64, shape));
    ARRAYD_ASSIGN_OR_RETURN(View span_c, compose::Constant(ctx, f64, Scalar::Float(span)));
    ARRAYD_ASSIGN_OR_RETURN(View top, compose::Constant(ctx, f64, Scalar::Float(span - 1)));
    ARRAYD_ASSIGN_OR_RETURN(View scaled, Run(ctx, "multiply", {u, span_c}));
    ARRAYD_ASSIGN_OR_RETURN(View floored, Run(ctx, "floor", {scaled}));
    ARRAYD_ASSIGN_OR_RETURN(View clipped, Run(ctx, "minimum", {floored, top}));
    ARRAYD_ASSIGN_OR_RETURN(k, ctx.CastTo(clipped, DType::kInt64));
  } else {
    // (hi32 << 32) + lo32, each floor(U * 2^32) of its own draw.
    const DType u64 = DType::kUInt64;
    ARRAYD_ASSIGN_OR_RETURN(View two32, compose::Constant(ctx, f64, Scalar::Float(4294967296.0)));
    View halves[2];
    for (int i = 0; i < 2; ++i) {
      const uint64_t offset = s.offset + static_cast<uint64_t>(i) * Float64Blocks(ShapeSize(shape));
      ARRAYD_ASSIGN_OR_RETURN(View u, Draw(ctx, RandomDist::kUniform, s.key, offset, f64, shape));
      ARRAYD_ASSIGN_OR_RETURN(View scaled, Run(ctx, "multiply", {u, two32}));
      ARRAYD_ASSIGN_OR_RETURN(View floored, Run(ctx, "floor", {scaled}));
      ARRAYD_ASSIGN_OR_RETURN(halves[i], ctx.CastTo(floored, u64));
    }
    ARRAYD_ASSIGN_OR_RETURN(View thirty_two, compose::Constant(ctx, u64, Scalar::UInt(32)));
    ARRAYD_ASSIGN_OR_RETURN(View shifted, Run(ctx, "left_shift", {halves[0], thirty_two}));
    ARRAYD_ASSIGN_OR_RETURN(k, Run(ctx, "add", {shifted, halves[1]}));
    if (span_minus_1 != std::numeric_limits<uint64_t>::max()) {
      ARRAYD_ASSIGN_OR_RETURN(View span,
                              compose::Constant(ctx, u64, Scalar::UInt(span_minus_1 + 1)));
      ARRAYD_ASSIGN_OR_RETURN(k, Run(ctx, "remainder", {k, span}));
    }
  }
  View out;
  if (low == 0) {
    ARRAYD_ASSIGN_OR_RETURN(out, ctx.CastTo(k, dtype));
  } else {
    // low + k in 64 bits (wrapping into the range): unsigned for unsigned
    // dtypes or low > 0, else signed.
    const bool as_unsigned = Kind(dtype) == DTypeKind::kUnsigned || low > 0;
    const DType wide = as_unsigned ? DType::kUInt64 : DType::kInt64;
    ARRAYD_ASSIGN_OR_RETURN(View kw, ctx.CastTo(k, wide));
    ARRAYD_ASSIGN_OR_RETURN(
        View lo, compose::Constant(ctx, wide,
                                   as_unsigned ? Scalar::UInt(static_cast<uint64_t>(low))
                                               : Scalar::Int(static_cast<int64_t>(low))));
    ARRAYD_ASSIGN_OR_RETURN(View sum, Run(ctx, "add", {kw, lo}));
    ARRAYD_ASSIGN_OR_RETURN(out, ctx.CastTo(sum, dtype));
  }
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// The number of entries of the sorted host table `cdf` that are <= u, for
// each u (numpy.searchsorted(cdf, u, side="right")): binary lifting over
// the table padded with +inf to a power of two above its size.
absl::StatusOr<View> SearchRight(OpContext& ctx, std::vector<double> cdf, const View& u) {
  size_t len = 1;
  while (len <= cdf.size()) len *= 2;
  cdf.resize(len, std::numeric_limits<double>::infinity());
  ARRAYD_ASSIGN_OR_RETURN(View table, ctx.NewArray(DType::kFloat64, {static_cast<int64_t>(len)}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(cdf.data(), table));
  ARRAYD_ASSIGN_OR_RETURN(View pos, compose::Filled(ctx, DType::kInt64, u.shape, Scalar::Int(0)));
  for (int64_t step = static_cast<int64_t>(len) / 2; step > 0; step /= 2) {
    ARRAYD_ASSIGN_OR_RETURN(View step_c, compose::Constant(ctx, DType::kInt64, Scalar::Int(step)));
    ARRAYD_ASSIGN_OR_RETURN(View one, compose::Constant(ctx, DType::kInt64, Scalar::Int(1)));
    ARRAYD_ASSIGN_OR_RETURN(View next, Run(ctx, "add", {pos, step_c}));
    ARRAYD_ASSIGN_OR_RETURN(View before, Run(ctx, "subtract", {next, one}));
    ARRAYD_ASSIGN_OR_RETURN(View value, Run(ctx, "take", {table, before}));
    ARRAYD_ASSIGN_OR_RETURN(View go, Run(ctx, "less_equal", {value, u}));
    ARRAYD_ASSIGN_OR_RETURN(pos, Run(ctx, "where", {go, next, pos}));
  }
  return pos;
}

// random_poisson: Poisson(lam) int64 by inversion of the CDF, tabulated on
// the host over lam +- 40 sd + 40 (values outside have probability
// < 1e-300), searched with one float64 uniform draw (ceil(n / 2) blocks,
// used even when lam is 0).
absl::Status RunPoisson(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(double lam, compose::FloatAttr(ctx.attrs(), "lam", 1.0));
  ARRAYD_ASSIGN_OR_RETURN(Stream0 s, StreamOf(ctx.attrs()));
  if (!(lam >= 0)) return ValueError("lam < 0 or lam is NaN");
  if (lam > 1e8) return absl::UnimplementedError("poisson: lam above 1e8 is not supported");
  if (lam == 0) {
    ARRAYD_ASSIGN_OR_RETURN(View zeros, compose::Filled(ctx, DType::kInt64, shape, Scalar::Int(0)));
    ctx.SetResult(0, zeros);
    return absl::OkStatus();
  }
  ARRAYD_ASSIGN_OR_RETURN(View u,
                          Draw(ctx, RandomDist::kUniform, s.key, s.offset, DType::kFloat64, shape));
  const double width = 40.0 * std::sqrt(lam) + 40;
  const int64_t k0 = static_cast<int64_t>(std::max(0.0, std::floor(lam - width)));
  const int64_t k1 = static_cast<int64_t>(std::ceil(lam + width));
  std::vector<double> cdf;
  double sum = 0;
  for (int64_t k = k0; k <= k1; ++k) {
    const double kf = static_cast<double>(k);
    sum += std::exp(kf * std::log(lam) - lam - std::lgamma(kf + 1));
    cdf.push_back(sum);
  }
  ARRAYD_ASSIGN_OR_RETURN(View index, SearchRight(ctx, std::move(cdf), u));
  ARRAYD_ASSIGN_OR_RETURN(View top, compose::Constant(ctx, DType::kInt64, Scalar::Int(k1 - k0)));
  ARRAYD_ASSIGN_OR_RETURN(View clipped, Run(ctx, "minimum", {index, top}));
  ARRAYD_ASSIGN_OR_RETURN(View first, compose::Constant(ctx, DType::kInt64, Scalar::Int(k0)));
  ARRAYD_ASSIGN_OR_RETURN(View out, Run(ctx, "add", {clipped, first}));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// random_permutation(x[], *, n, axis): a permutation of 0 .. n - 1 (int64),
// the argsort of n float64 uniforms (ceil(n / 2) blocks); with an input x
// instead of n, x permuted along `axis` (a copy; n = x.shape[axis]).
absl::Status RunPermutation(OpContext& ctx) {
  if (ctx.num_inputs() > 1) {
    return ValueError(
        absl::StrCat("random_permutation takes 0 or 1 inputs, got ", ctx.num_inputs()));
  }
  ARRAYD_ASSIGN_OR_RETURN(Stream0 s, StreamOf(ctx.attrs()));
  const bool has_x = ctx.num_inputs() == 1;
  if (has_x == ctx.attrs().Has("n")) return ValueError("random_permutation: give x or n, not both");
  int64_t n = 0;
  int axis = 0;
  if (has_x) {
    const View& x = ctx.input(0);
    if (x.ndim() == 0) return AxisError("x must be an integer or at least 1-dimensional");
    int64_t a = 0;
    if (ctx.attrs().Has("axis")) {
      ARRAYD_ASSIGN_OR_RETURN(a, ctx.attrs().Int("axis"));
    }
    int64_t one[1] = {a};
    ARRAYD_ASSIGN_OR_RETURN(auto axes, NormalizeAxes(one, x.ndim()));
    axis = axes[0];
    n = x.shape[axis];
  } else {
    ARRAYD_ASSIGN_OR_RETURN(n, ctx.attrs().Int("n"));
    if (n < 0) return ValueError("negative dimensions are not allowed");
  }
  ARRAYD_ASSIGN_OR_RETURN(View perm, ctx.NewArray(DType::kInt64, {n}));
  if (n > 0) {
    ARRAYD_ASSIGN_OR_RETURN(View keys,
                            Draw(ctx, RandomDist::kUniform, s.key, s.offset, DType::kFloat64, {n}));
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Sort(keys, nullptr, &perm));
  }
  if (!has_x) {
    ctx.SetResult(0, perm);
    return absl::OkStatus();
  }
  ARRAYD_ASSIGN_OR_RETURN(View out,
                          Run(ctx, "take", {ctx.input(0), perm}, {{"axis", compose::Int(axis)}}));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// The seed and offset attributes of this op for a random op it calls, its
// stream advanced by `blocks`.
absl::StatusOr<compose::AttrList> StreamAttrs(const Attrs& attrs, uint64_t blocks = 0) {
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> words, attrs.Ints("seed"));
  ARRAYD_ASSIGN_OR_RETURN(uint64_t offset, U64Attr(attrs, "offset"));
  return compose::AttrList{{"seed", compose::Ints(std::move(words))},
                           {"offset", compose::Int(static_cast<int64_t>(offset + blocks))}};
}

// random_shuffle(x, *, axis): x permuted in place along axis, by the
// permutation random_permutation draws (ceil(n / 2) blocks).
absl::Status RunShuffle(OpContext& ctx) {
  const View& x = ctx.input(0);
  if (x.ndim() == 0) return TypeError("len() of unsized object");
  if (!x.writeable) return ValueError("assignment destination is read-only");
  ARRAYD_ASSIGN_OR_RETURN(compose::AttrList attrs, StreamAttrs(ctx.attrs()));
  int64_t axis = 0;
  if (ctx.attrs().Has("axis")) {
    ARRAYD_ASSIGN_OR_RETURN(axis, ctx.attrs().Int("axis"));
  }
  attrs.push_back({"axis", compose::Int(axis)});
  ARRAYD_ASSIGN_OR_RETURN(View permuted, Run(ctx, "random_permutation", {x}, attrs));
  return ctx.stream().Copy(permuted, x);  // a new array: no overlap with x
}

// The probabilities of random_choice's `p` attribute (float64 values),
// checked as NumPy's Generator.choice does; nullopt when absent.
absl::StatusOr<std::optional<std::vector<double>>> ChoiceProbabilities(const Attrs& attrs, int64_t n) {
  if (!attrs.Has("p")) return std::optional<std::vector<double>>();
  ARRAYD_ASSIGN_OR_RETURN(const std::string* data, attrs.Data("p"));
  if (data->size() % sizeof(double) != 0) return ValueError("p must be float64 values");
  std::vector<double> p(data->size() / sizeof(double));
  std::memcpy(p.data(), data->data(), data->size());
  if (static_cast<int64_t>(p.size()) != n) return ValueError("a and p must have same size");
  double sum = 0;
  for (double v : p) {
    if (v < 0) return ValueError("probabilities are not non-negative");
    sum += v;
  }
  if (!(std::abs(sum - 1.0) <= std::sqrt(std::numeric_limits<double>::epsilon()))) {
    return ValueError("probabilities do not sum to 1");
  }
  return std::make_optional(std::move(p));
}

// random_choice(a[], *, n, shape, replace, p, axis): NumPy's
// Generator.choice, samples of range(n) (int64) or of the input a along
// axis. With replacement: uniform integers (random_integers, ceil(k / 2)
// blocks for k samples; none when n is 0), or with p the search of one
// float64 uniform draw (ceil(k / 2) blocks) in p's normalized running sum.
// Without: the first k of the argsort of n float64 uniforms (ceil(n / 2)
// blocks), with p an exponential race -log(1 - U) / p (p = 0: never).
absl::Status RunChoice(OpContext& ctx) {
  if (ctx.num_inputs() > 1) {
    return ValueError(absl::StrCat("random_choice takes 0 or 1 inputs, got ", ctx.num_inputs()));
  }
  const bool has_a = ctx.num_inputs() == 1;
  if (has_a == ctx.attrs().Has("n")) return ValueError("random_choice: give a or n, not both");
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(bool replace, ctx.attrs().Bool("replace", true));
  ARRAYD_ASSIGN_OR_RETURN(Stream0 s, StreamOf(ctx.attrs()));
  int64_t n = 0;
  int axis = 0;
  if (has_a) {
    const View& a = ctx.input(0);
    if (a.ndim() == 0) return ValueError("a must be a sequence or an integer, not a 0-d array");
    int64_t ax = 0;
    if (ctx.attrs().Has("axis")) {
      ARRAYD_ASSIGN_OR_RETURN(ax, ctx.attrs().Int("axis"));
    }
    int64_t one[1] = {ax};
    ARRAYD_ASSIGN_OR_RETURN(auto axes, NormalizeAxes(one, a.ndim()));
    axis = axes[0];
    n = a.shape[axis];
  } else {
    ARRAYD_ASSIGN_OR_RETURN(n, ctx.attrs().Int("n"));
    if (n < 0) return ValueError("a must be a positive integer unless no samples are taken");
  }
  const int64_t k = ShapeSize(shape);
  if (n == 0 && k > 0) return ValueError("a cannot be empty unless no samples are taken");
  ARRAYD_ASSIGN_OR_RETURN(std::optional<std::vector<double>> p, ChoiceProbabilities(ctx.attrs(), n));
  const DType f64 = DType::kFloat64, i64 = DType::kInt64;
  View index;
  if (replace && !p) {
    if (n == 0) {
      ARRAYD_ASSIGN_OR_RETURN(index, compose::Filled(ctx, i64, shape, Scalar::Int(0)));
    } else {
      ARRAYD_ASSIGN_OR_RETURN(compose::AttrList attrs, StreamAttrs(ctx.attrs()));
      attrs.push_back({"shape", compose::Ints(std::vector<int64_t>(shape.begin(), shape.end()))});
      attrs.push_back({"low", compose::Int(0)});
      attrs.push_back({"high", compose::Int(n)});
      ARRAYD_ASSIGN_OR_RETURN(index, Run(ctx, "random_integers", {}, attrs));
    }
  } else if (replace) {
    std::vector<double> cdf(p->size());
    double sum = 0;
    for (size_t i = 0; i < p->size(); ++i) cdf[i] = sum += (*p)[i];  // numpy.cumsum's order
    for (double& v : cdf) v /= sum;
    ARRAYD_ASSIGN_OR_RETURN(View u, Draw(ctx, RandomDist::kUniform, s.key, s.offset, f64, shape));
    ARRAYD_ASSIGN_OR_RETURN(View pos, SearchRight(ctx, std::move(cdf), u));
    ARRAYD_ASSIGN_OR_RETURN(View last, compose::Constant(ctx, i64, Scalar::Int(n - 1)));
    ARRAYD_ASSIGN_OR_RETURN(index, Run(ctx, "minimum", {pos, last}));
  } else {
    if (k > n) return ValueError("Cannot take a larger sample than population when replace is False");
    if (p && std::count_if(p->begin(), p->end(), [](double v) { return v != 0; }) < k) {
      return ValueError("Fewer non-zero entries in p than size");
    }
    ARRAYD_ASSIGN_OR_RETURN(View keys, Draw(ctx, RandomDist::kUniform, s.key, s.offset, f64, {n}));
    if (p) {
      ARRAYD_ASSIGN_OR_RETURN(View e, ExponentialOf(ctx, keys));
      ARRAYD_ASSIGN_OR_RETURN(View pv, ctx.NewArray(f64, {n}));
      if (n > 0) ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(p->data(), pv));
      ARRAYD_ASSIGN_OR_RETURN(keys, Run(ctx, "true_divide", {e, pv}));
    }
    ARRAYD_ASSIGN_OR_RETURN(View order, Run(ctx, "argsort", {keys}));
    View first = order;  // order[:k], a C-contiguous prefix
    first.shape = {k};
    ARRAYD_ASSIGN_OR_RETURN(index, compose::Reshape(ctx, first, shape));
  }
  if (!has_a) {
    ctx.SetResult(0, index);
    return absl::OkStatus();
  }
  ARRAYD_ASSIGN_OR_RETURN(View out,
                          Run(ctx, "take", {ctx.input(0), index}, {{"axis", compose::Int(axis)}}));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

}  // namespace

void RegisterRandomOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kRandom;
  r->Register(f,
              "random_uniform(params[], *, shape: shape, dtype: dtype, low: float? = None, "
              "high: float? = None, seed: ints, offset: scalar) -> out",
              "Uniform [0, 1) from Philox4x32-10 (seed words, offset): ceil(n / K) blocks. With "
              "low/high (attributes, or the inputs low and high broadcast to shape): "
              "low + U * (high - low), Generator.uniform.",
              [](OpContext& ctx) { return RunRandom(ctx, RandomDist::kUniform); });
  r->Register(f,
              "random_normal(params[], *, shape: shape, dtype: dtype, loc: float? = None, "
              "scale: float? = None, seed: ints, offset: scalar) -> out",
              "Standard normal from Philox4x32-10 (seed words, offset): ceil(n / K) blocks. With "
              "loc/scale (attributes, or the inputs loc and scale broadcast to shape): "
              "loc + Z * scale, Generator.normal.",
              [](OpContext& ctx) { return RunRandom(ctx, RandomDist::kNormal); });
  r->Register(f,
              "random_exponential(scales[], *, shape: shape, dtype: dtype = 'float64', "
              "scale: float? = None, seed: ints, offset: scalar) -> out",
              "Generator.standard_exponential, and exponential with scale (an attribute, or an "
              "input broadcast to shape): -log(1 - U) [* scale], ceil(n / K) blocks.",
              RunExponential);
  r->Register(f,
              "random_integers(*, shape: shape, low: scalar, high: scalar, endpoint: bool = False, "
              "dtype: dtype = 'int64', seed: ints, offset: scalar) -> out",
              "Generator.integers: uniform integers in [low, high) ([low, high] with endpoint); "
              "ceil(n / 2) blocks when the range has at most 2^53 values, else 2 * ceil(n / 2).",
              RunIntegers);
  r->Register(
      f,
      "random_poisson(*, shape: shape, lam: float = 1.0, seed: ints, "
      "offset: scalar) -> out",
      "Generator.poisson (int64, 0 <= lam <= 1e8) by inversion of the CDF: ceil(n / 2) blocks.",
      RunPoisson);
  r->Register(f,
              "random_permutation(x[], *, n: int? = None, axis: int = 0, seed: ints, "
              "offset: scalar) -> out",
              "Generator.permutation: of range(n) (int64), or of the input x along axis (a copy); "
              "ceil(n / 2) blocks.",
              RunPermutation);
  r->Register(f, "random_shuffle(x, *, axis: int = 0, seed: ints, offset: scalar) -> ()",
              "Generator.shuffle: x permuted in place along axis (random_permutation's draw, "
              "ceil(n / 2) blocks).",
              RunShuffle);
  r->Register(f,
              "random_choice(a[], *, n: int? = None, shape: shape, replace: bool = True, "
              "p: data? = None, axis: int = 0, seed: ints, offset: scalar) -> out",
              "Generator.choice of range(n) (int64) or of a along axis; p: float64 probabilities. "
              "Blocks for k samples: ceil(k / 2) with replacement (0 when n == 0 and no p), "
              "ceil(n / 2) without.",
              RunChoice);
}

}  // namespace arrayd

// numpy.random of the C++ client (arrayd/numeric.h): a Generator records
// the server's random ops (ops/random.cc) at its stream's next blocks, as
// the Python client's Generator does; the legacy module functions share one
// process-wide Generator.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "arrayd/numeric.h"
#include "numeric_internal.h"

namespace arrayd {
inline namespace client {
namespace random {

using numeric_internal::Core;
using numeric_internal::CoreOf;
using numeric_internal::MakeOp;

// The server derives the Philox key from the seed (ops/random.cc), as it
// does for the Python client's default_rng(seed).
Generator::Generator(Client* client, uint64_t seed) : client_(client), seed_(seed) {}

uint64_t Generator::Reserve(uint64_t blocks) {
  const uint64_t first = offset_;
  offset_ += blocks;
  return first;
}

namespace {

// Records random op `op` (its other attributes set) of `client` with the
// generator's seed (one word: its bits) and first block.
Array EmitRandom(Client* client, v1::Op op, uint64_t seed, uint64_t offset, DType dtype,
                 const Shape& shape) {
  auto& attrs = *op.mutable_attrs();
  attrs["seed"] = IntsAttr({static_cast<int64_t>(seed)});
  attrs["offset"].set_i(static_cast<int64_t>(offset));
  return ArrayOps::Emit(ArrayOps::CoreOf(*client), std::move(op), dtype, shape);
}

// Philox blocks of a float64 draw of `n` values (two a block).
uint64_t Float64Blocks(int64_t n) { return static_cast<uint64_t>((n + 1) / 2); }

}  // namespace

Array Generator::Draw(const char* op_name, const Shape& shape, DType dtype,
                      std::initializer_list<std::pair<const char*, double>> params) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client_);
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return Refuse(core, op_name,
                  TypeError(absl::StrCat("Unsupported dtype \"", DTypeName(dtype),
                                         "\" for random; float32 and float64 are supported")));
  }
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, op_name, s);
  v1::Op op;
  op.set_name(op_name);
  auto& attrs = *op.mutable_attrs();
  attrs["shape"] = IntsAttr(shape);
  attrs["dtype"] = DTypeAttr(dtype);
  for (const auto& [name, value] : params) attrs[name].set_f(value);
  const int64_t per_block = 16 / ItemSize(dtype);  // values per Philox block
  return EmitRandom(client_, std::move(op), seed_,
                    Reserve(static_cast<uint64_t>((ShapeSize(shape) + per_block - 1) / per_block)),
                    dtype, shape);
}

Array Generator::Random(const Shape& shape, DType dtype) {
  return Draw("random_uniform", shape, dtype);
}

Array Generator::StandardNormal(const Shape& shape, DType dtype) {
  return Draw("random_normal", shape, dtype);
}

// The scaled and shifted draws are the server's (ops/random.cc); here:
// NumPy's errors.
Array Generator::Normal(double loc, double scale, const Shape& shape, DType dtype) {
  if (scale < 0) return Refuse(ArrayOps::CoreOf(*client_), "normal", ValueError("scale < 0"));
  return Draw("random_normal", shape, dtype, {{"loc", loc}, {"scale", scale}});
}

Array Generator::Uniform(double low, double high, const Shape& shape, DType dtype) {
  if (!std::isfinite(high - low)) {
    return Refuse(ArrayOps::CoreOf(*client_), "uniform",
                  internal::WithKind(absl::OutOfRangeError("high - low range exceeds valid bounds"),
                                     "OverflowError"));
  }
  return Draw("random_uniform", shape, dtype, {{"low", low}, {"high", high}});
}

namespace {

// The range of integer (or bool) dtype d.
std::pair<int64_t, uint64_t> IntegerRange(DType d) {
  if (d == DType::kBool) return {0, 1};
  const int bits = 8 * ItemSize(d);
  if (Kind(d) == DTypeKind::kUnsigned)
    return {0, bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1};
  return {bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1)), (uint64_t{1} << (bits - 1)) - 1};
}

}  // namespace

Array Generator::StandardExponential(const Shape& shape, DType dtype) {
  return Draw("random_exponential", shape, dtype);
}

Array Generator::Exponential(double scale, const Shape& shape) {
  if (scale < 0) return Refuse(ArrayOps::CoreOf(*client_), "exponential", ValueError("scale < 0"));
  return Draw("random_exponential", shape, DType::kFloat64, {{"scale", scale}});
}

Array Generator::Integers(int64_t low, int64_t high, const Shape& shape, DType dtype,
                          bool endpoint) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client_);
  if (!IsInteger(dtype) && dtype != DType::kBool) {
    return Refuse(core, "integers",
                  TypeError(absl::StrCat("Unsupported dtype ", DTypeName(dtype), " for integers")));
  }
  const auto [lowest, highest] = IntegerRange(dtype);
  const char* empty = endpoint ? "low > high" : "low >= high";
  if (!endpoint && high == INT64_MIN) return Refuse(core, "integers", ValueError(empty));
  const int64_t high_incl = endpoint ? high : high - 1;
  if (low < lowest)
    return Refuse(core, "integers",
                  ValueError(absl::StrCat("low is out of bounds for ", DTypeName(dtype))));
  if (high_incl > 0 && static_cast<uint64_t>(high_incl) > highest) {
    return Refuse(core, "integers",
                  ValueError(absl::StrCat("high is out of bounds for ", DTypeName(dtype))));
  }
  if (low > high_incl) return Refuse(core, "integers", ValueError(empty));
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, "integers", s);
  v1::Op op;
  op.set_name("random_integers");
  auto& attrs = *op.mutable_attrs();
  attrs["shape"] = IntsAttr(shape);
  attrs["dtype"] = DTypeAttr(dtype);
  attrs["low"].set_i(low);
  attrs["high"].set_i(high);
  if (endpoint) attrs["endpoint"].set_b(true);
  // One float64 draw, or two when the range has more than 2^53 values (ops/random.cc).
  const uint64_t last = static_cast<uint64_t>(high_incl) - static_cast<uint64_t>(low);  // span - 1
  const uint64_t draws = last < (uint64_t{1} << 53) ? 1 : 2;
  return EmitRandom(client_, std::move(op), seed_, Reserve(draws * Float64Blocks(ShapeSize(shape))),
                    dtype, shape);
}

Array Generator::Poisson(double lam, const Shape& shape) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client_);
  if (!(lam >= 0)) return Refuse(core, "poisson", ValueError("lam < 0 or lam is NaN"));
  if (lam > 1e8) {
    return Refuse(
        core, "poisson",
        internal::WithKind(absl::UnimplementedError("poisson: lam above 1e8 is not supported"),
                           "NotImplementedError"));
  }
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, "poisson", s);
  v1::Op op;
  op.set_name("random_poisson");
  auto& attrs = *op.mutable_attrs();
  attrs["shape"] = IntsAttr(shape);
  attrs["lam"].set_f(lam);
  return EmitRandom(client_, std::move(op), seed_, Reserve(Float64Blocks(ShapeSize(shape))),
                    DType::kInt64, shape);
}

Array Generator::Permutation(int64_t n) {
  if (n < 0)
    return Refuse(ArrayOps::CoreOf(*client_), "permutation",
                  ValueError("negative dimensions are not allowed"));
  v1::Op op;
  op.set_name("random_permutation");
  (*op.mutable_attrs())["n"].set_i(n);
  return EmitRandom(client_, std::move(op), seed_, Reserve(Float64Blocks(n)), DType::kInt64, {n});
}

Array Generator::Permutation(const Array& x, int64_t axis) {
  if (auto bad = ArrayOps::CheckInputs("permutation", {&x})) return *bad;
  if (x.ndim() == 0) {
    return Refuse(CoreOf(x), "permutation",
                  AxisError("x must be an integer or at least 1-dimensional"));
  }
  absl::StatusOr<std::vector<int64_t>> ax = NormalizeAxes(x.ndim(), {axis});
  if (!ax.ok()) return Refuse(CoreOf(x), "permutation", ax.status());
  v1::Op op = MakeOp("random_permutation", {&x});
  (*op.mutable_attrs())["axis"].set_i((*ax)[0]);
  return EmitRandom(client_, std::move(op), seed_, Reserve(Float64Blocks(x.shape()[(*ax)[0]])),
                    x.dtype(), x.shape());
}

void Generator::Shuffle(const Array& x, int64_t axis) {
  if (ArrayOps::CheckInputs("shuffle", {&x})) return;  // x's own error is reported already
  if (x.ndim() == 0) {
    Refuse(CoreOf(x), "shuffle", TypeError("len() of unsized object"));
    return;
  }
  absl::StatusOr<std::vector<int64_t>> ax = NormalizeAxes(x.ndim(), {axis});
  if (!ax.ok()) {
    Refuse(CoreOf(x), "shuffle", ax.status());
    return;
  }
  v1::Op op = MakeOp("random_shuffle", {&x});
  auto& attrs = *op.mutable_attrs();
  attrs["axis"].set_i((*ax)[0]);
  attrs["seed"] = IntsAttr({static_cast<int64_t>(seed_)});
  attrs["offset"].set_i(static_cast<int64_t>(Reserve(Float64Blocks(x.shape()[(*ax)[0]]))));
  ArrayOps::EmitMany(CoreOf(x), std::move(op), {});
}

// The server's random_choice (ops/random.cc) of range(n), or of `a` along
// `axis` (normalized); here: NumPy's errors, the result's shape and the
// blocks it draws.
Array Generator::ChoiceOf(const Array* a, int64_t n, int64_t axis, const Shape& shape, bool replace,
                          const std::optional<std::vector<double>>& p) {
  const std::shared_ptr<Core>& core = ArrayOps::CoreOf(*client_);
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, "choice", s);
  const int64_t k = ShapeSize(shape);
  if (n == 0 && k > 0)
    return Refuse(core, "choice", ValueError("a cannot be empty unless no samples are taken"));
  if (p) {
    if (static_cast<int64_t>(p->size()) != n)
      return Refuse(core, "choice", ValueError("a and p must have same size"));
    double sum = 0;
    for (double v : *p) {
      if (v < 0) return Refuse(core, "choice", ValueError("probabilities are not non-negative"));
      sum += v;
    }
    if (!(std::abs(sum - 1.0) <= std::sqrt(std::numeric_limits<double>::epsilon()))) {
      return Refuse(core, "choice", ValueError("probabilities do not sum to 1"));
    }
  }
  if (!replace) {
    if (k > n) {
      return Refuse(
          core, "choice",
          ValueError("Cannot take a larger sample than population when replace is False"));
    }
    if (p && std::count_if(p->begin(), p->end(), [](double v) { return v != 0; }) < k) {
      return Refuse(core, "choice", ValueError("Fewer non-zero entries in p than size"));
    }
  }
  v1::Op op = a ? MakeOp("random_choice", {a}) : MakeOp("random_choice", {});
  auto& attrs = *op.mutable_attrs();
  attrs["shape"] = IntsAttr(shape);
  if (a) {
    attrs["axis"].set_i(axis);
  } else {
    attrs["n"].set_i(n);
  }
  if (!replace) attrs["replace"].set_b(false);
  if (p)
    attrs["p"].set_data(
        std::string(reinterpret_cast<const char*>(p->data()), p->size() * sizeof(double)));
  const uint64_t blocks = !replace ? Float64Blocks(n) : (n == 0 && !p ? 0 : Float64Blocks(k));
  Shape out = shape;
  DType dtype = DType::kInt64;
  if (a) {
    out = Shape(a->shape().begin(), a->shape().begin() + axis);
    out.insert(out.end(), shape.begin(), shape.end());
    out.insert(out.end(), a->shape().begin() + axis + 1, a->shape().end());
    dtype = a->dtype();
  }
  return EmitRandom(client_, std::move(op), seed_, Reserve(blocks), dtype, out);
}

Array Generator::Choice(int64_t n, const Shape& shape, bool replace,
                        const std::optional<std::vector<double>>& p) {
  if (n < 0) {
    return Refuse(ArrayOps::CoreOf(*client_), "choice",
                  ValueError("a must be a positive integer unless no samples are taken"));
  }
  return ChoiceOf(nullptr, n, 0, shape, replace, p);
}

Array Generator::Choice(const Array& a, const Shape& shape, bool replace,
                        const std::optional<std::vector<double>>& p, int64_t axis) {
  if (auto bad = ArrayOps::CheckInputs("choice", {&a})) return *bad;
  if (a.ndim() == 0) {
    return Refuse(CoreOf(a), "choice",
                  ValueError("a must be a sequence or an integer, not a 0-d array"));
  }
  absl::StatusOr<std::vector<int64_t>> ax = NormalizeAxes(a.ndim(), {axis});
  if (!ax.ok()) return Refuse(CoreOf(a), "choice", ax.status());
  return ChoiceOf(&a, a.shape()[(*ax)[0]], (*ax)[0], shape, replace, p);
}

// The process-wide generator of the legacy functions: bound to the caller's
// Client for the duration of one call, under a mutex.
class GlobalGenerator {
 public:
  static void Seed(uint64_t seed) {
    absl::MutexLock lock(&mu_);
    *Get() = Generator(nullptr, seed);
  }

  template <typename Draw>
  static auto Run(Client* client, const Draw& draw) {
    absl::MutexLock lock(&mu_);
    Generator& g = *Get();
    g.client_ = client;
    struct Unbind {
      Generator& g;
      ~Unbind() { g.client_ = nullptr; }
    } unbind{g};
    return draw(g);
  }

 private:
  static Generator* Get() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    static Generator* const generator = [] {
      std::random_device entropy;
      return new Generator(nullptr, (uint64_t{entropy()} << 32) | entropy());
    }();
    return generator;
  }

  ABSL_CONST_INIT static absl::Mutex mu_;
};

ABSL_CONST_INIT absl::Mutex GlobalGenerator::mu_(absl::kConstInit);

void Seed(uint64_t seed) { GlobalGenerator::Seed(seed); }

Array Rand(Client* client, const Shape& shape) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Random(shape); });
}
Array RandomSample(Client* client, const Shape& shape) { return Rand(client, shape); }
Array Randn(Client* client, const Shape& shape) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.StandardNormal(shape); });
}
Array Randint(Client* client, int64_t low, int64_t high, const Shape& shape, DType dtype) {
  return GlobalGenerator::Run(client,
                              [&](Generator& g) { return g.Integers(low, high, shape, dtype); });
}
Array Normal(Client* client, double loc, double scale, const Shape& shape) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Normal(loc, scale, shape); });
}
Array Uniform(Client* client, double low, double high, const Shape& shape) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Uniform(low, high, shape); });
}
Array Permutation(Client* client, int64_t n) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Permutation(n); });
}
Array Permutation(Client* client, const Array& x, int64_t axis) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Permutation(x, axis); });
}
void Shuffle(Client* client, const Array& x, int64_t axis) {
  GlobalGenerator::Run(client, [&](Generator& g) { g.Shuffle(x, axis); });
}
Array Choice(Client* client, int64_t n, const Shape& shape, bool replace,
             const std::optional<std::vector<double>>& p) {
  return GlobalGenerator::Run(client, [&](Generator& g) { return g.Choice(n, shape, replace, p); });
}
Array Choice(Client* client, const Array& a, const Shape& shape, bool replace,
             const std::optional<std::vector<double>>& p, int64_t axis) {
  return GlobalGenerator::Run(client,
                              [&](Generator& g) { return g.Choice(a, shape, replace, p, axis); });
}

}  // namespace random
}  // namespace client
}  // namespace arrayd

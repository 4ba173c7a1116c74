// Products, numpy.linalg, numpy.fft and numpy.random for the C++ client.
//
//   arrayd::Array c = arrayd::Matmul(a, b);
//   arrayd::linalg::SvdResult usv = arrayd::linalg::Svd(c, /*full_matrices=*/false);
//   arrayd::Array spectrum = arrayd::fft::Rfft(signal);
//   arrayd::random::Generator rng(client.get(), /*seed=*/42);
//   arrayd::Array z = rng.StandardNormal({1000}, arrayd::DType::kFloat32);
//
// Same conventions as client.h: results are recorded, not run; their dtype
// and shape follow NumPy's rules and are known at once; an input the client
// can tell is invalid gives an Array whose status() says why (with NumPy's
// error kind in the payload: LinAlgError, ValueError, TypeError); errors the
// server finds (a singular matrix) are deferred to the next sync point.
#ifndef ARRAYD_CLIENT_NUMERIC_H_
#define ARRAYD_CLIENT_NUMERIC_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "arrayd/client.h"

namespace arrayd {
inline namespace client {

// numpy.matmul: 1-D operands act as a row (a) or column (b) vector and that
// dimension is dropped from the result; batch dimensions broadcast.
Array Matmul(const Array& a, const Array& b);

namespace linalg {

// Computation dtype as numpy.linalg's: float32/64 and complex64/128 stay,
// bool and integers compute in float64, float16 is a TypeError. Square
// inputs are (..., n, n); leading dimensions are a batch.
Array Inv(const Array& a);
// b is (..., n) (one right-hand side) or (..., n, k); batches broadcast.
Array Solve(const Array& a, const Array& b);
Array Det(const Array& a);
struct SlogdetResult {
  Array sign;       // the computation dtype (complex for complex input)
  Array logabsdet;  // its real dtype
};
SlogdetResult Slogdet(const Array& a);
// The lower Cholesky factor; LinAlgError (deferred) when not positive definite.
Array Cholesky(const Array& a);
struct QrResult {
  Array q, r;
};
// mode "reduced" (q: (..., m, k), r: (..., k, n), k = min(m, n)) or "complete".
QrResult Qr(const Array& a, const std::string& mode = "reduced");
struct SvdResult {
  Array u, s, vh;  // s: real, descending
};
SvdResult Svd(const Array& a, bool full_matrices = true);
// numpy.linalg.svd(a, compute_uv=False).
Array Svdvals(const Array& a);
struct EighResult {
  Array eigenvalues;   // real, ascending
  Array eigenvectors;  // columns
};
// uplo: "L" or "U", the triangle that is read.
EighResult Eigh(const Array& a, const std::string& uplo = "L");
Array Eigvalsh(const Array& a, const std::string& uplo = "L");
struct EigResult {
  Array eigenvalues;
  Array eigenvectors;  // columns, unit norm
};
// General square matrices. As NumPy: complex results for complex input;
// for real input, real results when every eigenvalue is real, else complex.
// The server's op applies that rule; the dtypes are read back with one
// sync: Eig and Eigvals of real input are sync points, and an error found
// then (a LinAlgError for infs or NaNs) is carried by the results.
EigResult Eig(const Array& a);
Array Eigvals(const Array& a);

// numpy.linalg.norm's ord: None (the default: 2-norm of vectors, Frobenius
// of matrices), a number (including +-infinity) or "fro", "f", "nuc".
class NormOrder {
 public:
  NormOrder() = default;
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  NormOrder(T p) : number_(static_cast<double>(p)) {}      // NOLINT: norm(x, 2)
  NormOrder(const char* name) : name_(name) {}             // NOLINT: norm(x, "fro")
  NormOrder(std::string name) : name_(std::move(name)) {}  // NOLINT

  bool is_none() const { return !number_ && name_.empty(); }
  // Set when ord is a number.
  const std::optional<double>& number() const { return number_; }
  // Set (non-empty) when ord is a name.
  const std::string& name() const { return name_; }

 private:
  std::optional<double> number_;
  std::string name_;
};
// numpy.linalg.norm: axis nullopt is every axis (then ord must suit 1-D or
// 2-D input), one axis a vector norm, two axes a matrix norm (ord None,
// "fro", "nuc", +-1, +-2, +-inf). Integers compute in float64; the result is
// real. ValueError for an ord that does not suit the axes.
Array Norm(const Array& x, const NormOrder& ord = {}, std::optional<std::vector<int64_t>> axis = std::nullopt,
           bool keepdims = false);
// The pseudo-inverse (..., n, m) from the SVD: singular values at most
// rcond times the largest count as zero.
Array Pinv(const Array& a, double rcond = 1e-15);
struct LstsqResult {
  Array x;          // (n,) or (n, k) as b
  Array residuals;  // squared 2-norms of b - a x, (k,); empty unless rank == n < m
  int64_t rank = 0;
  Array s;  // singular values of a
};
// numpy.linalg.lstsq(a (m, n), b (m,) or (m, k), rcond) from the SVD;
// rcond defaults to eps * max(m, n). A sync point (the rank is a number, and
// decides the residuals' shape): the error of an invalid input or of a
// failed op is returned here.
absl::StatusOr<LstsqResult> Lstsq(const Array& a, const Array& b, std::optional<double> rcond = std::nullopt);
// a to the integer power n by repeated squaring (matmul); n < 0 inverts a
// first, n == 0 gives identity matrices of a's dtype.
Array MatrixPower(const Array& a, int64_t n);
// The number of singular values above tol (default: max(m, n) * eps times
// the largest), int64 per matrix; for 1-D and 0-d input, 1 unless all zero.
Array MatrixRank(const Array& a, std::optional<double> tol = std::nullopt);

}  // namespace linalg

namespace fft {

// One-dimensional transforms along `axis`, any length: n crops or zero-pads
// the input (irfft: n is the output length, default 2 * (m - 1)); norm is
// "backward" (default), "ortho" or "forward". Single precision stays single
// (float16/float32/complex64 give complex64 or float32), as in NumPy 2.
Array Fft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
          const std::string& norm = "backward");
Array Ifft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           const std::string& norm = "backward");
Array Rfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           const std::string& norm = "backward");
Array Irfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            const std::string& norm = "backward");

// Transforms over several axes (default: all; Fft2 and friends: the last
// two), one axis at a time as NumPy's own. Rfftn halves the last axis
// given; Irfftn restores it (its length 2 * (m - 1) unless `last_n`).
Array Fftn(const Array& a, std::optional<std::vector<int64_t>> axes = std::nullopt,
           const std::string& norm = "backward");
Array Ifftn(const Array& a, std::optional<std::vector<int64_t>> axes = std::nullopt,
            const std::string& norm = "backward");
Array Rfftn(const Array& a, std::optional<std::vector<int64_t>> axes = std::nullopt,
            const std::string& norm = "backward");
Array Irfftn(const Array& a, std::optional<std::vector<int64_t>> axes = std::nullopt,
             std::optional<int64_t> last_n = std::nullopt, const std::string& norm = "backward");
Array Fft2(const Array& a, const std::string& norm = "backward");
Array Ifft2(const Array& a, const std::string& norm = "backward");
Array Rfft2(const Array& a, const std::string& norm = "backward");
Array Irfft2(const Array& a, const std::string& norm = "backward");

// The transforms of a Hermitian-symmetric signal: Hfft is the Irfft of the
// conjugate (real output, length n, default 2 * (m - 1)), Ihfft the
// conjugate of the Rfft (real input), each with the opposite norm.
Array Hfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           const std::string& norm = "backward");
Array Ihfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            const std::string& norm = "backward");

// The sample frequencies (float64, the server's fftfreq and rfftfreq ops):
// Fftfreq's n values [0, 1, ..., -1] / (n d), Rfftfreq's
// n / 2 + 1 non-negative ones. As NumPy: ZeroDivisionError when n == 0 or
// d == 0, ValueError when n < 0.
Array Fftfreq(Client* client, int64_t n, double d = 1.0);
Array Rfftfreq(Client* client, int64_t n, double d = 1.0);
// Rolls `axes` (default: all) by half their length, moving the zero
// frequency to the centre; Ifftshift undoes it (they differ for odd lengths).
Array Fftshift(const Array& x, std::optional<std::vector<int64_t>> axes = std::nullopt);
Array Ifftshift(const Array& x, std::optional<std::vector<int64_t>> axes = std::nullopt);

}  // namespace fft

namespace random {

class GlobalGenerator;

// numpy.random.Generator on the server: counter-based Philox4x32-10 streams
// whose key the server derives from the seed, for both clients alike, so a
// seed gives the same numbers in both clients and on every backend: each
// method below sends the same ops (random_uniform, random_integers,
// random_poisson, random_permutation, ...) at the same blocks of the stream
// as its Python namesake. dtype, where NumPy has it, is
// float32 or float64 (else the Array carries a TypeError); invalid
// parameters give NumPy's ValueError and draw nothing. A Generator is used
// by one thread at a time, as its Client.
class Generator {
 public:
  Generator(Client* client, uint64_t seed);

  // Uniform floats in [0, 1).
  Array Random(const Shape& shape, DType dtype = DType::kFloat64);
  Array StandardNormal(const Shape& shape, DType dtype = DType::kFloat64);
  // scale >= 0.
  Array Normal(double loc, double scale, const Shape& shape, DType dtype = DType::kFloat64);
  // Uniform floats in [low, high) (rounding may reach high, as in NumPy);
  // OverflowError when high - low is not finite.
  Array Uniform(double low, double high, const Shape& shape, DType dtype = DType::kFloat64);
  // -log(1 - U), and that times scale (float64, scale >= 0).
  Array StandardExponential(const Shape& shape, DType dtype = DType::kFloat64);
  Array Exponential(double scale, const Shape& shape);
  // Uniform integers in [low, high) ([low, high] with endpoint) of an
  // integer or bool dtype; ValueError when the range is empty or outside
  // the dtype's.
  Array Integers(int64_t low, int64_t high, const Shape& shape, DType dtype = DType::kInt64,
                 bool endpoint = false);
  // Poisson(lam) int64 by inversion of the CDF (0 <= lam <= 1e8; above:
  // NotImplementedError).
  Array Poisson(double lam, const Shape& shape);
  // A random permutation of 0 .. n - 1 (int64), or of x along `axis` (a copy).
  Array Permutation(int64_t n);
  Array Permutation(const Array& x, int64_t axis = 0);
  // Permutes x in place along `axis`; errors are reported by Synchronize.
  void Shuffle(const Array& x, int64_t axis = 0);
  // Samples of 0 .. n - 1 (int64), or of a along `axis`, with or without
  // replacement, uniform or with probabilities p (n of them, summing to 1).
  Array Choice(int64_t n, const Shape& shape, bool replace = true,
               const std::optional<std::vector<double>>& p = std::nullopt);
  Array Choice(const Array& a, const Shape& shape, bool replace = true,
               const std::optional<std::vector<double>>& p = std::nullopt, int64_t axis = 0);

 private:
  friend class GlobalGenerator;  // the legacy functions' generator binds a Client per call
  // The next Philox block, then advanced past the `blocks` an op uses.
  uint64_t Reserve(uint64_t blocks);
  // Records random op `op` of `shape` and `dtype` (float32/64) with float
  // attributes `params`.
  Array Draw(const char* op, const Shape& shape, DType dtype,
             std::initializer_list<std::pair<const char*, double>> params = {});
  // Choice of range(n), or of *a along `axis` (normalized; n its length).
  Array ChoiceOf(const Array* a, int64_t n, int64_t axis, const Shape& shape, bool replace,
                 const std::optional<std::vector<double>>& p);
  Client* client_;
  uint64_t seed_;
  uint64_t offset_ = 0;  // the next Philox block
};

// numpy.random's legacy module functions, on one process-wide Generator
// (keyed from OS entropy until Seed) that every Client and thread shares
// (calls are serialized). After Seed(s) the calls draw what the Python
// client's same calls draw after arrayd.random.seed(s).
void Seed(uint64_t seed);
// Uniform float64 in [0, 1) (numpy.random.rand and random_sample).
Array Rand(Client* client, const Shape& shape);
Array RandomSample(Client* client, const Shape& shape);
// Standard normal float64 (numpy.random.randn).
Array Randn(Client* client, const Shape& shape);
// Integers in [low, high) (numpy.random.randint).
Array Randint(Client* client, int64_t low, int64_t high, const Shape& shape, DType dtype = DType::kInt64);
// numpy.random.normal and uniform (float64).
Array Normal(Client* client, double loc, double scale, const Shape& shape);
Array Uniform(Client* client, double low, double high, const Shape& shape);
// numpy.random.permutation, shuffle and choice (as Generator's).
Array Permutation(Client* client, int64_t n);
Array Permutation(Client* client, const Array& x, int64_t axis = 0);
void Shuffle(Client* client, const Array& x, int64_t axis = 0);
Array Choice(Client* client, int64_t n, const Shape& shape, bool replace = true,
             const std::optional<std::vector<double>>& p = std::nullopt);
Array Choice(Client* client, const Array& a, const Shape& shape, bool replace = true,
             const std::optional<std::vector<double>>& p = std::nullopt, int64_t axis = 0);

}  // namespace random

}  // namespace client
}  // namespace arrayd

#endif  // ARRAYD_CLIENT_NUMERIC_H_

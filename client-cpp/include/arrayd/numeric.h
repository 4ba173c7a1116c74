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
#include <optional>
#include <string>
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

}  // namespace fft

namespace random {

// numpy.random.Generator on the server: counter-based Philox4x32-10 streams
// keyed by the seed exactly as the Python client's default_rng(seed), so a
// seed gives the same numbers in both clients and on every backend. dtype is
// float32 or float64 (else the Array carries a TypeError).
class Generator {
 public:
  Generator(Client* client, uint64_t seed);

  // Uniform floats in [0, 1).
  Array Random(const Shape& shape, DType dtype = DType::kFloat64);
  Array StandardNormal(const Shape& shape, DType dtype = DType::kFloat64);
  Array Normal(double loc, double scale, const Shape& shape, DType dtype = DType::kFloat64);
  // Uniform floats in [low, high) (rounding may reach high, as in NumPy).
  Array Uniform(double low, double high, const Shape& shape, DType dtype = DType::kFloat64);

 private:
  Array Draw(const char* op, const Shape& shape, DType dtype);
  Client* client_;
  uint64_t key_;
  uint64_t offset_ = 0;  // the next Philox block
};

}  // namespace random

}  // namespace client
}  // namespace arrayd

#endif  // ARRAYD_CLIENT_NUMERIC_H_

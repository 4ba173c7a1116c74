// The C++ client of arrayd: a Client is one session on an arrayd server;
// an Array is one array of that session, named by a client-assigned handle.
//
//   ARRAYD_ASSIGN_OR_RETURN(auto client, arrayd::Client::Connect("unix:/run/arrayd.sock"));
//   arrayd::Array x = client->Arange(6).Reshape({2, 3}).Astype(arrayd::DType::kFloat32);
//   absl::StatusOr<std::vector<float>> sums = x.Sum(1).ToVector<float>();  // {3, 12}
//
// Asynchrony. Ops are recorded, not run: each records a message for the
// server and returns at once with the result's dtype and shape, which the
// client computes itself with NumPy's rules (broadcasting, promotion, NEP 50
// weak scalars). Ops go to the server in batches: at a sync point
// (Synchronize, ToVector), when a batch holds kMaxBatchOps ops or a few MiB
// of inline data, or on Flush.
//
// Errors. Nothing throws. An op that cannot be valid (shapes that do not
// broadcast, an axis out of range, a scalar that does not fit) returns an
// Array whose status() says why; ops on such an Array return the same error.
// Errors the server finds are deferred: the failing op poisons its result,
// ToVector of a poisoned array returns its error, and Synchronize returns the
// first error (client- or server-found, in op order) not yet reported. The
// session stays usable after any op error.
//
// Thread-safety: a Client and its Arrays may be used by one thread at a time
// (including destroying Arrays, which queues frees on the Client). Use one
// Client per thread, or serialize access yourself. Different Clients are
// independent sessions and may be used concurrently.
#ifndef ARRAYD_CLIENT_CLIENT_H_
#define ARRAYD_CLIENT_CLIENT_H_

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arrayd/dtype.h"
#include "arrayd/v1/arrayd.pb.h"

namespace arrayd {
inline namespace client {

class Client;
class ArrayOps;
namespace internal {
struct Core;
struct ArrayState;
}  // namespace internal

// One array of a session. Copies are cheap and share the array (like two
// Python names for one ndarray); the server frees it when the last copy is
// destroyed (the free travels with the next batch). An Array may outlive its
// Client: it then refers to a closed session and its ops fail.
class Array {
 public:
  // An invalid Array (status FAILED_PRECONDITION); assign a real one to it.
  Array();
  Array(const Array&) = default;
  Array& operator=(const Array&) = default;
  Array(Array&&) noexcept = default;
  Array& operator=(Array&&) noexcept = default;
  ~Array() = default;

  // OK unless the client refused the op that made this array (see the file
  // comment); server-side errors show only at a sync point.
  const absl::Status& status() const;
  bool ok() const { return status().ok(); }
  // Result dtype and shape as the client computed them; meaningless when
  // !ok().
  DType dtype() const;
  const Shape& shape() const;
  int ndim() const { return static_cast<int>(shape().size()); }
  int64_t size() const { return ShapeSize(shape()); }
  // The session's handle of this array; 0 when !ok().
  uint64_t handle() const;

  // NumPy's a.sum(axis=..., keepdims=...). Negative axes count from the end;
  // no axes: every axis. Result dtype: the server's loop table for sum
  // (small integers accumulate in 64 bits), as NumPy.
  Array Sum(std::optional<std::vector<int64_t>> axes = std::nullopt, bool keepdims = false) const;
  Array Sum(int64_t axis, bool keepdims = false) const;
  // NumPy's a.reshape(shape); one dimension may be -1.
  Array Reshape(const Shape& shape) const;
  // NumPy's a.astype(dtype) (always a copy, unsafe casting).
  Array Astype(DType dtype) const;

  // Waits for this array and returns its elements in C order. T must be the
  // C++ type of dtype() (DTypeOf<T>), else INVALID_ARGUMENT. Returns this
  // array's own error when it is poisoned; errors of other ops stay queued
  // for Synchronize.
  template <typename T>
  absl::StatusOr<std::vector<T>> ToVector() const;

  friend Array operator+(const Array& a, const Array& b);
  friend Array operator-(const Array& a, const Array& b);
  friend Array operator*(const Array& a, const Array& b);
  friend Array operator/(const Array& a, const Array& b);
  friend Array operator+(const Array& a, const Scalar& b);
  friend Array operator-(const Array& a, const Scalar& b);
  friend Array operator*(const Array& a, const Scalar& b);
  friend Array operator/(const Array& a, const Scalar& b);
  friend Array operator+(const Scalar& a, const Array& b);
  friend Array operator-(const Scalar& a, const Array& b);
  friend Array operator*(const Scalar& a, const Array& b);
  friend Array operator/(const Scalar& a, const Array& b);

 private:
  friend class Client;
  friend class ArrayOps;
  explicit Array(std::shared_ptr<internal::ArrayState> state) : state_(std::move(state)) {}
  absl::Status FetchInto(DType want, size_t elem_size, std::string* bytes) const;

  std::shared_ptr<internal::ArrayState> state_;
};

// How a client proves who it is and checks the server. Empty fields are
// read from ARRAYD_TOKEN, ARRAYD_TLS_CA, ARRAYD_TLS_CERT and ARRAYD_TLS_KEY.
struct ConnectOptions {
  std::string client_name = "arrayd-cpp";
  // Bearer token (`authorization` metadata on every call) for a server
  // started with --auth-tokens.
  std::string token;
  // PEM file of the CA that signed the server's certificate: TLS on TCP
  // addresses (unix sockets stay plaintext, guarded by their directory).
  std::string tls_ca;
  // PEM files of this client's certificate and key, for a server that
  // requires client certificates (--tls-client-ca).
  std::string tls_cert, tls_key;
};

// One session on an arrayd server (one OpStream). See the file comment for
// asynchrony, errors and thread-safety.
class Client {
 public:
  // Ops per batch before the client sends it unasked.
  static constexpr int kMaxBatchOps = 256;

  // Connects to `address` ("host:port" or "unix:/path"), reads the server's
  // capabilities and opens a session. UNAVAILABLE when nothing answers.
  static absl::StatusOr<std::unique_ptr<Client>> Connect(const std::string& address,
                                                         const ConnectOptions& options);
  static absl::StatusOr<std::unique_ptr<Client>> Connect(const std::string& address,
                                                         const std::string& client_name = "arrayd-cpp");

  // Closes the session: the server frees every array of it. Arrays that
  // outlive the Client are inert.
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The server's capabilities, read at Connect.
  const v1::Capabilities& Capabilities() const;
  uint64_t session_id() const;

  // Sends the ops recorded so far without waiting for them.
  absl::Status Flush();
  // Waits until every op recorded so far has run. Returns the first op error
  // (in op order) not reported before, as a Status with the server's code
  // and "<op>: <message>"; the error kind (ValueError, ...) rides in the
  // payload kErrorKindPayload. The errors are then cleared.
  absl::Status Synchronize();

  // Creation; dtype defaults as in NumPy (float64; Full: the value's own).
  Array Zeros(const Shape& shape, DType dtype = DType::kFloat64);
  Array Ones(const Shape& shape, DType dtype = DType::kFloat64);
  Array Full(const Shape& shape, const Scalar& value, std::optional<DType> dtype = std::nullopt);
  // NumPy's arange(stop) and arange(start, stop, step, dtype): int64 for
  // integer arguments, float64 when one is a float.
  Array Arange(const Scalar& stop);
  Array Arange(const Scalar& start, const Scalar& stop, const Scalar& step = 1,
               std::optional<DType> dtype = std::nullopt);
  // Uploads `data` as an array of `shape` (default: 1-D). Small arrays go
  // inline in the op batch; larger ones (> max_inline_bytes) through the
  // Upload RPC, which runs now.
  template <typename T>
  Array FromVector(const std::vector<T>& data, std::optional<Shape> shape = std::nullopt);
  // The same from raw C-order bytes.
  Array FromBytes(DType dtype, const Shape& shape, const void* data, size_t nbytes);

  // Low level: records op `name` (OPS.md) on `inputs` with `attrs`, whose
  // single result the caller declares to have `dtype` and `shape`. For ops
  // without a typed method; the server checks the op, not the declaration.
  Array RawOp(const std::string& name, const std::vector<Array>& inputs,
              const std::map<std::string, v1::AttrValue>& attrs, DType dtype, Shape shape);

 private:
  friend class Array;
  friend class ArrayOps;
  explicit Client(std::shared_ptr<internal::Core> core) : core_(std::move(core)) {}
  std::shared_ptr<internal::Core> core_;
};

// The payload key of a Status that carries the server's error kind.
inline constexpr char kErrorKindPayload[] = "arrayd.dev/error-kind";

// ---------------------------------------------------------------------------
// Template implementations.

template <typename T>
absl::StatusOr<std::vector<T>> Array::ToVector() const {
  std::string bytes;
  const size_t elem_size = std::is_same_v<T, bool> ? 1 : sizeof(T);
  absl::Status status = FetchInto(DTypeOf<T>::kValue, elem_size, &bytes);
  if (!status.ok()) return status;
  const size_t n = bytes.size() / elem_size;
  std::vector<T> out(n);
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < n; ++i) out[i] = bytes[i] != 0;
  } else if (n > 0) {
    std::memcpy(out.data(), bytes.data(), n * sizeof(T));
  }
  return out;
}

template <typename T>
Array Client::FromVector(const std::vector<T>& data, std::optional<Shape> shape) {
  Shape s = shape ? *shape : Shape{static_cast<int64_t>(data.size())};
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(data.begin(), data.end());
    return FromBytes(DType::kBool, s, bytes.data(), bytes.size());
  } else {
    return FromBytes(DTypeOf<T>::kValue, s, data.data(), data.size() * sizeof(T));
  }
}

}  // namespace client
}  // namespace arrayd

#endif  // ARRAYD_CLIENT_CLIENT_H_

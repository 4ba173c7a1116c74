// Status helpers shared by the whole server: early-return macros (Debian's
// Abseil lacks them) and the error kinds that tell a client which Python
// exception to raise.
#ifndef ARRAYD_COMMON_STATUS_H_
#define ARRAYD_COMMON_STATUS_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

#define ARRAYD_CONCAT_INNER_(a, b) a##b
#define ARRAYD_CONCAT_(a, b) ARRAYD_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` is not OK.
#define ARRAYD_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::absl::Status _arrayd_status = (expr);          \
    if (!_arrayd_status.ok()) return _arrayd_status; \
  } while (0)

// `lhs = value of expr`, or returns its error.
#define ARRAYD_ASSIGN_OR_RETURN(lhs, expr) \
  ARRAYD_ASSIGN_OR_RETURN_IMPL_(ARRAYD_CONCAT_(_arrayd_or_, __LINE__), lhs, expr)
#define ARRAYD_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

namespace arrayd {

// The payload key that carries the Python exception kind of an error.
inline constexpr absl::string_view kErrorKindPayload = "arrayd.dev/error-kind";

// Errors of the kinds NumPy raises. All are INVALID_ARGUMENT on the wire
// except where noted; the kind payload tells the client which exception.
absl::Status ValueError(absl::string_view message);
absl::Status TypeError(absl::string_view message);
absl::Status IndexError(absl::string_view message);
absl::Status AxisError(absl::string_view message);
// numpy.linalg.LinAlgError: singular, not positive definite, no convergence.
absl::Status LinAlgError(absl::string_view message);
// Python's OverflowError and ZeroDivisionError, where NumPy raises them
// (random.uniform's range, fft.fftfreq's n * d == 0).
absl::Status OverflowError(absl::string_view message);
absl::Status ZeroDivisionError(absl::string_view message);
// RESOURCE_EXHAUSTED.
absl::Status OutOfMemoryError(absl::string_view message);
// A user kernel that does not compile (CuPy's CompileException); the
// message carries the compiler's log.
absl::Status CompileError(absl::string_view message);

// The Python exception kind of `status`: its payload if it has one, else a
// kind derived from its code.
std::string ErrorKind(const absl::Status& status);

template <typename... Args>
absl::Status ValueErrorf(const Args&... args) {
  return ValueError(absl::StrCat(args...));
}
template <typename... Args>
absl::Status TypeErrorf(const Args&... args) {
  return TypeError(absl::StrCat(args...));
}

}  // namespace arrayd

#endif  // ARRAYD_COMMON_STATUS_H_

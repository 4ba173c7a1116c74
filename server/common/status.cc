#include "common/status.h"

#include "absl/strings/cord.h"

namespace arrayd {
namespace {

absl::Status WithKind(absl::Status status, absl::string_view kind) {
  status.SetPayload(kErrorKindPayload, absl::Cord(kind));
  return status;
}

}  // namespace

absl::Status ValueError(absl::string_view message) {
  return WithKind(absl::InvalidArgumentError(message), "ValueError");
}
absl::Status TypeError(absl::string_view message) {
  return WithKind(absl::InvalidArgumentError(message), "TypeError");
}
absl::Status IndexError(absl::string_view message) {
  return WithKind(absl::InvalidArgumentError(message), "IndexError");
}
absl::Status AxisError(absl::string_view message) {
  return WithKind(absl::InvalidArgumentError(message), "AxisError");
}
absl::Status LinAlgError(absl::string_view message) {
  return WithKind(absl::InvalidArgumentError(message), "LinAlgError");
}
absl::Status OverflowError(absl::string_view message) {
  return WithKind(absl::OutOfRangeError(message), "OverflowError");
}
absl::Status ZeroDivisionError(absl::string_view message) {
  return WithKind(absl::InvalidArgumentError(message), "ZeroDivisionError");
}
absl::Status OutOfMemoryError(absl::string_view message) {
  return WithKind(absl::ResourceExhaustedError(message), "MemoryError");
}
absl::Status CompileError(absl::string_view message) {
  return WithKind(absl::InvalidArgumentError(message), "CompileException");
}

std::string ErrorKind(const absl::Status& status) {
  if (auto kind = status.GetPayload(kErrorKindPayload)) {
    return std::string(*kind);
  }
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return "ValueError";
    case absl::StatusCode::kResourceExhausted:
      return "MemoryError";
    case absl::StatusCode::kUnimplemented:
      return "NotImplementedError";
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
      return "ValueError";
    default:
      return "RuntimeError";
  }
}

}  // namespace arrayd

// Internals of the C++ client shared by its source files (not installed):
// the session (Core), an array's state, attribute and error helpers, and
// ArrayOps, which builds result Arrays. client.cc holds Client and Array;
// numeric.cc the products, linalg, fft and random functions.
#ifndef ARRAYD_CLIENT_SRC_INTERNAL_H_
#define ARRAYD_CLIENT_SRC_INTERNAL_H_

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "arrayd/client.h"
#include "arrayd/ops.h"
#include "arrayd/v1/arrayd.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace arrayd {
inline namespace client {
namespace internal {

// A batch with this many bytes of inline data is sent at once.
constexpr size_t kMaxBatchBytes = 1 << 20;
// A batch with this many frees (and no ops) is sent at once.
constexpr int kMaxBatchFrees = 4096;
// Upload chunk size: well below gRPC's default 4 MiB message limit.
constexpr size_t kUploadChunkBytes = 1 << 20;
constexpr auto kConnectTimeout = std::chrono::seconds(30);

inline absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

inline absl::Status WithKind(absl::Status status, absl::string_view kind) {
  status.SetPayload(kErrorKindPayload, absl::Cord(kind));
  return status;
}


// One loop of an op's loop table (v1::OpSignature.loops, NumPy's
// "ff->f" form; "??->!" refuses exactly those inputs).
struct Loop {
  std::vector<DType> in;
  std::vector<DType> out;
  bool refused = false;
};

// An error the client found itself: it happened after `position` ops.
struct LocalError {
  uint64_t position;
  uint64_t id;
  absl::Status status;
};

// The session: the stream and everything recorded on it. Used by one thread
// at a time (see client.h).
struct Core {
  // Adds the bearer token (when there is one) to a call's metadata.
  void Authorize(grpc::ClientContext* context) const {
    if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
  }

  std::string token;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::Arrayd::Stub> stub;
  grpc::ClientContext stream_context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ClientMessage, v1::ServerMessage>> stream;
  v1::Capabilities capabilities;
  uint64_t session_id = 0;
  std::string session_token;
  // The ops of `capabilities` by name, and their parsed loop tables, filled
  // on first use (ops.cc).
  std::map<std::string, const v1::OpInfo*> op_index;
  std::map<std::string, std::vector<Loop>> loop_tables;

  uint64_t next_handle = 1;
  uint64_t ops_recorded = 0;  // = the server's index of the next op
  uint64_t next_sync_id = 1;
  uint64_t next_error_id = 1;
  v1::ClientMessage batch;
  size_t batch_bytes = 0;
  std::vector<LocalError> local_errors;
  std::vector<v1::OpError> server_errors;  // from syncs, not yet returned
  absl::Status broken;  // sticky once the stream fails
  bool closed = false;

  absl::Status StreamFailed() {
    if (broken.ok()) {
      absl::Status s = FromGrpc(stream->Finish());
      broken = s.ok() ? absl::UnavailableError("arrayd: the server closed the session") : s;
    }
    return broken;
  }

  absl::Status Flush() {
    if (!broken.ok()) return broken;
    if (closed) return absl::FailedPreconditionError("arrayd: the client is closed");
    if (batch.ops_size() == 0 && batch.frees_size() == 0 && !batch.has_sync()) {
      return absl::OkStatus();
    }
    bool ok = stream->Write(batch);
    batch.Clear();
    batch_bytes = 0;
    if (!ok) return StreamFailed();
    return absl::OkStatus();
  }

  // Appends `op` to the batch; sends the batch when it is full.
  absl::Status Record(v1::Op&& op, size_t inline_bytes) {
    if (!broken.ok()) return broken;
    if (closed) return absl::FailedPreconditionError("arrayd: the client is closed");
    *batch.add_ops() = std::move(op);
    ++ops_recorded;
    batch_bytes += inline_bytes;
    if (batch.ops_size() >= Client::kMaxBatchOps || batch_bytes >= kMaxBatchBytes) return Flush();
    return absl::OkStatus();
  }

  void QueueFree(uint64_t handle) {
    if (closed || !broken.ok()) return;
    batch.add_frees(handle);
    if (batch.frees_size() >= kMaxBatchFrees) (void)Flush();
  }

  // Sends everything with a sync that fetches `fetch`, and waits for its reply.
  absl::StatusOr<v1::SyncReply> Sync(const std::vector<uint64_t>& fetch) {
    if (!broken.ok()) return broken;
    if (closed) return absl::FailedPreconditionError("arrayd: the client is closed");
    const uint64_t id = next_sync_id++;
    v1::Sync* sync = batch.mutable_sync();
    sync->set_sync_id(id);
    for (uint64_t h : fetch) sync->add_fetch(h);
    absl::Status flushed = Flush();
    if (!flushed.ok()) return flushed;
    v1::ServerMessage message;
    while (true) {
      if (!stream->Read(&message)) return StreamFailed();
      if (message.has_sync() && message.sync().sync_id() == id) break;
    }
    v1::SyncReply reply = std::move(*message.mutable_sync());
    for (const v1::OpError& e : reply.errors()) server_errors.push_back(e);
    return reply;
  }

  uint64_t AddLocalError(const absl::Status& status) {
    uint64_t id = next_error_id++;
    local_errors.push_back(LocalError{ops_recorded, id, status});
    return id;
  }

  void ForgetLocalError(uint64_t id) {
    local_errors.erase(std::remove_if(local_errors.begin(), local_errors.end(),
                                      [id](const LocalError& e) { return e.id == id; }),
                       local_errors.end());
  }

  void Close() {
    if (closed) return;
    if (broken.ok()) {
      (void)Flush();
      stream->WritesDone();
      // Replies that nobody waits for would keep Finish waiting: drain them.
      v1::ServerMessage message;
      while (stream->Read(&message)) {
      }
      (void)stream->Finish();
    }
    closed = true;
  }
};

// One array: the session that owns it, its handle and what the client
// knows of it. Its destruction frees the handle.
struct ArrayState {
  std::shared_ptr<Core> core;
  uint64_t handle = 0;
  DType dtype = DType::kFloat64;
  Shape shape;
  absl::Status status;
  uint64_t error_id = 0;  // the client-found error this array carries
  // dtype and shape are the server's to tell (a result of Call): read with
  // one sync when first needed (ResolveMeta).
  bool meta_pending = false;

  ~ArrayState() {
    if (handle != 0 && core) core->QueueFree(handle);
  }
};

// The op `name` of `core`'s server (its capabilities); nullptr when the
// server has none (ops.cc).
const v1::OpInfo* FindOp(Core& core, const std::string& name);
// The op's parsed loop table; empty when its signature has none.
const std::vector<Loop>& LoopsOf(Core& core, const v1::OpInfo& op);
// NumPy's loop choice for inputs of dtypes `in` (the server's rule,
// ops/signature.h): the first loop every input casts to safely; with `out`
// (dtype=), the first with that output reached by same_kind casts. nullptr
// when none fits or a refusing loop matches.
const Loop* FindLoop(const std::vector<Loop>& loops, const std::vector<DType>& in,
                     std::optional<DType> out = std::nullopt);
// Reads the dtype and shape of a Call result from the server (one sync).
void ResolveMeta(ArrayState& x);

inline absl::Status StatusFromOpError(const v1::OpError& e) {
  return WithKind(absl::Status(static_cast<absl::StatusCode>(e.code()),
                               absl::StrCat(e.op(), ": ", e.message())),
                  e.kind());
}

}  // namespace internal

using internal::ArrayState;
using internal::Core;


inline absl::Status ValueError(absl::string_view m) {
  return internal::WithKind(absl::InvalidArgumentError(m), "ValueError");
}
inline absl::Status TypeError(absl::string_view m) {
  return internal::WithKind(absl::InvalidArgumentError(m), "TypeError");
}
inline absl::Status AxisError(absl::string_view m) {
  return internal::WithKind(absl::InvalidArgumentError(m), "AxisError");
}

inline const absl::Status& InvalidArrayStatus() {
  static const absl::Status* const kStatus =
      new absl::Status(absl::FailedPreconditionError("arrayd: uninitialized Array"));
  return *kStatus;
}

// NumPy's broadcast of two shapes (right-aligned); nullopt when they do not
// broadcast, for which BroadcastError is NumPy's message.
inline std::optional<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const size_t nd = std::max(a.size(), b.size());
  Shape out(nd);
  for (size_t i = 0; i < nd; ++i) {
    const int64_t x = i < nd - a.size() ? 1 : a[i - (nd - a.size())];
    const int64_t y = i < nd - b.size() ? 1 : b[i - (nd - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}
inline absl::Status BroadcastError(const Shape& a, const Shape& b) {
  return ValueError(absl::StrCat("operands could not be broadcast together with shapes ",
                                 ShapeString(a), " ", ShapeString(b)));
}

// An array the client refused to make: records the error for Synchronize.
inline Array Refuse(const std::shared_ptr<Core>& core, absl::string_view op, const absl::Status& why);

inline v1::AttrValue IntsAttr(const std::vector<int64_t>& values) {
  v1::AttrValue v;
  v1::IntList* list = v.mutable_ints();
  for (int64_t x : values) list->add_values(x);
  return v;
}
inline v1::AttrValue DTypeAttr(DType d) {
  v1::AttrValue v;
  v.set_dtype(static_cast<v1::DType>(d));
  return v;
}
inline v1::AttrValue ScalarAttr(const Scalar& s) {
  v1::AttrValue v;
  switch (s.kind()) {
    case Scalar::ScalarKind::kBool:
      v.set_b(s.int_value() != 0);
      break;
    case Scalar::ScalarKind::kInt:
      if (s.DefaultDType() == DType::kUInt64) {
        v.set_s(absl::StrCat(s.uint_value()));  // above INT64_MAX: decimal (OPS.md)
      } else {
        v.set_i(s.int_value());
      }
      break;
    case Scalar::ScalarKind::kFloat:
      v.set_f(s.real());
      break;
    case Scalar::ScalarKind::kComplex:
      v.mutable_c()->set_real(s.real());
      v.mutable_c()->set_imag(s.imag());
      break;
  }
  return v;
}

// `axes` of an array of `ndim` dimensions, negative ones counted from the
// end; NumPy's AxisError for one out of range.
inline absl::StatusOr<std::vector<int64_t>> NormalizeAxes(int64_t ndim, const std::vector<int64_t>& axes) {
  std::vector<int64_t> out;
  for (int64_t ax : axes) {
    if (ax < -ndim || ax >= ndim) {
      return AxisError(absl::StrCat("axis ", ax, " is out of bounds for array of dimension ", ndim));
    }
    out.push_back(ax < 0 ? ax + ndim : ax);
  }
  return out;
}

inline absl::Status CheckShape(const Shape& shape) {
  for (int64_t d : shape) {
    if (d < 0) return ValueError("negative dimensions are not allowed");
  }
  return absl::OkStatus();
}


// Ops on Arrays: the friend of Array and Client that builds results.
class ArrayOps {
 public:
  static const std::shared_ptr<ArrayState>& State(const Array& a) { return a.state_; }

  static const std::shared_ptr<Core>& CoreOf(const Client& c) { return c.core_; }

  // Records `op` with one fresh output handle per (dtype, shape) of
  // `outputs`; the results in that order. One refused op refuses them all.
  static std::vector<Array> EmitMany(const std::shared_ptr<Core>& core, v1::Op op,
                                     const std::vector<std::pair<DType, Shape>>& outputs) {
    std::vector<uint64_t> handles;
    for (size_t i = 0; i < outputs.size(); ++i) {
      handles.push_back(core->next_handle++);
      op.add_outputs(handles.back());
    }
    absl::Status status = core->Record(std::move(op), 0);
    std::vector<Array> out;
    for (size_t i = 0; i < outputs.size(); ++i) {
      auto state = std::make_shared<ArrayState>();
      state->core = core;
      state->dtype = outputs[i].first;
      state->shape = outputs[i].second;
      if (status.ok()) {
        state->handle = handles[i];
      } else {
        state->status = status;
      }
      out.push_back(Array(std::move(state)));
    }
    return out;
  }

  // Records `op` with a fresh output handle; the result has `dtype`, `shape`.
  static Array Emit(const std::shared_ptr<Core>& core, v1::Op op, DType dtype, Shape shape,
                    size_t inline_bytes = 0) {
    auto state = std::make_shared<ArrayState>();
    state->dtype = dtype;
    state->shape = std::move(shape);
    const uint64_t handle = core->next_handle++;
    op.add_outputs(handle);
    absl::Status status = core->Record(std::move(op), inline_bytes);
    state->core = core;
    if (status.ok()) {
      state->handle = handle;
    } else {
      state->status = status;
    }
    return Array(std::move(state));
  }

  static Array Poisoned(const std::shared_ptr<Core>& core, absl::Status status, uint64_t error_id) {
    auto state = std::make_shared<ArrayState>();
    state->core = core;
    state->status = std::move(status);
    state->error_id = error_id;
    return Array(std::move(state));
  }

  // The same error as `a` (an op on a refused array).
  static Array Propagate(const Array& a) {
    if (!a.state_) return Poisoned(nullptr, InvalidArrayStatus(), 0);
    return Poisoned(a.state_->core, a.state_->status, a.state_->error_id);
  }

  // Checks that `inputs` are usable together; on failure returns the Array
  // to return instead.
  static std::optional<Array> CheckInputs(absl::string_view op, std::initializer_list<const Array*> inputs) {
    const std::shared_ptr<Core>* core = nullptr;
    for (const Array* a : inputs) {
      if (a->state_ && a->state_->meta_pending) internal::ResolveMeta(*a->state_);
      if (!a->state_ || !a->state_->status.ok()) return Propagate(*a);
      if (core == nullptr) {
        core = &a->state_->core;
      } else if (*core != a->state_->core) {
        return Refuse(*core, op, ValueError("arrays belong to different arrayd sessions"));
      }
    }
    if (core != nullptr && (*core)->closed) {
      return Poisoned(*core, absl::FailedPreconditionError("arrayd: the client is closed"), 0);
    }
    return std::nullopt;
  }

  // A reduction (sum, prod, min, max, all, any, ...) over `axes` (negative
  // ones count from the end; none: every axis) whose result has `dtype`.
  // `dtype_attr`: the caller's dtype= (sent to the server).
  static Array Reduce(const char* name, const Array& a, const std::optional<std::vector<int64_t>>& axes,
                      bool keepdims, DType dtype, std::optional<DType> dtype_attr = std::nullopt) {
    if (auto bad = CheckInputs(name, {&a})) return *bad;
    const ArrayState& x = *a.state_;
    const int nd = static_cast<int>(x.shape.size());
    std::vector<bool> reduced(nd, !axes.has_value());
    v1::Op op;
    op.set_name(name);
    if (axes) {
      absl::StatusOr<std::vector<int64_t>> normalized = NormalizeAxes(nd, *axes);
      if (!normalized.ok()) return Refuse(x.core, name, normalized.status());
      for (int64_t ax : *normalized) {
        if (reduced[ax]) return Refuse(x.core, name, ValueError("duplicate value in 'axis'"));
        reduced[ax] = true;
      }
      (*op.mutable_attrs())["axes"] = IntsAttr(*normalized);
    }
    if (keepdims) (*op.mutable_attrs())["keepdims"].set_b(true);
    if (dtype_attr) (*op.mutable_attrs())["dtype"] = DTypeAttr(*dtype_attr);
    Shape shape;
    for (int d = 0; d < nd; ++d) {
      if (!reduced[d]) {
        shape.push_back(x.shape[d]);
      } else if (keepdims) {
        shape.push_back(1);
      }
    }
    op.add_inputs(x.handle);
    return Emit(x.core, std::move(op), dtype, std::move(shape));
  }

  // The ufunc `name` on `operands` (Arrays of `core` and weak scalars), its
  // result dtype from the op's loop table (ops.cc; arrayd::Ufunc).
  static Array Ufunc(const std::shared_ptr<Core>& core, const std::string& name,
                     const std::vector<Operand>& operands);

  static Array Binary(const char* name, const Array& a, const Array& b) {
    if (auto bad = CheckInputs(name, {&a, &b})) return *bad;
    return Ufunc(a.state_->core, name, {a, b});
  }

  // `a op s` (or `s op a` when `scalar_first`): s is a weak scalar.
  static Array WithScalar(const char* name, const Array& a, const Scalar& s, bool scalar_first) {
    if (auto bad = CheckInputs(name, {&a})) return *bad;
    return scalar_first ? Ufunc(a.state_->core, name, {s, a}) : Ufunc(a.state_->core, name, {a, s});
  }

  // Client::FromBytes on `core`.
  static Array Upload(const std::shared_ptr<Core>& core, DType dtype, const Shape& shape, const void* data,
                      size_t nbytes);

  static Array Full(const std::shared_ptr<Core>& core, const Shape& shape, const Scalar& value,
                    DType dtype) {
    if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, "full", s);
    v1::Op op;
    op.set_name("full");
    (*op.mutable_attrs())["shape"] = IntsAttr(shape);
    (*op.mutable_attrs())["dtype"] = DTypeAttr(dtype);
    (*op.mutable_attrs())["value"] = ScalarAttr(value);
    return Emit(core, std::move(op), dtype, shape);
  }
};

inline Array Refuse(const std::shared_ptr<Core>& core, absl::string_view op, const absl::Status& why) {
  absl::Status status(why.code(), absl::StrCat(op, ": ", why.message()));
  why.ForEachPayload([&status](absl::string_view key, const absl::Cord& value) {
    status.SetPayload(key, value);
  });
  uint64_t id = core ? core->AddLocalError(status) : 0;
  return ArrayOps::Poisoned(core, status, id);
}
}  // namespace client
}  // namespace arrayd

#endif  // ARRAYD_CLIENT_SRC_INTERNAL_H_

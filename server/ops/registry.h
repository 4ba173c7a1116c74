// The op registry: name -> OpDef {signature, run}. Every op a client can send
// is a row here, declared once by its signature (ops/signature.h: family,
// inputs, outputs, typed attributes with defaults, loop table, doc), which
// Capabilities exports and both clients build their calls from. The
// executor looks ops up by name, checks arity and attribute names, and calls
// `run` with an OpContext.
//
// To add an op: write its run function next to its kin (creation.cc,
// reduction.cc, shape.cc, ...) and one Register call there with its schema:
//
//   r->Register(OpFamily::kIndex, "take(a, indices, *, axis: int? = None) -> out",
//               "np.take.", RunTake);
//
// A ufunc is instead one row of kernels/op_list.h (elementwise.cc registers
// every row).
#ifndef ARRAYD_OPS_REGISTRY_H_
#define ARRAYD_OPS_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "array/view.h"
#include "arrayd/v1/arrayd.pb.h"
#include "backend/backend.h"
#include "ops/signature.h"
#include "session/memory_account.h"
#include "session/shared_memory.h"

namespace arrayd {

// Typed access to an op's attributes. Errors are ValueError/TypeError kinds
// naming the attribute.
class Attrs {
 public:
  explicit Attrs(const google::protobuf::Map<std::string, v1::AttrValue>& attrs) : attrs_(attrs) {}
  bool Has(const std::string& name) const { return attrs_.count(name) > 0; }
  absl::StatusOr<int64_t> Int(const std::string& name) const;
  absl::StatusOr<bool> Bool(const std::string& name, bool default_value) const;
  absl::StatusOr<std::vector<int64_t>> Ints(const std::string& name) const;
  absl::StatusOr<DType> GetDType(const std::string& name) const;
  absl::StatusOr<Scalar> GetScalar(const std::string& name) const;
  absl::StatusOr<const std::string*> Data(const std::string& name) const;
  // A string (AttrValue.s, or bytes).
  absl::StatusOr<std::string> String(const std::string& name) const;
  // A shape: non-negative dims whose product fits in memory sizes.
  absl::StatusOr<Shape> GetShape(const std::string& name) const;

 private:
  absl::StatusOr<const v1::AttrValue*> Get(const std::string& name) const;
  const google::protobuf::Map<std::string, v1::AttrValue>& attrs_;
};

// What an op's run function sees: its inputs, its attributes, the stream of
// its session, and where its outputs go.
// The layout of an elementwise result of `shape` and `dtype` from its
// operands as given (before casts and broadcasting): NumPy's order='K'.
Strides ResultStrides(std::initializer_list<const View*> operands, const Shape& shape,
                      DType dtype);

// The session's side of the ops that act on the session rather than on
// arrays (ops/device.cc: events, the memory pool). Session implements it.
class SessionHooks {
 public:
  virtual ~SessionHooks() = default;
  // The session's event `id`, made with `options` when it is new.
  virtual absl::StatusOr<Event*> GetEvent(uint64_t id, EventOptions options) = 0;
  // Null when the session has no event `id`.
  virtual Event* FindEvent(uint64_t id) = 0;
  // Every stream of the session (the device pool's blocks are per stream).
  virtual std::vector<Stream*> Streams() = 0;
  virtual MemoryAccount& memory() = 0;
  // The session's memory limit (MemoryPool.set_limit): `bytes`, at most the
  // server's session quota; 0: back to the quota it opened with.
  virtual void SetMemoryLimit(uint64_t bytes) = 0;
  // User kernel modules by the client's id (ops/kernels.cc).
  virtual absl::Status AddModule(uint64_t id, std::shared_ptr<KernelModule> module) = 0;
  virtual KernelModule* FindModule(uint64_t id) = 0;
  // Whether the server runs user code (--allow-user-kernels).
  virtual bool user_kernels_allowed() const = 0;
};

class OpContext {
 public:
  // `existing[i]` is the array already bound to output handle i (NumPy's
  // out=), if any.
  OpContext(Stream* stream, const v1::Op& op, std::vector<View> inputs,
            std::vector<std::optional<View>> existing,
            std::function<absl::StatusOr<std::shared_ptr<Buffer>>(size_t)> allocate,
            SharedMemoryMap* shared_memory = nullptr, SessionHooks* session = nullptr)
      : stream_(stream), attrs_(op.attrs()), inputs_(std::move(inputs)),
        existing_(std::move(existing)), allocate_(std::move(allocate)),
        shared_memory_(shared_memory), session_(session), results_(existing_.size()) {}

  Stream& stream() { return *stream_; }
  // The session the op runs in (null outside a session: tests).
  SessionHooks* session() { return session_; }
  // The session's shared memory segments (null outside a session).
  SharedMemoryMap* shared_memory() { return shared_memory_; }
  const Attrs& attrs() const { return attrs_; }
  const View& input(int i) const { return inputs_[i]; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(results_.size()); }

  // A new C-contiguous array (session quota applies).
  absl::StatusOr<View> NewArray(DType dtype, Shape shape);
  // A new array with `strides`, which must be contiguous in some axis order
  // (CStrides, FStrides, LikeStrides, KeepOrderStrides).
  absl::StatusOr<View> NewArray(DType dtype, Shape shape, Strides strides);
  // A new array of `x`'s dtype (or `dtype`) and shape holding its values, C order.
  absl::StatusOr<View> ContiguousCopy(const View& x, DType dtype = DType::kInvalid);
  // The same in NumPy's `order` (copy(order=), astype(order=)).
  absl::StatusOr<View> CopyInOrder(const View& x, DType dtype, Order order);
  // `x` itself when it already has `dtype`, else a cast copy.
  absl::StatusOr<View> CastTo(const View& x, DType dtype);

  // Where output i of `dtype` and `shape` should be written: the existing
  // out= array when it matches exactly and overlaps no input, else a new one.
  absl::StatusOr<View> OutputFor(int i, DType dtype, const Shape& shape);
  // The same, where a new array gets `strides` (KeepOrderStrides: NumPy's
  // layout of elementwise results).
  absl::StatusOr<View> OutputFor(int i, DType dtype, const Shape& shape, Strides strides);
  // OutputFor for writers that need C order (host copies): a new array
  // when the existing out= one is not C-contiguous.
  absl::StatusOr<View> ContiguousOutputFor(int i, DType dtype, const Shape& shape);
  // Records output i's result.
  void SetResult(int i, View v) { results_[i] = std::move(v); }
  const std::optional<View>& existing(int i) const { return existing_[i]; }
  std::vector<View>& results() { return results_; }

 private:
  Stream* stream_;
  Attrs attrs_;
  std::vector<View> inputs_;
  std::vector<std::optional<View>> existing_;
  std::function<absl::StatusOr<std::shared_ptr<Buffer>>(size_t)> allocate_;
  SharedMemoryMap* shared_memory_;
  SessionHooks* session_;
  std::vector<View> results_;
};

using OpRunFn = std::function<absl::Status(OpContext&)>;

struct OpDef {
  OpSignature sig;
  OpRunFn run;
  // Derived from `sig`, for the executor's checks.
  std::string name;
  int num_inputs = 0;  // -1: any number
  int num_outputs = 1;
  std::vector<std::string> attrs;  // accepted attribute names
  std::string doc;
  int index = 0;  // dense, in registration order (per-op counters)
};

// Thread-safe for lookups once built.
class OpRegistry {
 public:
  // Registers the op of `schema` (ops/signature.h). A malformed schema or a
  // second op of one name is a bug of this server: it aborts at startup.
  void Register(OpFamily family, absl::string_view schema, std::string doc, OpRunFn run);
  // The same for an op whose dtype rule is the loop table `loops`
  // (reductions, scans), exported with its signature.
  void Register(OpFamily family, absl::string_view schema, std::string doc, OpRunFn run,
                absl::string_view loops);
  // Registers a parsed signature (elementwise ops, whose loops come from
  // kernels/op_list.h).
  void Register(OpSignature sig, OpRunFn run);
  // nullptr when unknown.
  const OpDef* Find(const std::string& name) const;
  const std::map<std::string, OpDef>& ops() const { return ops_; }

 private:
  std::map<std::string, OpDef> ops_;
};

// Each file of ops adds its rows (explicit calls, no static initializers).
void RegisterCreationOps(OpRegistry* registry);
void RegisterElementwiseOps(OpRegistry* registry);
void RegisterFusionOps(OpRegistry* registry);
void RegisterReductionOps(OpRegistry* registry);
void RegisterShapeOps(OpRegistry* registry);
void RegisterIndexingOps(OpRegistry* registry);
void RegisterFilterOps(OpRegistry* registry);
void RegisterLinalgOps(OpRegistry* registry);
void RegisterLinalgCompositeOps(OpRegistry* registry);
void RegisterFftOps(OpRegistry* registry);
void RegisterRandomOps(OpRegistry* registry);
void RegisterTransferOps(OpRegistry* registry);
void RegisterDeviceOps(OpRegistry* registry);
void RegisterKernelOps(OpRegistry* registry);

// The registry with every op of this server.
const OpRegistry& DefaultRegistry();

}  // namespace arrayd

#endif  // ARRAYD_OPS_REGISTRY_H_

#include "session/session.h"

#include <unistd.h>

#include <chrono>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/metrics.h"
#include "common/status.h"
#include "session/fusion_plan.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace {

constexpr size_t kMaxPendingErrors = 256;

std::shared_ptr<const v1::OpError> MakeOpError(const absl::Status& status, const std::string& op,
                                               uint64_t index, uint64_t stream = 0) {
  auto e = std::make_shared<v1::OpError>();
  e->set_stream(stream);
  e->set_code(static_cast<uint32_t>(status.code()));
  e->set_kind(ErrorKind(status));
  e->set_message(std::string(status.message()));
  e->set_op(op);
  e->set_op_index(index);
  return e;
}

// The alignment a GPU's loads of `dtype` need: its size, a complex's part.
int64_t Alignment(DType dtype) {
  const int64_t item = ItemSize(dtype);
  return IsComplex(dtype) ? item / 2 : item;
}

// Whether `v` is aligned for its dtype: its first element and every
// stride of a dimension longer than one (NumPy's flags.aligned).
bool IsAligned(const View& v) {
  const int64_t a = Alignment(v.dtype);
  if (a <= 1 || v.buffer == nullptr) return true;
  if (reinterpret_cast<uintptr_t>(v.data()) % static_cast<uintptr_t>(a) != 0) return false;
  for (int d = 0; d < v.ndim(); ++d) {
    if (v.shape[d] > 1 && v.strides[d] % a != 0) return false;
  }
  return true;
}

// The bytes of `v` as a uint8 view with one more axis (the element's bytes).
View AsBytes(const View& v) {
  View bytes = v;
  bytes.dtype = DType::kUInt8;
  bytes.shape.push_back(ItemSize(v.dtype));
  bytes.strides.push_back(1);
  return bytes;
}

// A 1-D byte view of [offset, offset + n) of a contiguous view.
View ByteRange(const View& v, uint64_t offset, uint64_t n) {
  View bytes = v;
  bytes.dtype = DType::kUInt8;
  bytes.offset += static_cast<int64_t>(offset);
  bytes.shape = {static_cast<int64_t>(n)};
  bytes.strides = {1};
  return bytes;
}

}  // namespace

bool CarriesWork(const v1::ClientMessage& m) {
  return m.ops_size() > 0 || m.frees_size() > 0 || m.has_sync() || m.new_streams_size() > 0 ||
         m.free_streams_size() > 0 || m.free_events_size() > 0;
}

// 128 random bits as hex, from the kernel's CSPRNG.
std::string RandomToken() {
  unsigned char bytes[16] = {};
  std::random_device rd("/dev/urandom");
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd());
  static const char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token.push_back(kHex[b >> 4]);
    token.push_back(kHex[b & 15]);
  }
  return token;
}

Session::Session(uint64_t id, std::unique_ptr<Stream> stream,
                 std::unique_ptr<Stream> transfer_stream, const OpRegistry* registry,
                 SessionOptions options, std::function<void(v1::ServerMessage)> reply)
    : id_(id),
      token_(RandomToken()),
      transfer_stream_(std::move(transfer_stream)),
      registry_(registry),
      options_(options),
      reply_(std::move(reply)),
      memory_(std::make_shared<MemoryAccount>("the session's quota", options_.quota_bytes,
                                              options_.tenant)) {
  num_op_counts_ = registry_->ops().size();
  op_counts_ = std::make_unique<std::atomic<uint64_t>[]>(num_op_counts_);
  auto state = std::make_unique<StreamState>();
  state->stream = std::move(stream);
  default_ = state.get();
  stream_ = default_->stream.get();
  streams_.emplace(0, std::move(state));
  shared_memory_ = std::make_unique<SharedMemoryMap>(stream_);
  workers_ = options_.workers != nullptr ? options_.workers : &DefaultWorkerPool();
}

Session::~Session() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    stop_now_ = true;
    on_stopped_ = nullptr;
    // A message that is running ends first (at its next op); a turn that
    // is queued sees the stop and tears down.
    mu_.Await(absl::Condition(
        +[](Session* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->mu_) { return !s->active_; }, this));
    if (stopped_) return;
    active_ = true;  // ours now: nothing else runs the session again
  }
  TearDown();
}

bool Session::Enqueue(v1::ClientMessage message, std::function<void()> resume) {
  bool schedule = false, room = true;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return true;  // dropped: the session is going
    queue_.push_back(std::move(message));
    if (!active_) schedule = active_ = true;
    if (queue_.size() >= options_.max_queued_messages) {
      resume_ = std::move(resume);
      room = false;
    }
  }
  if (schedule) workers_->Schedule(this);
  return room;
}

bool Session::RunOrEnqueue(v1::ClientMessage message, std::function<void()> resume) {
  bool here = false;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return true;
    // Only the session's reader adds messages, so a session found idle
    // stays idle until Enqueue below queues this one.
    if (!active_ && queue_.empty()) here = active_ = true;
  }
  if (!here) return Enqueue(std::move(message), std::move(resume));
  Run(message);
  absl::MutexLock lock(&mu_);
  EndTurn();
  return true;
}

void Session::Stop(std::function<void()> done) {
  {
    absl::MutexLock lock(&mu_);
    if (!stopped_) {
      stopping_ = true;
      stop_now_ = true;
      on_stopped_ = std::move(done);
      if (!active_) {
        active_ = true;
        workers_->Schedule(this);
      }
      return;
    }
  }
  if (done) done();  // stopped already
}

void Session::EndTurn() {
  if (stopping_ || !queue_.empty()) {
    workers_->Schedule(this);  // still active_: the pool has it
  } else {
    active_ = false;
  }
}

void Session::RunTurn() {
  // A turn: a few messages or about a millisecond, so that a client that
  // floods does not hold a worker from the sessions behind it.
  constexpr int kTurnMessages = 8;
  constexpr auto kTurnTime = std::chrono::milliseconds(1);
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < kTurnMessages; ++k) {
    v1::ClientMessage message;
    std::function<void()> resume;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) break;
      if (queue_.empty()) {
        active_ = false;
        return;
      }
      message = std::move(queue_.front());
      queue_.pop_front();
      if (resume_ && queue_.size() <= options_.max_queued_messages / 2) {
        resume = std::move(resume_);
        resume_ = nullptr;
      }
    }
    if (resume) resume();  // outside the lock: the reader starts its next read
    Run(message);
    if (std::chrono::steady_clock::now() - start > kTurnTime) break;
  }
  {
    absl::MutexLock lock(&mu_);
    if (!stopping_) {
      EndTurn();
      return;
    }
  }
  TearDown();
}

void Session::TearDown() {
  std::function<void()> resume;
  {
    absl::MutexLock lock(&mu_);
    queue_.clear();
    handles_.clear();
    staged_.clear();
    resume = std::move(resume_);  // dropped: nothing is read for this session again
    resume_ = nullptr;
  }
  resume = nullptr;
  for (auto& [id, s] : streams_) (void)s->stream->Synchronize();
  std::unique_ptr<SharedMemoryMap> segments;
  {
    absl::MutexLock lock(&mu_);
    segments = std::move(shared_memory_);
  }
  segments.reset();
  std::function<void()> done;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    active_ = false;  // the destructor may go on from here: no member after
    done = std::move(on_stopped_);
  }
  if (done) done();
}

void Session::AddOpCounts(std::vector<uint64_t>* totals) const {
  if (totals->size() < num_op_counts_) totals->resize(num_op_counts_);
  for (size_t i = 0; i < num_op_counts_; ++i) {
    (*totals)[i] += op_counts_[i].load(std::memory_order_relaxed);
  }
}

void Session::AddPendingError(std::shared_ptr<const v1::OpError> error) {
  if (error->code() < 17) Metrics().deferred_errors[error->code()].fetch_add(1);
  // A client that never syncs must not grow this without bound: the first
  // errors are the ones worth reporting; later ones still poison.
  if (pending_errors_.size() < kMaxPendingErrors) pending_errors_.push_back(std::move(error));
}

Session::FreeSchedule Session::ScheduleFrees(const v1::ClientMessage& message,
                                             const FusionPlan& plan) {
  FreeSchedule out;
  if (message.frees_size() == 0) return out;
  // Where each op runs: its own place, or its fused group's last op.
  auto runs_at = [&](int k) {
    const int g = plan.group_of.empty() ? -1 : plan.group_of[k];
    return g < 0 ? k : plan.groups[g].ops.back();
  };
  absl::flat_hash_map<uint64_t, int> last;  // freed handle -> its last op here, or -1
  for (uint64_t h : message.frees()) last.emplace(h, -1);
  for (int k = 0; k < message.ops_size(); ++k) {
    const v1::Op& op = message.ops(k);
    for (const auto* handles : {&op.inputs(), &op.outputs()}) {
      for (uint64_t h : *handles) {
        auto it = last.find(h);
        if (it != last.end()) it->second = std::max(it->second, runs_at(k));
      }
    }
  }
  // The sync's fetches read after every op: those handles go last.
  for (uint64_t h : message.sync().fetch()) {
    auto it = last.find(h);
    if (it != last.end()) it->second = message.ops_size();
  }
  out.after_op.resize(message.ops_size());
  for (uint64_t h : message.frees()) {
    const int k = last[h];
    (k < 0 ? out.before_ops : k < message.ops_size() ? out.after_op[k] : out.after_ops)
        .push_back(h);
  }
  return out;
}

void Session::FreeHandles(const std::vector<uint64_t>& handles) {
  if (handles.empty()) return;  // (most messages: no lock)
  absl::MutexLock lock(&mu_);
  for (uint64_t h : handles) {
    handles_.erase(h);
    staged_.erase(h);
  }
}

void Session::Run(const v1::ClientMessage& message) {
  const auto start = std::chrono::steady_clock::now();
  for (const v1::StreamSpec& spec : message.new_streams()) {
    absl::Status made = CreateStream(spec);
    if (!made.ok()) AddPendingError(MakeOpError(made, "new_stream", op_count_, spec.id()));
  }
  // Chains of ufuncs whose intermediates the client let go run as one
  // fused op where the chain ends (session/fusion_plan.h).
  FusionPlan plan;
  if (message.ops_size() > 1 && message.frees_size() > 0) {
    absl::MutexLock lock(&mu_);
    plan = PlanFusion(message, [this](uint64_t h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return handles_.contains(h);
    });
  }
  // The op indices of the ops waiting for their group's last op.
  std::vector<std::vector<uint64_t>> deferred(plan.groups.size());
  const FreeSchedule frees = ScheduleFrees(message, plan);
  FreeHandles(frees.before_ops);
  for (int k = 0; k < message.ops_size(); ++k) {
    // A client that left cancels the rest of its batch at the next op.
    if (stop_now_.load(std::memory_order_relaxed)) return;
    const v1::Op& op = message.ops(k);
    uint64_t index = op_count_++;
    ops_run_.store(op_count_, std::memory_order_relaxed);
    const int g = plan.group_of.empty() ? -1 : plan.group_of[k];
    if (g < 0) {
      RunOne(op, index);
      if (!frees.after_op.empty()) FreeHandles(frees.after_op[k]);
      continue;
    }
    deferred[g].push_back(index);
    const FusedGroup& group = plan.groups[g];
    if (k != group.ops.back()) continue;
    // The group's last op: the fused op, or (when it cannot run: a dtype
    // no step fuses for, a poisoned input) the ops as sent, in order.
    if (!RunOne(group.fused, index, /*report=*/false)) {
      for (size_t i = 0; i < group.ops.size(); ++i) {
        RunOne(message.ops(group.ops[i]), deferred[g][i]);
      }
    } else {
      for (int i : group.ops) CountOp(message.ops(i));
    }
    FreeHandles(frees.after_op[k]);  // (a group has frees: its intermediates)
  }
  if (message.ops_size() > 0) {
    Metrics().batch_seconds.Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // The device gets the ops the streams held back (see Stream::Flush) now,
  // not with the next message.
  for (auto& [id, s] : streams_) {
    if (!s->flush) continue;
    s->flush = false;
    absl::Status launched = s->stream->Flush();
    if (!launched.ok()) AddPendingError(MakeOpError(launched, "launch", op_count_, id));
  }
  FreeHandles(frees.after_ops);
  for (uint64_t e : message.free_events()) events_.erase(e);
  for (uint64_t id : message.free_streams()) DestroyStream(id);
  if (message.has_sync()) {
    const auto sync_start = std::chrono::steady_clock::now();
    v1::ServerMessage reply = Sync(message.sync());
    reply.mutable_sync()->set_server_busy(!workers_->MayPoll());
    Metrics().sync_seconds.Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sync_start).count());
    reply_(std::move(reply));
  }
}

bool Session::RunOne(const v1::Op& op, uint64_t index, bool report) {
  std::shared_ptr<const v1::OpError> inherited;
  StreamState* on = op.stream() == 0 ? default_ : FindStream(op.stream());
  absl::Status status =
      on != nullptr ? RunOp(op, *on, index, &inherited)
                    : absl::NotFoundError(absl::StrCat(
                          "unknown stream ", op.stream(),
                          " (a stream is made by a StreamSpec before the ops that use it)"));
  if (on != nullptr) {
    on->busy = on->flush = true;
    ++on->work;
  }
  if (!report && (inherited || !status.ok())) return false;
  if (inherited) {
    Poison(op, inherited);
  } else if (!status.ok()) {
    auto error = MakeOpError(status, op.name(), index, op.stream());
    SPDLOG_DEBUG("session {}: op {} '{}' failed: {}", id_, index, op.name(), status.ToString());
    AddPendingError(error);
    Poison(op, error);
  }
  return true;
}

Session::StreamState* Session::FindStream(uint64_t id) {
  auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : it->second.get();
}

absl::Status Session::CreateStream(const v1::StreamSpec& spec) {
  if (spec.id() == 0)
    return ValueError("stream 0 is the session's default stream; it always exists");
  if (streams_.contains(spec.id())) {
    return absl::AlreadyExistsError(absl::StrCat("stream ", spec.id(), " already exists"));
  }
  if (options_.backend == nullptr) {
    return absl::UnimplementedError("this session has only its default stream");
  }
  if (streams_.size() >= options_.max_streams) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "a session may have at most ", options_.max_streams, " streams (free unused ones)"));
  }
  auto state = std::make_unique<StreamState>();
  state->id = spec.id();
  ARRAYD_ASSIGN_OR_RETURN(state->stream,
                          options_.backend->CreateStreamWithPriority(spec.priority()));
  state->blocking = !spec.non_blocking();
  streams_.emplace(spec.id(), std::move(state));
  num_streams_ = static_cast<uint32_t>(streams_.size());
  return absl::OkStatus();
}

void Session::DestroyStream(uint64_t id) {
  StreamState* s = id == 0 ? nullptr : FindStream(id);
  if (s == nullptr) return;
  // Its work is done before it goes (its errors are reported at the next
  // sync), so nothing waits for it later.
  SynchronizeStream(*s);
  streams_.erase(id);
  num_streams_ = static_cast<uint32_t>(streams_.size());
}

uint64_t Session::num_arrays() {
  absl::MutexLock lock(&mu_);
  return handles_.size();
}

std::shared_ptr<const v1::OpError> Session::SynchronizeStream(StreamState& s) {
  absl::Status device = s.stream->Synchronize();
  if (!device.ok()) AddPendingError(MakeOpError(device, "synchronize", op_count_, s.id));
  s.busy = false;
  // A check that ran on the device (an index out of bounds): the op's error.
  std::string op;
  absl::Status checked = device.ok() ? s.stream->CheckError(&op) : absl::OkStatus();
  if (checked.ok()) return nullptr;
  std::shared_ptr<const v1::OpError> error = MakeOpError(checked, op, op_count_, s.id);
  AddPendingError(error);
  return error;
}

absl::Status Session::WaitFor(StreamState& to, StreamState& from) {
  if (from.mark == nullptr) {
    EventOptions untimed;
    untimed.timing = false;
    ARRAYD_ASSIGN_OR_RETURN(from.mark, from.stream->CreateEvent(untimed));
  }
  ARRAYD_RETURN_IF_ERROR(from.stream->Record(*from.mark));
  return to.stream->Wait(*from.mark);
}

absl::Status Session::OrderWithDefault(StreamState& s) {
  if (&s == default_) {
    for (auto& [id, t] : streams_) {
      if (t.get() == default_ || !t->blocking || t->work == t->seen_by_default) continue;
      ARRAYD_RETURN_IF_ERROR(WaitFor(*default_, *t));
      t->seen_by_default = t->work;
    }
  } else if (s.blocking && s.seen_default != default_->work) {
    ARRAYD_RETURN_IF_ERROR(WaitFor(s, *default_));
    s.seen_default = default_->work;
  }
  return absl::OkStatus();
}

absl::StatusOr<Event*> Session::GetEvent(uint64_t id, EventOptions options) {
  auto it = events_.find(id);
  if (it != events_.end()) return it->second.get();
  if (events_.size() >= options_.max_events) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "a session may have at most ", options_.max_events, " events (free unused ones)"));
  }
  ARRAYD_ASSIGN_OR_RETURN(std::unique_ptr<Event> event, stream_->CreateEvent(options));
  return events_.emplace(id, std::move(event)).first->second.get();
}

Event* Session::FindEvent(uint64_t id) {
  auto it = events_.find(id);
  return it == events_.end() ? nullptr : it->second.get();
}

std::vector<Stream*> Session::Streams() {
  std::vector<Stream*> out;
  for (auto& [id, s] : streams_) out.push_back(s->stream.get());
  return out;
}

absl::Status Session::AddModule(uint64_t id, std::shared_ptr<KernelModule> module) {
  if (!modules_.contains(id) && modules_.size() >= options_.max_modules) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a session may load at most ", options_.max_modules, " kernel modules"));
  }
  modules_[id] = std::move(module);
  return absl::OkStatus();
}

KernelModule* Session::FindModule(uint64_t id) {
  auto it = modules_.find(id);
  return it == modules_.end() ? nullptr : it->second.get();
}

void Session::SetMemoryLimit(uint64_t bytes) {
  const uint64_t cap = options_.quota_cap_bytes;
  if (bytes == 0) bytes = options_.quota_bytes;
  memory_->set_limit(cap == 0 ? bytes : bytes == 0 ? cap : std::min(bytes, cap));
}

void Session::Poison(const v1::Op& op, std::shared_ptr<const v1::OpError> error) {
  absl::MutexLock lock(&mu_);
  for (uint64_t h : op.outputs()) {
    auto it = handles_.find(h);
    if (it != handles_.end() && !it->second.error) continue;  // out= arrays keep their values
    handles_[h] = Entry{View(), error};
  }
}

const OpDef* Session::CountOp(const v1::Op& op) {
  const OpDef* def = registry_->Find(op.name());
  if (def != nullptr && static_cast<size_t>(def->index) < num_op_counts_) {
    op_counts_[def->index].fetch_add(1, std::memory_order_relaxed);
  }
  return def;
}

absl::Status Session::RunOp(const v1::Op& op, StreamState& on, uint64_t index,
                            std::shared_ptr<const v1::OpError>* inherited) {
  const OpDef* def = CountOp(op);
  if (def == nullptr) return absl::NotFoundError(absl::StrCat("unknown op '", op.name(), "'"));
  if (def->num_inputs >= 0 && op.inputs_size() != def->num_inputs) {
    return ValueError(
        absl::StrCat(op.name(), " takes ", def->num_inputs, " inputs, got ", op.inputs_size()));
  }
  if (op.outputs_size() != def->num_outputs) {
    return ValueError(
        absl::StrCat(op.name(), " has ", def->num_outputs, " outputs, got ", op.outputs_size()));
  }
  for (const auto& [name, value] : op.attrs()) {
    if (std::find(def->attrs.begin(), def->attrs.end(), name) == def->attrs.end()) {
      return TypeError(absl::StrCat(op.name(), " got an unexpected attribute '", name, "'"));
    }
    // Inline data is bounded as Capabilities says; larger arrays come by
    // Upload or shared memory, which are checked and chunked.
    const size_t carried = value.value_case() == v1::AttrValue::kData ? value.data().size()
                           : value.value_case() == v1::AttrValue::kS  ? value.s().size()
                                                                      : 0;
    if (carried > options_.max_inline_bytes) {
      return ValueError(absl::StrCat(op.name(), ": attribute '", name, "' carries ", carried,
                                     " bytes, more than the server's max_inline_bytes (",
                                     options_.max_inline_bytes, "); send large arrays by Upload"));
    }
  }
  std::vector<View> inputs;
  std::vector<std::optional<View>> existing;
  bool misaligned_out = false;
  {
    absl::MutexLock lock(&mu_);
    for (uint64_t h : op.inputs()) {
      auto it = handles_.find(h);
      if (it == handles_.end()) return absl::NotFoundError(absl::StrCat("unknown handle ", h));
      if (it->second.error) {
        *inherited = it->second.error;
        return absl::OkStatus();
      }
      inputs.push_back(it->second.view);
    }
    for (uint64_t h : op.outputs()) {
      auto it = handles_.find(h);
      if (it != handles_.end() && !it->second.error) {
        existing.emplace_back(it->second.view);
      } else {
        existing.emplace_back(std::nullopt);
      }
    }
  }
  if (streams_.size() > 1) ARRAYD_RETURN_IF_ERROR(OrderWithDefault(on));
  Stream* stream = on.stream.get();
  // NumPy allows misaligned views (a byte offset that is no multiple of
  // the itemsize, after view(dtype)); a GPU faults on them. The op reads
  // aligned copies; an op without outputs may write its inputs, so theirs
  // are copied back after it (last to first: the first input, the target
  // of setitem, put, ..., is written last); out= arrays are written
  // through one (CopyInto).
  std::vector<std::pair<View, View>> write_back;  // (misaligned view, its copy)
  if (stream->RequiresAlignedViews()) {
    for (View& in : inputs) {
      if (IsAligned(in)) continue;
      View original = in;
      ARRAYD_ASSIGN_OR_RETURN(in, AlignedCopy(stream, in));
      if (op.outputs_size() == 0 && original.writeable) write_back.emplace_back(original, in);
    }
    for (std::optional<View>& out : existing) {
      if (out && !IsAligned(*out)) misaligned_out = true;
    }
  }
  // A misaligned out= array is written after the op, through CopyInto.
  std::vector<std::optional<View>> targets = existing;
  if (misaligned_out) {
    for (std::optional<View>& out : existing) {
      if (out && !IsAligned(*out)) out.reset();
    }
  }
  OpContext ctx(
      stream, op, std::move(inputs), std::move(existing),
      [this, stream](size_t n) { return Allocate(stream, n); }, shared_memory_.get(), this);
  ARRAYD_RETURN_IF_ERROR(def->run(ctx));
  for (auto it = write_back.rbegin(); it != write_back.rend(); ++it) {
    ARRAYD_RETURN_IF_ERROR(CopyInto(stream, it->second, it->first));
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    View& result = ctx.results()[i];
    const std::optional<View>& out = targets[i];
    if (out) {
      bool same = result.buffer == out->buffer && result.offset == out->offset &&
                  result.shape == out->shape && result.strides == out->strides;
      if (same) continue;
      if (!out->writeable) return ValueError("output array is read-only");
      if (!CanCastSameKind(result.dtype, out->dtype)) {
        return TypeError(absl::StrCat("Cannot cast ufunc '", op.name(), "' output from dtype('",
                                      DTypeName(result.dtype), "') to dtype('",
                                      DTypeName(out->dtype), "') with casting rule 'same_kind'"));
      }
      auto b = BroadcastTo(result, out->shape);
      if (!b.ok()) {
        return ValueError(
            absl::StrCat("non-broadcastable output operand with shape ", ShapeString(out->shape),
                         " doesn't match the broadcast shape ", ShapeString(result.shape)));
      }
      ARRAYD_RETURN_IF_ERROR(CopyInto(stream, *b, *out));
      continue;
    }
    ARRAYD_RETURN_IF_ERROR(CheckView(result));
    absl::MutexLock lock(&mu_);
    handles_[op.outputs(i)] = Entry{std::move(result), nullptr};
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Buffer>> Session::Allocate(Stream* stream, size_t nbytes) {
  if (options_.max_array_bytes != 0 && nbytes > options_.max_array_bytes) {
    return OutOfMemoryError(absl::StrCat("Out of memory allocating ", nbytes,
                                         " bytes: the server's limit for one array is ",
                                         options_.max_array_bytes, " bytes"));
  }
  ARRAYD_RETURN_IF_ERROR(memory_->Charge(nbytes));
  auto raw = stream->Allocate(nbytes);
  if (!raw.ok()) {
    memory_->Release(nbytes);
    return raw.status();
  }
  Buffer* p = raw->get();
  return std::shared_ptr<Buffer>(
      p, [raw = *std::move(raw), memory = memory_, nbytes](Buffer*) mutable {
        memory->Release(nbytes);
        raw.reset();
      });
}

absl::StatusOr<View> Session::AlignedCopy(Stream* stream, const View& view) {
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer,
                          Allocate(stream, static_cast<size_t>(view.nbytes())));
  View out = MakeContiguousView(std::move(buffer), view.dtype, view.shape);
  ARRAYD_RETURN_IF_ERROR(stream->Copy(AsBytes(view), AsBytes(out)));
  return out;
}

absl::Status Session::CopyInto(Stream* stream, const View& src, const View& dst) {
  if (!stream->RequiresAlignedViews() || (IsAligned(dst) && IsAligned(src))) {
    return stream->Copy(src, dst);
  }
  View from = src;
  if (!IsAligned(src)) {
    ARRAYD_ASSIGN_OR_RETURN(from, AlignedCopy(stream, src));
  }
  if (IsAligned(dst)) return stream->Copy(from, dst);
  // Cast into an aligned array of dst's dtype, then its bytes into dst.
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer,
                          Allocate(stream, static_cast<size_t>(dst.nbytes())));
  View tmp = MakeContiguousView(std::move(buffer), dst.dtype, dst.shape);
  ARRAYD_RETURN_IF_ERROR(stream->Copy(from, tmp));
  return stream->Copy(AsBytes(tmp), AsBytes(dst));
}

absl::StatusOr<View> Session::MakeContiguous(Stream* stream, const View& view) {
  if (stream->RequiresAlignedViews() && !IsAligned(view)) return AlignedCopy(stream, view);
  if (view.IsCContiguous()) return view;
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer,
                          Allocate(stream, static_cast<size_t>(view.nbytes())));
  View out = MakeContiguousView(std::move(buffer), view.dtype, view.shape);
  ARRAYD_RETURN_IF_ERROR(stream->Copy(view, out));
  return out;
}

v1::ServerMessage Session::Sync(const v1::Sync& sync) {
  v1::ServerMessage message;
  v1::SyncReply* reply = message.mutable_sync();
  reply->set_sync_id(sync.sync_id());
  // What the sync waits for (Sync.scope), and the stream its fetches copy
  // on: the scope's stream, else the default one.
  StreamState* on = default_;
  std::vector<StreamState*> scope;
  Event* event = nullptr;
  Event* from = nullptr;
  absl::Status bad;
  switch (sync.scope()) {
    case v1::SYNC_STREAM:
      if (StreamState* target = FindStream(sync.target())) {
        on = target;
        scope.push_back(target);
      } else {
        bad = absl::NotFoundError(absl::StrCat("unknown stream ", sync.target()));
      }
      break;
    case v1::SYNC_EVENT:
      event = FindEvent(sync.target());
      if (event == nullptr) {
        bad = absl::NotFoundError(absl::StrCat("event ", sync.target(), " was never recorded"));
      } else if (sync.elapsed_from() != 0) {
        from = FindEvent(sync.elapsed_from());
        if (from == nullptr) {
          bad = absl::FailedPreconditionError(
              absl::StrCat("event ", sync.elapsed_from(), " was never recorded"));
        }
      }
      break;
    default:
      for (auto& [id, s] : streams_) {
        if (s.get() != default_) scope.push_back(s.get());
      }
      scope.push_back(default_);  // last: fetches copy on it after the others are done
      break;
  }
  if (!bad.ok()) {
    const uint64_t stream = sync.scope() == v1::SYNC_STREAM ? sync.target() : 0;
    *reply->mutable_error() = *MakeOpError(bad, "sync", op_count_, stream);
    for (const auto& e : pending_errors_) *reply->add_errors() = *e;
    pending_errors_.clear();
    return message;
  }
  if (sync.query()) {
    bool done = true;
    for (StreamState* s : scope) {
      absl::StatusOr<bool> d = s->stream->Query();
      if (!d.ok()) AddPendingError(MakeOpError(d.status(), "query", op_count_, s->id));
      done = done && d.value_or(true);
    }
    if (event != nullptr) {
      absl::StatusOr<bool> d = event->Query();
      if (!d.ok()) AddPendingError(MakeOpError(d.status(), "query", op_count_, 0));
      done = done && d.value_or(true);
    }
    reply->set_done(done);
  } else {
    for (StreamState* s : scope) {
      if (s != on && s->busy) SynchronizeStream(*s);
    }
    for (Event* e : {from, event}) {
      if (e == nullptr) continue;
      absl::Status device = e->Synchronize();
      if (!device.ok()) AddPendingError(MakeOpError(device, "synchronize", op_count_, 0));
    }
  }
  if (from != nullptr) {
    absl::StatusOr<double> ms = event->ElapsedSince(*from);
    if (ms.ok()) {
      reply->set_elapsed_ms(*ms);
    } else {
      *reply->mutable_error() = *MakeOpError(ms.status(), "get_elapsed_time", op_count_, 0);
    }
  }
  Stream* stream = on->stream.get();
  // Work with device-side checks before the fetches: wait for it and read
  // the checks first, so that a failed one fails the fetches (their data
  // may come from it) instead of returning what the kernel wrote.
  std::shared_ptr<const v1::OpError> checked;
  if (!sync.query() && sync.fetch_size() > 0 && on->stream->HasPendingChecks()) {
    checked = SynchronizeStream(*on);
  }
  for (uint64_t h : sync.fetch()) {
    v1::Fetched* f = reply->add_fetched();
    f->set_handle(h);
    Entry entry;
    {
      absl::MutexLock lock(&mu_);
      auto it = handles_.find(h);
      if (it == handles_.end()) {
        *f->mutable_error() = *MakeOpError(absl::NotFoundError(absl::StrCat("unknown handle ", h)),
                                           "fetch", op_count_);
        continue;
      }
      entry = it->second;
    }
    if (checked && !entry.error) entry.error = checked;
    if (entry.error) {
      *f->mutable_error() = *entry.error;
      pending_errors_.erase(
          std::remove(pending_errors_.begin(), pending_errors_.end(), entry.error),
          pending_errors_.end());
      continue;
    }
    const View& v = entry.view;
    f->set_dtype(static_cast<v1::DType>(v.dtype));
    for (int64_t d : v.shape) f->add_shape(d);
    if (!v.IsCContiguous()) on->busy = true;  // MakeContiguous queues a copy
    absl::StatusOr<View> contiguous = MakeContiguous(stream, v);
    absl::Status status = contiguous.status();
    if (status.ok() && static_cast<uint64_t>(v.nbytes()) <= options_.max_inline_bytes) {
      std::string* data = f->mutable_data();
      data->resize(static_cast<size_t>(v.nbytes()));
      status = stream->CopyToHost(*contiguous, data->data());
      if (status.ok() && v.nbytes() > 0) on->busy = false;
      if (status.ok()) Metrics().Downloaded(Transport::kInline, static_cast<uint64_t>(v.nbytes()));
      f->set_inline_(true);
    } else if (status.ok()) {
      absl::MutexLock lock(&mu_);
      staged_[h] = *contiguous;
    }
    if (!status.ok()) *f->mutable_error() = *MakeOpError(status, "fetch", op_count_, on->id);
  }
  // After the fetches: a fetch's copy is ordered after every op before it
  // on its stream and waits for them, so there is then nothing left to wait
  // for there (one wait on the device per round trip instead of two); nor
  // is there after a sync with no ops since the last wait.
  if (!sync.query() && on->busy && std::find(scope.begin(), scope.end(), on) != scope.end()) {
    SynchronizeStream(*on);
  }
  for (const auto& e : pending_errors_) *reply->add_errors() = *e;
  pending_errors_.clear();
  return message;
}

absl::StatusOr<View> Session::NewUploadArray(DType dtype, Shape shape) {
  ARRAYD_ASSIGN_OR_RETURN(int64_t size, CheckedSize(shape, ItemSize(dtype)));
  const int64_t nbytes = size * ItemSize(dtype);
  absl::MutexLock lock(&transfer_mu_);
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buffer,
                          Allocate(transfer_stream_.get(), static_cast<size_t>(nbytes)));
  return MakeContiguousView(std::move(buffer), dtype, std::move(shape));
}

absl::Status Session::AttachSegment(const std::string& name, int fd) {
  absl::MutexLock lock(&mu_);
  if (stopping_ || shared_memory_ == nullptr) {
    ::close(fd);
    return absl::FailedPreconditionError("the session is closing");
  }
  const uint64_t limit = options_.max_array_bytes != 0 ? options_.max_array_bytes : UINT64_MAX;
  return shared_memory_->Attach(name, fd, limit);
}

absl::Status Session::WriteBytes(const View& contiguous, uint64_t offset, const std::string& data) {
  if (offset + data.size() > static_cast<uint64_t>(contiguous.nbytes())) {
    return ValueError("upload: more data than the array holds");
  }
  absl::MutexLock lock(&transfer_mu_);
  Metrics().Uploaded(Transport::kGrpcStream, data.size());
  return transfer_stream_->CopyFromHost(data.data(), ByteRange(contiguous, offset, data.size()));
}

absl::Status Session::Bind(uint64_t handle, View view) {
  ARRAYD_RETURN_IF_ERROR(CheckView(view));
  absl::MutexLock lock(&mu_);
  if (!handles_.emplace(handle, Entry{std::move(view), nullptr}).second) {
    return absl::AlreadyExistsError(absl::StrCat("upload: handle ", handle, " is already bound"));
  }
  return absl::OkStatus();
}

absl::StatusOr<View> Session::DownloadView(uint64_t handle) {
  absl::MutexLock lock(&mu_);
  auto staged = staged_.find(handle);
  if (staged == staged_.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("download: handle ", handle,
                     " was not fetched by a sync (send a sync that fetches it first)"));
  }
  View v = staged->second;
  staged_.erase(staged);
  return v;
}

absl::Status Session::ReadBytes(const View& contiguous, uint64_t offset, uint64_t n,
                                std::string* out) {
  out->resize(n);
  absl::MutexLock lock(&transfer_mu_);
  Metrics().Downloaded(Transport::kGrpcStream, n);
  return transfer_stream_->CopyToHost(ByteRange(contiguous, offset, n), out->data());
}

}  // namespace arrayd

// Session: one client's arrays (handle table), its streams and events, its
// memory quota and its queue of client messages, which run in order on the
// server's worker pool (session/worker_pool.h): one worker at a time runs a
// session, for a turn of a few messages, then the next ready session has
// its turn. An idle session has no thread. Each op names one of the session's streams
// (Op.stream; 0, the default, always exists): the executor queues it there,
// so ops of different streams may run at once on the device, ordered only
// by events and by the default stream's rule (arrayd.proto, Op.stream).
// Deferred errors: a failed op poisons its outputs; the error is reported
// at the next sync.
#ifndef ARRAYD_SESSION_SESSION_H_
#define ARRAYD_SESSION_SESSION_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "array/view.h"
#include "arrayd/v1/arrayd.pb.h"
#include "backend/backend.h"
#include "ops/registry.h"
#include "session/fusion_plan.h"
#include "session/memory_account.h"
#include "session/shared_memory.h"
#include "session/worker_pool.h"

namespace arrayd {

// Whether a client message asks the session for anything (ops, frees, a
// sync, streams or events to make or forget); transports skip the others.
bool CarriesWork(const v1::ClientMessage& message);

// 128 random bits as hex, from the kernel's CSPRNG (session tokens, the
// server's id).
std::string RandomToken();

struct SessionOptions {
  uint64_t quota_bytes = 0;  // 0: no per-session limit
  // The most MemoryPool.set_limit may raise it to (the server's
  // --session-quota); 0: no cap.
  uint64_t quota_cap_bytes = 0;
  uint64_t max_inline_bytes = 1 << 20;
  uint64_t max_array_bytes = 0;  // one array or shared memory segment; 0: no limit
  // The tenant's account (its quota, then the server's cap) that the
  // session's own account charges; none: only the session's quota.
  std::shared_ptr<MemoryAccount> tenant;
  // Client messages queued at most; a transport stops reading while the
  // queue is full (backpressure).
  size_t max_queued_messages = 64;
  // Runs the session's messages; none: a pool shared by the process
  // (DefaultWorkerPool(), for tests and tools).
  WorkerPool* workers = nullptr;
  // Makes the streams a client asks for (StreamSpec); none: only stream 0.
  Backend* backend = nullptr;
  size_t max_streams = 64;    // per session, stream 0 included
  size_t max_events = 4096;   // per session
  size_t max_modules = 4096;  // user kernel modules per session
  bool allow_user_kernels = false;
};

// Thread-safe: the handle table is locked; ops run on one worker at a time
// ("the executor" below: whichever thread runs the session's messages).
class Session : private SessionHooks, private WorkerPool::Task {
 public:
  // `reply` is called on the executor with each sync's reply.
  Session(uint64_t id, std::unique_ptr<Stream> stream, std::unique_ptr<Stream> transfer_stream,
          const OpRegistry* registry, SessionOptions options,
          std::function<void(v1::ServerMessage)> reply);
  // Waits for a message that is running, drops the queued ones and frees
  // every array.
  ~Session() override;

  uint64_t id() const { return id_; }
  // The secret that Upload/Download requests must present.
  const std::string& token() const { return token_; }

  // Queues a client message; the worker pool runs it. Never blocks on the
  // work. False when the queue is now full: the caller should read no more
  // until `resume` runs (on a worker, once the queue is half empty).
  bool Enqueue(v1::ClientMessage message, std::function<void()> resume = nullptr);
  // Runs the message on the calling thread (a worker that read it) when the
  // session has nothing queued or running, else queues it as Enqueue does
  // (the order is the same either way). It saves the hand-off to another
  // worker, a wake-up on every round trip.
  bool RunOrEnqueue(v1::ClientMessage message, std::function<void()> resume = nullptr);
  // Stops after the message that is running; queued messages are dropped,
  // arrays freed, streams synchronized. `done` then runs on a worker (or
  // at once when the session has already stopped). Later messages are
  // dropped.
  void Stop(std::function<void()> done);

  // Same-host socket: takes `fd`, a shared memory segment the client sent
  // under `name` (see SharedMemoryMap::Attach); closed on any error.
  absl::Status AttachSegment(const std::string& name, int fd);

  // Upload RPC: a new C-contiguous array to fill with WriteBytes, then
  // bind to a handle. Quota applies.
  absl::StatusOr<View> NewUploadArray(DType dtype, Shape shape);
  absl::Status WriteBytes(const View& contiguous, uint64_t offset, const std::string& data);
  // ALREADY_EXISTS when `handle` is bound.
  absl::Status Bind(uint64_t handle, View view);
  // Download RPC: the C-contiguous array to send for `handle`, staged by the
  // last sync that fetched it (so it is ordered after every op before that
  // sync). FAILED_PRECONDITION when it was not staged.
  absl::StatusOr<View> DownloadView(uint64_t handle);
  absl::Status ReadBytes(const View& contiguous, uint64_t offset, uint64_t n, std::string* out);

  uint64_t bytes_in_use() const { return memory_->used(); }
  // For the admin's session list; any thread.
  uint64_t ops_run() const { return ops_run_.load(std::memory_order_relaxed); }
  uint32_t num_streams() const { return num_streams_.load(std::memory_order_relaxed); }
  uint64_t num_arrays();
  // Adds the ops this session ran to `totals` (by OpDef::index).
  void AddOpCounts(std::vector<uint64_t>* totals) const;

  // Runs one message now, on the calling thread (the executor; tests).
  void Run(const v1::ClientMessage& message);

 private:
  struct Entry {
    View view;
    std::shared_ptr<const v1::OpError> error;  // set when poisoned
  };
  // One of the session's streams, and what orders it with stream 0.
  struct StreamState {
    uint64_t id = 0;
    std::unique_ptr<Stream> stream;
    bool blocking = true;  // orders with stream 0 (StreamSpec.non_blocking false)
    // Whether the stream may have work not known to be done: set by ops,
    // cleared by a wait (a synchronize, or a fetch's copy to the host,
    // which waits for everything queued before it).
    bool busy = false;
    bool flush = false;  // ops queued since the last Flush
    uint64_t work = 0;   // ops queued on it so far
    // `work` of stream 0 when this stream last waited for it, and this
    // stream's `work` when stream 0 last waited for it.
    uint64_t seen_default = 0, seen_by_default = 0;
    std::unique_ptr<Event> mark;  // recorded for those waits
  };

  // WorkerPool::Task: one turn of the session, a few messages or about a
  // millisecond; it schedules itself again when more are queued.
  void RunTurn() override;
  // Ends the turn that the calling thread had: schedules the session again
  // when messages (or a stop) came meanwhile, else marks it idle.
  void EndTurn() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The stop: drops the queue, frees arrays, synchronizes streams, then
  // runs the Stop callback.
  void TearDown();
  // Runs one op of a message (its op index `index`); a failure poisons its
  // outputs and becomes a pending error. With `report` false a failure is
  // left alone and false returned (a fused op, whose ops then run as sent).
  bool RunOne(const v1::Op& op, uint64_t index, bool report = true);
  // Counts a run of `op` for the metrics; its registry row (null: unknown).
  const OpDef* CountOp(const v1::Op& op);
  absl::Status RunOp(const v1::Op& op, StreamState& on, uint64_t op_index,
                     std::shared_ptr<const v1::OpError>* inherited);
  void Poison(const v1::Op& op, std::shared_ptr<const v1::OpError> error);
  v1::ServerMessage Sync(const v1::Sync& sync);
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(Stream* stream, size_t nbytes);
  absl::StatusOr<View> MakeContiguous(Stream* stream, const View& view);
  // A C-contiguous copy of a view that is misaligned for its dtype, made
  // byte by byte (uint8 loads never fault), for a backend that
  // RequiresAlignedViews.
  absl::StatusOr<View> AlignedCopy(Stream* stream, const View& view);
  // dst[...] = src[...] with casting, where dst may be misaligned.
  absl::Status CopyInto(Stream* stream, const View& src, const View& dst);
  void AddPendingError(std::shared_ptr<const v1::OpError> error);
  // When a message's frees let go of their arrays: each right after the
  // last op of the message that names it (where it runs, for a fused
  // group), so that a batch of large temporaries reuses one buffer rather
  // than holding them all; one the sync fetches after the ops; one no op
  // names before them.
  struct FreeSchedule {
    std::vector<uint64_t> before_ops, after_ops;
    std::vector<std::vector<uint64_t>> after_op;  // by op index (empty: no frees)
  };
  static FreeSchedule ScheduleFrees(const v1::ClientMessage& message, const FusionPlan& plan);
  void FreeHandles(const std::vector<uint64_t>& handles);

  // Streams: made by StreamSpec (executor thread).
  absl::Status CreateStream(const v1::StreamSpec& spec);
  void DestroyStream(uint64_t id);
  StreamState* FindStream(uint64_t id);
  // Before an op on `s`: the waits of the default stream's rule.
  absl::Status OrderWithDefault(StreamState& s);
  // `from` records its mark and `to` waits for it.
  absl::Status WaitFor(StreamState& to, StreamState& from);
  // Waits for the stream's queued work; device errors become pending. The
  // error of a device-side check that failed (an index out of bounds) is
  // also returned (null: none).
  std::shared_ptr<const v1::OpError> SynchronizeStream(StreamState& s);

  // SessionHooks (the ops of ops/device.cc), executor.
  absl::StatusOr<Event*> GetEvent(uint64_t id, EventOptions options) override;
  Event* FindEvent(uint64_t id) override;
  std::vector<Stream*> Streams() override;
  MemoryAccount& memory() override { return *memory_; }
  void SetMemoryLimit(uint64_t bytes) override;
  absl::Status AddModule(uint64_t id, std::shared_ptr<KernelModule> module) override;
  KernelModule* FindModule(uint64_t id) override;
  bool user_kernels_allowed() const override { return options_.allow_user_kernels; }

  const uint64_t id_;
  const std::string token_;
  // Executor thread only: the streams by id (0: the default, always here)
  // and the events by id.
  absl::flat_hash_map<uint64_t, std::unique_ptr<StreamState>> streams_;
  StreamState* default_ = nullptr;
  Stream* stream_ = nullptr;  // default_->stream
  absl::flat_hash_map<uint64_t, std::unique_ptr<Event>> events_;
  absl::flat_hash_map<uint64_t, std::shared_ptr<KernelModule>> modules_;  // RawModule
  // Attached by the reader (under mu_), used by the executor.
  std::unique_ptr<SharedMemoryMap> shared_memory_;
  std::unique_ptr<Stream> transfer_stream_;  // upload/download, under transfer_mu_
  const OpRegistry* registry_;
  const SessionOptions options_;
  std::function<void(v1::ServerMessage)> reply_;
  std::shared_ptr<MemoryAccount> memory_;  // outlives the session in its buffers
  uint64_t op_count_ = 0;                  // executor thread only
  std::atomic<uint64_t> ops_run_{0};       // op_count_, for other threads
  std::atomic<uint32_t> num_streams_{1};   // streams_.size(), for other threads
  // Runs of each op (by OpDef::index), for the metrics: the session's own
  // cache lines, summed at a scrape.
  std::unique_ptr<std::atomic<uint64_t>[]> op_counts_;
  size_t num_op_counts_ = 0;
  std::vector<std::shared_ptr<const v1::OpError>> pending_errors_;  // executor thread only

  absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, Entry> handles_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, View> staged_ ABSL_GUARDED_BY(mu_);  // large fetches
  std::deque<v1::ClientMessage> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;          // torn down
  std::atomic<bool> stop_now_{false};                  // stopping_, read between ops unlocked
  std::function<void()> resume_ ABSL_GUARDED_BY(mu_);  // see Enqueue
  // A thread has the session: it is on the pool's ready queue or a worker
  // (or a reader, RunOrEnqueue) is running its messages. One at a time.
  bool active_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> on_stopped_ ABSL_GUARDED_BY(mu_);
  absl::Mutex transfer_mu_;
  WorkerPool* workers_;
};

}  // namespace arrayd

#endif  // ARRAYD_SESSION_SESSION_H_

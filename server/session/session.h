// Session: one client's arrays (handle table), its stream, its memory quota
// and its executor, which runs the client's op batches in order on a thread
// of its own. Deferred errors: a failed op poisons its outputs; the error is
// reported at the next sync.
#ifndef ARRAYD_SESSION_SESSION_H_
#define ARRAYD_SESSION_SESSION_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "array/view.h"
#include "arrayd/v1/arrayd.pb.h"
#include "backend/backend.h"
#include "ops/registry.h"
#include "session/memory_account.h"
#include "session/shared_memory.h"

namespace arrayd {

// 128 random bits as hex, from the kernel's CSPRNG (session tokens, the
// server's id).
std::string RandomToken();

struct SessionOptions {
  uint64_t quota_bytes = 0;        // 0: no per-session limit
  uint64_t max_inline_bytes = 1 << 20;
  uint64_t max_array_bytes = 0;    // one array or shared memory segment; 0: no limit
  // The tenant's account (its quota, then the server's cap) that the
  // session's own account charges; none: only the session's quota.
  std::shared_ptr<MemoryAccount> tenant;
  // Client messages queued for the executor at most; a transport stops
  // reading while the queue is full (backpressure).
  size_t max_queued_messages = 64;
};

// Thread-safe: the handle table is locked; ops run on the executor thread.
class Session {
 public:
  // `reply` is called on the executor thread with each sync's reply.
  Session(uint64_t id, std::unique_ptr<Stream> stream, std::unique_ptr<Stream> transfer_stream,
          const OpRegistry* registry, SessionOptions options,
          std::function<void(v1::ServerMessage)> reply);
  ~Session();  // stops the executor, frees every array

  uint64_t id() const { return id_; }
  // The secret that Upload/Download requests must present.
  const std::string& token() const { return token_; }

  // Queues a client message for the executor. Never blocks on the work.
  // False when the queue is now full: the caller should read no more until
  // `resume` runs (on the executor thread, once the queue is half empty).
  bool Enqueue(v1::ClientMessage message, std::function<void()> resume = nullptr);
  // Runs the message on the calling thread when the executor has nothing
  // queued or running (the order is the same either way), else queues it,
  // waiting while the queue is full (backpressure on the reader).
  // For a transport whose reader thread may block on the work: it saves the
  // hand-off to the executor thread, a wake-up on every round trip.
  void RunOrEnqueue(v1::ClientMessage message);
  // Stops the executor after the message it is running; queued messages are
  // dropped. `done` runs on the executor thread once it has stopped.
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

  // Runs one message now, on the calling thread (the executor; tests).
  void Run(const v1::ClientMessage& message);

 private:
  struct Entry {
    View view;
    std::shared_ptr<const v1::OpError> error;  // set when poisoned
  };

  void ExecutorLoop();
  absl::Status RunOp(const v1::Op& op, uint64_t op_index,
                     std::shared_ptr<const v1::OpError>* inherited);
  void Poison(const v1::Op& op, std::shared_ptr<const v1::OpError> error);
  v1::ServerMessage Sync(const v1::Sync& sync);
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(Stream* stream, size_t nbytes);
  absl::StatusOr<View> MakeContiguous(const View& view);

  const uint64_t id_;
  const std::string token_;
  std::unique_ptr<Stream> stream_;           // executor thread only
  // Attached by the reader (under mu_), used by the executor.
  std::unique_ptr<SharedMemoryMap> shared_memory_;
  std::unique_ptr<Stream> transfer_stream_;  // upload/download, under transfer_mu_
  const OpRegistry* registry_;
  const SessionOptions options_;
  std::function<void(v1::ServerMessage)> reply_;
  std::shared_ptr<MemoryAccount> memory_;  // outlives the session in its buffers
  uint64_t op_count_ = 0;  // executor thread only
  // Whether the stream may have work not known to be done: set by ops,
  // cleared by a wait (a synchronize, or a fetch's copy to the host, which
  // waits for everything queued before it). Executor thread only.
  bool stream_busy_ = false;
  std::vector<std::shared_ptr<const v1::OpError>> pending_errors_;  // executor thread only

  absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, Entry> handles_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, View> staged_ ABSL_GUARDED_BY(mu_);  // large fetches
  std::deque<v1::ClientMessage> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<bool> stop_now_{false};  // stopping_, read between ops unlocked
  std::function<void()> resume_ ABSL_GUARDED_BY(mu_);  // see Enqueue
  bool running_ ABSL_GUARDED_BY(mu_) = false;  // a message is being run
  std::function<void()> on_stopped_ ABSL_GUARDED_BY(mu_);
  absl::Mutex transfer_mu_;
  std::thread executor_;
};

}  // namespace arrayd

#endif  // ARRAYD_SESSION_SESSION_H_

// Same-host fast path for the op stream. A client on this host can carry
// its OpStream messages over a unix stream socket as length-prefixed frames
// instead of gRPC: the messages, sessions and semantics are the OpStream's,
// only the framing is cheaper (a Python gRPC stream costs ~100-200 us per
// round trip; a socket write and read a few). Bulk data stays on gRPC.
//
// Deviation from DESIGN.md's "one gRPC stream per session", for latency:
// see Capabilities.local_op_socket in the proto.
#ifndef ARRAYD_RPC_LOCAL_TRANSPORT_H_
#define ARRAYD_RPC_LOCAL_TRANSPORT_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/synchronization/mutex.h"
#include "rpc/service.h"

namespace arrayd {

// Thread-safe. One thread accepts; one thread per connection reads frames
// and runs them on its session (or queues them behind the session's
// executor when it is busy); replies go back on the same socket.
class LocalTransport {
 public:
  // Listens on the unix socket `path` (replacing a stale one). A connection
  // polls for its next frame for `poll` before a blocking read (0: block at
  // once): a client's prompt next request then costs no thread wake-up.
  // A frame larger than `max_frame_bytes` ends its connection (checked
  // from the header, before anything is allocated).
  static absl::StatusOr<std::unique_ptr<LocalTransport>> Listen(
      const std::string& path, ArraydService* service,
      absl::Duration poll = absl::Microseconds(50), uint32_t max_frame_bytes = 256u << 20);
  ~LocalTransport();  // Shutdown()
  // Stops accepting and ends every connection (their sessions are freed).
  void Shutdown();
  const std::string& path() const { return path_; }

 private:
  LocalTransport(std::string path, int listen_fd, ArraydService* service, absl::Duration poll,
                 uint32_t max_frame_bytes);
  void AcceptLoop();
  void Serve(int fd);

  const std::string path_;
  const int listen_fd_;
  ArraydService* service_;
  const absl::Duration poll_;
  const uint32_t max_frame_bytes_;
  std::thread acceptor_;
  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<int> connections_ ABSL_GUARDED_BY(mu_);
  int active_ ABSL_GUARDED_BY(mu_) = 0;  // connection threads (detached) still running
};

}  // namespace arrayd

#endif  // ARRAYD_RPC_LOCAL_TRANSPORT_H_

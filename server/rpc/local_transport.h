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

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "rpc/service.h"

namespace arrayd {

// Thread-safe. One thread accepts. Connections have no thread of their
// own: they wait on the service's worker pool (its epoll set), and the
// worker that finds one readable reads its frames and runs them on the
// session at once when it is idle (else queues them for the pool); replies
// go back on the same socket.
class LocalTransport {
 public:
  // Listens on the unix socket `path` (replacing a stale one). After a
  // frame the worker polls the connection for its next one for `poll`
  // (0: not at all) while the pool has idle workers: a client's prompt
  // next request then costs no thread wake-up.
  // A frame larger than `max_frame_bytes` ends its connection (checked
  // from the header, before anything is allocated).
  static absl::StatusOr<std::unique_ptr<LocalTransport>> Listen(
      const std::string& path, ArraydService* service, absl::Duration poll = absl::Microseconds(50),
      uint32_t max_frame_bytes = 256u << 20);
  ~LocalTransport();  // Shutdown()
  // Stops accepting and ends every connection (their sessions are freed).
  void Shutdown();
  const std::string& path() const { return path_; }

 private:
  class Connection;

  LocalTransport(std::string path, int listen_fd, ArraydService* service, absl::Duration poll,
                 uint32_t max_frame_bytes);
  void AcceptLoop();
  // A connection that ended and whose session has stopped: closed, freed.
  void Remove(Connection* connection);

  const std::string path_;
  const int listen_fd_;
  ArraydService* service_;
  const absl::Duration poll_;
  const uint32_t max_frame_bytes_;
  std::thread acceptor_;
  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<Connection*, std::unique_ptr<Connection>> connections_ ABSL_GUARDED_BY(mu_);
};

}  // namespace arrayd

#endif  // ARRAYD_RPC_LOCAL_TRANSPORT_H_

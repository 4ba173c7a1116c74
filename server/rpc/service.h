// The gRPC service (callback API): capabilities, health, the per-session op
// stream, and chunked upload/download. Internal absl::Status values become
// gRPC codes in one place (ToGrpcStatus).
#ifndef ARRAYD_RPC_SERVICE_H_
#define ARRAYD_RPC_SERVICE_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "arrayd/v1/arrayd.grpc.pb.h"
#include "backend/backend.h"
#include "ops/registry.h"
#include "session/session.h"

namespace arrayd {

inline constexpr char kVersion[] = "0.1.0";

grpc::Status ToGrpcStatus(const absl::Status& status);

struct ServiceOptions {
  uint64_t session_quota_bytes = 0;  // per session; 0: none
  uint64_t tenant_quota_bytes = 0;   // all sessions of one tenant together; 0: none
  uint64_t server_quota_bytes = 0;   // all sessions together; 0: none
  uint64_t max_array_bytes = 0;      // one array; 0: none
  uint64_t max_inline_bytes = 1 << 20;
  uint64_t chunk_bytes = 4 << 20;
  size_t max_sessions = 1024;            // open at once, in all
  size_t max_sessions_per_tenant = 256;  // open at once, per tenant
  bool allow_user_kernels = false;       // --allow-user-kernels
  std::string local_op_socket;           // advertised in Capabilities when set
  // Threads that run sessions and read the same-host socket (--workers);
  // 0: one per core.
  size_t workers = 0;
  // Bearer tokens and the tenant each names (--auth-tokens). Empty: no
  // authentication; a session's tenant is then "anonymous", or "uid:N" for
  // the local user on the same-host socket (SO_PEERCRED).
  absl::flat_hash_map<std::string, std::string> tokens;
};

// Who opened a session: its tenant (quotas and session caps are per
// tenant) and what the transport knows of the other end (for the logs).
struct Peer {
  std::string tenant;
  std::string description;
  int64_t pid = 0;  // the client's process when the transport knows it (SO_PEERCRED)
  // Ends the session's connection (Admin.CloseSession): called under the
  // service's lock while the session is open, so the transport is alive.
  std::function<void()> end;
};

// The token file of --auth-tokens: one "TOKEN TENANT" per line ('#' starts
// a comment). InvalidArgument on a malformed line, a repeated token or none.
absl::StatusOr<absl::flat_hash_map<std::string, std::string>> ParseTokenFile(
    const std::string& text);

// Thread-safe.
class ArraydService final : public v1::Arrayd::CallbackService {
 public:
  ArraydService(Backend* backend, const OpRegistry* registry, ServiceOptions options);

  grpc::ServerUnaryReactor* GetCapabilities(grpc::CallbackServerContext* context,
                                            const v1::GetCapabilitiesRequest* request,
                                            v1::Capabilities* response) override;
  grpc::ServerUnaryReactor* Health(grpc::CallbackServerContext* context,
                                   const v1::HealthRequest* request,
                                   v1::HealthResponse* response) override;
  grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage>* OpStream(
      grpc::CallbackServerContext* context) override;
  grpc::ServerReadReactor<v1::UploadChunk>* Upload(grpc::CallbackServerContext* context,
                                                   v1::UploadResponse* response) override;
  grpc::ServerWriteReactor<v1::DownloadChunk>* Download(
      grpc::CallbackServerContext* context, const v1::DownloadRequest* request) override;

  // Sessions open now.
  size_t num_sessions();
  // Refuses new sessions (draining).
  void StartDraining() { draining_ = true; }

  // The tenant of a gRPC call: "anonymous" without authentication, else the
  // one its `authorization: Bearer TOKEN` metadata names (UNAUTHENTICATED
  // when missing or unknown).
  absl::StatusOr<std::string> Authenticate(const grpc::CallbackServerContext* context) const;
  // The tenant of `token` (same-host socket: OpenSession.auth_token), or
  // `fallback` when authentication is off; UNAUTHENTICATED when unknown.
  absl::StatusOr<std::string> TenantOfToken(const std::string& token,
                                            const std::string& fallback) const;
  bool authentication() const { return !options_.tokens.empty(); }

  // Used by the reactors. RESOURCE_EXHAUSTED past a session cap.
  absl::StatusOr<std::shared_ptr<Session>> OpenSession(
      const v1::OpenSession& open, const Peer& peer, std::function<void(v1::ServerMessage)> reply);
  void CloseSession(uint64_t id);
  // The SessionOpened message that answers a session's open.
  v1::ServerMessage OpenedReply(const Session& session);
  // The session `id` when `token` is its secret, else nullptr.
  std::shared_ptr<Session> FindSession(uint64_t id, const std::string& token);
  const ServiceOptions& options() const { return options_; }
  // Random id of this server process (Capabilities.server_id).
  const std::string& server_id() const { return server_id_; }
  Backend* backend() { return backend_; }
  bool draining() const { return draining_.load(); }

  // The admin's view (AdminService): the server and its sessions.
  v1::ServerInfo Info();
  v1::SessionList Sessions();
  // Ends session `id`'s connection; false when there is none.
  bool EndSession(uint64_t id);
  // Runs of every op (by OpDef::index) in all sessions since the start.
  std::vector<uint64_t> OpCounts();
  const OpRegistry* registry() const { return registry_; }
  // Runs every session's messages; the same-host socket's connections wait
  // on it too.
  WorkerPool* workers() { return workers_.get(); }

 private:
  Backend* backend_;
  const OpRegistry* registry_;
  const ServiceOptions options_;
  const std::string server_id_;
  std::atomic<bool> draining_{false};
  std::atomic<uint64_t> next_session_id_{1};
  const std::shared_ptr<MemoryAccount> server_memory_;
  // Before sessions_: a session that goes waits for its turn to end.
  const std::unique_ptr<WorkerPool> workers_;
  struct Tenant {
    std::shared_ptr<MemoryAccount> memory;
    size_t sessions = 0;
  };
  // What the admin's session list shows beside the session's own numbers.
  struct SessionMeta {
    std::string tenant;
    std::string client_name;
    std::string peer;
    int64_t pid = 0;
    absl::Time opened;
    std::function<void()> end;
  };
  const absl::Time started_ = absl::Now();
  std::atomic<uint64_t> sessions_opened_{0};
  absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, std::shared_ptr<Session>> sessions_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, SessionMeta> session_meta_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> closed_op_counts_ ABSL_GUARDED_BY(mu_);  // of closed sessions
  absl::flat_hash_map<std::string, Tenant> tenants_ ABSL_GUARDED_BY(mu_);
};

}  // namespace arrayd

#endif  // ARRAYD_RPC_SERVICE_H_

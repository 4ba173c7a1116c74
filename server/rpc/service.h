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
  uint64_t session_quota_bytes = 0;
  uint64_t max_inline_bytes = 1 << 20;
  uint64_t chunk_bytes = 4 << 20;
  std::string local_op_socket;  // advertised in Capabilities when set
};

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

  // Used by the reactors.
  absl::StatusOr<std::shared_ptr<Session>> OpenSession(
      const v1::OpenSession& open, std::function<void(v1::ServerMessage)> reply);
  void CloseSession(uint64_t id);
  // The session `id` when `token` is its secret, else nullptr.
  std::shared_ptr<Session> FindSession(uint64_t id, const std::string& token);
  const ServiceOptions& options() const { return options_; }
  // Random id of this server process (Capabilities.server_id).
  const std::string& server_id() const { return server_id_; }
  Backend* backend() { return backend_; }

 private:
  Backend* backend_;
  const OpRegistry* registry_;
  const ServiceOptions options_;
  const std::string server_id_;
  std::atomic<bool> draining_{false};
  std::atomic<uint64_t> next_session_id_{1};
  absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, std::shared_ptr<Session>> sessions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace arrayd

#endif  // ARRAYD_RPC_SERVICE_H_

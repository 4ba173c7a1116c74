// The Admin gRPC service (arrayd.proto): the server and its sessions for an
// operator (python -m arrayd status, sessions, top, kill, drain). With
// --auth-tokens only the tenant "admin" may call it; without, only clients
// of the unix socket (a loopback TCP port is open to every local user).
#ifndef ARRAYD_RPC_ADMIN_H_
#define ARRAYD_RPC_ADMIN_H_

#include <functional>

#include "arrayd/v1/arrayd.grpc.pb.h"
#include "rpc/service.h"

namespace arrayd {

// The tenant whose tokens may call Admin (a line "TOKEN admin" of the
// --auth-tokens file).
inline constexpr char kAdminTenant[] = "admin";

class AdminService : public v1::Admin::CallbackService {
 public:
  // `drain` starts the server's drain (as SIGTERM does).
  AdminService(ArraydService* service, std::function<void()> drain)
      : service_(service), drain_(std::move(drain)) {}

  grpc::ServerUnaryReactor* GetServerInfo(grpc::CallbackServerContext* context,
                                          const v1::ServerInfoRequest* request,
                                          v1::ServerInfo* response) override;
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* context,
                                         const v1::ListSessionsRequest* request,
                                         v1::SessionList* response) override;
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context,
                                         const v1::CloseSessionRequest* request,
                                         v1::CloseSessionReply* response) override;
  grpc::ServerUnaryReactor* Drain(grpc::CallbackServerContext* context,
                                  const v1::DrainRequest* request,
                                  v1::DrainReply* response) override;

 private:
  // OK for the admin (anyone when authentication is off).
  absl::Status Check(grpc::CallbackServerContext* context) const;

  ArraydService* service_;
  std::function<void()> drain_;
};

}  // namespace arrayd

#endif  // ARRAYD_RPC_ADMIN_H_

#include "rpc/admin.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace arrayd {
namespace {

// Runs `fill` for an admin (else finishes with the refusal).
template <typename Fill>
grpc::ServerUnaryReactor* Answer(grpc::CallbackServerContext* context, absl::Status allowed,
                                 Fill fill) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (!allowed.ok()) {
    reactor->Finish(ToGrpcStatus(allowed));
    return reactor;
  }
  fill();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace

absl::Status AdminService::Check(grpc::CallbackServerContext* context) const {
  if (!service_->authentication()) {
    // Without tokens only the unix socket, which its directory's
    // permissions keep to the server's user, may drain or close sessions:
    // a loopback TCP port is open to every local user.
    if (absl::StartsWith(context->peer(), "unix:")) return absl::OkStatus();
    return absl::PermissionDeniedError(
        "the Admin service over TCP needs --auth-tokens (a token of the tenant 'admin'); "
        "without tokens use the server's unix socket");
  }
  absl::StatusOr<std::string> tenant = service_->Authenticate(context);
  if (!tenant.ok()) return tenant.status();
  if (*tenant != kAdminTenant) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the Admin service needs a token of the tenant '", kAdminTenant, "' (this one is '",
        *tenant, "''s)"));
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* AdminService::GetServerInfo(grpc::CallbackServerContext* context,
                                                      const v1::ServerInfoRequest*,
                                                      v1::ServerInfo* response) {
  return Answer(context, Check(context), [&] { *response = service_->Info(); });
}

grpc::ServerUnaryReactor* AdminService::ListSessions(grpc::CallbackServerContext* context,
                                                     const v1::ListSessionsRequest*,
                                                     v1::SessionList* response) {
  return Answer(context, Check(context), [&] { *response = service_->Sessions(); });
}

grpc::ServerUnaryReactor* AdminService::CloseSession(grpc::CallbackServerContext* context,
                                                     const v1::CloseSessionRequest* request,
                                                     v1::CloseSessionReply* response) {
  return Answer(context, Check(context),
                [&] { response->set_closed(service_->EndSession(request->session_id())); });
}

grpc::ServerUnaryReactor* AdminService::Drain(grpc::CallbackServerContext* context,
                                              const v1::DrainRequest*, v1::DrainReply*) {
  return Answer(context, Check(context), [&] { drain_(); });
}

}  // namespace arrayd

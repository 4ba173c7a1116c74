#include "rpc/service.h"

#include <algorithm>
#include <deque>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status.h"
#include "spdlog/spdlog.h"

namespace arrayd {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

namespace {

void ToProto(const DeviceDescription& d, v1::DeviceInfo* info) {
  info->set_backend(d.backend);
  info->set_index(d.index);
  info->set_name(d.name);
  info->set_total_memory(d.total_memory);
  info->set_compute_major(d.compute_major);
  info->set_compute_minor(d.compute_minor);
  info->set_multiprocessor_count(d.multiprocessor_count);
  info->set_max_threads_per_block(d.max_threads_per_block);
  info->set_warp_size(d.warp_size);
  info->set_shared_memory_per_block(d.shared_memory_per_block);
  info->set_l2_cache_bytes(d.l2_cache_bytes);
  info->set_clock_rate_khz(d.clock_rate_khz);
  info->set_pci_bus_id(d.pci_bus_id);
}


// One session's op stream. Reads client messages and queues them on the
// session; the worker that runs the session sends sync replies through
// Send(). The
// stream ends when the client closes it or the connection drops; then the
// session stops and every array it owns is freed.
class OpStreamReactor : public grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage> {
 public:
  OpStreamReactor(ArraydService* service, grpc::CallbackServerContext* context)
      : service_(service), context_(context) {
    StartRead(&in_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      EndSession();
      return;
    }
    if (in_.segments_size() > 0) {
      FinishOnce(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              "shared memory segments come only over the same-host socket"));
      return;
    }
    if (!session_) {
      auto tenant = service_->Authenticate(context_);
      if (!tenant.ok()) {
        FinishOnce(ToGrpcStatus(tenant.status()));
        return;
      }
      if (!in_.has_open()) {
        FinishOnce(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                                "the first message on an op stream must open the session"));
        return;
      }
      // Admin.CloseSession cancels the call; the client sees its stream end.
      Peer peer{*tenant, context_->peer(), 0, [context = context_] { context->TryCancel(); }};
      auto session = service_->OpenSession(in_.open(), peer,
                                           [this](v1::ServerMessage m) { Send(std::move(m)); });
      if (!session.ok()) {
        FinishOnce(ToGrpcStatus(session.status()));
        return;
      }
      session_ = *std::move(session);
      Send(service_->OpenedReply(*session_));
      in_.clear_open();
    }
    if (!CarriesWork(in_)) {
      ReadNext();
      return;
    }
    // Backpressure: while the session's queue is full no read is started,
    // so the client's stream (its flow control window) fills and it waits.
    paused_ = true;
    if (session_->Enqueue(std::move(in_), [this] { Resume(); })) Resume();
  }

  void OnCancel() override {
    if (paused_.exchange(false)) EndSession();
  }

  void OnWriteDone(bool ok) override {
    std::optional<grpc::Status> finish;
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      if (!ok) out_.clear();
      if (!out_.empty()) {
        current_ = std::move(out_.front());
        out_.pop_front();
        writing_ = true;
        StartWrite(&current_);
      } else {
        finish = finish_status_;
      }
    }
    // Outside the lock: Finish may run OnDone, which deletes this reactor.
    if (finish) Finish(*finish);
  }

  void OnDone() override {
    if (session_) service_->CloseSession(session_->id());
    session_.reset();
    delete this;
  }

 private:
  void ReadNext() {
    in_.Clear();
    StartRead(&in_);
  }
  void Resume() {
    if (paused_.exchange(false)) ReadNext();
  }

  void Send(v1::ServerMessage message) {
    absl::MutexLock lock(&mu_);
    if (finish_status_) return;
    if (writing_) {
      out_.push_back(std::move(message));
      return;
    }
    current_ = std::move(message);
    writing_ = true;
    StartWrite(&current_);
  }

  void FinishOnce(grpc::Status status) {
    {
      absl::MutexLock lock(&mu_);
      if (finish_status_) return;
      finish_status_ = status;
      if (writing_) return;  // OnWriteDone finishes
    }
    // Outside the lock: Finish may run OnDone, which deletes this reactor.
    Finish(status);
  }

  void EndSession() {
    if (!session_) {
      FinishOnce(grpc::Status::OK);
      return;
    }
    session_->Stop([this] { FinishOnce(grpc::Status::OK); });
  }

  ArraydService* service_;
  grpc::CallbackServerContext* context_;
  v1::ClientMessage in_;
  std::shared_ptr<Session> session_;
  std::atomic<bool> paused_{false};  // no read started: the session's queue is full
  absl::Mutex mu_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  v1::ServerMessage current_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::ServerMessage> out_ ABSL_GUARDED_BY(mu_);
  std::optional<grpc::Status> finish_status_ ABSL_GUARDED_BY(mu_);
};

// Upload: the first chunk names the session, handle, dtype and shape; the
// data follows in order. The handle is bound once every byte has arrived.
class UploadReactor : public grpc::ServerReadReactor<v1::UploadChunk> {
 public:
  UploadReactor(ArraydService* service, v1::UploadResponse* response, absl::Status auth)
      : service_(service), response_(response) {
    if (!auth.ok()) {
      Finish(ToGrpcStatus(auth));
      return;
    }
    StartRead(&chunk_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      if (!session_) {
        Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "upload: no data"));
      } else if (received_ != static_cast<uint64_t>(array_.nbytes())) {
        Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            absl::StrCat("upload: got ", received_, " of ", array_.nbytes(), " bytes")));
      } else {
        absl::Status bound = session_->Bind(handle_, array_);
        response_->set_bytes_received(received_);
        Finish(ToGrpcStatus(bound));
      }
      return;
    }
    absl::Status status = Take();
    if (!status.ok()) {
      Finish(ToGrpcStatus(status));
      return;
    }
    StartRead(&chunk_);
  }

  void OnDone() override { delete this; }

 private:
  absl::Status Take() {
    if (!session_) {
      session_ = service_->FindSession(chunk_.session_id(), chunk_.session_token());
      if (!session_) {
        return absl::NotFoundError(absl::StrCat("unknown session ", chunk_.session_id()));
      }
      handle_ = chunk_.handle();
      ARRAYD_ASSIGN_OR_RETURN(DType dtype, DTypeFromWire(chunk_.dtype()));
      Shape shape(chunk_.shape().begin(), chunk_.shape().end());
      for (int64_t d : shape) {
        if (d < 0) return ValueError("negative dimensions are not allowed");
      }
      ARRAYD_ASSIGN_OR_RETURN(array_, session_->NewUploadArray(dtype, std::move(shape)));
    }
    ARRAYD_RETURN_IF_ERROR(session_->WriteBytes(array_, received_, chunk_.data()));
    received_ += chunk_.data().size();
    return absl::OkStatus();
  }

  ArraydService* service_;
  v1::UploadResponse* response_;
  v1::UploadChunk chunk_;
  std::shared_ptr<Session> session_;
  uint64_t handle_ = 0;
  View array_;
  uint64_t received_ = 0;
};

class DownloadReactor : public grpc::ServerWriteReactor<v1::DownloadChunk> {
 public:
  DownloadReactor(ArraydService* service, const v1::DownloadRequest* request, absl::Status auth)
      : chunk_bytes_(service->options().chunk_bytes) {
    if (!auth.ok()) {
      Finish(ToGrpcStatus(auth));
      return;
    }
    session_ = service->FindSession(request->session_id(), request->session_token());
    if (!session_) {
      Finish(grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("unknown session ", request->session_id())));
      return;
    }
    auto view = session_->DownloadView(request->handle());
    if (!view.ok()) {
      Finish(ToGrpcStatus(view.status()));
      return;
    }
    view_ = *view;
    chunk_.set_dtype(static_cast<v1::DType>(view_.dtype));
    for (int64_t d : view_.shape) chunk_.add_shape(d);
    chunk_.set_total_bytes(static_cast<uint64_t>(view_.nbytes()));
    Next();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "download cancelled"));
      return;
    }
    chunk_.Clear();
    Next();
  }

  void OnDone() override { delete this; }

 private:
  void Next() {
    uint64_t total = static_cast<uint64_t>(view_.nbytes());
    if (sent_ >= total && sent_any_) {
      Finish(grpc::Status::OK);
      return;
    }
    uint64_t n = std::min(chunk_bytes_, total - sent_);
    absl::Status status = session_->ReadBytes(view_, sent_, n, chunk_.mutable_data());
    if (!status.ok()) {
      Finish(ToGrpcStatus(status));
      return;
    }
    sent_ += n;
    sent_any_ = true;
    StartWrite(&chunk_);
  }

  uint64_t chunk_bytes_;
  std::shared_ptr<Session> session_;
  View view_;
  v1::DownloadChunk chunk_;
  uint64_t sent_ = 0;
  bool sent_any_ = false;
};

// Capabilities' form of an op's signature (ops/signature.h).
void FillSignature(const OpSignature& sig, v1::OpSignature* out) {
  out->set_family(static_cast<v1::OpFamily>(static_cast<int>(sig.family) + 1));
  for (const std::string& in : sig.inputs) out->add_inputs(in);
  out->set_variadic(sig.variadic);
  for (const std::string& o : sig.outputs) out->add_outputs(o);
  for (const AttrSpec& a : sig.attrs) {
    v1::AttrSignature* attr = out->add_attrs();
    attr->set_name(a.name);
    attr->set_type(a.type);
    attr->set_optional(a.optional);
    attr->set_default_value(a.default_value);
  }
  for (const std::string& loop : sig.loops) out->add_loops(loop);
  out->set_identity(sig.identity);
  out->set_doc(sig.doc);
  out->set_module(sig.module);
  out->set_schema(sig.schema);
}

}  // namespace

absl::StatusOr<absl::flat_hash_map<std::string, std::string>> ParseTokenFile(
    const std::string& text) {
  absl::flat_hash_map<std::string, std::string> tokens;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (fields.empty()) continue;
    if (fields.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("token file line ", line_number, ": expected 'TOKEN TENANT'"));
    }
    if (fields[0].size() < 16) {
      return absl::InvalidArgumentError(
          absl::StrCat("token file line ", line_number, ": a token has at least 16 characters"));
    }
    if (!tokens.emplace(fields[0], fields[1]).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("token file line ", line_number, ": the token is listed twice"));
    }
  }
  if (tokens.empty()) return absl::InvalidArgumentError("the token file lists no token");
  return tokens;
}

ArraydService::ArraydService(Backend* backend, const OpRegistry* registry, ServiceOptions options)
    : backend_(backend),
      registry_(registry),
      options_(std::move(options)),
      server_id_(RandomToken()),
      server_memory_(std::make_shared<MemoryAccount>("the server's memory cap",
                                                     options_.server_quota_bytes)),
      workers_(std::make_unique<WorkerPool>(options_.workers)) {}

absl::StatusOr<std::string> ArraydService::TenantOfToken(const std::string& token,
                                                         const std::string& fallback) const {
  if (!authentication()) return fallback;
  auto it = options_.tokens.find(token);
  if (token.empty() || it == options_.tokens.end()) {
    return absl::UnauthenticatedError(
        "arrayd needs a valid token (ARRAYD_TOKEN, or connect(token=...))");
  }
  return it->second;
}

absl::StatusOr<std::string> ArraydService::Authenticate(
    const grpc::CallbackServerContext* context) const {
  if (!authentication()) return std::string("anonymous");
  const auto& metadata = context->client_metadata();
  auto it = metadata.find("authorization");
  std::string token;
  if (it != metadata.end()) {
    absl::string_view value(it->second.data(), it->second.size());
    if (absl::ConsumePrefix(&value, "Bearer ")) token = std::string(value);
  }
  return TenantOfToken(token, "");
}

grpc::ServerUnaryReactor* ArraydService::GetCapabilities(grpc::CallbackServerContext* context,
                                                         const v1::GetCapabilitiesRequest*,
                                                         v1::Capabilities* response) {
  auto* reactor = context->DefaultReactor();
  if (auto tenant = Authenticate(context); !tenant.ok()) {
    reactor->Finish(ToGrpcStatus(tenant.status()));
    return reactor;
  }
  response->set_version(kVersion);
  for (const std::string& b : CompiledBackends()) response->add_backends(b);
  response->set_active_backend(backend_->name());
  for (const DeviceDescription& d : backend_->Devices()) ToProto(d, response->add_devices());
  for (int i = 1; i <= kNumDTypes; ++i) {
    response->add_dtypes(std::string(DTypeName(static_cast<DType>(i))));
  }
  for (const auto& [name, def] : registry_->ops()) {
    v1::OpInfo* op = response->add_ops();
    op->set_name(name);
    op->set_num_inputs(def.num_inputs);
    op->set_num_outputs(def.num_outputs);
    for (const std::string& a : def.attrs) op->add_attrs(a);
    op->set_doc(def.doc);
    // Ops are written against the Stream interface, which every compiled
    // backend implements in full.
    for (const std::string& b : CompiledBackends()) op->add_backends(b);
    FillSignature(def.sig, op->mutable_signature());
  }
  response->set_max_inline_bytes(options_.max_inline_bytes);
  response->set_local_op_socket(options_.local_op_socket);
  response->set_server_id(server_id_);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* ArraydService::Health(grpc::CallbackServerContext* context,
                                                const v1::HealthRequest*,
                                                v1::HealthResponse* response) {
  auto* reactor = context->DefaultReactor();
  if (auto tenant = Authenticate(context); !tenant.ok()) {
    reactor->Finish(ToGrpcStatus(tenant.status()));
    return reactor;
  }
  absl::Status health = backend_->Health();
  if (draining_) health = absl::UnavailableError("draining");
  response->set_status(health.ok() ? v1::HealthResponse::STATUS_SERVING
                                   : v1::HealthResponse::STATUS_NOT_SERVING);
  response->set_message(health.ok() ? "serving" : std::string(health.message()));
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage>* ArraydService::OpStream(
    grpc::CallbackServerContext* context) {
  return new OpStreamReactor(this, context);
}

grpc::ServerReadReactor<v1::UploadChunk>* ArraydService::Upload(
    grpc::CallbackServerContext* context, v1::UploadResponse* response) {
  return new UploadReactor(this, response, Authenticate(context).status());
}

grpc::ServerWriteReactor<v1::DownloadChunk>* ArraydService::Download(
    grpc::CallbackServerContext* context, const v1::DownloadRequest* request) {
  return new DownloadReactor(this, request, Authenticate(context).status());
}

absl::StatusOr<std::shared_ptr<Session>> ArraydService::OpenSession(
    const v1::OpenSession& open, const Peer& peer,
    std::function<void(v1::ServerMessage)> reply) {
  if (draining_) return absl::UnavailableError("the server is shutting down");
  ARRAYD_RETURN_IF_ERROR(backend_->Health());
  uint64_t id = 0;
  SessionOptions options;
  {
    absl::MutexLock lock(&mu_);
    if (sessions_.size() >= options_.max_sessions) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the server has ", sessions_.size(), " sessions open, its limit (--max-sessions)"));
    }
    Tenant& tenant = tenants_[peer.tenant];
    if (tenant.sessions >= options_.max_sessions_per_tenant) {
      return absl::ResourceExhaustedError(
          absl::StrCat("tenant '", peer.tenant, "' has ", tenant.sessions,
                       " sessions open, its limit (--max-sessions-per-tenant)"));
    }
    if (!tenant.memory) {
      tenant.memory = std::make_shared<MemoryAccount>(
          absl::StrCat("tenant '", peer.tenant, "''s quota"), options_.tenant_quota_bytes,
          server_memory_);
    }
    ++tenant.sessions;
    id = next_session_id_++;
    // Reserved under the lock, so that the caps hold; bound below.
    sessions_[id] = nullptr;
    SessionMeta& meta = session_meta_[id];
    meta.tenant = peer.tenant;
    meta.client_name = open.client_name();
    meta.peer = peer.description;
    meta.pid = peer.pid != 0 ? peer.pid : open.client_pid();
    meta.opened = absl::Now();
    meta.end = peer.end;
    options.tenant = tenant.memory;
  }
  auto stream = backend_->CreateStream();
  if (!stream.ok()) {
    CloseSession(id);
    return stream.status();
  }
  auto transfer = backend_->CreateStream();
  if (!transfer.ok()) {
    CloseSession(id);
    return transfer.status();
  }
  options.quota_bytes = open.quota_bytes() != 0 ? open.quota_bytes() : options_.session_quota_bytes;
  if (options_.session_quota_bytes != 0) {
    options.quota_bytes = std::min(options.quota_bytes, options_.session_quota_bytes);
  }
  options.quota_cap_bytes = options_.session_quota_bytes;
  options.max_inline_bytes = options_.max_inline_bytes;
  options.max_array_bytes = options_.max_array_bytes;
  options.backend = backend_;
  options.allow_user_kernels = options_.allow_user_kernels;
  options.workers = workers_.get();
  auto session = std::make_shared<Session>(id, *std::move(stream), *std::move(transfer), registry_,
                                           options, std::move(reply));
  {
    absl::MutexLock lock(&mu_);
    sessions_[id] = session;
  }
  ++sessions_opened_;
  spdlog::info("session {} opened (client '{}', tenant '{}', {})", id, open.client_name(),
               peer.tenant, peer.description);
  return session;
}

v1::ServerMessage ArraydService::OpenedReply(const Session& session) {
  v1::ServerMessage reply;
  reply.mutable_opened()->set_session_id(session.id());
  reply.mutable_opened()->set_backend(backend_->name());
  reply.mutable_opened()->set_session_token(session.token());
  reply.mutable_opened()->set_server_id(server_id_);
  return reply;
}

void ArraydService::CloseSession(uint64_t id) {
  std::shared_ptr<Session> session;
  {
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    session = std::move(it->second);
    sessions_.erase(it);
    if (session) session->AddOpCounts(&closed_op_counts_);
    auto meta = session_meta_.find(id);
    if (meta != session_meta_.end()) {
      --tenants_[meta->second.tenant].sessions;
      session_meta_.erase(meta);
    }
  }
  spdlog::info("session {} closed", id);
}

std::shared_ptr<Session> ArraydService::FindSession(uint64_t id, const std::string& token) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || !it->second || it->second->token() != token) return nullptr;
  return it->second;
}

size_t ArraydService::num_sessions() {
  absl::MutexLock lock(&mu_);
  return sessions_.size();
}

v1::ServerInfo ArraydService::Info() {
  v1::ServerInfo info;
  info.set_version(kVersion);
  info.set_backend(backend_->name());
  info.set_server_id(server_id_);
  info.set_uptime_s(absl::ToDoubleSeconds(absl::Now() - started_));
  info.set_draining(draining_.load());
  info.set_server_quota_bytes(options_.server_quota_bytes);
  info.set_sessions_opened(sessions_opened_.load());
  uint64_t bytes = 0;
  {
    absl::MutexLock lock(&mu_);
    info.set_sessions(static_cast<uint32_t>(sessions_.size()));
    for (const auto& [id, session] : sessions_) {
      if (session) bytes += session->bytes_in_use();
    }
  }
  info.set_bytes_in_use(bytes);
  for (const DeviceDescription& d : backend_->Devices()) ToProto(d, info.add_devices());
  return info;
}

v1::SessionList ArraydService::Sessions() {
  std::vector<std::pair<std::shared_ptr<Session>, SessionMeta>> open;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, session] : sessions_) {
      auto meta = session_meta_.find(id);
      if (session && meta != session_meta_.end()) open.emplace_back(session, meta->second);
    }
  }
  std::sort(open.begin(), open.end(),
            [](const auto& a, const auto& b) { return a.first->id() < b.first->id(); });
  v1::SessionList list;
  const absl::Time now = absl::Now();
  for (const auto& [session, meta] : open) {
    v1::SessionInfo* s = list.add_sessions();
    s->set_id(session->id());
    s->set_client_name(meta.client_name);
    s->set_pid(meta.pid);
    s->set_tenant(meta.tenant);
    s->set_peer(meta.peer);
    s->set_bytes_in_use(session->bytes_in_use());
    s->set_arrays(session->num_arrays());
    s->set_ops(session->ops_run());
    s->set_age_s(absl::ToDoubleSeconds(now - meta.opened));
    s->set_streams(session->num_streams());
  }
  return list;
}

std::vector<uint64_t> ArraydService::OpCounts() {
  absl::MutexLock lock(&mu_);
  std::vector<uint64_t> counts = closed_op_counts_;
  for (const auto& [id, session] : sessions_) {
    if (session) session->AddOpCounts(&counts);
  }
  return counts;
}

bool ArraydService::EndSession(uint64_t id) {
  absl::MutexLock lock(&mu_);
  auto meta = session_meta_.find(id);
  if (meta == session_meta_.end() || !meta->second.end) return false;
  spdlog::info("session {}: closed by the administrator", id);
  meta->second.end();  // under the lock: the transport has not closed it yet
  return true;
}

}  // namespace arrayd

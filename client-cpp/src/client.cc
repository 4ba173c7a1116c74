// arrayd::Client and arrayd::Array: op recording and batching on the session
// stream, client-side shape/dtype inference, deferred errors, and bulk
// transfers (inline or Upload/Download RPCs).
#include "arrayd/client.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "internal.h"

namespace arrayd {
inline namespace client {

// ---------------------------------------------------------------------------
// Array

Array::Array() = default;

const absl::Status& Array::status() const {
  return state_ ? state_->status : InvalidArrayStatus();
}

DType Array::dtype() const {
  if (state_ && state_->meta_pending) internal::ResolveMeta(*state_);
  return state_ ? state_->dtype : DType::kFloat64;
}

const Shape& Array::shape() const {
  static const Shape* const kEmpty = new Shape();
  if (state_ && state_->meta_pending) internal::ResolveMeta(*state_);
  return state_ ? state_->shape : *kEmpty;
}

uint64_t Array::handle() const { return state_ ? state_->handle : 0; }

Array Array::Sum(int64_t axis, bool keepdims) const {
  return Sum(std::vector<int64_t>{axis}, keepdims);
}

Array Array::Sum(std::optional<std::vector<int64_t>> axes, bool keepdims) const {
  return arrayd::Reduce("sum", *this, std::move(axes), keepdims);
}

Array Array::Reshape(const Shape& new_shape) const {
  if (auto bad = ArrayOps::CheckInputs("reshape", {this})) return *bad;
  const ArrayState& x = *state_;
  const int64_t size = ShapeSize(x.shape);
  Shape shape = new_shape;
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0) return Refuse(x.core, "reshape", ValueError("can only specify one unknown dimension"));
      unknown = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return Refuse(x.core, "reshape", ValueError("negative dimensions not allowed"));
    } else {
      known *= shape[i];
    }
  }
  const std::string cannot = absl::StrCat("cannot reshape array of size ", size, " into shape ",
                                          ShapeString(new_shape));
  if (unknown >= 0) {
    if (known == 0 || size % known != 0) return Refuse(x.core, "reshape", ValueError(cannot));
    shape[unknown] = size / known;
  } else if (known != size) {
    return Refuse(x.core, "reshape", ValueError(cannot));
  }
  v1::Op op;
  op.set_name("reshape");
  op.add_inputs(x.handle);
  (*op.mutable_attrs())["shape"] = IntsAttr(shape);
  return ArrayOps::Emit(x.core, std::move(op), x.dtype, std::move(shape));
}

Array Array::Astype(DType dtype) const {
  if (auto bad = ArrayOps::CheckInputs("astype", {this})) return *bad;
  v1::Op op;
  op.set_name("astype");
  op.add_inputs(state_->handle);
  (*op.mutable_attrs())["dtype"] = DTypeAttr(dtype);
  return ArrayOps::Emit(state_->core, std::move(op), dtype, state_->shape);
}

absl::Status Array::FetchInto(DType want, size_t elem_size, std::string* bytes) const {
  if (!state_) return InvalidArrayStatus();
  ArrayState& x = *state_;
  if (x.meta_pending) internal::ResolveMeta(x);
  if (!x.status.ok()) {
    if (x.core && x.error_id != 0) x.core->ForgetLocalError(x.error_id);  // reported here
    return x.status;
  }
  if (want != x.dtype) {
    return internal::WithKind(
        absl::InvalidArgumentError(absl::StrCat("ToVector: the element type is ", DTypeName(want),
                                                " but the array's dtype is ", DTypeName(x.dtype))),
        "TypeError");
  }
  Core& core = *x.core;
  absl::StatusOr<v1::SyncReply> reply = core.Sync({x.handle});
  if (!reply.ok()) return reply.status();
  if (reply->fetched_size() != 1) {
    return absl::InternalError("arrayd: the sync reply does not carry the fetched array");
  }
  const v1::Fetched& f = reply->fetched(0);
  if (f.has_error()) return internal::StatusFromOpError(f.error());
  Shape server_shape(f.shape().begin(), f.shape().end());
  if (static_cast<DType>(f.dtype()) != x.dtype || server_shape != x.shape) {
    return absl::InternalError(absl::StrCat(
        "arrayd client/server disagree: the client computed ", DTypeName(x.dtype), " ",
        ShapeString(x.shape), ", the server has ", DTypeName(static_cast<DType>(f.dtype())), " ",
        ShapeString(server_shape)));
  }
  const uint64_t nbytes = static_cast<uint64_t>(ShapeSize(x.shape)) * elem_size;
  if (f.inline_()) {
    *bytes = f.data();
  } else {
    grpc::ClientContext context;
    core.Authorize(&context);
    v1::DownloadRequest request;
    request.set_session_id(core.session_id);
    request.set_session_token(core.session_token);
    request.set_handle(x.handle);
    auto reader = core.stub->Download(&context, request);
    v1::DownloadChunk chunk;
    bytes->clear();
    bytes->reserve(nbytes);
    while (reader->Read(&chunk)) bytes->append(chunk.data());
    absl::Status status = internal::FromGrpc(reader->Finish());
    if (!status.ok()) return status;
  }
  if (bytes->size() != nbytes) {
    return absl::DataLossError(
        absl::StrCat("arrayd: received ", bytes->size(), " bytes for an array of ", nbytes));
  }
  return absl::OkStatus();
}

Array operator+(const Array& a, const Array& b) { return ArrayOps::Binary("add", a, b); }
Array operator-(const Array& a, const Array& b) { return ArrayOps::Binary("subtract", a, b); }
Array operator*(const Array& a, const Array& b) { return ArrayOps::Binary("multiply", a, b); }
Array operator/(const Array& a, const Array& b) { return ArrayOps::Binary("true_divide", a, b); }
Array operator+(const Array& a, const Scalar& b) { return ArrayOps::WithScalar("add", a, b, false); }
Array operator-(const Array& a, const Scalar& b) { return ArrayOps::WithScalar("subtract", a, b, false); }
Array operator*(const Array& a, const Scalar& b) { return ArrayOps::WithScalar("multiply", a, b, false); }
Array operator/(const Array& a, const Scalar& b) { return ArrayOps::WithScalar("true_divide", a, b, false); }
Array operator+(const Scalar& a, const Array& b) { return ArrayOps::WithScalar("add", b, a, true); }
Array operator-(const Scalar& a, const Array& b) { return ArrayOps::WithScalar("subtract", b, a, true); }
Array operator*(const Scalar& a, const Array& b) { return ArrayOps::WithScalar("multiply", b, a, true); }
Array operator/(const Scalar& a, const Array& b) { return ArrayOps::WithScalar("true_divide", b, a, true); }

// ---------------------------------------------------------------------------
// Client

namespace {

std::string OrEnv(const std::string& value, const char* name) {
  if (!value.empty()) return value;
  const char* env = std::getenv(name);
  return env != nullptr ? env : "";
}

absl::StatusOr<std::string> ReadPem(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("arrayd: cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// TLS for a TCP address when a CA is given; plaintext otherwise.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const std::string& address, const ConnectOptions& options) {
  const std::string ca = OrEnv(options.tls_ca, "ARRAYD_TLS_CA");
  if (ca.empty() || absl::StartsWith(address, "unix")) return grpc::InsecureChannelCredentials();
  const std::string cert = OrEnv(options.tls_cert, "ARRAYD_TLS_CERT");
  const std::string key = OrEnv(options.tls_key, "ARRAYD_TLS_KEY");
  if (cert.empty() != key.empty()) {
    return absl::InvalidArgumentError("arrayd: a client certificate needs its key");
  }
  grpc::SslCredentialsOptions ssl;
  for (auto [path, pem] : {std::pair{&ca, &ssl.pem_root_certs}, {&cert, &ssl.pem_cert_chain},
                           {&key, &ssl.pem_private_key}}) {
    if (path->empty()) continue;
    absl::StatusOr<std::string> text = ReadPem(*path);
    if (!text.ok()) return text.status();
    *pem = *std::move(text);
  }
  return grpc::SslCredentials(ssl);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(const std::string& address,
                                                        const std::string& client_name) {
  ConnectOptions options;
  options.client_name = client_name;
  return Connect(address, options);
}

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(const std::string& address,
                                                        const ConnectOptions& options) {
  const std::string& client_name = options.client_name;
  auto core = std::make_shared<Core>();
  core->token = OrEnv(options.token, "ARRAYD_TOKEN");
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  auto credentials = ChannelCredentials(address, options);
  if (!credentials.ok()) return credentials.status();
  core->channel = grpc::CreateCustomChannel(address, *credentials, args);
  core->stub = v1::Arrayd::NewStub(core->channel);
  {
    grpc::ClientContext context;
    core->Authorize(&context);
    context.set_deadline(std::chrono::system_clock::now() + internal::kConnectTimeout);
    absl::Status status = internal::FromGrpc(
        core->stub->GetCapabilities(&context, v1::GetCapabilitiesRequest(), &core->capabilities));
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("arrayd: cannot reach ", address, ": ", status.message()));
    }
  }
  core->Authorize(&core->stream_context);
  core->stream = core->stub->OpStream(&core->stream_context);
  v1::ClientMessage open;
  open.mutable_open()->set_client_name(client_name);
  v1::ServerMessage opened;
  if (!core->stream->Write(open) || !core->stream->Read(&opened)) {
    absl::Status status = internal::FromGrpc(core->stream->Finish());
    if (status.ok()) status = absl::UnavailableError("the server closed the stream");
    return absl::Status(status.code(),
                        absl::StrCat("arrayd: cannot open a session: ", status.message()));
  }
  if (!opened.has_opened()) {
    return absl::InternalError("arrayd: the server did not answer the session's opening");
  }
  core->session_id = opened.opened().session_id();
  core->session_token = opened.opened().session_token();
  return std::unique_ptr<Client>(new Client(std::move(core)));
}

Client::~Client() { core_->Close(); }

const v1::Capabilities& Client::Capabilities() const { return core_->capabilities; }
uint64_t Client::session_id() const { return core_->session_id; }

absl::Status Client::Flush() { return core_->Flush(); }

absl::Status Client::Synchronize() {
  absl::StatusOr<v1::SyncReply> reply = core_->Sync({});
  if (!reply.ok()) return reply.status();
  // The first error in op order: a local error at position p happened
  // before op p ran.
  absl::Status first;
  uint64_t first_index = UINT64_MAX;
  for (const v1::OpError& e : core_->server_errors) {
    if (e.op_index() < first_index) {
      first_index = e.op_index();
      first = internal::StatusFromOpError(e);
    }
  }
  if (!core_->local_errors.empty() && core_->local_errors.front().position <= first_index) {
    first = core_->local_errors.front().status;
  }
  core_->server_errors.clear();
  core_->local_errors.clear();
  return first;
}

Array Client::Zeros(const Shape& shape, DType dtype) {
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core_, "zeros", s);
  v1::Op op;
  op.set_name("zeros");
  (*op.mutable_attrs())["shape"] = IntsAttr(shape);
  (*op.mutable_attrs())["dtype"] = DTypeAttr(dtype);
  return ArrayOps::Emit(core_, std::move(op), dtype, shape);
}

Array Client::Ones(const Shape& shape, DType dtype) {
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core_, "ones", s);
  v1::Op op;
  op.set_name("ones");
  (*op.mutable_attrs())["shape"] = IntsAttr(shape);
  (*op.mutable_attrs())["dtype"] = DTypeAttr(dtype);
  return ArrayOps::Emit(core_, std::move(op), dtype, shape);
}

Array Client::Full(const Shape& shape, const Scalar& value, std::optional<DType> dtype) {
  return ArrayOps::Full(core_, shape, value, dtype ? *dtype : value.DefaultDType());
}

Array Client::Arange(const Scalar& stop) { return Arange(0, stop, 1); }

Array Client::Arange(const Scalar& start, const Scalar& stop, const Scalar& step,
                     std::optional<DType> dtype) {
  using K = Scalar::ScalarKind;
  for (const Scalar* s : {&start, &stop, &step}) {
    if (s->kind() == K::kComplex) {
      return Refuse(core_, "arange", TypeError("arange: complex arguments are not supported"));
    }
  }
  const bool is_float = start.kind() == K::kFloat || stop.kind() == K::kFloat || step.kind() == K::kFloat;
  int64_t num = 0;
  if (is_float) {
    auto as_double = [](const Scalar& s) {
      if (s.kind() == K::kFloat) return s.real();
      return s.negative() ? static_cast<double>(s.int_value()) : static_cast<double>(s.uint_value());
    };
    const double a = as_double(start), b = as_double(stop), d = as_double(step);
    if (d == 0) return Refuse(core_, "arange", ValueError("Maximum allowed size exceeded"));
    num = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((b - a) / d)));
  } else {
    const int64_t a = start.int_value(), b = stop.int_value(), d = step.int_value();
    if (d == 0) return Refuse(core_, "arange", ValueError("Maximum allowed size exceeded"));
    if (d > 0 && b > a) num = (b - a + d - 1) / d;
    if (d < 0 && b < a) num = (a - b - d - 1) / -d;
  }
  const DType result = dtype ? *dtype : is_float ? DType::kFloat64 : DType::kInt64;
  v1::Op op;
  op.set_name("arange");
  (*op.mutable_attrs())["start"] = ScalarAttr(start);
  (*op.mutable_attrs())["step"] = ScalarAttr(step);
  (*op.mutable_attrs())["num"].set_i(num);
  (*op.mutable_attrs())["dtype"] = DTypeAttr(result);
  return ArrayOps::Emit(core_, std::move(op), result, Shape{num});
}

Array Client::FromBytes(DType dtype, const Shape& shape, const void* data, size_t nbytes) {
  return ArrayOps::Upload(core_, dtype, shape, data, nbytes);
}

Array ArrayOps::Upload(const std::shared_ptr<Core>& core, DType dtype, const Shape& shape, const void* data,
                       size_t nbytes) {
  if (absl::Status s = CheckShape(shape); !s.ok()) return Refuse(core, "upload", s);
  const uint64_t want = static_cast<uint64_t>(ShapeSize(shape)) * ItemSize(dtype);
  if (want != nbytes) {
    return Refuse(core, "upload",
                  ValueError(absl::StrCat(nbytes, " bytes of data for an array of shape ", ShapeString(shape),
                                          " and dtype ", DTypeName(dtype), " (", want, " bytes)")));
  }
  if (core->closed) {
    return Poisoned(core, absl::FailedPreconditionError("arrayd: the client is closed"), 0);
  }
  if (nbytes <= core->capabilities.max_inline_bytes()) {
    v1::Op op;
    op.set_name("upload");
    (*op.mutable_attrs())["shape"] = IntsAttr(shape);
    (*op.mutable_attrs())["dtype"] = DTypeAttr(dtype);
    (*op.mutable_attrs())["data"].set_data(static_cast<const char*>(data), nbytes);
    return Emit(core, std::move(op), dtype, shape, nbytes);
  }
  // Large: the Upload RPC binds a fresh handle once every byte has arrived;
  // ops recorded after this call can name it. Send the batch first so that
  // its frees reach the server's quota accounting before the upload does.
  if (absl::Status s = core->Flush(); !s.ok()) return Refuse(core, "upload", s);
  const uint64_t handle = core->next_handle++;
  grpc::ClientContext context;
  core->Authorize(&context);
  v1::UploadResponse response;
  auto writer = core->stub->Upload(&context, &response);
  const char* bytes = static_cast<const char*>(data);
  size_t sent = 0;
  bool ok = true;
  do {
    v1::UploadChunk chunk;
    if (sent == 0) {
      chunk.set_session_id(core->session_id);
      chunk.set_session_token(core->session_token);
      chunk.set_handle(handle);
      chunk.set_dtype(static_cast<v1::DType>(dtype));
      for (int64_t d : shape) chunk.add_shape(d);
    }
    const size_t n = std::min(internal::kUploadChunkBytes, nbytes - sent);
    chunk.set_data(bytes + sent, n);
    sent += n;
    ok = writer->Write(chunk);
  } while (ok && sent < nbytes);
  if (ok) writer->WritesDone();
  absl::Status status = internal::FromGrpc(writer->Finish());
  if (!status.ok()) return Refuse(core, "upload", status);
  auto state = std::make_shared<ArrayState>();
  state->core = core;
  state->handle = handle;
  state->dtype = dtype;
  state->shape = shape;
  return Array(std::move(state));
}

Array Client::RawOp(const std::string& name, const std::vector<Array>& inputs,
                    const std::map<std::string, v1::AttrValue>& attrs, DType dtype, Shape shape) {
  v1::Op op;
  op.set_name(name);
  for (const Array& a : inputs) {
    if (auto bad = ArrayOps::CheckInputs(name, {&a})) return *bad;
    if (a.state_->core != core_) {
      return Refuse(core_, name, ValueError("arrays belong to different arrayd sessions"));
    }
    op.add_inputs(a.state_->handle);
  }
  for (const auto& [key, value] : attrs) (*op.mutable_attrs())[key] = value;
  return ArrayOps::Emit(core_, std::move(op), dtype, std::move(shape));
}

}  // namespace client
}  // namespace arrayd

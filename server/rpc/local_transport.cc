#include "rpc/local_transport.h"

#include <sched.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <thread>

#include "absl/strings/str_cat.h"
#include "rpc/socket_path.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace {

// Buffered reads of one connection, never blocking: a frame's header and
// its message (and often the next frames) come in one read call. File
// descriptors that come with the bytes (SCM_RIGHTS: the client's shared
// memory segments) are queued in order for the frames that name them.
class FrameReader {
 public:
  // At most this many descriptors wait for their frame; a client that sends
  // more is cut off.
  static constexpr size_t kMaxQueuedFds = 16;
  enum class Got { kBytes, kNothing, kEnd };  // kNothing: none now; kEnd: closed or failed

  explicit FrameReader(int fd) : fd_(fd) {}
  ~FrameReader() {
    for (int fd : fds_) ::close(fd);
  }
  // Reads what the socket has, at most a buffer's worth. The buffer grows
  // with the bytes that come, never ahead of them: a header announcing a
  // large frame costs nothing until its data arrives.
  Got ReadSome(size_t want) {
    if (buf_.size() - end_ < kReadBytes / 2) {
      buf_.erase(0, pos_);  // keep what is left at the front
      end_ -= pos_;
      pos_ = 0;
      if (buf_.size() - end_ < kReadBytes / 2) {
        buf_.resize(std::max(std::min(buf_.size() * 2, want + kReadBytes), end_ + kReadBytes));
      }
    }
    while (true) {
      ssize_t r = Receive();
      if (r > 0 && !too_many_fds_) {
        end_ += static_cast<size_t>(r);
        return Got::kBytes;
      }
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Got::kNothing;
      return Got::kEnd;
    }
  }
  size_t size() const { return end_ - pos_; }
  const char* data() const { return buf_.data() + pos_; }
  void Consume(size_t n) { pos_ += n; }
  // The next descriptor that came with the stream, or -1 when none did.
  int TakeFd() {
    if (fds_.empty()) return -1;
    int fd = fds_.front();
    fds_.pop_front();
    return fd;
  }

 private:
  static constexpr size_t kReadBytes = size_t{1} << 16;

  ssize_t Receive() {
    iovec iov{buf_.data() + end_, buf_.size() - end_};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxQueuedFds)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t r = ::recvmsg(fd_, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (r < 0) return r;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      const int* fds = reinterpret_cast<const int*>(CMSG_DATA(c));
      for (size_t i = 0; i < n; ++i) {
        int fd = 0;
        std::memcpy(&fd, fds + i, sizeof(int));
        fds_.push_back(fd);
      }
    }
    if ((msg.msg_flags & MSG_CTRUNC) != 0 || fds_.size() > kMaxQueuedFds) too_many_fds_ = true;
    return r;
  }

  int fd_;
  std::string buf_;
  size_t pos_ = 0, end_ = 0;
  std::deque<int> fds_;
  bool too_many_fds_ = false;
};

uint32_t FrameLength(const char* header) {
  const auto* h = reinterpret_cast<const unsigned char*>(header);
  return h[0] | h[1] << 8 | h[2] << 16 | static_cast<uint32_t>(h[3]) << 24;
}

bool WriteFull(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// One connection's writer: frames from the worker that runs its session.
// A client that does not read its replies for kSendTimeout (the socket's
// SO_SNDTIMEO) is cut off: the worker must not wait on it for longer.
struct Writer {
  static constexpr int kSendTimeoutSeconds = 10;
  int fd;
  absl::Mutex mu;
  bool Send(const v1::ServerMessage& message) {
    std::string frame(4, '\0');
    message.AppendToString(&frame);
    uint32_t n = static_cast<uint32_t>(frame.size() - 4);
    for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    absl::MutexLock lock(&mu);
    if (WriteFull(fd, frame.data(), frame.size())) return true;
    ::shutdown(fd, SHUT_RDWR);  // its reader sees the end and stops the session
    return false;
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<LocalTransport>> LocalTransport::Listen(const std::string& path,
                                                                       ArraydService* service,
                                                                       absl::Duration poll,
                                                                       uint32_t max_frame_bytes) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path too long: ", path));
  }
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  absl::Status ready = PrepareSocketPath(path);
  if (!ready.ok()) {
    ::close(fd);
    return ready;
  }
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd, 64) != 0) {
    int err = errno;
    ::close(fd);
    return absl::InternalError(absl::StrCat("cannot listen on ", path, ": ", std::strerror(err)));
  }
  return std::unique_ptr<LocalTransport>(
      new LocalTransport(path, fd, service, poll, max_frame_bytes));
}

// One same-host connection: its reader state and its session. It has no
// thread: OnReadable runs on a worker when the socket is readable (or, as
// a task, when its session has room again after backpressure), never on
// two at once, and arms the socket again before it returns, unless it
// paused or ended.
class LocalTransport::Connection final : public WorkerPool::Watcher, public WorkerPool::Task {
 public:
  Connection(LocalTransport* owner, int fd)
      : owner_(owner), workers_(owner->service_->workers()), fd_(fd), reader_(fd) {
    writer_->fd = fd;
    // After a sync the client, which has its answer, most often sends its
    // next ops at once (a loop of batches, a round trip after another): a
    // longer poll then keeps the device from waiting on a wake-up, at 1 ms
    // or the poll setting when longer (0 never polls).
    op_poll_ = absl::ToChronoMicroseconds(owner->poll_);
    sync_poll_ =
        op_poll_.count() == 0 ? op_poll_ : std::max(op_poll_, std::chrono::microseconds(1000));
  }
  ~Connection() { ::close(fd_); }

  int fd() const { return fd_; }
  absl::Status Start() { return workers_->Watch(fd_, this); }
  // Ends the connection from outside (shutdown, Admin.CloseSession): its
  // next read sees the end.
  void Hangup() { ::shutdown(fd_, SHUT_RDWR); }

  void OnReadable() override;
  void RunTurn() override { OnReadable(); }  // resumed after backpressure

 private:
  enum class Next { kGoOn, kPause, kEnd };
  // Opens the session, attaches segments, runs or queues the work.
  // kPause: the session's queue is full; it schedules this connection when
  // it has room, so nothing of the connection may be touched after.
  Next Handle(v1::ClientMessage message, bool run_here);
  Next Open(const v1::ClientMessage& message);
  // Unwatches the socket and stops the session; Remove() follows.
  void End();

  LocalTransport* const owner_;
  WorkerPool* const workers_;
  const int fd_;
  FrameReader reader_;
  std::shared_ptr<Writer> writer_ = std::make_shared<Writer>();
  std::shared_ptr<Session> session_;
  std::chrono::microseconds op_poll_, sync_poll_;
};

void LocalTransport::Connection::OnReadable() {
  using Clock = std::chrono::steady_clock;
  // A turn runs frames here for about a millisecond; then they go to the
  // session's queue, which the pool serves round robin with the others.
  constexpr auto kTurnTime = std::chrono::milliseconds(1);
  constexpr std::chrono::microseconds kSpinOnly(50);
  const auto start = Clock::now();
  auto last_frame = start;
  std::chrono::microseconds poll(0);  // none before a frame was handled
  while (true) {
    // Every frame that is here whole.
    while (reader_.size() >= 4) {
      const uint32_t n = FrameLength(reader_.data());
      if (n > owner_->max_frame_bytes_) {
        spdlog::warn("local op socket: frame of {} bytes refused", n);
        return End();
      }
      if (reader_.size() < 4 + size_t{n}) break;
      v1::ClientMessage message;
      const bool parsed = message.ParseFromArray(reader_.data() + 4, static_cast<int>(n));
      reader_.Consume(4 + size_t{n});
      if (!parsed) {
        spdlog::warn("local op socket: malformed message");
        return End();
      }
      const bool sync = message.has_sync();
      switch (Handle(std::move(message), Clock::now() - start < kTurnTime)) {
        case Next::kGoOn: break;
        case Next::kPause: return;  // the session schedules this connection again
        case Next::kEnd: return End();
      }
      last_frame = Clock::now();
      poll = sync ? sync_poll_ : op_poll_;
    }
    const size_t want = reader_.size() >= 4 ? 4 + size_t{FrameLength(reader_.data())} : 4;
    switch (reader_.ReadSome(want)) {
      case FrameReader::Got::kBytes: continue;
      case FrameReader::Got::kEnd: return End();
      case FrameReader::Got::kNothing: break;
    }
    // Poll for the client's next frame while the pool has cores to spare,
    // yielding the core between reads past kSpinOnly; else the socket
    // waits in the pool's epoll set.
    const auto waited = Clock::now() - last_frame;
    if (waited < poll && workers_->MayPoll()) {
      if (waited > kSpinOnly) sched_yield();
      continue;
    }
    workers_->Arm(fd_, this);
    return;
  }
}

LocalTransport::Connection::Next LocalTransport::Connection::Handle(v1::ClientMessage message,
                                                                    bool run_here) {
  if (!session_) {
    if (!message.has_open()) return Next::kEnd;
    if (Open(message) == Next::kEnd) return Next::kEnd;
    message.clear_open();
  }
  // The frame's segments, before its ops (which may name them). A
  // segment that is refused is logged; the ops that name it fail.
  for (const std::string& name : message.segments()) {
    int segment_fd = reader_.TakeFd();
    if (segment_fd < 0) {
      spdlog::warn("local op socket: a frame names more segments than came with it");
      return Next::kEnd;
    }
    absl::Status attached = session_->AttachSegment(name, segment_fd);
    if (!attached.ok()) spdlog::warn("session {}: {}", session_->id(), attached.ToString());
  }
  message.clear_segments();
  if (!CarriesWork(message)) return Next::kGoOn;
  // Backpressure: a full queue pauses the reads until the session has
  // worked through half of it; then it runs this connection as a task
  // (the socket may hold nothing new while the buffer holds frames).
  auto resume = [this] { workers_->Schedule(this); };
  const bool room = run_here ? session_->RunOrEnqueue(std::move(message), resume)
                             : session_->Enqueue(std::move(message), resume);
  return room ? Next::kGoOn : Next::kPause;
}

LocalTransport::Connection::Next LocalTransport::Connection::Open(
    const v1::ClientMessage& message) {
  ArraydService* service = owner_->service_;
  // The local user, from the kernel (SO_PEERCRED): the tenant when there is
  // no authentication, and in the logs.
  uint32_t uid = 0;
  int32_t pid = 0;
  const bool known = PeerCredentials(fd_, &uid, &pid);
  const std::string user = known ? absl::StrCat("uid:", uid) : "anonymous";
  // A refused session gets SessionOpened.error, then the connection ends.
  auto refuse = [&](const absl::Status& why) {
    spdlog::warn("local op socket ({} pid {}): session refused: {}", user, pid, why.ToString());
    v1::ServerMessage refused;
    refused.mutable_opened()->set_error(std::string(why.message()));
    refused.mutable_opened()->set_error_code(static_cast<uint32_t>(why.code()));
    writer_->Send(refused);
    return Next::kEnd;
  };
  auto tenant = service->TenantOfToken(message.open().auth_token(), user);
  if (!tenant.ok()) return refuse(tenant.status());
  auto opened =
      service->OpenSession(message.open(),
                           // Admin.CloseSession shuts the socket: the next read sees the end.
                           Peer{*tenant, absl::StrCat("same-host socket, ", user, " pid ", pid),
                                pid, [fd = fd_] { ::shutdown(fd, SHUT_RDWR); }},
                           [writer = writer_](v1::ServerMessage m) { writer->Send(m); });
  if (!opened.ok()) return refuse(opened.status());
  session_ = *std::move(opened);
  return writer_->Send(service->OpenedReply(*session_)) ? Next::kGoOn : Next::kEnd;
}

void LocalTransport::Connection::End() {
  workers_->Unwatch(fd_);
  if (!session_) {
    owner_->Remove(this);
    return;
  }
  // The session stops on a worker (after the message it runs); then it is
  // closed and this connection freed.
  session_->Stop([this] {
    owner_->service_->CloseSession(session_->id());
    session_.reset();
    owner_->Remove(this);
  });
}

LocalTransport::LocalTransport(std::string path, int listen_fd, ArraydService* service,
                               absl::Duration poll, uint32_t max_frame_bytes)
    : path_(std::move(path)),
      listen_fd_(listen_fd),
      service_(service),
      poll_(poll),
      max_frame_bytes_(max_frame_bytes) {
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

LocalTransport::~LocalTransport() { Shutdown(); }

void LocalTransport::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    for (auto& [c, owned] : connections_) c->Hangup();  // each sees the end and ends
  }
  if (acceptor_.joinable()) acceptor_.join();
  {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](absl::flat_hash_map<Connection*, std::unique_ptr<Connection>>* c) {
          return c->empty();
        },
        &connections_));
  }
  ::close(listen_fd_);
  ::unlink(path_.c_str());
}

void LocalTransport::AcceptLoop() {
  while (true) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        // Out of descriptors: a busy loop would take a core; retry shortly.
        spdlog::warn("local op socket: accept: {}", std::strerror(errno));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      return;  // shut down
    }
    const timeval send_timeout{Writer::kSendTimeoutSeconds, 0};
    (void)::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
    absl::MutexLock lock(&mu_);
    if (shut_down_) {
      ::close(fd);
      return;
    }
    auto connection = std::make_unique<Connection>(this, fd);
    Connection* c = connection.get();
    connections_.emplace(c, std::move(connection));
    absl::Status watched = c->Start();
    if (!watched.ok()) {
      spdlog::warn("local op socket: {}", watched.ToString());
      connections_.erase(c);
    }
  }
}

void LocalTransport::Remove(Connection* connection) {
  // Under the lock: Shutdown hangs up the connections it finds here, and
  // the descriptor must not be reused before it is gone from the map.
  absl::MutexLock lock(&mu_);
  connections_.erase(connection);  // closes the socket
}

}  // namespace arrayd

#include "rpc/local_transport.h"

#include <sched.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "rpc/socket_path.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace {

// Buffered reads of one connection: a frame's header and its message (and
// often the next frames) come in one read call. File descriptors that come
// with the bytes (SCM_RIGHTS: the client's shared memory segments) are
// queued in order for the frames that name them.
class FrameReader {
 public:
  // At most this many descriptors wait for their frame; a client that sends
  // more is cut off.
  static constexpr size_t kMaxQueuedFds = 16;

  FrameReader(int fd, absl::Duration poll) : fd_(fd), poll_(absl::ToChronoMicroseconds(poll)) {}
  ~FrameReader() {
    for (int fd : fds_) ::close(fd);
  }
  void set_poll(std::chrono::microseconds poll) { poll_ = poll; }
  // Makes n bytes available at data(); false at end of stream or error.
  // The buffer grows with the bytes that come, never ahead of them: a
  // header announcing a large frame costs nothing until its data arrives.
  bool Fill(size_t n) {
    if (pos_ > 0 && end_ - pos_ < n) {  // keep what is left at the front
      buf_.erase(0, pos_);
      end_ -= pos_;
      pos_ = 0;
    }
    while (end_ - pos_ < n) {
      if (buf_.size() - end_ < kReadBytes / 2 && buf_.size() < n + kReadBytes) {
        buf_.resize(std::max(buf_.size() * 2, end_ + kReadBytes));
      }
      ssize_t r = ReadSome();
      if (r == 0 || too_many_fds_) return false;
      if (r < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      end_ += static_cast<size_t>(r);
    }
    return true;
  }
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

  // Polls with non-blocking reads for up to poll_ before a blocking one:
  // a client's next frame that comes within it is read without the wake-up
  // of a blocked thread (the larger part of a same-host round trip). Past
  // kSpinOnly the poll yields the core between reads, so a long poll does
  // not take it from runnable threads (clients on a small machine).
  ssize_t ReadSome() {
    if (poll_.count() > 0) {
      constexpr std::chrono::microseconds kSpinOnly(50);
      const auto start = std::chrono::steady_clock::now();
      auto now = start;
      do {
        ssize_t r = Receive(MSG_DONTWAIT);
        if (r >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return r;
        if (now - start > kSpinOnly) sched_yield();
        now = std::chrono::steady_clock::now();
      } while (now - start < poll_);
    }
    return Receive(0);
  }

  ssize_t Receive(int flags) {
    iovec iov{buf_.data() + end_, buf_.size() - end_};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxQueuedFds)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t r = ::recvmsg(fd_, &msg, flags | MSG_CMSG_CLOEXEC);
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
  std::chrono::microseconds poll_;
  std::string buf_;
  size_t pos_ = 0, end_ = 0;
  std::deque<int> fds_;
  bool too_many_fds_ = false;
};

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

// One connection's writer: frames from the session's executor thread.
struct Writer {
  int fd;
  absl::Mutex mu;
  bool Send(const v1::ServerMessage& message) {
    std::string frame(4, '\0');
    message.AppendToString(&frame);
    uint32_t n = static_cast<uint32_t>(frame.size() - 4);
    for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    absl::MutexLock lock(&mu);
    return WriteFull(fd, frame.data(), frame.size());
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
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);  // readers see EOF
  }
  if (acceptor_.joinable()) acceptor_.join();
  {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](int* active) { return *active == 0; }, &active_));
  }
  ::close(listen_fd_);
  ::unlink(path_.c_str());
}

void LocalTransport::AcceptLoop() {
  while (true) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down
    }
    absl::MutexLock lock(&mu_);
    if (shut_down_) {
      ::close(fd);
      return;
    }
    connections_.push_back(fd);
    ++active_;
    std::thread([this, fd] { Serve(fd); }).detach();
  }
}

void LocalTransport::Serve(int fd) {
  auto writer = std::make_shared<Writer>();
  writer->fd = fd;
  std::shared_ptr<Session> session;
  FrameReader reader(fd, poll_);
  // After a sync the client, which has its answer, most often sends its
  // next ops at once (a loop of batches, a round trip after another): a
  // longer poll then keeps the device from waiting on this thread's
  // wake-up, at 1 ms or the poll setting when longer (0 still blocks).
  const auto op_poll = absl::ToChronoMicroseconds(poll_);
  const auto sync_poll =
      op_poll.count() == 0 ? op_poll : std::max(op_poll, std::chrono::microseconds(1000));
  while (true) {
    if (!reader.Fill(4)) break;
    const auto* header = reinterpret_cast<const unsigned char*>(reader.data());
    uint32_t n = header[0] | header[1] << 8 | header[2] << 16 | static_cast<uint32_t>(header[3]) << 24;
    if (n > max_frame_bytes_) {
      spdlog::warn("local op socket: frame of {} bytes refused", n);
      break;
    }
    reader.Consume(4);
    if (!reader.Fill(n)) break;
    v1::ClientMessage message;
    const bool parsed = message.ParseFromArray(reader.data(), static_cast<int>(n));
    reader.Consume(n);
    if (!parsed) {
      spdlog::warn("local op socket: malformed message");
      break;
    }
    if (!session) {
      if (!message.has_open()) break;
      // The local user, from the kernel (SO_PEERCRED): the tenant when
      // there is no authentication, and in the logs.
      uint32_t uid = 0;
      int32_t pid = 0;
      const bool known = PeerCredentials(fd, &uid, &pid);
      const std::string user = known ? absl::StrCat("uid:", uid) : "anonymous";
      // A refused session gets SessionOpened.error, then the connection ends.
      auto refuse = [&](const absl::Status& why) {
        spdlog::warn("local op socket ({} pid {}): session refused: {}", user, pid,
                     why.ToString());
        v1::ServerMessage refused;
        refused.mutable_opened()->set_error(std::string(why.message()));
        refused.mutable_opened()->set_error_code(static_cast<uint32_t>(why.code()));
        writer->Send(refused);
      };
      auto tenant = service_->TenantOfToken(message.open().auth_token(), user);
      if (!tenant.ok()) {
        refuse(tenant.status());
        break;
      }
      auto opened = service_->OpenSession(
          message.open(),
          // Admin.CloseSession shuts the socket: this loop's next read ends.
          Peer{*tenant, absl::StrCat("same-host socket, ", user, " pid ", pid), pid,
               [fd] { ::shutdown(fd, SHUT_RDWR); }},
          [writer](v1::ServerMessage m) { writer->Send(m); });
      if (!opened.ok()) {
        refuse(opened.status());
        break;
      }
      session = *std::move(opened);
      v1::ServerMessage reply;
      reply.mutable_opened()->set_session_id(session->id());
      reply.mutable_opened()->set_backend(service_->backend()->name());
      reply.mutable_opened()->set_session_token(session->token());
      reply.mutable_opened()->set_server_id(service_->server_id());
      if (!writer->Send(reply)) break;
      message.clear_open();
    }
    // The frame's segments, before its ops (which may name them). A
    // segment that is refused is logged; the ops that name it fail.
    bool fds_ok = true;
    for (const std::string& name : message.segments()) {
      int segment_fd = reader.TakeFd();
      if (segment_fd < 0) {
        fds_ok = false;
        break;
      }
      absl::Status attached = session->AttachSegment(name, segment_fd);
      if (!attached.ok()) spdlog::warn("session {}: {}", session->id(), attached.ToString());
    }
    if (!fds_ok) {
      spdlog::warn("local op socket: a frame names more segments than came with it");
      break;
    }
    message.clear_segments();
    if (!CarriesWork(message)) continue;
    reader.set_poll(message.has_sync() ? sync_poll : op_poll);
    session->RunOrEnqueue(std::move(message));
  }
  if (session) {
    absl::Notification stopped;
    session->Stop([&stopped] { stopped.Notify(); });
    stopped.WaitForNotification();
    service_->CloseSession(session->id());
    session.reset();
  }
  {
    absl::MutexLock lock(&mu_);
    connections_.erase(std::remove(connections_.begin(), connections_.end(), fd),
                       connections_.end());
    ::close(fd);
    --active_;
  }
}

}  // namespace arrayd

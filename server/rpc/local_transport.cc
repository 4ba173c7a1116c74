#include "rpc/local_transport.h"

#include <sched.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace {

constexpr uint32_t kMaxFrameBytes = 256u << 20;

// Buffered reads of one connection: a frame's header and its message (and
// often the next frames) come in one read call.
class FrameReader {
 public:
  FrameReader(int fd, absl::Duration poll) : fd_(fd), poll_(absl::ToChronoMicroseconds(poll)) {}
  void set_poll(std::chrono::microseconds poll) { poll_ = poll; }
  // Makes n bytes available at data(); false at end of stream or error.
  bool Fill(size_t n) {
    if (pos_ > 0 && end_ - pos_ < n) {  // keep what is left at the front
      buf_.erase(0, pos_);
      end_ -= pos_;
      pos_ = 0;
    }
    if (buf_.size() < n) buf_.resize(std::max(n, size_t{1} << 16));
    while (end_ - pos_ < n) {
      ssize_t r = ReadSome();
      if (r == 0) return false;
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

 private:
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
        ssize_t r = ::recv(fd_, buf_.data() + end_, buf_.size() - end_, MSG_DONTWAIT);
        if (r >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return r;
        if (now - start > kSpinOnly) sched_yield();
        now = std::chrono::steady_clock::now();
      } while (now - start < poll_);
    }
    return ::read(fd_, buf_.data() + end_, buf_.size() - end_);
  }

  int fd_;
  std::chrono::microseconds poll_;
  std::string buf_;
  size_t pos_ = 0, end_ = 0;
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
                                                                       absl::Duration poll) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path too long: ", path));
  }
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd, 64) != 0) {
    int err = errno;
    ::close(fd);
    return absl::InternalError(absl::StrCat("cannot listen on ", path, ": ", std::strerror(err)));
  }
  return std::unique_ptr<LocalTransport>(new LocalTransport(path, fd, service, poll));
}

LocalTransport::LocalTransport(std::string path, int listen_fd, ArraydService* service,
                               absl::Duration poll)
    : path_(std::move(path)), listen_fd_(listen_fd), service_(service), poll_(poll) {
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
    if (n > kMaxFrameBytes) {
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
      auto opened = service_->OpenSession(
          message.open(), [writer](v1::ServerMessage m) { writer->Send(m); });
      if (!opened.ok()) {
        spdlog::warn("local op socket: session refused: {}", opened.status().ToString());
        break;
      }
      session = *std::move(opened);
      v1::ServerMessage reply;
      reply.mutable_opened()->set_session_id(session->id());
      reply.mutable_opened()->set_backend(service_->backend()->name());
      reply.mutable_opened()->set_session_token(session->token());
      if (!writer->Send(reply)) break;
      message.clear_open();
      if (message.ops_size() == 0 && message.frees_size() == 0 && !message.has_sync()) continue;
    }
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

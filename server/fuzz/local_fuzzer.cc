// libFuzzer target over what a client can send on the same-host socket:
// the frame reader, the ClientMessage decoder, session opening, segment
// descriptors' names, and every op's validation and execution on the CPU
// backend (the gRPC OpStream feeds the same Session::Run). The server runs
// once per process; each input is one connection:
//
//   first byte even: the rest goes as it is (frames and their headers);
//   first byte odd:  a valid OpenSession frame first, then the rest, so
//                    that mutations reach the ops rather than the handshake.
//
// The server must stay up, answer or hang up, and free the session: a crash,
// an AddressSanitizer or UBSan report, a leak or a hang is a finding.
// Build and run: tests/fuzz/run.sh (seeds in tests/fuzz/corpus).
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "arrayd/v1/arrayd.pb.h"
#include "backend/cpu/cpu_backend.h"
#include "ops/registry.h"
#include "rpc/local_transport.h"
#include "rpc/service.h"
#include "spdlog/spdlog.h"

namespace {

struct Server {
  std::unique_ptr<arrayd::Backend> backend;
  std::unique_ptr<arrayd::ArraydService> service;
  std::unique_ptr<arrayd::LocalTransport> transport;
  std::string path;
};

Server* Start() {
  spdlog::set_level(spdlog::level::off);
  auto* s = new Server;
  s->backend = arrayd::cpu::CreateCpuBackend();
  arrayd::ServiceOptions options;
  // Small limits: a fuzzed op may ask for any size, and the fuzzer's
  // memory limit is the process's.
  options.session_quota_bytes = 64 << 20;
  options.max_array_bytes = 32 << 20;
  options.max_inline_bytes = 1 << 20;
  s->service = std::make_unique<arrayd::ArraydService>(s->backend.get(),
                                                       &arrayd::DefaultRegistry(), options);
  char dir[] = "/tmp/arrayd-fuzz-XXXXXX";
  if (mkdtemp(dir) == nullptr) std::abort();
  s->path = std::string(dir) + "/fuzz.sock.ops";
  auto transport =
      arrayd::LocalTransport::Listen(s->path, s->service.get(), absl::ZeroDuration());
  if (!transport.ok()) {
    std::fprintf(stderr, "fuzzer: %s\n", transport.status().ToString().c_str());
    std::abort();
  }
  s->transport = *std::move(transport);
  return s;
}

std::string Frame(const google::protobuf::Message& m) {
  std::string body = m.SerializeAsString();
  std::string frame(4, '\0');
  const uint32_t n = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return frame + body;
}

// Sends `bytes`, then half-closes, reading replies all along (the server
// blocks on a full socket otherwise) until the server hangs up.
void Converse(const std::string& path, const std::string& bytes) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) std::abort();
  size_t sent = 0;
  bool closed = false;
  char buf[1 << 16];
  while (true) {
    if (sent == bytes.size() && !closed) {
      ::shutdown(fd, SHUT_WR);
      closed = true;
    }
    pollfd p{fd, static_cast<short>(POLLIN | (sent < bytes.size() ? POLLOUT : 0)), 0};
    // libFuzzer's timer (-timeout) interrupts system calls: EINTR retries.
    int ready = ::poll(&p, 1, 60000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      std::fprintf(stderr, "fuzzer: the server did not answer within 60 s (client fd %d)\n", fd);
      const std::string fds = "ls -l /proc/" + std::to_string(::getpid()) + "/fd 1>&2; ss -xap 1>&2";
      if (std::system(fds.c_str()) != 0) std::fprintf(stderr, "fuzzer: no fd list\n");
      // Every thread's stack, when gdb is there: where the server waits.
      const std::string gdb = "gdb -p " + std::to_string(::getpid()) +
                              " -batch -ex 'thread apply all bt 25' 1>&2 2>/dev/null";
      if (std::system(gdb.c_str()) != 0) std::fprintf(stderr, "fuzzer: no gdb for the stacks\n");
      std::abort();
    }
    if (p.revents & POLLIN) {
      ssize_t r = ::read(fd, buf, sizeof(buf));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;  // the server hung up: the session is closed
    }
    if ((p.revents & POLLOUT) && sent < bytes.size()) {
      ssize_t w = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (w > 0) sent += static_cast<size_t>(w);
      if (w < 0 && errno != EINTR) sent = bytes.size();  // it hung up first
    }
    if (p.revents & (POLLHUP | POLLERR)) {
      if (!(p.revents & POLLIN)) break;
    }
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = Start();
  if (size == 0) return 0;
  std::string bytes;
  if (data[0] & 1) {
    arrayd::v1::ClientMessage open;
    open.mutable_open()->set_client_name("fuzz");
    bytes = Frame(open);
  }
  bytes.append(reinterpret_cast<const char*>(data + 1), size - 1);
  Converse(server->path, bytes);
  return 0;
}

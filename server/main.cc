// arrayd: the array server daemon. Parses flags, picks a backend, serves the
// gRPC API on every --listen address until SIGTERM/SIGINT, then drains.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "backend/backend.h"
#include "ops/registry.h"
#include "rpc/local_transport.h"
#include "rpc/service.h"
#include "rpc/socket_path.h"
#include "spdlog/spdlog.h"

namespace {

constexpr char kUsage[] = R"(usage: arrayd [flags]

  --listen ADDR        address to serve on, repeatable: HOST:PORT or unix:PATH
                       (default: unix:/tmp/arrayd-$UID/arrayd.sock and 127.0.0.1:7470)
  --backend NAME       auto (default), cpu, cuda or hip
  --log-level LEVEL    trace, debug, info (default), warn, error
  --session-quota N    bytes one session may hold (default: no limit)
  --max-inline-bytes N largest array carried inside a batch or sync reply (default 1 MiB)
  --no-local-socket    do not offer the same-host op socket (PATH.ops beside the
                       first unix:PATH address)
  --local-poll-us N    same-host socket: poll this long for a client's next
                       frame before a blocking read (default 50; at least
                       1000 after a sync; 0: block)
  --version            print the version and the backends compiled in
  --help               this text
)";

// The default same-host address: in this user's private directory (made
// 0700; refused when another user made it first).
absl::StatusOr<std::string> DefaultUnixSocket() {
  std::string dir = "/tmp/arrayd-" + std::to_string(geteuid());
  absl::Status ok = arrayd::PrivateDirectory(dir);
  if (!ok.ok()) return ok;
  return "unix:" + dir + "/arrayd.sock";
}

bool ParseBytes(const std::string& text, uint64_t* out) { return absl::SimpleAtoi(text, out); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> listen;
  std::string backend_name = "auto";
  std::string log_level = "info";
  arrayd::ServiceOptions options;
  bool local_socket = true;
  int64_t local_poll_us = 50;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* flag) -> std::string {
      std::string prefix = std::string(flag) + "=";
      if (absl::StartsWith(arg, prefix)) return arg.substr(prefix.size());
      if (i + 1 >= argc) {
        std::cerr << "arrayd: " << flag << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    auto is = [&](const char* flag) {
      return arg == flag || absl::StartsWith(arg, std::string(flag) + "=");
    };
    if (arg == "--version") {
      std::cout << "arrayd " << arrayd::kVersion << " (backends: "
                << absl::StrJoin(arrayd::CompiledBackends(), ", ") << ")\n";
      return 0;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (is("--listen")) {
      listen.push_back(value("--listen"));
    } else if (is("--backend")) {
      backend_name = value("--backend");
    } else if (is("--log-level")) {
      log_level = value("--log-level");
    } else if (is("--session-quota")) {
      if (!ParseBytes(value("--session-quota"), &options.session_quota_bytes)) {
        std::cerr << "arrayd: --session-quota needs a number of bytes\n";
        return 2;
      }
    } else if (arg == "--no-local-socket") {
      local_socket = false;
    } else if (is("--local-poll-us")) {
      const std::string v = value("--local-poll-us");
      if (!absl::SimpleAtoi(v, &local_poll_us) || local_poll_us < 0 || local_poll_us > 1000000) {
        std::cerr << "arrayd: --local-poll-us needs microseconds from 0 to 1000000\n";
        return 2;
      }
    } else if (is("--max-inline-bytes")) {
      if (!ParseBytes(value("--max-inline-bytes"), &options.max_inline_bytes)) {
        std::cerr << "arrayd: --max-inline-bytes needs a number of bytes\n";
        return 2;
      }
    } else {
      std::cerr << "arrayd: unknown flag " << arg << "\n" << kUsage;
      return 2;
    }
  }
  auto level = spdlog::level::from_str(log_level);
  if (level == spdlog::level::off && log_level != "off") {
    std::cerr << "arrayd: unknown log level " << log_level << "\n";
    return 2;
  }
  spdlog::set_level(level);
  if (listen.empty()) {
    auto unix_socket = DefaultUnixSocket();
    if (!unix_socket.ok()) {
      spdlog::error("{}", std::string(unix_socket.status().message()));
      return 1;
    }
    listen = {*unix_socket, "127.0.0.1:7470"};
  }
  // A unix socket another server answers on is never taken over, nor one
  // in a directory others can change.
  for (const std::string& addr : listen) {
    if (!absl::StartsWith(addr, "unix:")) continue;
    absl::Status ready = arrayd::PrepareSocketPath(addr.substr(5));
    if (!ready.ok()) {
      spdlog::error("cannot listen on {}: {}", addr, std::string(ready.message()));
      return 1;
    }
  }

  // Signals go to one thread that drains the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::string why;
  auto backend = arrayd::CreateBackend(backend_name, &why);
  if (!backend.ok()) {
    spdlog::error("cannot start backend '{}': {}", backend_name, backend.status().ToString());
    return 1;
  }
  spdlog::info("backend {}: {}", (*backend)->name(), why);

  // The same-host op socket sits beside the first unix socket address.
  std::string local_path;
  for (const std::string& addr : listen) {
    if (local_socket && local_path.empty() && absl::StartsWith(addr, "unix:")) {
      local_path = addr.substr(5) + ".ops";
    }
  }
  options.local_op_socket = local_path;
  arrayd::ArraydService service(backend->get(), &arrayd::DefaultRegistry(), options);
  grpc::ServerBuilder builder;
  // No SO_REUSEPORT: a second server on a port in use must fail to start,
  // not split the connections with the first.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  std::vector<int> bound(listen.size(), 0);
  for (size_t i = 0; i < listen.size(); ++i) {
    builder.AddListeningPort(listen[i], grpc::InsecureServerCredentials(), &bound[i]);
  }
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(256 << 20);
  builder.SetMaxSendMessageSize(256 << 20);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    spdlog::error("cannot listen on {}", absl::StrJoin(listen, ", "));
    return 1;
  }
  for (size_t i = 0; i < listen.size(); ++i) {
    if (bound[i] == 0) {
      spdlog::error("cannot listen on {}: address in use or unavailable", listen[i]);
      server->Shutdown();
      return 1;
    }
  }
  std::unique_ptr<arrayd::LocalTransport> local;
  if (!local_path.empty()) {
    auto transport =
        arrayd::LocalTransport::Listen(local_path, &service, absl::Microseconds(local_poll_us));
    if (transport.ok()) {
      local = *std::move(transport);
    } else if (absl::IsAlreadyExists(transport.status()) ||
               absl::IsPermissionDenied(transport.status())) {
      spdlog::error("cannot listen on {}: {}", local_path, std::string(transport.status().message()));
      server->Shutdown();
      return 1;
    } else {
      spdlog::warn("no same-host op socket: {}", transport.status().ToString());
    }
  }
  spdlog::info("arrayd {} serving on {}{}", arrayd::kVersion, absl::StrJoin(listen, ", "),
               local ? " (same-host op socket " + local_path + ")" : "");

  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    spdlog::info("signal {}: draining {} session(s)", sig, service.num_sessions());
    service.StartDraining();
    if (local) local->Shutdown();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  });
  server->Wait();
  waiter.join();
  spdlog::info("arrayd stopped");
  return 0;
}

// arrayd: the array server daemon. Parses flags, picks a backend, serves the
// gRPC API on every --listen address until SIGTERM/SIGINT, then drains.
#include <grpc/grpc.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "ops/registry.h"
#include "rpc/admin.h"
#include "rpc/local_transport.h"
#include "rpc/metrics.h"
#include "rpc/service.h"
#include "rpc/socket_path.h"
#include "spdlog/spdlog.h"

// gRPC sizes its thread pools by the machine's cores: on a 16-core host,
// 16 event-engine threads and 8 of the callback API's "nexting" threads,
// which Debian's gRPC 1.51 gives no setting for. They serve the TCP
// clients only (same-host clients are the worker pool's), so the server
// tells gRPC of at most kGrpcCores cores: the threads stay bounded by the
// cores (issue 17: about twice their number in all, workers included).
// Defined in the executable, this definition interposes libgpr's for the
// gRPC libraries' calls; weak, so that a static gRPC's own one wins.
constexpr unsigned kGrpcCores = 4;
extern "C" __attribute__((weak)) unsigned gpr_cpu_num_cores(void) {
  static const unsigned cores =
      std::min(kGrpcCores, std::max(1u, std::thread::hardware_concurrency()));
  return cores;
}

namespace {

constexpr char kUsage[] = R"(usage: arrayd [flags]

  --listen ADDR        address to serve on, repeatable: HOST:PORT or unix:PATH
                       (default: unix:/tmp/arrayd-$UID/arrayd.sock and 127.0.0.1:7470)
  --backend NAME       auto (default), cpu, cuda or hip
  --log-level LEVEL    trace, debug, info (default), warn, error
  --session-quota N    bytes one session may hold (default: no limit)
  --tenant-quota N     bytes all sessions of one tenant may hold together
                       (default: no limit)
  --server-quota N     bytes all sessions may hold together, or N% of the
                       device's memory (default 90%)
  --max-array-bytes N  largest single array (default: no limit beyond the quotas)
  --max-sessions N     sessions open at once, in all (default 1024)
  --max-sessions-per-tenant N
                       sessions open at once per tenant (default 256)
  --auth-tokens FILE   require a bearer token: lines 'TOKEN TENANT' (clients:
                       ARRAYD_TOKEN or connect(token=)); quotas are per tenant
  --tls-cert FILE      serve TCP addresses with TLS: this certificate chain (PEM)
  --tls-key FILE       and its private key (PEM)
  --tls-client-ca FILE require client certificates signed by this CA (mTLS)
  --insecure           allow a TCP address other than loopback without TLS
                       and authentication
  --metrics-listen ADDR
                       Prometheus metrics over HTTP at ADDR/metrics (default
                       127.0.0.1:9470; 'off' for none)
  --allow-user-kernels let clients compile and run their own CUDA code
                       (RawKernel, RawModule, ElementwiseKernel, ReductionKernel,
                       fuse). It runs inside the shared server: a faulting kernel
                       ends every session (the server exits with code 70)
  --max-inline-bytes N largest array carried inside a batch or sync reply (default 1 MiB)
  --max-message-bytes N
                       largest gRPC message or same-host frame (default 256 MiB;
                       a larger one ends its call or connection)
  --no-local-socket    do not offer the same-host op socket (PATH.ops beside the
                       first unix:PATH address)
  --local-poll-us N    same-host socket: poll this long for a client's next
                       frame before waiting for it (default 50; at least
                       1000 after a sync; 0: never poll). Only while half the
                       workers or more are idle
  --workers N          threads that run sessions and read the same-host socket
                       (default 0: one per core); idle sessions have none
  --config FILE        read flags from FILE: the same flags, one per line
                       ('--flag value' or '--flag=value'; '#' starts a comment),
                       in place of --config (later flags override earlier ones)
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

// SIGTERM/SIGINT: the handler writes the signal to this pipe (all it may do).
int g_signal_pipe[2] = {-1, -1};
extern "C" void OnSignal(int sig) {
  const char c = static_cast<char>(sig);
  const int saved = errno;
  (void)!::write(g_signal_pipe[1], &c, 1);
  errno = saved;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The command line with every --config FILE replaced by the flags in FILE:
// one per line, '--flag', '--flag value' or '--flag=value', blank lines and
// '#' comments skipped. A config file may not name another.
absl::StatusOr<std::vector<std::string>> ExpandConfig(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string path;
    if (arg == "--config") {
      if (i + 1 >= argc) return absl::InvalidArgumentError("--config needs a file");
      path = argv[++i];
    } else if (absl::StartsWith(arg, "--config=")) {
      path = arg.substr(9);
    } else {
      args.push_back(arg);
      continue;
    }
    absl::StatusOr<std::string> text = ReadFile(path);
    if (!text.ok()) return absl::InvalidArgumentError(absl::StrCat("--config: cannot read ", path));
    int line_number = 0;
    for (absl::string_view line : absl::StrSplit(*text, '\n')) {
      ++line_number;
      line = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
      if (line.empty()) continue;
      const size_t space = line.find_first_of(" \t");
      std::string flag(line.substr(0, space));
      if (!absl::StartsWith(flag, "--") || flag == "--config" ||
          absl::StartsWith(flag, "--config=")) {
        return absl::InvalidArgumentError(absl::StrCat(path, ":", line_number, ": '", flag,
                                                       "' is not a flag arrayd reads from a file"));
      }
      args.push_back(flag);
      if (space != absl::string_view::npos) {
        args.emplace_back(absl::StripAsciiWhitespace(line.substr(space)));
      }
    }
  }
  return args;
}

// A TCP address that only this host can reach (127.0.0.0/8, ::1, localhost).
bool IsLoopback(const std::string& addr) {
  if (absl::StartsWith(addr, "unix:") || absl::StartsWith(addr, "unix-abstract:")) return true;
  std::string host = addr.substr(0, addr.rfind(':'));
  if (absl::StartsWith(host, "ipv4:")) host = host.substr(5);
  if (absl::StartsWith(host, "ipv6:")) host = host.substr(5);
  return absl::StartsWith(host, "127.") || host == "localhost" || host == "[::1]" ||
         host == "::1";
}

}  // namespace

int main(int argc, char** argv) {
  // One reference to gRPC's library that is never given back, so the last
  // grpc++ object to go does not run grpc_shutdown. That joins gRPC's
  // executor threads, and one of them can sit in a poll of up to 10 s:
  // gdb showed a stopped server taking that long to exit after SIGTERM
  // (main's return, in Executor::SetThreading), about one exit in six.
  // Everything of arrayd's own is still torn down in order; the process
  // exit ends gRPC's threads.
  grpc_init();
  // Debian's Abseil is built with Mutex deadlock detection on: every lock
  // then takes a global spin lock to update the lock graph, which made the
  // workers' locks one lock for the whole server (perf with 32 clients on
  // the GPU machine: 30% of the CPU in SpinLock::SpinLoop). Our tests keep
  // it; the server does without.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Every session has its own CUDA streams; the driver maps them onto this
  // many hardware queues (8 by default), and streams that share a queue
  // wait on each other's work: with 64 sessions, a client that floods
  // would hold up others. 32 is the most the driver takes. Before CUDA
  // starts; an operator's own setting wins.
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
  std::vector<std::string> listen;
  std::string backend_name = "auto";
  std::string log_level = "info";
  arrayd::ServiceOptions options;
  bool local_socket = true;
  int64_t local_poll_us = 50;
  std::string server_quota = "90%";
  uint64_t max_message_bytes = 256u << 20;
  std::string tokens_path, tls_cert, tls_key, tls_client_ca;
  bool insecure = false;
  std::string metrics_listen = "127.0.0.1:9470";
  bool metrics_explicit = false;  // an address given: failing to serve it is an error
  absl::StatusOr<std::vector<std::string>> expanded = ExpandConfig(argc, argv);
  if (!expanded.ok()) {
    std::cerr << "arrayd: " << expanded.status().message() << "\n";
    return 2;
  }
  const std::vector<std::string>& args = *expanded;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    auto value = [&](const char* flag) -> std::string {
      std::string prefix = std::string(flag) + "=";
      if (absl::StartsWith(arg, prefix)) return arg.substr(prefix.size());
      if (i + 1 >= args.size()) {
        std::cerr << "arrayd: " << flag << " needs a value\n";
        std::exit(2);
      }
      return args[++i];
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
    } else if (is("--tenant-quota")) {
      if (!ParseBytes(value("--tenant-quota"), &options.tenant_quota_bytes)) {
        std::cerr << "arrayd: --tenant-quota needs a number of bytes\n";
        return 2;
      }
    } else if (is("--server-quota")) {
      server_quota = value("--server-quota");
    } else if (is("--max-array-bytes")) {
      if (!ParseBytes(value("--max-array-bytes"), &options.max_array_bytes)) {
        std::cerr << "arrayd: --max-array-bytes needs a number of bytes\n";
        return 2;
      }
    } else if (is("--max-sessions-per-tenant")) {
      if (!absl::SimpleAtoi(value("--max-sessions-per-tenant"), &options.max_sessions_per_tenant) ||
          options.max_sessions_per_tenant == 0) {
        std::cerr << "arrayd: --max-sessions-per-tenant needs a positive number\n";
        return 2;
      }
    } else if (is("--max-sessions")) {
      if (!absl::SimpleAtoi(value("--max-sessions"), &options.max_sessions) ||
          options.max_sessions == 0) {
        std::cerr << "arrayd: --max-sessions needs a positive number\n";
        return 2;
      }
    } else if (is("--auth-tokens")) {
      tokens_path = value("--auth-tokens");
    } else if (is("--tls-cert")) {
      tls_cert = value("--tls-cert");
    } else if (is("--tls-key")) {
      tls_key = value("--tls-key");
    } else if (is("--tls-client-ca")) {
      tls_client_ca = value("--tls-client-ca");
    } else if (arg == "--insecure") {
      insecure = true;
    } else if (is("--metrics-listen")) {
      metrics_listen = value("--metrics-listen");
      metrics_explicit = true;
    } else if (arg == "--allow-user-kernels") {
      options.allow_user_kernels = true;
    } else if (arg == "--no-local-socket") {
      local_socket = false;
    } else if (is("--local-poll-us")) {
      const std::string v = value("--local-poll-us");
      if (!absl::SimpleAtoi(v, &local_poll_us) || local_poll_us < 0 || local_poll_us > 1000000) {
        std::cerr << "arrayd: --local-poll-us needs microseconds from 0 to 1000000\n";
        return 2;
      }
    } else if (is("--workers")) {
      const std::string v = value("--workers");
      if (!absl::SimpleAtoi(v, &options.workers) || options.workers > 4096) {
        std::cerr << "arrayd: --workers needs a count from 0 (one per core) to 4096\n";
        return 2;
      }
    } else if (is("--max-message-bytes")) {
      if (!ParseBytes(value("--max-message-bytes"), &max_message_bytes) ||
          max_message_bytes < (64u << 10) || max_message_bytes > (1u << 31) - 1) {
        std::cerr << "arrayd: --max-message-bytes needs bytes from 64 KiB to 2 GiB\n";
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
  // SIGTERM and SIGINT start a drain. A handler (not a blocked mask and
  // sigwait) because a library thread started before main, OpenBLAS's,
  // would not have the mask and would take the signal's default action:
  // whichever thread it lands on, the handler only writes to a pipe that
  // the drain thread reads. As PID 1 in a container a signal with a handler
  // is delivered too.
  if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) {
    spdlog::error("pipe: {}", std::strerror(errno));
    return 1;
  }
  struct sigaction on_signal {};
  on_signal.sa_handler = OnSignal;
  sigemptyset(&on_signal.sa_mask);
  on_signal.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &on_signal, nullptr);
  sigaction(SIGINT, &on_signal, nullptr);

  // Authentication and TLS.
  if (!tokens_path.empty()) {
    auto text = ReadFile(tokens_path);
    auto tokens = text.ok() ? arrayd::ParseTokenFile(*text) : text.status();
    if (!tokens.ok()) {
      spdlog::error("--auth-tokens {}: {}", tokens_path, std::string(tokens.status().message()));
      return 1;
    }
    options.tokens = *std::move(tokens);
  }
  if (tls_cert.empty() != tls_key.empty() || (!tls_client_ca.empty() && tls_cert.empty())) {
    spdlog::error("TLS needs both --tls-cert and --tls-key (and them for --tls-client-ca)");
    return 1;
  }
  std::shared_ptr<grpc::ServerCredentials> tcp_credentials = grpc::InsecureServerCredentials();
  if (!tls_cert.empty()) {
    auto cert = ReadFile(tls_cert);
    auto key = ReadFile(tls_key);
    auto ca = tls_client_ca.empty() ? absl::StatusOr<std::string>("") : ReadFile(tls_client_ca);
    for (const auto* file : {&cert, &key, &ca}) {
      if (!file->ok()) {
        spdlog::error("{}", std::string(file->status().message()));
        return 1;
      }
    }
    grpc::SslServerCredentialsOptions ssl(
        tls_client_ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                              : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    ssl.pem_root_certs = *ca;
    ssl.pem_key_cert_pairs.push_back({*key, *cert});
    tcp_credentials = grpc::SslServerCredentials(ssl);
  }
  // A listener other hosts can reach must be private and authenticated,
  // unless the operator says otherwise.
  const bool authenticated = !options.tokens.empty() || !tls_client_ca.empty();
  for (const std::string& addr : listen) {
    if (IsLoopback(addr) || insecure) continue;
    if (tls_cert.empty() || !authenticated) {
      spdlog::error("refusing to listen on {} without TLS (--tls-cert, --tls-key) and "
                    "authentication (--auth-tokens or --tls-client-ca); --insecure allows it",
                    addr);
      return 1;
    }
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


  std::string why;
  auto backend = arrayd::CreateBackend(backend_name, &why);
  if (!backend.ok()) {
    spdlog::error("cannot start backend '{}': {}", backend_name, backend.status().ToString());
    return 1;
  }
  spdlog::info("backend {}: {}", (*backend)->name(), why);
  if ((*backend)->name() != "cpu") arrayd::cpu::ParkHostBlasThreads();
  if (absl::EndsWith(server_quota, "%")) {
    double percent = 0;
    if (!absl::SimpleAtod(server_quota.substr(0, server_quota.size() - 1), &percent) ||
        percent <= 0 || percent > 100) {
      spdlog::error("--server-quota: a percentage from 0 to 100, or bytes");
      return 1;
    }
    uint64_t total = 0;
    for (const auto& d : (*backend)->Devices()) total += d.total_memory;
    options.server_quota_bytes = static_cast<uint64_t>(static_cast<double>(total) * percent / 100);
  } else if (!ParseBytes(server_quota, &options.server_quota_bytes)) {
    spdlog::error("--server-quota: a percentage from 0 to 100, or bytes");
    return 1;
  }

  // The same-host op socket sits beside the first unix socket address.
  std::string local_path;
  for (const std::string& addr : listen) {
    if (local_socket && local_path.empty() && absl::StartsWith(addr, "unix:")) {
      local_path = addr.substr(5) + ".ops";
    }
  }
  options.local_op_socket = local_path;
  arrayd::ArraydService service(backend->get(), &arrayd::DefaultRegistry(), options);
  // The standard surfaces beside arrayd's own: grpc.health.v1.Health
  // (grpc++'s service: probes need no token) and server reflection.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // No SO_REUSEPORT: a second server on a port in use must fail to start,
  // not split the connections with the first.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  std::vector<int> bound(listen.size(), 0);
  for (size_t i = 0; i < listen.size(); ++i) {
    // Unix sockets are reached through their directory's permissions only;
    // TCP gets TLS when configured.
    const bool unix_socket = absl::StartsWith(listen[i], "unix");
    builder.AddListeningPort(
        listen[i], unix_socket ? grpc::InsecureServerCredentials() : tcp_credentials, &bound[i]);
  }
  builder.RegisterService(&service);
  // Admin.Drain drains as SIGTERM does: through the signal pipe.
  arrayd::AdminService admin(&service, [] {
    const char sig = SIGTERM;
    (void)!::write(g_signal_pipe[1], &sig, 1);
  });
  builder.RegisterService(&admin);
  builder.SetMaxReceiveMessageSize(static_cast<int>(max_message_bytes));
  builder.SetMaxSendMessageSize(static_cast<int>(max_message_bytes));
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
        arrayd::LocalTransport::Listen(local_path, &service, absl::Microseconds(local_poll_us),
                                       static_cast<uint32_t>(max_message_bytes));
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
  std::unique_ptr<arrayd::MetricsServer> metrics;
  if (!metrics_listen.empty() && metrics_listen != "off") {
    auto started = arrayd::StartMetrics(metrics_listen, &service, backend->get());
    if (started.ok()) {
      metrics = *std::move(started);
      spdlog::info("metrics on http://{}/metrics (port {})", metrics_listen, metrics->port());
    } else if (metrics_explicit) {
      spdlog::error("{}", std::string(started.status().message()));
      server->Shutdown();
      return 1;
    } else {
      // The default port may be another server's on this host.
      spdlog::warn("no metrics: {}", std::string(started.status().message()));
    }
  }
  spdlog::info("arrayd {} serving on {}{}", arrayd::kVersion, absl::StrJoin(listen, ", "),
               local ? " (same-host op socket " + local_path + ")" : "");

  // SERVING while the device can serve; NOT_SERVING after a fatal device
  // error (the server exits soon after) and from the start of a drain.
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  auto set_serving = [health](bool serving) {
    health->SetServingStatus(serving);  // "" and every service
    health->SetServingStatus("arrayd.v1.Arrayd", serving);
  };
  set_serving(true);
  std::atomic<bool> stopping{false};
  std::thread health_watch([&] {
    bool serving = true;
    while (!stopping.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const bool ok = (*backend)->Health().ok();
      if (ok != serving && !stopping.load()) set_serving(serving = ok);
    }
  });

  std::thread waiter([&] {
    char sig = 0;
    while (::read(g_signal_pipe[0], &sig, 1) < 0 && errno == EINTR) {
    }
    spdlog::info("signal {}: draining {} session(s)", static_cast<int>(sig),
                 service.num_sessions());
    stopping = true;
    health->Shutdown();  // NOT_SERVING from now on, whatever is set later
    service.StartDraining();
    if (local) local->Shutdown();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  });
  server->Wait();
  waiter.join();
  health_watch.join();
  // Nothing is left behind: the unix sockets go with the server.
  for (const std::string& addr : listen) {
    if (absl::StartsWith(addr, "unix:")) ::unlink(addr.substr(5).c_str());
  }
  spdlog::info("arrayd stopped");
  return 0;
}

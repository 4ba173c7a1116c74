#include "rpc/metrics.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backend/nvml.h"
#include "common/metrics.h"

#if ARRAYD_HAVE_PROMETHEUS
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "prometheus/text_serializer.h"
#endif

namespace arrayd {

#if ARRAYD_HAVE_PROMETHEUS
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily Family(std::string name, std::string help, MetricType type) {
  MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = type;
  return f;
}

void Add(MetricFamily* f, double value, std::vector<ClientMetric::Label> labels = {}) {
  ClientMetric m;
  m.label = std::move(labels);
  if (f->type == MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  f->metric.push_back(std::move(m));
}

MetricFamily Histogram(std::string name, std::string help, const LatencyHistogram& h) {
  MetricFamily f = Family(std::move(name), std::move(help), MetricType::Histogram);
  ClientMetric m;
  uint64_t cumulative = 0;
  for (size_t b = 0; b <= LatencyHistogram::kBounds.size(); ++b) {
    cumulative += h.count(b);
    ClientMetric::Bucket bucket;
    bucket.cumulative_count = cumulative;
    bucket.upper_bound = b < LatencyHistogram::kBounds.size()
                             ? LatencyHistogram::kBounds[b]
                             : std::numeric_limits<double>::infinity();
    m.histogram.bucket.push_back(bucket);
  }
  m.histogram.sample_count = cumulative;
  m.histogram.sample_sum = h.sum_seconds();
  f.metric.push_back(std::move(m));
  return f;
}

const char* kTransportNames[kNumTransports] = {"inline", "shared_memory", "grpc_stream"};

class Collector : public prometheus::Collectable {
 public:
  Collector(ArraydService* service, Backend* backend) : service_(service), backend_(backend) {}

  std::vector<MetricFamily> Collect() const override {
    std::vector<MetricFamily> out;
    const v1::ServerInfo info = service_->Info();
    const v1::SessionList sessions = service_->Sessions();

    MetricFamily open = Family("arrayd_sessions_open", "Sessions open now.", MetricType::Gauge);
    Add(&open, info.sessions());
    out.push_back(std::move(open));
    MetricFamily total = Family("arrayd_sessions_opened_total",
                                "Sessions opened since the server started.", MetricType::Counter);
    Add(&total, static_cast<double>(info.sessions_opened()));
    out.push_back(std::move(total));
    MetricFamily draining =
        Family("arrayd_draining", "1 while the server drains (SIGTERM, Admin.Drain).",
               MetricType::Gauge);
    Add(&draining, info.draining() ? 1 : 0);
    out.push_back(std::move(draining));

    MetricFamily bytes = Family("arrayd_session_bytes", "Bytes of a session's arrays.",
                                MetricType::Gauge);
    MetricFamily arrays = Family("arrayd_session_arrays", "Arrays a session holds.",
                                 MetricType::Gauge);
    for (const v1::SessionInfo& s : sessions.sessions()) {
      std::vector<ClientMetric::Label> labels = {{"session", std::to_string(s.id())},
                                                 {"client", s.client_name()},
                                                 {"tenant", s.tenant()}};
      Add(&bytes, static_cast<double>(s.bytes_in_use()), labels);
      Add(&arrays, static_cast<double>(s.arrays()), labels);
    }
    out.push_back(std::move(bytes));
    out.push_back(std::move(arrays));

    uint64_t in_use = 0, cached = 0;
    backend_->PoolBytes(&in_use, &cached);
    MetricFamily pool = Family("arrayd_pool_bytes",
                               "The device memory pool: bytes in use by arrays, and cached free.",
                               MetricType::Gauge);
    Add(&pool, static_cast<double>(in_use), {{"state", "in_use"}});
    Add(&pool, static_cast<double>(cached), {{"state", "cached"}});
    out.push_back(std::move(pool));

    MetricFamily ops = Family("arrayd_ops_total", "Ops run, by op.", MetricType::Counter);
    const std::vector<uint64_t> counts = service_->OpCounts();
    for (const auto& [name, def] : service_->registry()->ops()) {
      const size_t i = static_cast<size_t>(def.index);
      if (i < counts.size() && counts[i] > 0) {
        Add(&ops, static_cast<double>(counts[i]), {{"op", name}});
      }
    }
    out.push_back(std::move(ops));

    ServerMetrics& m = Metrics();
    out.push_back(Histogram("arrayd_batch_seconds",
                            "Time to queue one message's ops on the device (host side).",
                            m.batch_seconds));
    out.push_back(Histogram("arrayd_sync_seconds",
                            "Time a sync took on the server: waits and fetches.",
                            m.sync_seconds));
    MetricFamily errors = Family("arrayd_deferred_errors_total",
                                 "Deferred op errors, by gRPC status code.", MetricType::Counter);
    for (int code = 0; code < 17; ++code) {
      const uint64_t n = m.deferred_errors[code].load();
      if (n > 0) Add(&errors, static_cast<double>(n), {{"code", std::to_string(code)}});
    }
    out.push_back(std::move(errors));
    MetricFamily transfer = Family("arrayd_transfer_bytes_total",
                                   "Bytes moved between clients and the server, by direction "
                                   "and transport.",
                                   MetricType::Counter);
    for (int t = 0; t < kNumTransports; ++t) {
      Add(&transfer, static_cast<double>(m.uploaded[t].load()),
          {{"direction", "upload"}, {"transport", kTransportNames[t]}});
      Add(&transfer, static_cast<double>(m.downloaded[t].load()),
          {{"direction", "download"}, {"transport", kTransportNames[t]}});
    }
    out.push_back(std::move(transfer));
    MetricFamily compiles = Family("arrayd_kernel_compiles_total",
                                   "Kernels compiled by NVRTC (the server's and users').",
                                   MetricType::Counter);
    Add(&compiles, static_cast<double>(m.kernel_compiles.load()));
    out.push_back(std::move(compiles));
    MetricFamily compile_time = Family("arrayd_kernel_compile_seconds_total",
                                       "Time spent compiling kernels.", MetricType::Counter);
    Add(&compile_time, m.kernel_compile_ns.load() * 1e-9);
    out.push_back(std::move(compile_time));
    MetricFamily hits = Family("arrayd_kernel_cache_hits_total",
                               "Kernel loads served by a cache, by cache.", MetricType::Counter);
    Add(&hits, static_cast<double>(m.kernel_memory_hits.load()), {{"cache", "memory"}});
    Add(&hits, static_cast<double>(m.kernel_disk_hits.load()), {{"cache", "disk"}});
    out.push_back(std::move(hits));

    const std::vector<GpuUsage> gpus = ReadGpuUsage();
    if (!gpus.empty()) {
      MetricFamily mem = Family("arrayd_gpu_memory_bytes",
                                "GPU memory used and total, all processes (NVML).",
                                MetricType::Gauge);
      MetricFamily util = Family("arrayd_gpu_utilization_ratio",
                                 "GPU busy fraction of the last sample period (NVML).",
                                 MetricType::Gauge);
      for (const GpuUsage& g : gpus) {
        const std::string gpu = std::to_string(g.index);
        Add(&mem, static_cast<double>(g.memory_used), {{"gpu", gpu}, {"state", "used"}});
        Add(&mem, static_cast<double>(g.memory_total), {{"gpu", gpu}, {"state", "total"}});
        Add(&util, g.utilization_percent / 100.0, {{"gpu", gpu}});
      }
      out.push_back(std::move(mem));
      out.push_back(std::move(util));
    }
    return out;
  }

 private:
  ArraydService* service_;
  Backend* backend_;
};

// The HTTP side: GET /metrics answered with the text format, one
// connection at a time on a thread of its own (scrapes come seconds apart).
// Not prometheus-cpp's exposer: its web server (civetweb) starts its
// threads with 100 KiB stacks, which glibc refuses in a process whose
// static TLS is larger than that (the CUDA build's, with cuBLAS and
// cuSOLVER loaded at start): pthread_create's EINVAL, no metrics at all.
class HttpMetricsServer : public MetricsServer {
 public:
  HttpMetricsServer(int listen_fd, int port, std::shared_ptr<Collector> collector)
      : listen_fd_(listen_fd), port_(port), collector_(std::move(collector)) {
    if (pipe(wake_) != 0) wake_[0] = wake_[1] = -1;
    thread_ = std::thread([this] { Serve(); });
  }
  ~HttpMetricsServer() override {
    stop_.store(true);
    if (wake_[1] >= 0) (void)!write(wake_[1], "x", 1);
    thread_.join();
    close(listen_fd_);
    for (int fd : wake_) {
      if (fd >= 0) close(fd);
    }
  }
  int port() const override { return port_; }

 private:
  void Serve() {
    while (!stop_.load()) {
      pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (poll(fds, wake_[0] >= 0 ? 2 : 1, 1000) <= 0 || !(fds[0].revents & POLLIN)) continue;
      const int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      timeval timeout{2, 0};  // a client that stalls does not hold the thread
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
      Answer(fd);
      close(fd);
    }
  }

  void Answer(int fd) {
    std::string request;
    char buf[2048];
    while (request.size() < 16384 && request.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = read(fd, buf, sizeof(buf));
      if (n <= 0) break;
      request.append(buf, static_cast<size_t>(n));
    }
    const std::string line = request.substr(0, request.find("\r\n"));
    std::string status = "200 OK", type = "text/plain; version=0.0.4; charset=utf-8", body;
    if (absl::StartsWith(line, "GET /metrics ") || absl::StartsWith(line, "GET /metrics?")) {
      body = prometheus::TextSerializer().Serialize(collector_->Collect());
    } else if (absl::StartsWith(line, "GET ")) {
      status = "404 Not Found";
      body = "arrayd serves its metrics at /metrics\n";
    } else {
      status = "405 Method Not Allowed";
      body = "GET /metrics\n";
    }
    const std::string reply = absl::StrCat("HTTP/1.1 ", status, "\r\nContent-Type: ", type,
                                           "\r\nContent-Length: ", body.size(),
                                           "\r\nConnection: close\r\n\r\n", body);
    size_t sent = 0;
    while (sent < reply.size()) {
      const ssize_t n = send(fd, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
  }

  const int listen_fd_;
  const int port_;
  std::shared_ptr<Collector> collector_;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// A listening TCP socket on HOST:PORT ([::1]:PORT for IPv6), and its port.
absl::StatusOr<std::pair<int, int>> Listen(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("metrics address ", address, " is not HOST:PORT"));
  }
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int err = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
      err != 0) {
    return absl::InvalidArgumentError(absl::StrCat("metrics address ", address, ": ", gai_strerror(err)));
  }
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 16) == 0) {
      sockaddr_storage bound{};
      socklen_t len = sizeof(bound);
      getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
      const int p = bound.ss_family == AF_INET6
                        ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                        : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
      freeaddrinfo(found);
      return std::make_pair(fd, p);
    }
    why = std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  return absl::UnavailableError(absl::StrCat("cannot listen on ", address, ": ", why));
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsServer>> StartMetrics(const std::string& address,
                                                            ArraydService* service,
                                                            Backend* backend) {
  absl::StatusOr<std::pair<int, int>> listening = Listen(address);
  if (!listening.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", address, ": ", listening.status().message()));
  }
  return std::unique_ptr<MetricsServer>(new HttpMetricsServer(
      listening->first, listening->second, std::make_shared<Collector>(service, backend)));
}
#else
absl::StatusOr<std::unique_ptr<MetricsServer>> StartMetrics(const std::string&, ArraydService*,
                                                            Backend*) {
  return absl::UnimplementedError(
      "this arrayd was built without prometheus-cpp (prometheus-cpp-dev): no metrics");
}
#endif

}  // namespace arrayd

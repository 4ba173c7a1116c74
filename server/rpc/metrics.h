// Prometheus metrics on --metrics-listen (HTTP, GET /metrics, the text
// format of prometheus-cpp's serializer): rendered at each scrape from the service, the backend and the
// process's counters (common/metrics.h), so nothing is kept twice.
#ifndef ARRAYD_RPC_METRICS_H_
#define ARRAYD_RPC_METRICS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backend/backend.h"
#include "rpc/service.h"

namespace arrayd {

class MetricsServer {
 public:
  virtual ~MetricsServer() = default;
  // The port it listens on (the one chosen for port 0).
  virtual int port() const = 0;
};

// Serves the metrics of `service` on `address` (HOST:PORT); an error when
// it cannot listen there.
absl::StatusOr<std::unique_ptr<MetricsServer>> StartMetrics(const std::string& address,
                                                            ArraydService* service,
                                                            Backend* backend);

}  // namespace arrayd

#endif  // ARRAYD_RPC_METRICS_H_

#include "common/metrics.h"

namespace arrayd {

ServerMetrics& Metrics() {
  static ServerMetrics* metrics = new ServerMetrics;  // never destroyed: read until exit
  return *metrics;
}

}  // namespace arrayd

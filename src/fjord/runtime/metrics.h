// The metrics of a running job (docs/streaming.md, "Metrics") and the Prometheus text endpoint
// that serves them (`pipeline.metrics-port`, loopback by default).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "fjord/result.h"

namespace fjord::runtime {

struct JobMetrics {
  std::atomic<int64_t> records_in{0};   // rows read from the source
  std::atomic<int64_t> records_out{0};  // rows in the new data files of committed checkpoints
  std::atomic<int64_t> checkpoints_completed{0};
  std::atomic<int64_t> commit_failures{0};
  std::atomic<int64_t> checkpoint_micros_sum{0};
  std::atomic<int64_t> commit_micros_sum{0};
  std::atomic<int64_t> commits{0};
  std::atomic<int64_t> last_checkpoint{0};
  std::atomic<int64_t> latest_snapshot{0};
  std::atomic<int64_t> pending_committables{0};
  std::atomic<int64_t> recommitted{0};
  std::atomic<int64_t> queued_batches{0};

  // Prometheus text exposition format 0.0.4, every metric labelled job="<job>".
  std::string Render(const std::string& job) const;
};

// A minimal HTTP/1.0 server answering GET /metrics with `render()` (404 otherwise), one
// connection at a time on its own thread.
class MetricsServer {
 public:
  MetricsServer() = default;
  ~MetricsServer() { Stop(); }
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds `address`:`port` (IPv4) now, so that a port in use is an error at start.
  Status Start(const std::string& address, int port, std::function<std::string()> render);
  void Stop();

 private:
  void Serve();

  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::function<std::string()> render_;
  std::thread thread_;
};

}  // namespace fjord::runtime

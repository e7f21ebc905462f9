// The metrics of a running job (docs/streaming.md, "Metrics") and the Prometheus text endpoint
// that serves them (`pipeline.metrics-port`, loopback by default).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fjord/result.h"
#include "fjord/table_stats.h"
#include "fjord/table_write.h"

namespace fjord::runtime {

// How far a source is behind the end it knows of (kafka: one partition, in messages).
struct SourceLagMetric {
  std::string topic;
  int32_t partition = 0;
  int64_t records = 0;
};

struct JobMetrics {
  std::atomic<int64_t> records_in{0};   // rows read from the source
  std::atomic<int64_t> records_out{0};  // rows in the new data files of committed checkpoints
  std::atomic<int64_t> checkpoints_completed{0};
  std::atomic<int64_t> checkpoints_failed{0};  // not persisted, or timed out
  std::atomic<int64_t> commit_failures{0};
  std::atomic<int64_t> checkpoint_micros_sum{0};
  std::atomic<int64_t> commit_micros_sum{0};
  std::atomic<int64_t> commits{0};
  std::atomic<int64_t> last_checkpoint{0};
  std::atomic<int64_t> latest_snapshot{0};
  std::atomic<int64_t> pending_committables{0};
  std::atomic<int64_t> recommitted{0};
  std::atomic<int64_t> queued_batches{0};

  // CDC jobs (docs/cdc.md): tables created, schema changes applied, type changes ignored, table
  // columns missing from records, records of source tables not synchronized.
  std::atomic<int64_t> cdc_tables_created{0};
  std::atomic<int64_t> cdc_schema_changes{0};
  std::atomic<int64_t> cdc_schema_changes_ignored{0};
  std::atomic<int64_t> cdc_columns_missing{0};
  std::atomic<int64_t> cdc_records_excluded{0};

  // Snapshots in the table (earliest to latest retained) after the job's last commit.
  std::atomic<int64_t> table_snapshots{0};

  // Set by their threads under `mu`: each writer's after its last checkpoint, the source's lag
  // and the rates by the source thread about once a second.
  mutable std::mutex mu;
  std::vector<std::vector<BucketStats>> writer_buckets;  // per writer
  std::vector<WriteMetrics> writer_metrics;              // per writer
  std::vector<SourceLagMetric> source_lag;
  double records_in_per_second = 0;
  double records_out_per_second = 0;

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

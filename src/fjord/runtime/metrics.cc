#include "fjord/runtime/metrics.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace fjord::runtime {

namespace {

// A label value with `"`, `\` and line breaks escaped, as the text format wants.
std::string LabelValue(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string JobMetrics::Render(const std::string& job) const {
  const std::string job_label = "job=\"" + LabelValue(job) + "\"";
  const std::string label = "{" + job_label + "}";
  std::ostringstream out;
  auto header = [&](const char* name, const char* type, const char* help) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
  };
  auto metric = [&](const char* name, const char* type, const char* help, double value) {
    header(name, type, help);
    out << name << label << " " << value << "\n";
  };
  auto summary = [&](const char* name, const char* help, double sum, int64_t count) {
    header(name, "summary", help);
    out << name << "_sum" << label << " " << sum << "\n"
        << name << "_count" << label << " " << count << "\n";
  };
  metric("fjord_job_records_in_total", "counter", "Rows read from the source.",
         static_cast<double>(records_in.load()));
  metric("fjord_job_records_out_total", "counter",
         "Rows in the new data files of committed checkpoints.",
         static_cast<double>(records_out.load()));
  metric("fjord_job_checkpoints_completed_total", "counter",
         "Checkpoints persisted in the state directory.",
         static_cast<double>(checkpoints_completed.load()));
  metric("fjord_job_checkpoints_failed_total", "counter",
         "Checkpoints that could not be persisted (their committables stayed pending) or timed "
         "out.",
         static_cast<double>(checkpoints_failed.load()));
  metric("fjord_job_cdc_tables_created_total", "counter",
         "CDC jobs: tables created from the first message of a source table.",
         static_cast<double>(cdc_tables_created.load()));
  metric("fjord_job_cdc_schema_changes_total", "counter",
         "CDC jobs: schema changes applied to tables (ALTER TABLE steps).",
         static_cast<double>(cdc_schema_changes.load()));
  metric("fjord_job_cdc_schema_changes_ignored_total", "counter",
         "CDC jobs: type changes ignored because they narrow a column (logged once each).",
         static_cast<double>(cdc_schema_changes_ignored.load()));
  metric("fjord_job_cdc_columns_missing_total", "counter",
         "CDC jobs: table columns that records of the table lack, NULL in their rows (logged "
         "once each).",
         static_cast<double>(cdc_columns_missing.load()));
  metric("fjord_job_cdc_records_excluded_total", "counter",
         "CDC jobs: records of source tables the job does not synchronize (each source table "
         "logged once).",
         static_cast<double>(cdc_records_excluded.load()));
  metric("fjord_job_commit_failures_total", "counter",
         "Commits that failed; their committables stayed pending.",
         static_cast<double>(commit_failures.load()));
  summary("fjord_job_checkpoint_duration_seconds",
          "From the barrier to the end of the checkpoint's commit.",
          static_cast<double>(checkpoint_micros_sum.load()) / 1e6, checkpoints_completed.load());
  summary("fjord_job_commit_duration_seconds", "Time in TableCommit::Commit per committable.",
          static_cast<double>(commit_micros_sum.load()) / 1e6, commits.load());
  metric("fjord_job_last_checkpoint_id", "gauge", "The last completed checkpoint.",
         static_cast<double>(last_checkpoint.load()));
  metric("fjord_job_table_snapshot_id", "gauge", "The last snapshot the job committed.",
         static_cast<double>(latest_snapshot.load()));
  metric("fjord_job_table_snapshots", "gauge",
         "Snapshots retained in the table after the job's last commit.",
         static_cast<double>(table_snapshots.load()));
  metric("fjord_job_pending_committables", "gauge", "Checkpointed committables not committed yet.",
         static_cast<double>(pending_committables.load()));
  metric("fjord_job_recommitted_total", "counter",
         "Committables of the restored checkpoint committed at start.",
         static_cast<double>(recommitted.load()));
  metric("fjord_job_queued_batches", "gauge",
         "Batches waiting in the writers' queues (at the bound: backpressure).",
         static_cast<double>(queued_batches.load()));

  std::lock_guard<std::mutex> lock(mu);
  metric("fjord_job_records_in_per_second", "gauge",
         "Rows read from the source per second, over the last second or so.",
         records_in_per_second);
  metric("fjord_job_records_out_per_second", "gauge",
         "Rows committed per second, over the last second or so.", records_out_per_second);
  WriteMetrics sum;
  for (const WriteMetrics& w : writer_metrics) {
    sum.spills += w.spills;
    sum.compactions += w.compactions;
    sum.compaction_millis += w.compaction_millis;
    sum.compaction_waits += w.compaction_waits;
    sum.compaction_wait_millis += w.compaction_wait_millis;
  }
  metric("fjord_job_compactions_total", "counter", "Compactions the writers finished.",
         static_cast<double>(sum.compactions));
  metric("fjord_job_compaction_seconds_total", "counter",
         "Time the writers' compactions took (primary-key tables).",
         static_cast<double>(sum.compaction_millis) / 1e3);
  metric("fjord_job_write_stalls_total", "counter",
         "Times a writer waited for a compaction before it could go on.",
         static_cast<double>(sum.compaction_waits));
  metric("fjord_job_write_stall_seconds_total", "counter",
         "Time the writers spent waiting for compactions.",
         static_cast<double>(sum.compaction_wait_millis) / 1e3);
  metric("fjord_job_spills_total", "counter", "Sorted runs the write buffers spilled to disk.",
         static_cast<double>(sum.spills));

  // Per (partition, bucket) of a primary-key table, as the writers saw it at their last
  // checkpoint.
  std::vector<const BucketStats*> buckets;
  for (const auto& w : writer_buckets) {
    for (const BucketStats& b : w) buckets.push_back(&b);
  }
  auto per_bucket = [&](const char* name, const char* type, const char* help, auto value) {
    if (buckets.empty()) return;
    header(name, type, help);
    for (const BucketStats* b : buckets) {
      out << name << "{" << job_label << ",partition=\"" << LabelValue(b->partition_text)
          << "\",bucket=\"" << b->bucket << "\"} " << value(*b) << "\n";
    }
  };
  per_bucket("fjord_job_bucket_level0_files", "gauge", "Level-0 files of the bucket's LSM tree.",
             [](const BucketStats& b) { return static_cast<double>(b.lsm.level0_files); });
  per_bucket("fjord_job_bucket_sorted_runs", "gauge",
             "Sorted runs of the bucket's LSM tree (level-0 files and non-empty levels).",
             [](const BucketStats& b) { return static_cast<double>(b.lsm.sorted_runs); });
  per_bucket("fjord_job_bucket_files", "gauge", "Data files of the bucket's LSM tree.",
             [](const BucketStats& b) { return static_cast<double>(b.files); });
  per_bucket("fjord_job_bucket_compaction_backlog_bytes", "gauge",
             "Bytes the universal picker would compact now (0: nothing due).",
             [](const BucketStats& b) { return static_cast<double>(b.lsm.backlog_bytes); });
  per_bucket("fjord_job_bucket_compactions_total", "counter",
             "Compactions of the bucket finished by the writer.",
             [](const BucketStats& b) { return static_cast<double>(b.lsm.compactions); });
  per_bucket("fjord_job_bucket_compaction_seconds_total", "counter",
             "Time the bucket's compactions took.",
             [](const BucketStats& b) { return static_cast<double>(b.lsm.total_millis) / 1e3; });

  if (!source_lag.empty()) {
    header("fjord_job_source_lag_records", "gauge",
           "Messages of a partition after the source's position (kafka: up to the high "
           "watermark last fetched).");
    for (const SourceLagMetric& l : source_lag) {
      out << "fjord_job_source_lag_records{" << job_label << ",topic=\"" << LabelValue(l.topic)
          << "\",partition=\"" << l.partition << "\"} " << l.records << "\n";
    }
  }
  return out.str();
}

Status MetricsServer::Start(const std::string& address, int port,
                            std::function<std::string()> render) {
  render_ = std::move(render);
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Status::IOError("metrics: cannot open a socket: ", std::strerror(errno));
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    ::close(fd_);
    fd_ = -1;
    return Status::Invalid("metrics: not an IPv4 address: '", address, "'");
  }
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd_, 8) != 0) {
    Status st = Status::IOError("metrics: cannot listen on ", address, ":", port, ": ",
                                std::strerror(errno));
    ::close(fd_);
    fd_ = -1;
    return st;
  }
  thread_ = std::thread([this] { Serve(); });
  return Status::OK();
}

void MetricsServer::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void MetricsServer::Serve() {
  while (!stop_) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    int conn = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    timeval timeout{2, 0};
    ::setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    std::string request;
    char buf[2048];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 8192) {
      ssize_t n = ::recv(conn, buf, sizeof(buf), 0);
      if (n <= 0) break;
      request.append(buf, static_cast<size_t>(n));
    }
    std::string body;
    std::string status = "404 Not Found";
    std::string type = "text/plain";
    if (request.rfind("GET /metrics ", 0) == 0 || request.rfind("GET /metrics?", 0) == 0) {
      status = "200 OK";
      type = "text/plain; version=0.0.4; charset=utf-8";
      body = render_();
    } else {
      body = "fjord run: GET /metrics\n";
    }
    std::string response = "HTTP/1.0 " + status + "\r\nContent-Type: " + type +
                           "\r\nContent-Length: " + std::to_string(body.size()) +
                           "\r\nConnection: close\r\n\r\n" + body;
    size_t sent = 0;
    while (sent < response.size()) {
      ssize_t n = ::send(conn, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    ::close(conn);
  }
}

}  // namespace fjord::runtime

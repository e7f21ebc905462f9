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

std::string JobMetrics::Render(const std::string& job) const {
  std::string label = "{job=\"";
  for (char c : job) {
    if (c == '"' || c == '\\') label += '\\';
    label += c == '\n' ? 'n' : c;
  }
  label += "\"}";
  std::ostringstream out;
  auto metric = [&](const char* name, const char* type, const char* help, double value) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n"
        << name << label << " " << value << "\n";
  };
  auto summary = [&](const char* name, const char* help, double sum, int64_t count) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " summary\n"
        << name << "_sum" << label << " " << sum << "\n"
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
  metric("fjord_job_pending_committables", "gauge", "Checkpointed committables not committed yet.",
         static_cast<double>(pending_committables.load()));
  metric("fjord_job_recommitted_total", "counter",
         "Committables of the restored checkpoint committed at start.",
         static_cast<double>(recommitted.load()));
  metric("fjord_job_queued_batches", "gauge",
         "Batches waiting in the writers' queues (at the bound: backpressure).",
         static_cast<double>(queued_batches.load()));
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

#include "fjord/testing/postgres_server.h"

#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace fjord::testing {

namespace {

// Debian's PostgreSQL 15; FJORD_TEST_POSTGRES_BIN names another directory of initdb, pg_ctl and
// postgres.
std::string BinDir() {
  const char* dir = std::getenv("FJORD_TEST_POSTGRES_BIN");
  return dir != nullptr && *dir != '\0' ? dir : "/usr/lib/postgresql/15/bin";
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

Result<PGconn*> Open(const PostgresServer& s, const std::string& database) {
  std::string conninfo = "host=" + s.host() + " port=" + std::to_string(s.port()) +
                         " user=postgres dbname=" + database;
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(conn);
    PQfinish(conn);
    return Status::IOError("test PostgreSQL server: ", msg);
  }
  return conn;
}

}  // namespace

std::string PostgresServer::Unavailable() {
  for (const char* tool : {"initdb", "pg_ctl", "postgres"}) {
    if (!std::filesystem::exists(BinDir() + "/" + tool)) {
      return "PostgreSQL binaries not found in " + BinDir();
    }
  }
  if (geteuid() == 0 && getpwnam("postgres") == nullptr) {
    return "running as root and there is no postgres user to run the server as";
  }
  return "";
}

PostgresServer* PostgresServer::Shared(std::string* error) {
  static Result<std::unique_ptr<PostgresServer>> shared = Start();
  if (!shared.ok()) {
    *error = shared.status().ToString();
    return nullptr;
  }
  return shared->get();
}

Result<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  std::string why = Unavailable();
  if (!why.empty()) return Status::NotFound(why);
  std::unique_ptr<PostgresServer> s(new PostgresServer());
  std::string tmpl = (std::filesystem::temp_directory_path() / "fjord-pg-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return Status::IOError("mkdtemp ", tmpl, " failed");
  s->dir_ = tmpl;
  if (geteuid() == 0) {
    passwd* pw = getpwnam("postgres");
    if (chown(s->dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      return Status::IOError("chown ", s->dir_, " to postgres failed");
    }
    s->run_as_ = "runuser -u postgres -- ";
  }
  s->port_ = FreePort();
  std::string data = s->dir_ + "/data";
  std::string initdb = s->run_as_ + BinDir() + "/initdb -D " + data +
                       " -U postgres --auth=trust -E UTF8 --locale=C >" + s->dir_ +
                       "/initdb.log 2>&1";
  if (std::system(initdb.c_str()) != 0) {
    return Status::IOError("initdb failed (", initdb, "), see ", s->dir_, "/initdb.log");
  }
  {
    std::ofstream conf(data + "/postgresql.conf", std::ios::app);
    conf << "listen_addresses = '127.0.0.1'\nunix_socket_directories = '" << s->dir_
         << "'\nwal_level = logical\nmax_replication_slots = 20\nmax_wal_senders = 20\n"
            "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
            "shared_buffers = 16MB\nmax_connections = 40\n";
  }
  std::string start = s->run_as_ + BinDir() + "/pg_ctl -D " + data + " -l " + s->dir_ +
                      "/server.log -w -t 60 start >/dev/null 2>&1";
  // The free port is only free when looked at: another test may take it before the server binds
  // it. Then a new port, up to three times (the last `port` line of the file is the one used).
  for (int attempt = 1;; ++attempt) {
    {
      std::ofstream conf(data + "/postgresql.conf", std::ios::app);
      conf << "port = " << s->port_ << "\n";
    }
    if (std::system(start.c_str()) == 0) break;
    if (attempt == 3) {
      // The folder goes with the server object: the log's end goes into the message.
      std::ifstream in(s->dir_ + "/server.log");
      std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (log.size() > 2000) log = log.substr(log.size() - 2000);
      return Status::IOError("pg_ctl start failed 3 times (ports taken?); server.log ends:\n", log);
    }
    s->port_ = FreePort();
  }
  s->started_ = true;
  return s;
}

PostgresServer::~PostgresServer() {
  if (started_) {
    std::string stop =
        run_as_ + BinDir() + "/pg_ctl -D " + dir_ + "/data -m immediate -w stop >/dev/null 2>&1";
    if (std::system(stop.c_str()) != 0) {
      // Left running: nothing better to do in a destructor.
    }
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

Status PostgresServer::Execute(const std::string& database, const std::string& sql) const {
  FJORD_ASSIGN_OR_RAISE(PGconn * conn, Open(*this, database));
  PGresult* res = PQexec(conn, sql.c_str());
  Status st;
  ExecStatusType code = PQresultStatus(res);
  if (code != PGRES_COMMAND_OK && code != PGRES_TUPLES_OK) {
    st = Status::IOError("test PostgreSQL server: ", sql.substr(0, 200), ": ",
                         PQresultErrorMessage(res));
  }
  PQclear(res);
  PQfinish(conn);
  return st;
}

Result<std::vector<std::vector<std::string>>> PostgresServer::Query(const std::string& database,
                                                                    const std::string& sql) const {
  FJORD_ASSIGN_OR_RAISE(PGconn * conn, Open(*this, database));
  PGresult* res = PQexec(conn, sql.c_str());
  if (PQresultStatus(res) != PGRES_TUPLES_OK) {
    Status st = Status::IOError("test PostgreSQL server: ", sql, ": ", PQresultErrorMessage(res));
    PQclear(res);
    PQfinish(conn);
    return st;
  }
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < PQntuples(res); ++i) {
    std::vector<std::string> row;
    for (int j = 0; j < PQnfields(res); ++j) row.push_back(PQgetvalue(res, i, j));
    rows.push_back(std::move(row));
  }
  PQclear(res);
  PQfinish(conn);
  return rows;
}

}  // namespace fjord::testing

// A private PostgreSQL server for tests (the PostgreSQL CDC source, docs/cdc.md): initdb in a
// fresh temporary directory, wal_level=logical, trust authentication, listening on 127.0.0.1 at
// a free port with its unix socket inside the directory; stopped and removed at exit. As root it
// runs the server as user `postgres` (PostgreSQL refuses root). The binaries: Debian's
// /usr/lib/postgresql/15/bin, or the directory FJORD_TEST_POSTGRES_BIN names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fjord/result.h"

namespace fjord::testing {

class PostgresServer {
 public:
  // Why no server can be started here ("" when one can): the binaries are missing, or we are
  // root and there is no `postgres` user. Tests skip with it (FJORD_REQUIRE_COMPONENT: they fail
  // under make test).
  static std::string Unavailable();
  // The server shared by the whole test binary, started on first use (null with `error` set
  // when it did not start).
  static PostgresServer* Shared(std::string* error);

  static Result<std::unique_ptr<PostgresServer>> Start();
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  const std::string& host() const { return host_; }
  int port() const { return port_; }
  const std::string& dir() const { return dir_; }

  // Runs `sql` (one or more statements) in `database` as user postgres.
  Status Execute(const std::string& database, const std::string& sql) const;
  // The rows of a query, each value as text ("" for NULL).
  Result<std::vector<std::vector<std::string>>> Query(const std::string& database,
                                                      const std::string& sql) const;

 private:
  PostgresServer() = default;
  std::string host_ = "127.0.0.1";
  int port_ = 0;
  std::string dir_;
  std::string run_as_;  // "runuser -u postgres -- " as root, else ""
  bool started_ = false;
};

}  // namespace fjord::testing

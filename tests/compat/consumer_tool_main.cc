// fjord_consumer_tool: Fjord's ConsumerManager (meta/consumer.h) from the command line, for
// compat.java_consumer_files, which checks it against the consumer files Java Paimon writes.
//
//   fjord_consumer_tool read TABLE ID          the next snapshot, or "none"
//   fjord_consumer_tool write TABLE ID N       create or replace
//   fjord_consumer_tool delete TABLE ID
//   fjord_consumer_tool list TABLE             {"id": next, ...} (compact JSON, ids sorted)
//   fjord_consumer_tool min TABLE              the smallest next snapshot, or "none"
//   fjord_consumer_tool clear TABLE INCLUDING [EXCLUDING]   the ids deleted, one a line
//
// Exit status 0, or 1 with the error on stderr.
#include <charconv>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "fjord/common/json.h"
#include "fjord/file_io.h"
#include "fjord/meta/consumer.h"

namespace {

int Fail(const fjord::Status& st) {
  std::cerr << "fjord_consumer_tool: " << st.ToString() << "\n";
  return 1;
}

int Usage() {
  std::cerr << "usage: fjord_consumer_tool read|write|delete|list|min|clear TABLE [ARGS]\n";
  return 2;
}

int Run(const std::vector<std::string>& args) {
  if (args.size() < 2) return Usage();
  const std::string& cmd = args[0];
  fjord::ConsumerManager m(fjord::FileIO::Local(), args[1]);
  if (cmd == "read" && args.size() == 3) {
    auto c = m.Read(args[2]);
    if (!c.ok()) return Fail(c.status());
    std::cout << (c->has_value() ? std::to_string((*c)->next_snapshot) : "none") << "\n";
    return 0;
  }
  if (cmd == "write" && args.size() == 4) {
    int64_t n = 0;
    const std::string& s = args[3];
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || p != s.data() + s.size()) return Usage();
    fjord::Status st = m.Write(args[2], fjord::Consumer{n});
    return st.ok() ? 0 : Fail(st);
  }
  if (cmd == "delete" && args.size() == 3) {
    fjord::Status st = m.Delete(args[2]);
    return st.ok() ? 0 : Fail(st);
  }
  if (cmd == "list" && args.size() == 2) {
    auto all = m.List();
    if (!all.ok()) return Fail(all.status());
    fjord::Json j = fjord::Json::object();
    for (const auto& [id, next] : *all) j[id] = next;
    std::cout << fjord::ToCompactJson(j) << "\n";
    return 0;
  }
  if (cmd == "min" && args.size() == 2) {
    auto min = m.MinNextSnapshot();
    if (!min.ok()) return Fail(min.status());
    std::cout << (min->has_value() ? std::to_string(**min) : "none") << "\n";
    return 0;
  }
  if (cmd == "clear" && (args.size() == 3 || args.size() == 4)) {
    auto deleted = m.Clear(args[2], args.size() == 4 ? args[3] : std::string());
    if (!deleted.ok()) return Fail(deleted.status());
    for (const std::string& id : *deleted) std::cout << id << "\n";
    return 0;
  }
  return Usage();
}

}  // namespace

int main(int argc, char** argv) { return Run(std::vector<std::string>(argv + 1, argv + argc)); }

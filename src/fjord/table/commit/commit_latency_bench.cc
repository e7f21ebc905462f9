// Commit latency benchmark (issue 5, point 5): many small commits to one table, one data file of a
// few rows each (written by the append writer, outside the timed part), then FileStoreCommit.
// Every block of commits prints the commit latency (p50, p99, max) and the number of manifest
// files the latest snapshot references (base + delta lists). The claim to check: with manifest
// merging on (the defaults: manifest.merge-min-count 30, manifest.target-file-size 8 mb,
// manifest.full-compaction-threshold-size 16 mb) both stay flat however many commits came before;
// `--option manifest.merge-min-count=1000000000` shows what happens without merging.
//
//   commit_latency --dir /tmp/x [--commits 10000] [--block 1000] [--rows 3] [--partitions 1]
//                  [--option k=v ...]

#include <arrow/api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "fjord/meta/manifest.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/append_write.h"

namespace {

int Fail(const fjord::Status& st) {
  std::cerr << "commit_latency: " << st.ToString() << "\n";
  return 1;
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

std::shared_ptr<arrow::Table> Rows(int64_t first, int64_t count, const std::string& p) {
  arrow::Int64Builder ids;
  arrow::StringBuilder ps, vs;
  for (int64_t i = first; i < first + count; ++i) {
    (void)ids.Append(i);
    (void)ps.Append(p);
    (void)vs.Append("value-" + std::to_string(i));
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64(), false),
                               arrow::field("p", arrow::utf8()), arrow::field("v", arrow::utf8())});
  return arrow::Table::Make(
      schema, {ids.Finish().ValueOrDie(), ps.Finish().ValueOrDie(), vs.Finish().ValueOrDie()});
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  int64_t commits = 10000, block = 1000, rows = 3, partitions = 1;
  std::vector<std::pair<std::string, std::string>> options;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--dir") dir = v;
    if (a == "--commits") commits = std::stoll(v);
    if (a == "--block") block = std::stoll(v);
    if (a == "--rows") rows = std::stoll(v);
    if (a == "--partitions") partitions = std::stoll(v);
    if (a == "--option") {
      size_t eq = v.find('=');
      if (eq == std::string::npos) {
        std::cerr << "--option takes k=v\n";
        return 2;
      }
      options.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    }
  }
  if (dir.empty()) {
    std::cerr << "usage: commit_latency --dir DIR [--commits 10000] [--block 1000] [--rows 3] "
                 "[--partitions 1] [--option k=v ...]\n";
    return 2;
  }
  using namespace fjord;
  auto catalog = FileSystemCatalog::Open(dir);
  if (!catalog.ok()) return Fail(catalog.status());
  if (Status st = (*catalog)->CreateDatabase("bench", true); !st.ok()) return Fail(st);
  TableSpec spec;
  spec.fields = ParseColumnList("id BIGINT NOT NULL, p STRING, v STRING").value();
  if (partitions > 1) spec.partition_keys = {"p"};
  spec.options = options;
  auto id = TableIdentifier::Parse("bench.commits").value();
  if (Status st = (*catalog)->CreateTable(id, spec); !st.ok()) return Fail(st);
  auto table = (*catalog)->GetTable(id);
  if (!table.ok()) return Fail(table.status());
  const FileStoreTable& t = **table;
  FileStoreCommit commit(t.io(), t.path(), t.schema(), "bench");

  std::printf("%d commits of %lld rows (one file each) to %s; table options:",
              static_cast<int>(commits), static_cast<long long>(rows), t.path().c_str());
  for (const auto& [k, v] : options) std::printf(" %s=%s", k.c_str(), v.c_str());
  std::printf("%s\n\n", options.empty() ? " defaults" : "");
  std::printf(
      "| commits | p50 ms | p99 ms | max ms | manifests (latest) | max in block | "
      "merges in block |\n|---|---|---|---|---|---|---|\n");
  std::vector<double> latencies;
  size_t max_manifests = 0;
  int64_t merges = 0;
  double total_ms = 0;
  for (int64_t c = 1; c <= commits; ++c) {
    auto writer = AppendTableWrite::Create(&t);
    if (!writer.ok()) return Fail(writer.status());
    std::string p = "p" + std::to_string(c % partitions);
    if (Status st = (*writer)->Write(Rows(c * rows, rows, p)); !st.ok()) return Fail(st);
    auto messages = (*writer)->PrepareCommit();
    if (!messages.ok()) return Fail(messages.status());

    auto started = std::chrono::steady_clock::now();
    auto snapshot = commit.Commit(*messages, c);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    if (!snapshot.ok()) return Fail(snapshot.status());
    latencies.push_back(ms);
    total_ms += ms;
    merges += commit.last_stats().manifests_merged > 0 ? 1 : 0;

    auto latest = t.snapshots().Latest();
    if (!latest.ok()) return Fail(latest.status());
    size_t manifests = 0;
    for (const std::string* list :
         {&(*latest)->base_manifest_list, &(*latest)->delta_manifest_list}) {
      auto metas = ReadManifestList(t.io().get(), t.path() + "/manifest/" + *list,
                                    t.core_options().manifest_format());
      if (!metas.ok()) return Fail(metas.status());
      manifests += metas->size();
    }
    max_manifests = std::max(max_manifests, manifests);
    if (c % block == 0 || c == commits) {
      std::printf("| %lld | %.2f | %.2f | %.2f | %zu | %zu | %lld |\n", static_cast<long long>(c),
                  Percentile(latencies, 0.5), Percentile(latencies, 0.99),
                  *std::max_element(latencies.begin(), latencies.end()), manifests, max_manifests,
                  static_cast<long long>(merges));
      std::fflush(stdout);
      latencies.clear();
      max_manifests = 0;
      merges = 0;
    }
  }
  auto reopened = FileStoreTable::Open(t.path());
  if (!reopened.ok()) return Fail(reopened.status());
  auto read = (*reopened)->Read(ReadRequest{});
  if (!read.ok()) return Fail(read.status());
  int64_t manifest_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.path() + "/manifest")) {
    manifest_files += e.path().filename().string().rfind("manifest-list-", 0) != 0;
  }
  std::printf(
      "\nmean commit %.2f ms; rows read back %lld (expected %lld); manifest files on disk "
      "%lld (all snapshots are kept: nothing expires them)\n",
      total_ms / static_cast<double>(commits),
      static_cast<long long>(read->rows ? read->rows->num_rows() : 0),
      static_cast<long long>(commits * rows), static_cast<long long>(manifest_files));
  return read->rows && read->rows->num_rows() == commits * rows ? 0 : 1;
}

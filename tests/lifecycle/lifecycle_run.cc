#include "lifecycle_run.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

#include "fjord/arrow.h"
#include "fjord/io/fault_injection_file_io.h"
#include "fjord/table/file_store_table.h"
#include "lifecycle_files.h"

#ifndef FJORD_LIFECYCLE_ROLLBACK
#define FJORD_LIFECYCLE_ROLLBACK 1
#endif
#if FJORD_LIFECYCLE_ROLLBACK
#include "fjord/table_rollback.h"
#endif

namespace fjord::lifecycle {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kMinute = 60 * 1000;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;

int64_t RealNowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void Fail(const std::string& what, const Status& st) {
  throw Failure(what + ": " + st.ToString());
}

template <typename T>
T Must(Result<T> r, const std::string& what) {
  if (!r.ok()) Fail(what, r.status());
  return std::move(r).value();
}

void MustOk(const Status& st, const std::string& what) {
  if (!st.ok()) Fail(what, st);
}

std::shared_ptr<arrow::RecordBatch> Batch(const std::vector<std::string>& kinds,
                                          const std::vector<int32_t>& keys,
                                          const std::vector<std::string>& values) {
  arrow::StringBuilder kind, v;
  arrow::Int32Builder k, p;
  for (size_t i = 0; i < keys.size(); ++i) {
    (void)kind.Append(kinds[i]);
    (void)k.Append(keys[i]);
    (void)p.Append(keys[i] % 2);
    (void)v.Append(values[i]);
  }
  auto schema = arrow::schema(
      {arrow::field("_row_kind", arrow::utf8(), false), arrow::field("k", arrow::int32(), false),
       arrow::field("p", arrow::int32(), false), arrow::field("v", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(keys.size()),
                                  {kind.Finish().ValueOrDie(), k.Finish().ValueOrDie(),
                                   p.Finish().ValueOrDie(), v.Finish().ValueOrDie()});
}

void AddRows(const arrow::RecordBatch& batch, std::multiset<std::string>* out) {
  auto k = std::static_pointer_cast<arrow::Int32Array>(batch.GetColumnByName("k"));
  auto p = std::static_pointer_cast<arrow::Int32Array>(batch.GetColumnByName("p"));
  auto v = std::static_pointer_cast<arrow::StringArray>(batch.GetColumnByName("v"));
  if (!k || !p || !v) throw Failure("a batch without the columns k, p, v");
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    out->insert(RowText(k->Value(r), p->Value(r), v->IsNull(r) ? "<null>" : v->GetString(r)));
  }
}

std::string Uuid(std::mt19937_64& rng) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    out += hex[rng() % 16];
  }
  return out;
}

// Relative names of the files under `root` that are not hidden (crashes leave hidden temporary
// files that only orphan clean-up removes).
std::set<std::string> VisibleFiles(const std::string& root) {
  std::set<std::string> out;
  for (const auto& [rel, mtime] : FilesWithMtimes(root)) {
    if (fs::path(rel).filename().string()[0] != '.') out.insert(rel);
  }
  return out;
}

std::string SetDiff(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::string out;
  int n = 0;
  for (const std::string& x : a) {
    if (!b.count(x) && n++ < 8) out += " " + x;
  }
  return out.empty() ? " (none)" : out;
}

}  // namespace

Run::Run(const RunOptions& options, Stats* stats)
    : options_(options), stats_(stats), rng_(options.seed) {
#if !FJORD_LIFECYCLE_ROLLBACK
  options_.rollback = false;
#endif
  config_ = TableConfig::Random(rng_, options.primary_key);
  std::string base = options.scratch.empty() ? fs::temp_directory_path().string() : options.scratch;
  std::string templ = base + "/fjord-lifecycle-XXXXXX";
  if (!::mkdtemp(templ.data())) throw Failure("mkdtemp in " + base);
  dir_ = templ;
  auto catalog = Must(Catalog::Open(dir_ + "/wh"), "catalog");
  MustOk(catalog->CreateDatabase("db", true), "create database");
  TableSpec spec;
  spec.fields = Must(ParseColumnList("k INT NOT NULL, p INT NOT NULL, v STRING"), "columns");
  if (config_.primary_key) spec.primary_keys = {"k", "p"};
  if (config_.partitioned) spec.partition_keys = {"p"};
  spec.options = config_.Options();
  MustOk(catalog->CreateTable(TableIdentifier{"db", "t"}, spec), "create table");
  root_ = Must(catalog->GetTable(TableIdentifier{"db", "t"}), "get table")->path();
  real_start_ = RealNowMillis();
  // Forty days back: room for a few hundred steps of at most three hours before the real now.
  fake_now_ = (real_start_ - 40 * kDay) / kMinute * kMinute;
  if (rng_() % 2 == 0) {
    tag_period_option_ = "tag.creation-period";
    tag_period_value_ = "hourly";
  } else {
    tag_period_option_ = "tag.creation-period-duration";
    tag_period_value_ = "30 min";
  }
}

Run::~Run() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string Run::Trace() const {
  std::string out;
  for (const std::string& line : trace_) out += "  " + line + "\n";
  return out;
}

void Run::Log(const std::string& line) {
  trace_.push_back("step " + std::to_string(step_) + ": " + line);
  if (options_.verbose) std::cout << trace_.back() << std::endl;
}

std::unique_ptr<Table> Run::Open() const { return Must(Table::Open(root_), "open " + root_); }

std::map<std::string, std::string> Run::Retention() {
  std::map<std::string, std::string> r;
  int64_t min = 1 + static_cast<int64_t>(rng_() % 4);
  int64_t max = min + static_cast<int64_t>(rng_() % (config_.decoupled ? 3 : 6));
  r["snapshot.num-retained.min"] = std::to_string(min);
  r["snapshot.num-retained.max"] = std::to_string(max);
  // Snapshot times are the fake clock's, 40 days back at most; expiration at commit compares
  // them with the real clock.
  const char* times[] = {"1 min", "20 d", "35 d", "100 d"};
  r["snapshot.time-retained"] = times[rng_() % 4];
  if (rng_() % 2 == 0) r["snapshot.expire.limit"] = std::to_string(1 + rng_() % 5);
  return r;
}

// ---- the fake clock ----

void Run::Stamp() {
  auto table = Open();
  const FileStoreTable& t = *table->store();
  std::vector<int64_t> ids = Must(t.snapshots().ListIds(), "list snapshots");
  int64_t offset = 0;
  for (int64_t id : ids) {
    Snapshot s = Must(t.snapshots().Load(id), "load snapshot");
    if (s.time_millis < real_start_) continue;  // stamped before
    s.time_millis = fake_now_ + offset++;
    MustOk(t.io()->Overwrite(t.snapshots().paths().SnapshotFile(id), s.ToJson()),
           "stamp snapshot " + std::to_string(id));
  }
  for (const auto& [rel, mtime] : FilesWithMtimes(root_)) {
    if (rel.rfind("consumer/", 0) == 0) continue;
    auto it = stamped_.find(rel);
    if (it != stamped_.end() && it->second == mtime) continue;
    SetMtimeMillis(root_ + "/" + rel, fake_now_);
    stamped_[rel] = fake_now_;
  }
  if (step_times_.empty() || step_times_.back() != fake_now_) step_times_.push_back(fake_now_);
}

void Run::Advance() {
  const int64_t steps[] = {kMinute, 10 * kMinute, 40 * kMinute, 70 * kMinute, 3 * kHour};
  int64_t next = fake_now_ + steps[rng_() % 5];
  fake_now_ = next < real_start_ - 2 * kHour ? next : fake_now_ + kMinute;
}

// ---- steps ----

void Run::Commit() {
  auto table = Open();
  int n = 1 + static_cast<int>(rng_() % 5);
  std::vector<std::string> kinds, values;
  std::vector<int32_t> keys;
  State& cur = model_.current;
  for (int j = 0; j < n; ++j) {
    int32_t k = static_cast<int32_t>(rng_() % 20);
    std::string v = "v" + std::to_string(identifier_ + 1) + "." + std::to_string(j);
    if (config_.primary_key && cur.by_key.count(k) && rng_() % 3 == 0) {
      kinds.push_back("-D");
      values.push_back(cur.by_key[k].front());
      cur.by_key.erase(k);
    } else {
      kinds.push_back("+I");
      values.push_back(v);
      if (config_.primary_key) {
        cur.by_key[k] = {v};
      } else {
        cur.by_key[k].push_back(v);
      }
    }
    keys.push_back(k);
  }
  std::map<std::string, std::string> dynamic = Retention();
  if (config_.primary_key) {
    dynamic["num-sorted-run.compaction-trigger"] = std::to_string(2 + rng_() % 3);
    if (rng_() % 5 == 0) dynamic["full-compaction.delta-commits"] = "1";
  } else {
    dynamic["compaction.min.file-num"] = std::to_string(2 + rng_() % 3);
  }
  if (rng_() % 10 == 0) dynamic["write-only"] = "true";
  WriteOptions wo;
  wo.dynamic_options = dynamic;
  auto writer = Must(table->NewWrite(wo), "new write");
  MustOk(WriteBatch(*writer, *Batch(kinds, keys, values)), "write");
  CommitMessages messages = Must(writer->PrepareCommit(++identifier_), "prepare commit");
  CommitOptions co;
  co.dynamic_options = dynamic;
  auto commit = Must(table->NewCommit("writer", co), "new commit");
  CommitResult result = Must(commit->Commit(messages, identifier_), "commit");
  MustOk(commit->Close(), "close commit");
  std::string made;
  for (int64_t id : result.snapshots) {
    model_.snapshots[id] = cur;
    made += " " + std::to_string(id);
  }
  std::string opts;
  for (const auto& [k, v] : dynamic) opts += " " + k + "=" + v;
  Log("commit " + std::to_string(n) + " changes -> snapshots" + made + " with" + opts);
  ++stats_->ops["commit"];
  Stamp();
  if (config_.auto_tags && rng_() % 2 == 0) Tick();
}

void Run::Tick() {
  auto table = Open();
  CommitOptions co;
  co.dynamic_options = Retention();
  co.dynamic_options["tag.automatic-creation"] = "process-time";
  co.dynamic_options[tag_period_option_] = tag_period_value_;
  co.dynamic_options["sink.process-time-zone"] = "UTC";
  if (rng_() % 2 == 0) co.dynamic_options["tag.num-retained-max"] = std::to_string(2 + rng_() % 3);
  auto commit = Must(table->NewCommit("ticker", co), "new commit");
  CommitResult r = Must(commit->Commit(CommitMessages(), ++identifier_), "empty commit");
  MustOk(commit->Close(), "close commit");
  if (!r.snapshots.empty()) throw Failure("an empty commit made a snapshot");
  Log("empty commit: automatic tags (" + tag_period_option_ + " = " + tag_period_value_ + ")");
  ++stats_->ops["auto-tag commit"];
  AdoptNewTags();
}

void Run::AdoptNewTags() {
  auto table = Open();
  for (const TagInfo& t : Must(table->Tags(), "tags")) {
    if (model_.tags.count(t.name)) continue;
    auto it = model_.snapshots.find(t.snapshot.id);
    if (it == model_.snapshots.end()) {
      throw Failure("new tag '" + t.name + "' of snapshot " + std::to_string(t.snapshot.id) +
                    ", which the model does not know");
    }
    model_.tags[t.name] = it->second;
    model_.tag_ids[t.name] = t.snapshot.id;
    model_.tags_may_vanish.insert(t.name);
    Log("automatic tag '" + t.name + "' of snapshot " + std::to_string(t.snapshot.id));
  }
}

void Run::Compact() {
  auto table = Open();
  CompactionOptions co;
  co.full = rng_() % 2 == 0;
  co.dynamic_options = Retention();
  auto job = Must(table->NewCompaction(co), "new compaction");
  CompactionResult r = Must(job->Run(), "dedicated compaction");
  if (r.snapshot_id) model_.snapshots[*r.snapshot_id] = model_.current;
  Log(std::string("dedicated ") + (co.full ? "full " : "") + "compaction -> " +
      (r.snapshot_id ? "snapshot " + std::to_string(*r.snapshot_id) : "nothing"));
  ++stats_->ops["dedicated compaction"];
}

void Run::CreateTag() {
  auto table = Open();
  std::vector<SnapshotInfo> snaps = Must(table->Snapshots(), "snapshots");
  if (snaps.empty()) return;
  int64_t id = snaps[rng_() % snaps.size()].id;
  std::string name = "m" + std::to_string(step_);
  CreateTagOptions o;
  o.snapshot_id = id;
  int r = static_cast<int>(rng_() % 5);
  if (r == 3) o.time_retained = "10 ms";  // expires at the next commit's tag maintenance
  if (r == 4) o.time_retained = "100 d";
  MustOk(CreateTableTag(*table, name, o), "create tag " + name);
  model_.tags[name] = model_.snapshots.at(id);
  model_.tag_ids[name] = id;
  if (r == 3) model_.tags_may_vanish.insert(name);
  Log("tag '" + name + "' of snapshot " + std::to_string(id) +
      (o.time_retained ? " retained " + *o.time_retained : ""));
  ++stats_->ops["create tag"];
}

void Run::DeleteTag() {
  auto table = Open();
  std::vector<TagInfo> tags = Must(table->Tags(), "tags");
  if (tags.empty()) return CreateTag();
  std::string name = tags[rng_() % tags.size()].name;
  Log("delete tag '" + name + "'");
  Maintain(
      "delete tag '" + name + "'", [&](const Table& t) { return DeleteTableTag(t, name).status(); },
      [&](const std::string& when) {
        Exempt e;
        e.tags = {name};
        e.strict = false;
        CheckAll(e, when);
      });
  model_.tags.erase(name);
  model_.tag_ids.erase(name);
  ++stats_->ops["delete tag"];
}

void Run::Rollback() {
#if FJORD_LIFECYCLE_ROLLBACK
  auto table = Open();
  std::vector<SnapshotInfo> snaps = Must(table->Snapshots(), "snapshots");
  std::vector<TagInfo> tags = Must(table->Tags(), "tags");
  if (snaps.empty()) return;
  RollbackOptions o;
  std::string what;
  int64_t target = 0;
  if (!tags.empty() && rng_() % 2 == 0) {
    // Prefer tags whose snapshot expired: the rollback writes that snapshot again.
    std::vector<TagInfo> expired;
    for (const TagInfo& t : tags) {
      if (t.snapshot.id < snaps.front().id) expired.push_back(t);
    }
    const TagInfo& t = !expired.empty() && rng_() % 4 != 0 ? expired[rng_() % expired.size()]
                                                           : tags[rng_() % tags.size()];
    o.tag = t.name;
    target = t.snapshot.id;
    what = "rollback to tag '" + t.name + "' (snapshot " + std::to_string(target) +
           (target < snaps.front().id ? ", expired)" : ")");
    // The snapshot the rollback writes again reads as the tag (and may be there after a crash).
    if (!model_.snapshots.count(target)) model_.snapshots[target] = model_.tags.at(t.name);
    if (target < snaps.front().id) model_.rewritten.insert(target);
  } else {
    target = snaps[rng_() % snaps.size()].id;
    o.snapshot_id = target;
    what = "rollback to snapshot " + std::to_string(target);
  }
  Log(what);
  std::vector<RollbackResult> results;
  Maintain(
      what,
      [&](const Table& t) {
        Result<RollbackResult> r = RollbackTable(t, o);
        if (r.ok()) results.push_back(*r);
        return r.status();
      },
      [&](const std::string& when) {
        Exempt e;
        e.strict = false;
        e.consumers = false;
        CheckAll(e, when);
      });
  const RollbackResult& r = results.front();
  if (r.snapshot_id != target) {
    throw Failure(what + ": the latest snapshot is " + std::to_string(r.snapshot_id));
  }
  for (auto it = model_.snapshots.upper_bound(target); it != model_.snapshots.end();) {
    it = model_.snapshots.erase(it);
  }
  model_.current = model_.snapshots.at(target);
  model_.rewritten.erase(model_.rewritten.upper_bound(target), model_.rewritten.end());
  if (r.snapshot_recreated) model_.rewritten.insert(target);
  for (const std::string& name : r.tags_deleted) {
    model_.tags.erase(name);
    model_.tag_ids.erase(name);
  }
  for (const auto& [name, id] : model_.tag_ids) {
    if (id > target) throw Failure(what + ": tag '" + name + "' of a newer snapshot is left");
  }
  for (const ConsumerEntry& c : r.consumers_ahead) {
    // A snapshot written again from a tag names the changelog manifest list the tag did not
    // keep, where a consumer reset to it would read its changes.
    bool drop = rng_() % 2 == 0 || r.snapshot_recreated;
    MustOk(ResetConsumer(*Open(), c.id, drop ? std::nullopt : std::optional<int64_t>(target)),
           "reset consumer " + c.id);
    Log("consumer " + c.id + " was at " + std::to_string(c.next_snapshot) +
        (drop ? ": deleted" : ": reset to " + std::to_string(target)));
  }
  ++stats_->ops[o.tag ? (target < snaps.front().id ? "rollback to expired tag" : "rollback to tag")
                      : "rollback to snapshot"];
  if (r.snapshot_recreated) ++stats_->ops["snapshot re-created"];
#endif
}

void Run::ConsumerRead() {
  auto table = Open();
  std::string id = "c" + std::to_string(rng_() % 3);
  ReadBuilder rb = table->NewRead();
  rb.WithOptions({{"consumer-id", id}});
  auto stream = Must(rb.OpenStreaming(), "stream with consumer " + id);
  ArrowSchema c_schema;
  MustOk(stream->ExportSchema(&c_schema), "stream schema");
  auto schema = arrow::ImportSchema(&c_schema).ValueOrDie();
  int steps = 1 + static_cast<int>(rng_() % 4);
  std::string seen;
  for (int i = 0; i < steps; ++i) {
    StreamStep step = Must(stream->NextStep(), "consumer " + id + ": next step");
    if (step.kind != StreamStep::Kind::kChanges) break;
    std::multiset<std::string> rows;
    while (true) {
      ArrowArray array;
      MustOk(stream->Next(&array), "consumer " + id + ": read");
      if (!array.release) break;
      auto batch = arrow::ImportRecordBatch(&array, schema).ValueOrDie();
      AddRows(*batch, &rows);
    }
    seen += " " + std::to_string(step.snapshot_id.value_or(-1)) + (step.full ? "(full)" : "");
    // Full-compaction tables start with what the last full compaction wrote only (Java's
    // DataTableStreamScan#tryFirstPlan).
    if (step.full && config_.producer != "full-compaction") {
      int64_t sid = step.snapshot_id.value_or(-1);
      auto it = model_.snapshots.find(sid);
      if (it == model_.snapshots.end() || rows != it->second.Rows()) {
        throw Failure("consumer " + id + ": the full read of snapshot " + std::to_string(sid) +
                      ": " +
                      DiffRows(rows, it == model_.snapshots.end() ? std::multiset<std::string>()
                                                                  : it->second.Rows()));
      }
    }
  }
  MustOk(stream->CommitProgress(), "consumer " + id + ": commit progress");
  Log("consumer " + id + " read" + (seen.empty() ? " nothing" : seen) + ", next " +
      std::to_string(stream->Checkpoint().value_or(-1)));
  ++stats_->ops["consumer read"];
}

void Run::ConsumerReset() {
  auto table = Open();
  std::vector<SnapshotInfo> snaps = Must(table->Snapshots(), "snapshots");
  if (snaps.empty()) return;
  std::string id = "c" + std::to_string(rng_() % 3);
  if (rng_() % 4 == 0) {
    MustOk(ResetConsumer(*table, id, std::nullopt), "delete consumer " + id);
    Log("consumer " + id + " deleted");
  } else {
    // Not to a snapshot a rollback wrote again from a tag when its changes are a changelog: the
    // changelog manifest list it names is gone (Java's too), and the consumer could not read on.
    std::vector<int64_t> ids;
    for (const SnapshotInfo& snap : snaps) {
      bool changelog = config_.primary_key && config_.producer != "none";
      if (!changelog || !model_.rewritten.count(snap.id)) ids.push_back(snap.id);
    }
    if (ids.empty()) return;
    int64_t next = ids[rng_() % ids.size()];
    MustOk(ResetConsumer(*table, id, next), "reset consumer " + id);
    Log("consumer " + id + " reset to " + std::to_string(next));
  }
  ++stats_->ops["consumer reset"];
}

void Run::Expire() {
  ExpireOptions o;
  o.retain_min = 1 + static_cast<int32_t>(rng_() % 4);
  o.retain_max = *o.retain_min + static_cast<int32_t>(rng_() % (config_.decoupled ? 3 : 6));
  const int64_t ages[] = {0, 30 * kMinute, 5 * kHour, 2 * kDay};
  o.older_than_millis = fake_now_ - ages[rng_() % 4];
  o.now_millis = fake_now_;
  // A limit caps one run: a retry after a crash would go further than the reference.
  if (!options_.crash && rng_() % 2 == 0) o.max_deletes = 1 + static_cast<int32_t>(rng_() % 5);
  std::ostringstream what;
  what << "expire retain-min " << *o.retain_min << " retain-max " << *o.retain_max
       << " older-than now-" << (fake_now_ - *o.older_than_millis) / kMinute << "min";
  if (o.max_deletes) what << " limit " << *o.max_deletes;
  std::vector<ExpireResult> results;
  Maintain(
      what.str(),
      [&](const Table& t) {
        Result<ExpireResult> r = t.ExpireSnapshots(o);
        if (r.ok()) results.push_back(*r);
        return r.status();
      },
      [&](const std::string& when) {
        // Snapshots the reference run expired may remain, half deleted (Java's order: data
        // files, then manifests, then snapshot files).
        Exempt e;
        e.strict = false;
        auto table = Open();
        for (const SnapshotInfo& s : Must(table->Snapshots(), "snapshots")) {
          if (!ref_snapshots_.count(s.id)) e.snapshots.insert(s.id);
        }
        CheckAll(e, when);
      });
  Log(what.str() + " -> " + std::to_string(results.front().snapshots_expired) + " snapshots, " +
      std::to_string(results.front().changelogs_expired) + " changelogs");
  ++stats_->ops["expire"];
}

void Run::Orphans() {
  Stamp();
  // Strays of every kind, with times from the fake clock's past.
  std::map<std::string, int64_t> files = FilesWithMtimes(root_);
  std::vector<std::string> bucket_dirs;
  for (const auto& [rel, mtime] : files) {
    if (rel.find("bucket-") != std::string::npos) {
      bucket_dirs.push_back(fs::path(rel).parent_path().string());
    }
  }
  int strays = 1 + static_cast<int>(rng_() % 4);
  std::string planted;
  for (int i = 0; i < strays; ++i) {
    std::string u = Uuid(rng_);
    std::string rel;
    switch (rng_() % 6) {
      case 0:
        rel = bucket_dirs.empty() ? "bucket-0" : bucket_dirs[rng_() % bucket_dirs.size()];
        rel += "/data-" + u + "-0." + config_.file_format;
        break;
      case 1:
        rel = std::string(config_.partitioned ? "p=7/" : "") + "bucket-9/data-" + u + "-0.orc";
        break;
      case 2:
        rel = "manifest/manifest-" + u + "-0";
        break;
      case 3:
        rel = "snapshot/.snapshot-" + std::to_string(rng_() % 50) + "." + u + ".tmp";
        break;
      case 4:
        rel = "changelog/.changelog-" + std::to_string(rng_() % 50) + "." + u + ".tmp";
        break;
      default:
        rel = "index/index-" + u + "-0";
        break;
    }
    fs::create_directories(fs::path(root_ + "/" + rel).parent_path());
    std::ofstream(root_ + "/" + rel) << "stray " << u;
    int64_t t = step_times_[rng_() % step_times_.size()];
    SetMtimeMillis(root_ + "/" + rel, t);
    stamped_[rel] = t;
    planted += " " + rel;
  }
  int64_t older_than = step_times_[rng_() % step_times_.size()] + 30 * 1000;
  // What must go: every file orphan clean-up may delete, that nothing reaches, older than that.
  std::set<std::string> reachable = Reachable(*Open(), {}, {}, model_.rewritten).named;
  std::map<std::string, int64_t> before = FilesWithMtimes(root_);
  std::set<std::string> expected;
  for (const auto& [rel, mtime] : before) {
    if (NeverCandidate(rel) || reachable.count(rel)) continue;
    std::string name = fs::path(rel).filename().string();
    if ((rel.rfind("snapshot/", 0) == 0 && name.rfind("snapshot-", 0) == 0) ||
        (rel.rfind("changelog/", 0) == 0 && name.rfind("changelog-", 0) == 0)) {
      throw Failure("an unreachable " + rel);
    }
    if (mtime < older_than) expected.insert(rel);
  }
  std::string what = "orphan clean-up older than step time " +
                     std::to_string((older_than - step_times_.front()) / kMinute) + " min, strays" +
                     planted;
  Log(what);
  std::vector<OrphanFilesResult> results;
  Maintain(
      what,
      [&](const Table& t) {
        OrphanFilesOptions o;
        o.older_than_millis = older_than;
        Result<OrphanFilesResult> r = RemoveOrphanFiles(t, o);
        if (r.ok()) results.push_back(*r);
        return r.status();
      },
      [&](const std::string& when) {
        Exempt e;
        e.strict = false;
        CheckAll(e, when);
      });
  std::map<std::string, int64_t> after = FilesWithMtimes(root_);
  std::set<std::string> deleted;
  for (const auto& [rel, mtime] : before) {
    if (!after.count(rel)) deleted.insert(rel);
  }
  if (deleted != expected) {
    std::string who;
    auto table = Open();
    for (const std::string& rel : expected) {
      if (!deleted.count(rel))
        who += "\n  " + rel + ":" + WhoNames(*table, fs::path(rel).filename());
    }
    throw Failure(what + ": deleted but not expected:" + SetDiff(deleted, expected) +
                  "; expected but kept:" + SetDiff(expected, deleted) + who);
  }
  stats_->orphans_deleted += static_cast<int64_t>(deleted.size());
  Log("  deleted " + std::to_string(deleted.size()) + " files");
  ++stats_->ops["orphan clean-up"];
}

void Run::FinalCleanUp() {
  Stamp();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  int64_t older_than = RealNowMillis() - 1;
  Log("final orphan clean-up, older than now");
  Maintain(
      "final orphan clean-up",
      [&](const Table& t) {
        OrphanFilesOptions o;
        o.older_than_millis = older_than;
        return RemoveOrphanFiles(t, o).status();
      },
      [&](const std::string& when) {
        Exempt e;
        e.strict = false;
        CheckAll(e, when);
      });
  Exempt e;
  CheckAll(e, "after the final orphan clean-up");
  // On disk: exactly the live files, and those a long-lived changelog still names (they go
  // when it expires).
  ReachableFiles r = Reachable(*Open(), {}, {}, model_.rewritten);
  std::set<std::string> disk, reachable;
  for (const auto& [rel, mtime] : FilesWithMtimes(root_)) {
    if (!NeverCandidate(rel)) disk.insert(rel);
  }
  for (const std::string& rel : r.live) {
    if (!NeverCandidate(rel)) reachable.insert(rel);
  }
  for (const std::string& rel : disk) {
    if (!reachable.count(rel) && r.named_by_changelogs.count(rel)) {
      reachable.insert(rel);
      ++stats_->kept_for_changelogs;
    }
  }
  if (disk != reachable) {
    std::string who;
    auto table = Open();
    for (const std::string& rel : disk) {
      if (!reachable.count(rel))
        who += "\n  " + rel + ":" + WhoNames(*table, fs::path(rel).filename());
    }
    throw Failure(who + "\n" + "after the final orphan clean-up, on disk and not reachable:" +
                  SetDiff(disk, reachable) +
                  "; reachable and not on disk:" + SetDiff(reachable, disk));
  }
  stats_->final_files += static_cast<int64_t>(disk.size());
}

// ---- checks ----

std::multiset<std::string> Run::Read(const Table& table, std::optional<int64_t> snapshot,
                                     std::optional<std::string> tag, const std::string& when) {
  ReadBuilder rb = table.NewRead();
  if (snapshot) rb.AtSnapshot(*snapshot);
  if (tag) rb.AtTag(*tag);
  std::string what = when + ": read " +
                     (snapshot ? "snapshot " + std::to_string(*snapshot) : "tag '" + *tag + "'");
  auto reader = Must(OpenArrowReader(rb), what);
  std::multiset<std::string> rows;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status st = reader->ReadNext(&batch);
    if (!st.ok()) throw Failure(what + ": " + st.ToString());
    if (!batch) break;
    AddRows(*batch, &rows);
  }
  ++(snapshot ? stats_->snapshot_reads : stats_->tag_reads);
  return rows;
}

void Run::CheckReachableOnDisk(const Table& table, const Exempt& exempt, const std::string& when) {
  for (const std::string& rel :
       Reachable(table, exempt.tags, exempt.snapshots, model_.rewritten).live) {
    if (!fs::exists(root_ + "/" + rel)) throw Failure(when + ": reachable " + rel + " is gone");
  }
}

void Run::CheckAll(const Exempt& exempt, const std::string& when) {
  auto table = Open();
  std::vector<SnapshotInfo> snaps = Must(table->Snapshots(), when + ": snapshots");
  for (const SnapshotInfo& s : snaps) {
    if (exempt.snapshots.count(s.id)) continue;
    auto it = model_.snapshots.find(s.id);
    if (it == model_.snapshots.end()) {
      throw Failure(when + ": snapshot " + std::to_string(s.id) + " is not in the model");
    }
    std::multiset<std::string> rows = Read(*table, s.id, std::nullopt, when);
    if (rows != it->second.Rows()) {
      throw Failure(when + ": snapshot " + std::to_string(s.id) + " reads " +
                    DiffRows(rows, it->second.Rows()));
    }
  }
  if (exempt.strict && !snaps.empty() &&
      model_.snapshots.at(snaps.back().id).Rows() != model_.current.Rows()) {
    throw Failure(when + ": the latest snapshot is not the current state");
  }
  std::set<std::string> listed;
  for (const TagInfo& t : Must(table->Tags(), when + ": tags")) {
    listed.insert(t.name);
    if (exempt.tags.count(t.name)) continue;
    auto it = model_.tags.find(t.name);
    if (it == model_.tags.end()) throw Failure(when + ": tag '" + t.name + "' is not in the model");
    if (model_.tag_ids.at(t.name) != t.snapshot.id) {
      throw Failure(when + ": tag '" + t.name + "' holds snapshot " +
                    std::to_string(t.snapshot.id));
    }
    std::multiset<std::string> rows = Read(*table, std::nullopt, t.name, when);
    if (rows != it->second.Rows()) {
      throw Failure(when + ": tag '" + t.name + "' reads " + DiffRows(rows, it->second.Rows()));
    }
  }
  if (exempt.strict) {
    for (auto it = model_.tags.begin(); it != model_.tags.end();) {
      if (listed.count(it->first)) {
        ++it;
        continue;
      }
      if (!model_.tags_may_vanish.count(it->first)) {
        throw Failure(when + ": tag '" + it->first + "' disappeared");
      }
      Log("tag '" + it->first + "' expired");
      model_.tag_ids.erase(it->first);
      it = model_.tags.erase(it);
    }
  }
  // Every consumer's next snapshot is there, or is the next to be committed.
  if (!snaps.empty() && exempt.consumers) {
    std::set<int64_t> present;
    for (const SnapshotInfo& s : snaps) present.insert(s.id);
    for (const ConsumerEntry& c : Must(ListConsumers(*table), when + ": consumers")) {
      if (c.next_snapshot != snaps.back().id + 1 && !present.count(c.next_snapshot)) {
        throw Failure(when + ": consumer " + c.id + " continues at snapshot " +
                      std::to_string(c.next_snapshot) + ", which is not there (snapshots " +
                      std::to_string(snaps.front().id) + ".." + std::to_string(snaps.back().id) +
                      ")");
      }
    }
  }
  CheckReachableOnDisk(*table, exempt, when);
}

// ---- crashes ----

void Run::Maintain(const std::string& what, const std::function<Status(const Table&)>& op,
                   const std::function<void(const std::string&)>& after_crash) {
  if (!options_.crash) {
    MustOk(op(*Open()), what);
    return;
  }
  const std::string pristine = dir_ + "/pristine";
  fs::remove_all(pristine);
  CopyTree(root_, pristine);
  MustOk(op(*Open()), what);
  const std::set<std::string> reference = VisibleFiles(root_);
  {
    auto table = Open();
    ref_snapshots_.clear();
    for (const SnapshotInfo& s : Must(table->Snapshots(), "snapshots")) ref_snapshots_.insert(s.id);
  }
  ++stats_->crash_ops;
  for (int64_t k = 1;; ++k) {
    if (k > 20000) throw Failure(what + ": more than 20000 I/O operations");
    RestoreTree(pristine, root_);
    auto faulty = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
    Status st;
    {
      auto table = Must(Table::Open(root_, std::static_pointer_cast<FileIO>(faulty)), "open");
      faulty->FailAt(k, FaultInjectionFileIO::Mode::kCrash);
      st = op(*table);
    }
    const std::string when = what + ", crashed at I/O operation " + std::to_string(k);
    if (!faulty->crashed()) {
      MustOk(st, what + " (on the fault-injecting FileIO, not crashed)");
      if (VisibleFiles(root_) != reference) {
        throw Failure(what + ": a run on the fault-injecting FileIO ends elsewhere");
      }
      break;
    }
    ++stats_->crash_points;
    after_crash(when);
    MustOk(op(*Open()), when + ": the retry");
    std::set<std::string> now = VisibleFiles(root_);
    if (now != reference) {
      throw Failure(when +
                    ": after the retry, files not in the reference:" + SetDiff(now, reference) +
                    "; reference files missing:" + SetDiff(reference, now));
    }
  }
  fs::remove_all(pristine);
}

// ---- the run ----

void Run::Execute() {
  struct Kind {
    const char* name;
    int weight;
    void (Run::*step)();
  };
  std::vector<Kind> kinds = {{"commit", 30, &Run::Commit},
                             {"compact", 7, &Run::Compact},
                             {"create tag", 8, &Run::CreateTag},
                             {"delete tag", 5, &Run::DeleteTag},
                             {"consumer read", 7, &Run::ConsumerRead},
                             {"consumer reset", 3, &Run::ConsumerReset},
                             {"expire", 10, &Run::Expire},
                             {"orphans", 6, &Run::Orphans}};
  if (config_.auto_tags) kinds.push_back({"tick", 4, &Run::Tick});
  if (options_.rollback) kinds.push_back({"rollback", 6, &Run::Rollback});
  int total = 0;
  for (const Kind& k : kinds) total += k.weight;
  Log("table: " + config_.Describe());
  for (step_ = 0; step_ < options_.steps; ++step_) {
    if (step_ < 2) {
      Commit();
    } else {
      int r = static_cast<int>(rng_() % static_cast<uint64_t>(total));
      for (const Kind& k : kinds) {
        if ((r -= k.weight) < 0) {
          (this->*k.step)();
          break;
        }
      }
    }
    Stamp();
    CheckAll(Exempt{}, "after step " + std::to_string(step_));
    Advance();
    ++stats_->steps;
  }
  FinalCleanUp();
  ++stats_->runs;
}

}  // namespace fjord::lifecycle

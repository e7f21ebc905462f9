// Crash safety of write + commit (issue 5, point 6), in process, with the fault-injecting FileIO.
//
// A run: a fresh table (append or primary key, partitioned or not, fixed or unaware buckets, a
// file format, a manifest format), a prior history of commits (by other users, by the same user
// with lower identifiers, and abandoned crashed commits), then one write + commit by (user U,
// identifier N) through a FaultInjectionFileIO in kCrash mode: operation c and every later one
// fail as if the process died there (torn files, temp files left behind). After the crash:
//
//   1. the table opens and reads (a fresh local FileIO) with exactly the previous rows or exactly
//      the previous rows plus the new commit (never partial, never twice), snapshot ids contiguous,
//      the new snapshot (if any) made by (U, N);
//   2. (sometimes) another writer commits in between, or the retry itself crashes again;
//   3. a retry with the same (U, N) and a fresh FileIO succeeds, and the table then holds exactly
//      one snapshot by (U, N) and the model's rows; a further retry adds nothing.
//
// Three ways to write: one phase (write and commit in one go; the retry redoes both), two phases
// crashing while preparing (data files and the message file; the retry redoes both phases), two
// phases crashing while committing (the retry commits the same message file again).
//
// Tables that need lookup (deletion vectors, changelog-producer = lookup; issue 19) get more
// checks (lookup_checks.h): every file the snapshots reference exists, and the lookup changelog
// replays to the rows. A crash between the data snapshot and its COMPACT snapshot leaves the batch
// in level 0, which deletion-vector reads skip until a compaction takes it up (Execute).
//
// --enumerate runs fixed scenarios with a crash at every operation of a clean run (each data-file
// write and close, manifest, manifest list, snapshot, hint, and every read before them; sampled
// for the bigger scenarios of tables that need lookup, see Options::sample);
// --runs N adds N randomised runs (random table, data, history, crash point). The summary counts
// crash points by what the crashing operation touched. --keep-every K --keep-dir D keeps every
// K-th run's crashed table and final table with the rows Fjord read (expected.jsonl), for
// scripts/soak_crash.sh to read with Java.

#include <arrow/api.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <malloc.h>
#include <unistd.h>

#include "fjord/common/ids.h"
#include "fjord/format/input_rows.h"
#include "fjord/format/row_json.h"
#include "fjord/io/fault_injection_file_io.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/commit/commit_message_codec.h"
#include "fjord/table/compact/compaction_job.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/append_write.h"
#include "fjord/table/write/primary_key_write.h"
#include "lookup_checks.h"

namespace fs = std::filesystem;

namespace fjord {
namespace {

// ---------------------------------------------------------------------------------------------
// Table shapes and data

enum class WriteMode { kOnePhase, kPrepareCrash, kCommitCrash };

const char* ModeName(WriteMode m) {
  switch (m) {
    case WriteMode::kOnePhase:
      return "one-phase";
    case WriteMode::kPrepareCrash:
      return "two-phase/prepare";
    case WriteMode::kCommitCrash:
      return "two-phase/commit";
  }
  return "?";
}

struct Shape {
  bool pk = false;
  bool partitioned = false;
  int buckets = -1;  // -1: bucket-unaware (append tables only)
  std::string file_format = "parquet";
  std::string manifest_format = "avro";
  // file.compression and manifest.compression. Mostly snappy in the runs: a zstd context per
  // file costs more than everything else a run does, and crash safety does not depend on it.
  std::string compression = "snappy";
  // num-sorted-run.compaction-trigger of primary-key tables (0: the default, 5); 2 makes writes
  // compact, so that commits make COMPACT snapshots too.
  int compaction_trigger = 0;
  // Tables that need lookup (primary keys only): `deletion-vectors.enabled` (compactions mark
  // replaced rows and write a DELETION_VECTORS index file per changed bucket), `changelog-producer
  // = lookup` (compactions write changelog files), and `lookup-wait` = false (only in a
  // two-phase/commit scenario whose setup leaves a compaction of an earlier commit to this one).
  bool dv = false;
  bool lookup_changelog = false;
  bool lookup_wait = true;
  // The batch is written in two halves with a tiny write buffer, and the writer's compaction is
  // waited for after each half: two compactions in one prepare, the second's index file replacing
  // the first's, which was never committed and is deleted. One (partition, bucket) only, so that
  // no flush runs beside a compaction (the order of operations stays fixed).
  bool split = false;
  // two-phase/commit: the committer completes a commit of which only the data snapshot landed
  // (FileStoreCommit::set_complete_compaction, as `fjord run`'s committer), instead of Java's
  // rule (the identifier is committed: nothing more).
  bool complete = false;

  bool NeedsLookup() const { return dv || lookup_changelog; }

  std::string Describe() const {
    std::ostringstream s;
    s << (pk ? "pk" : "append") << (partitioned ? "/partitioned" : "/plain")
      << "/bucket=" << buckets << "/" << file_format << "/manifest=" << manifest_format << "/"
      << compression;
    if (compaction_trigger > 0) s << "/trigger=" << compaction_trigger;
    if (dv) s << "/deletion-vectors";
    if (lookup_changelog) s << "/lookup-changelog";
    if (!lookup_wait) s << "/lookup-wait=false";
    if (split) s << "/split";
    if (complete) s << "/complete-compaction";
    return s.str();
  }
};

struct Record {
  int8_t kind = 0;  // 0 +I, 2 +U, 3 -D
  std::string key;  // primary key (pk tables)
  std::string json;
};
using Batch = std::vector<Record>;

std::string JsonString(const std::optional<std::string>& s) {
  return s ? "\"" + *s + "\"" : "null";
}

class DataGen {
 public:
  DataGen(const Shape& shape, uint64_t seed) : shape_(shape), rng_(seed) {}

  // `disjoint` keys (>= 100000) never meet the keys of other batches.
  Batch Make(int rows, bool disjoint = false) {
    Batch out;
    for (int i = 0; i < rows; ++i) {
      Record r;
      // Tables that need lookup: more keys, see BuildSetup.
      int id = shape_.pk ? Pick(0, shape_.NeedsLookup() ? 400 : 40) : next_id_++;
      if (disjoint) id = 100000 + next_disjoint_++;
      std::optional<std::string> p;
      static const char* kParts[] = {"a", "b", "c"};
      if (shape_.pk && shape_.partitioned) {
        p = kParts[Pick(0, 2)];
      } else if (Pick(0, 9) > 0) {
        p = kParts[Pick(0, 2)];
      }
      int64_t v = static_cast<int64_t>(rng_() % 2000001) - 1000000;
      std::optional<std::string> s;
      if (Pick(0, 4) > 0) s = "s" + std::to_string(Pick(0, 999));
      r.json = "{\"id\":" + std::to_string(id) + ",\"p\":" + JsonString(p) +
               ",\"v\":" + std::to_string(v) + ",\"s\":" + JsonString(s) + "}";
      if (shape_.pk) {
        r.key = std::to_string(id) + (shape_.partitioned ? "|" + *p : "");
        int k = Pick(0, 9);
        r.kind = disjoint ? 0 : (k < 7 ? 0 : (k < 8 ? 2 : 3));
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  int Pick(int lo, int hi) { return lo + static_cast<int>(rng_() % (hi - lo + 1)); }
  uint64_t Next() { return rng_(); }

 private:
  Shape shape_;
  std::mt19937_64 rng_;
  int next_id_ = 0;
  int next_disjoint_ = 0;
};

std::string InputText(const Batch& b, bool pk) {
  static const char* kKinds[] = {"+I", "-U", "+U", "-D"};
  std::string text;
  for (const Record& r : b) {
    if (pk) {
      text += r.json.substr(0, r.json.size() - 1) + ",\"_row_kind\":\"" + kKinds[r.kind] + "\"}";
    } else {
      text += r.json;
    }
    text += "\n";
  }
  return text;
}

// The rows a reader must see after `batches` were committed in this order, sorted.
std::vector<std::string> Expected(const std::vector<Batch>& batches, bool pk) {
  std::vector<std::string> out;
  if (!pk) {
    for (const Batch& b : batches) {
      for (const Record& r : b) out.push_back(r.json);
    }
  } else {
    std::map<std::string, std::string> state;
    for (const Batch& b : batches) {
      for (const Record& r : b) {
        if (r.kind == 3) {
          state.erase(r.key);
        } else {
          state[r.key] = r.json;
        }
      }
    }
    for (auto& [k, v] : state) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Writing and committing through a given FileIO

// Waits for the compaction of every bucket `writer` holds (a dedicated compaction's call, which
// waits for the running one, and then for whatever it picks next).
Status WaitForCompactions(PrimaryKeyTableWrite* writer) {
  for (const auto& [bucket, metrics] : writer->BucketMetrics()) {
    FJORD_RETURN_NOT_OK(writer->CompactBucket(bucket, /*full=*/false));
  }
  return Status::OK();
}

Result<std::vector<CommitMessage>> Prepare(const std::string& root, std::shared_ptr<FileIO> io,
                                           const Batch& batch, const Shape& shape) {
  FJORD_ASSIGN_OR_RAISE(auto table, FileStoreTable::Open(root, io));
  if (!shape.pk) {
    FJORD_ASSIGN_OR_RAISE(InputRows input,
                          ParseJsonLines(InputText(batch, false), table->schema().fields, "input"));
    FJORD_ASSIGN_OR_RAISE(auto writer, AppendTableWrite::Create(table.get()));
    FJORD_RETURN_NOT_OK(writer->Write(input.rows));
    return writer->PrepareCommit();
  }
  FJORD_ASSIGN_OR_RAISE(auto writer, PrimaryKeyTableWrite::Create(table.get()));
  // Shape::split: each half is flushed by the tiny write buffer, which starts a compaction.
  std::vector<Batch> parts = {batch};
  if (shape.split && batch.size() >= 2) {
    parts = {Batch(batch.begin(), batch.begin() + static_cast<long>(batch.size() / 2)),
             Batch(batch.begin() + static_cast<long>(batch.size() / 2), batch.end())};
  }
  for (const Batch& part : parts) {
    FJORD_ASSIGN_OR_RAISE(InputRows input,
                          ParseJsonLines(InputText(part, true), table->schema().fields, "input"));
    FJORD_RETURN_NOT_OK(writer->Write(input.rows, input.row_kinds));
    if (shape.split) FJORD_RETURN_NOT_OK(WaitForCompactions(writer.get()));
  }
  return writer->PrepareCommit();
}

Result<std::optional<int64_t>> CommitMessages(const std::string& root, std::shared_ptr<FileIO> io,
                                              const std::vector<CommitMessage>& messages,
                                              const std::string& user, int64_t identifier,
                                              bool complete = false) {
  FJORD_ASSIGN_OR_RAISE(auto table, FileStoreTable::Open(root, io));
  FileStoreCommit commit(io, root, table->schema(), user);
  commit.set_complete_compaction(complete);
  return commit.Commit(messages, identifier);
}

// `fjord write --commit-user U --commit-id N`.
Result<std::optional<int64_t>> WriteAndCommit(const std::string& root, std::shared_ptr<FileIO> io,
                                              const Batch& batch, const Shape& shape,
                                              const std::string& user, int64_t identifier) {
  FJORD_ASSIGN_OR_RAISE(auto messages, Prepare(root, io, batch, shape));
  return CommitMessages(root, io, messages, user, identifier);
}

// `fjord compact` (universal picking; lookup tables take every level-0 run up).
Status CompactTable(const std::string& root) {
  FJORD_ASSIGN_OR_RAISE(auto table, FileStoreTable::Open(root));
  return RunCompactionJob(*table, CompactionOptions{}).status();
}

// `fjord write --prepare-to F`.
Status PrepareTo(const std::string& root, std::shared_ptr<FileIO> io, const Batch& batch,
                 const Shape& shape, const std::string& messages_file) {
  FJORD_ASSIGN_OR_RAISE(auto messages, Prepare(root, io, batch, shape));
  FJORD_ASSIGN_OR_RAISE(std::string bytes, EncodeCommitMessages(messages));
  return io->Overwrite(messages_file, bytes);
}

// `fjord commit --messages F`.
Result<std::optional<int64_t>> CommitFrom(const std::string& root, std::shared_ptr<FileIO> io,
                                          const std::string& messages_file, const std::string& user,
                                          int64_t identifier, bool complete = false) {
  FJORD_ASSIGN_OR_RAISE(std::string bytes, io->ReadFile(messages_file));
  FJORD_ASSIGN_OR_RAISE(auto messages, DecodeCommitMessages(bytes, messages_file));
  return CommitMessages(root, io, messages, user, identifier, complete);
}

// ---------------------------------------------------------------------------------------------
// Inspecting a table with a fresh FileIO

struct TableState {
  std::vector<std::string> rows;  // sorted canonical JSON
  int64_t latest = 0;             // 0: no snapshot
  std::vector<Snapshot> snapshots;
  // Tables that need lookup (lookup_checks.h): the latest snapshot holds level-0 files; the
  // deletion vectors its read applied.
  bool level0 = false;
  int64_t vectors = 0;
  int64_t deleted_rows = 0;
  bool replayed = false;  // the changelog of all snapshots replayed to `rows`
};

std::string Diff(const std::vector<std::string>& got, const std::vector<std::string>& want);

// Reads the table (a fresh local FileIO). Tables that need lookup are also checked: every file
// the snapshots reference exists, and with changelog-producer = lookup the changelog of all
// snapshots applies consistently and, unless level-0 files wait for their compaction (whose
// changelog is not written yet), gives exactly the rows.
Result<TableState> Inspect(const std::string& root, const Shape& shape) {
  TableState st;
  FJORD_ASSIGN_OR_RAISE(auto table, FileStoreTable::Open(root));
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, table->snapshots().ListIds());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, table->snapshots().LatestId());
  st.latest = latest.value_or(0);
  if (static_cast<int64_t>(ids.size()) != st.latest) {
    return Status::Corruption("snapshot ids are not 1..", st.latest, ": ", ids.size(),
                              " snapshot files");
  }
  for (int64_t id : ids) {
    if (id != static_cast<int64_t>(st.snapshots.size()) + 1) {
      return Status::Corruption("snapshot ids not contiguous at ", id);
    }
    FJORD_ASSIGN_OR_RAISE(Snapshot s, table->snapshots().Load(id));
    st.snapshots.push_back(std::move(s));
  }
  FJORD_ASSIGN_OR_RAISE(ReadResult read, table->Read(ReadRequest{}));
  if (read.rows) {
    auto combined = read.rows->CombineChunksToBatch();
    if (!combined.ok()) return Status::Internal(combined.status().message());
    std::shared_ptr<arrow::RecordBatch> batch = *combined;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string line;
      FJORD_RETURN_NOT_OK(AppendRowJson(batch->columns(), read.fields, r, &line));
      st.rows.push_back(std::move(line));
    }
  }
  std::sort(st.rows.begin(), st.rows.end());
  if (shape.NeedsLookup() && !st.snapshots.empty()) {
    FJORD_RETURN_NOT_OK(crash::CheckReferencedFiles(*table, st.snapshots));
    FJORD_ASSIGN_OR_RAISE(crash::LatestFiles files,
                          crash::InspectLatest(*table, st.snapshots.back()));
    st.level0 = files.level0;
    st.vectors = files.vectors;
    st.deleted_rows = files.deleted_rows;
    if (shape.lookup_changelog) {
      FJORD_ASSIGN_OR_RAISE(std::vector<std::string> replay,
                            crash::ReplayChangelog(*table, st.snapshots));
      if (!st.level0) {
        if (replay != st.rows) {
          return Status::Corruption("the changelog of snapshots 1..", st.latest,
                                    " does not replay the rows: ", Diff(replay, st.rows));
        }
        st.replayed = true;
      }
    }
  }
  return st;
}

// Snapshots made by (user, identifier): data snapshots (APPEND, OVERWRITE) and COMPACT ones. One
// commit makes one data snapshot, then possibly a COMPACT snapshot with the same identifier
// (spec/behaviour.md §5.2).
struct CommitCount {
  int64_t data = 0;
  int64_t compact = 0;
};
CommitCount CountCommits(const TableState& st, const std::string& user, int64_t identifier) {
  CommitCount n;
  for (const Snapshot& s : st.snapshots) {
    if (s.commit_user != user || s.commit_identifier != identifier) continue;
    (s.commit_kind == CommitKind::kCompact ? n.compact : n.data)++;
  }
  return n;
}

std::string Diff(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  std::ostringstream s;
  s << got.size() << " rows, expected " << want.size() << "; missing " << missing.size()
    << ", extra " << extra.size();
  if (!missing.empty()) s << "; first missing " << missing[0];
  if (!extra.empty()) s << "; first extra " << extra[0];
  return s.str();
}

// ---------------------------------------------------------------------------------------------
// Runs

struct Options {
  uint64_t seed = 1;
  int64_t runs = 0;
  bool enumerate = false;
  int64_t keep_every = 0;
  std::string keep_dir;
  std::string scratch;
  double max_seconds = 0;  // stop starting runs after this long (0: no limit)
  int jobs = 1;
  bool verbose = false;
  std::string replay;
  int scenario = -1;  // --scenario K: enumerate fixed scenario K only (0-based)
  // Fixed scenarios of tables that need lookup with more than 60 operations crash at every
  // operation that creates, closes, overwrites or deletes a file, and at every `sample`-th of the
  // others (reads and stream writes); --all-points: at every operation.
  int sample = 5;
  bool all_points = false;
  bool lookup_only = false;  // random runs on tables that need lookup only
};

struct Stats {
  int64_t runs = 0;
  int64_t enumerated = 0;
  int64_t crashed = 0;         // runs in which the injected crash happened
  int64_t landed = 0;          // crashes after which the new commit was already in the table
  int64_t double_crashes = 0;  // the first retry crashed too
  int64_t interleaved = 0;     // another writer committed between crash and retry
  int64_t compactions = 0;     // runs whose commit also made a COMPACT snapshot
  int64_t ambiguous = 0;       // runs whose snapshot creation reported an error after success
  // Tables that need lookup: crashes that left the data snapshot without its COMPACT snapshot
  // (level-0 files left: hidden from reads with deletion vectors, changelog not yet written);
  // dedicated compactions that took them up afterwards; runs whose final read applied deletion
  // vectors; changelog replays that matched the rows.
  int64_t partial = 0;
  int64_t followups = 0;
  int64_t with_vectors = 0;
  int64_t replays = 0;
  int64_t completed = 0;  // retries that added the missing COMPACT snapshot (Shape::complete)
  int64_t failures = 0;
  std::map<std::string, int64_t> crash_points;  // what the crashing operation touched

  void Add(const Stats& o) {
    runs += o.runs;
    enumerated += o.enumerated;
    crashed += o.crashed;
    landed += o.landed;
    double_crashes += o.double_crashes;
    interleaved += o.interleaved;
    compactions += o.compactions;
    ambiguous += o.ambiguous;
    partial += o.partial;
    followups += o.followups;
    with_vectors += o.with_vectors;
    replays += o.replays;
    completed += o.completed;
    failures += o.failures;
    for (const auto& [k, v] : o.crash_points) crash_points[k] += v;
  }
};

std::mutex output_mu;

// What an operation of the FaultInjectionFileIO log ("<op> <path>") touched.
std::string Category(const std::string& entry) {
  std::string op = entry.substr(0, entry.find(' '));
  std::string path = entry.substr(entry.find(' ') + 1);
  std::string what;
  std::string base = path.substr(path.rfind('/') + 1);
  if (base == "LATEST" || base == "EARLIEST") {
    what = "hint";
  } else if (path.find("/snapshot/") != std::string::npos) {
    what = "snapshot";
  } else if (base.rfind("index-manifest-", 0) == 0) {
    what = "index manifest";
  } else if (path.find("/index/") != std::string::npos) {
    what = "index file";
  } else if (base.rfind("manifest-list-", 0) == 0) {
    what = "manifest list";
  } else if (base.rfind("manifest-", 0) == 0) {
    what = "manifest";
  } else if (path.find("/schema") != std::string::npos) {
    what = "schema";
  } else if (path.find("bucket-") != std::string::npos) {
    what = base.rfind("changelog-", 0) == 0 ? "changelog file" : "data file";
  } else if (base.find("messages") != std::string::npos) {
    what = "message file";
  } else {
    what = "other";
  }
  bool write = op == "write" || op == "write-file" || op == "create-if-absent" ||
               op == "overwrite" || op == "open-output" || op == "close" || op == "delete" ||
               op == "mkdirs" || op == "rename";
  return what + (write ? " " + op : " (read)");
}

struct RunSpec {
  Shape shape;
  WriteMode mode = WriteMode::kOnePhase;
  int history = 0;
  uint64_t seed = 0;
  int64_t crash_at = 0;  // operation number; 0 or beyond the last operation: no crash
  bool extras = false;   // interleaved writer, crashed retry, duplicate retry (at random)
  // Instead of a crash: the first snapshot file is created, but the committer is told the
  // creation failed (a lost reply), so it cannot know whether its snapshot exists.
  bool ambiguous = false;

  // The form --replay takes.
  std::string ToString() const {
    std::ostringstream s;
    s << "pk=" << shape.pk << ",partitioned=" << shape.partitioned << ",buckets=" << shape.buckets
      << ",format=" << shape.file_format << ",manifest=" << shape.manifest_format
      << ",compression=" << shape.compression << ",mode=" << static_cast<int>(mode)
      << ",trigger=" << shape.compaction_trigger << ",history=" << history << ",seed=" << seed
      << ",crash_at=" << crash_at << ",extras=" << extras << ",ambiguous=" << ambiguous
      << ",dv=" << shape.dv << ",lookup=" << shape.lookup_changelog << ",wait=" << shape.lookup_wait
      << ",split=" << shape.split << ",complete=" << shape.complete;
    return s.str();
  }

  static std::optional<RunSpec> Parse(const std::string& text) {
    RunSpec r;
    std::istringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
      size_t eq = item.find('=');
      if (eq == std::string::npos) return std::nullopt;
      std::string k = item.substr(0, eq), v = item.substr(eq + 1);
      if (k == "pk") {
        r.shape.pk = v == "1";
      } else if (k == "partitioned") {
        r.shape.partitioned = v == "1";
      } else if (k == "buckets") {
        r.shape.buckets = std::stoi(v);
      } else if (k == "format") {
        r.shape.file_format = v;
      } else if (k == "manifest") {
        r.shape.manifest_format = v;
      } else if (k == "compression") {
        r.shape.compression = v;
      } else if (k == "trigger") {
        r.shape.compaction_trigger = std::stoi(v);
      } else if (k == "mode") {
        r.mode = static_cast<WriteMode>(std::stoi(v));
      } else if (k == "history") {
        r.history = std::stoi(v);
      } else if (k == "seed") {
        r.seed = std::stoull(v);
      } else if (k == "crash_at") {
        r.crash_at = std::stoll(v);
      } else if (k == "extras") {
        r.extras = v == "1";
      } else if (k == "ambiguous") {
        r.ambiguous = v == "1";
      } else if (k == "dv") {
        r.shape.dv = v == "1";
      } else if (k == "lookup") {
        r.shape.lookup_changelog = v == "1";
      } else if (k == "wait") {
        r.shape.lookup_wait = v == "1";
      } else if (k == "split") {
        r.shape.split = v == "1";
      } else if (k == "complete") {
        r.shape.complete = v == "1";
      } else {
        return std::nullopt;
      }
    }
    return r;
  }
};

// Passes everything to `base`, except that the first creation of a snapshot file happens and
// then reports an IOError, as when the reply of a remote store is lost.
class AmbiguousCreateFileIO : public FileIO {
 public:
  explicit AmbiguousCreateFileIO(std::shared_ptr<FileIO> base) : base_(std::move(base)) {}
  Result<std::string> ReadFile(const std::string& p) override { return base_->ReadFile(p); }
  Status WriteFile(const std::string& p, std::string_view d) override {
    return base_->WriteFile(p, d);
  }
  Status CreateIfAbsent(const std::string& p, std::string_view d) override {
    Status st = base_->CreateIfAbsent(p, d);
    if (st.ok() && !fired_ && p.find("/snapshot/snapshot-") != std::string::npos) {
      fired_ = true;
      return Status::IOError("injected: ", p, " was created but the reply was lost");
    }
    return st;
  }
  Status Overwrite(const std::string& p, std::string_view d) override {
    return base_->Overwrite(p, d);
  }
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(const std::string& p) override {
    return base_->OpenInput(p);
  }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(const std::string& p) override {
    return base_->OpenOutput(p);
  }
  Result<bool> Exists(const std::string& p) override { return base_->Exists(p); }
  Result<FileStatus> GetStatus(const std::string& p) override { return base_->GetStatus(p); }
  Result<std::vector<FileStatus>> List(const std::string& d) override { return base_->List(d); }
  Status MakeDirs(const std::string& d) override { return base_->MakeDirs(d); }
  Status Delete(const std::string& p) override { return base_->Delete(p); }
  Status DeleteDirRecursive(const std::string& d) override { return base_->DeleteDirRecursive(d); }
  Status Rename(const std::string& f, const std::string& t) override { return base_->Rename(f, t); }

 private:
  std::shared_ptr<FileIO> base_;
  bool fired_ = false;
};

constexpr const char* kUser = "crash-user";
constexpr int64_t kIdentifier = 1000;

// Everything before the attempt: the table and its history, the rows to write, and for
// kCommitCrash the prepared messages file. Lives in `dir` (the table in dir/wh/db.db/t, the
// messages in dir/messages.bin), so an enumerated scenario builds it once and copies the folder.
struct Setup {
  std::vector<Batch> history;  // committed before the attempt, in order
  Batch batch;                 // what (kUser, kIdentifier) writes
  TableState before;
  DataGen gen;  // continues after the setup's draws (interleaved writers)
  // lookup-wait = false: the streaming writer's first checkpoint was committed without its
  // compaction, which the prepared messages carry (see PrepareStreaming).
  bool deferred_compaction = false;
};

std::string RootIn(const std::string& dir) { return dir + "/wh/db.db/t"; }
std::string MessagesIn(const std::string& dir) { return dir + "/messages.bin"; }

// lookup-wait = false, two-phase/commit: the messages of a streaming writer's second checkpoint.
// Its first checkpoint (rows of its own, committed by (kUser, kIdentifier - 1)) does not wait for
// the compaction it starts; the second waits for it and for its own, so the messages carry the
// batch's level-0 files and, for the COMPACT snapshot, a compaction of files the first checkpoint
// committed, with its lookup changelog: the changelog of a commit lands in a later one.
Status PrepareStreaming(const std::string& root, Setup* setup, const std::string& messages_file) {
  FJORD_ASSIGN_OR_RAISE(auto table, FileStoreTable::Open(root));
  FJORD_ASSIGN_OR_RAISE(auto writer, PrimaryKeyTableWrite::Create(table.get()));
  Batch early = setup->gen.Make(setup->gen.Pick(5, 25));
  FJORD_ASSIGN_OR_RAISE(InputRows first_rows,
                        ParseJsonLines(InputText(early, true), table->schema().fields, "input"));
  FJORD_RETURN_NOT_OK(writer->Write(first_rows.rows, first_rows.row_kinds));
  FJORD_ASSIGN_OR_RAISE(auto first,
                        writer->PrepareCommit(/*wait_compaction=*/false, kIdentifier - 1));
  setup->deferred_compaction = std::none_of(first.begin(), first.end(), [](const CommitMessage& m) {
    return !m.compact_before.empty() || !m.compact_after.empty();
  });
  FileStoreCommit commit(FileIO::Local(), root, table->schema(), kUser);
  FJORD_ASSIGN_OR_RAISE(auto snap, commit.Commit(first, kIdentifier - 1));
  if (!snap) return Status::Internal("the streaming writer's first checkpoint was not committed");
  setup->history.push_back(std::move(early));
  FJORD_ASSIGN_OR_RAISE(InputRows rows, ParseJsonLines(InputText(setup->batch, true),
                                                       table->schema().fields, "input"));
  FJORD_RETURN_NOT_OK(writer->Write(rows.rows, rows.row_kinds));
  FJORD_ASSIGN_OR_RAISE(auto second, writer->PrepareCommit(/*wait_compaction=*/true, kIdentifier));
  FJORD_ASSIGN_OR_RAISE(std::string bytes, EncodeCommitMessages(second));
  return FileIO::Local()->Overwrite(messages_file, bytes);
}

Result<Setup> BuildSetup(const RunSpec& spec, const std::string& dir) {
  std::string root = RootIn(dir);
  FJORD_ASSIGN_OR_RAISE(auto catalog, FileSystemCatalog::Open(dir + "/wh"));
  FJORD_RETURN_NOT_OK(catalog->CreateDatabase("db", true));
  TableSpec ts;
  FJORD_ASSIGN_OR_RAISE(ts.fields,
                        ParseColumnList("id INT NOT NULL, p STRING, v BIGINT, s STRING"));
  if (spec.shape.partitioned) ts.partition_keys = {"p"};
  if (spec.shape.pk) {
    ts.primary_keys = spec.shape.partitioned ? std::vector<std::string>{"id", "p"}
                                             : std::vector<std::string>{"id"};
  }
  ts.options.emplace_back("bucket", std::to_string(spec.shape.buckets));
  if (!spec.shape.pk && spec.shape.buckets > 0) ts.options.emplace_back("bucket-key", "id");
  ts.options.emplace_back("file.format", spec.shape.file_format);
  ts.options.emplace_back("manifest.format", spec.shape.manifest_format);
  ts.options.emplace_back("file.compression", spec.shape.compression);
  ts.options.emplace_back("manifest.compression", spec.shape.compression);
  if (spec.shape.compaction_trigger > 0) {
    ts.options.emplace_back("num-sorted-run.compaction-trigger",
                            std::to_string(spec.shape.compaction_trigger));
  }
  if (spec.shape.NeedsLookup()) {
    // Tiny files are about as big as their format's overhead, so size amplification would
    // fully compact almost every commit, leaving no row to mark deleted in a higher level.
    ts.options.emplace_back("compaction.max-size-amplification-percent", "100000");
  }
  if (spec.shape.dv) ts.options.emplace_back("deletion-vectors.enabled", "true");
  if (spec.shape.lookup_changelog) ts.options.emplace_back("changelog-producer", "lookup");
  if (!spec.shape.lookup_wait) ts.options.emplace_back("lookup-wait", "false");
  if (spec.shape.split) {
    // Every Write flushes its rows (and starts a compaction): see Shape::split.
    ts.options.emplace_back("write-buffer-size", "1 b");
    ts.options.emplace_back("write-buffer-spillable", "false");
  }
  FJORD_RETURN_NOT_OK(catalog->CreateTable(TableIdentifier{"db", "t"}, ts));

  Setup setup{{}, {}, {}, DataGen(spec.shape, spec.seed)};
  DataGen& gen = setup.gen;
  bool pk = spec.shape.pk;
  for (int h = 0; h < spec.history; ++h) {
    int kind = gen.Pick(0, 5);
    Batch b = gen.Make(gen.Pick(1, 25));
    if (spec.shape.NeedsLookup() && h == 0) {
      // A first commit much bigger than the later ones: later level-0 files are compacted into a
      // level above it rather than with it (size ratio), so that their keys are looked up there
      // and the rows they replace are marked deleted instead of rewritten.
      kind = 0;
      b = gen.Make(600);
    }
    if (kind == 5) {
      // An abandoned writer that crashed somewhere: torn and unreferenced files, maybe a
      // snapshot (then its rows count).
      SnapshotManager sm(FileIO::Local(), root);
      FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> before, sm.LatestId());
      auto io = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
      io->FailAt(gen.Pick(1, 80), FaultInjectionFileIO::Mode::kCrash);
      (void)WriteAndCommit(root, io, b, spec.shape, "abandoned-" + std::to_string(h), 1);
      FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> after, sm.LatestId());
      if (after.value_or(0) > before.value_or(0)) setup.history.push_back(std::move(b));
    } else {
      // Other users, or the run's own user with a lower identifier.
      std::string user = kind < 3 ? "writer-" + std::to_string(kind) : kUser;
      // (kIdentifier - 1 is left to the streaming writer of lookup-wait = false.)
      int64_t id = kind < 3 ? h + 1 : kIdentifier - 1 - spec.history + h;
      FJORD_ASSIGN_OR_RAISE(auto snap,
                            WriteAndCommit(root, FileIO::Local(), b, spec.shape, user, id));
      if (!snap) return Status::Internal("history commit ", h, " was not committed");
      setup.history.push_back(std::move(b));
    }
  }
  if (spec.shape.NeedsLookup()) {
    // An abandoned writer may have left its data snapshot without its compaction: level-0 files
    // that deletion-vector reads do not see. A dedicated compaction takes them up.
    FJORD_ASSIGN_OR_RAISE(TableState st, Inspect(root, spec.shape));
    if (st.level0) FJORD_RETURN_NOT_OK(CompactTable(root));
  }
  setup.batch = gen.Make(gen.Pick(1, 40));
  if (spec.mode == WriteMode::kCommitCrash && !spec.shape.lookup_wait) {
    FJORD_RETURN_NOT_OK(PrepareStreaming(root, &setup, MessagesIn(dir)));
  } else if (spec.mode == WriteMode::kCommitCrash) {
    FJORD_RETURN_NOT_OK(PrepareTo(root, FileIO::Local(), setup.batch, spec.shape, MessagesIn(dir)));
  }
  FJORD_ASSIGN_OR_RAISE(setup.before, Inspect(root, spec.shape));
  std::vector<std::string> want = Expected(setup.history, pk);
  if (setup.before.rows != want) {
    return Status::Internal("after the history: ", Diff(setup.before.rows, want));
  }
  return setup;
}

// The attempt by (kUser, kIdentifier) through `io`.
Status Attempt(WriteMode mode, const std::string& dir, std::shared_ptr<FileIO> io,
               const Batch& batch, const Shape& shape) {
  std::string root = RootIn(dir);
  switch (mode) {
    case WriteMode::kOnePhase:
      return WriteAndCommit(root, io, batch, shape, kUser, kIdentifier).status();
    case WriteMode::kPrepareCrash:
      FJORD_RETURN_NOT_OK(PrepareTo(root, io, batch, shape, MessagesIn(dir)));
      return CommitFrom(root, io, MessagesIn(dir), kUser, kIdentifier).status();
    case WriteMode::kCommitCrash:
      return CommitFrom(root, io, MessagesIn(dir), kUser, kIdentifier, shape.complete).status();
  }
  return Status::OK();
}

// The retry after a crash: kCommitCrash commits the same messages again, the others redo all.
Result<std::optional<int64_t>> Retry(WriteMode mode, const std::string& dir,
                                     std::shared_ptr<FileIO> io, const Batch& batch,
                                     const Shape& shape) {
  std::string root = RootIn(dir);
  if (mode == WriteMode::kOnePhase) {
    return WriteAndCommit(root, io, batch, shape, kUser, kIdentifier);
  }
  if (mode == WriteMode::kPrepareCrash) {
    FJORD_RETURN_NOT_OK(PrepareTo(root, io, batch, shape, MessagesIn(dir)));
  }
  return CommitFrom(root, io, MessagesIn(dir), kUser, kIdentifier,
                    mode == WriteMode::kCommitCrash && shape.complete);
}

bool DeletesFiles(const std::string& messages_file) {
  Result<std::string> bytes = FileIO::Local()->ReadFile(messages_file);
  if (!bytes.ok()) return true;
  Result<std::vector<CommitMessage>> messages = DecodeCommitMessages(*bytes);
  if (!messages.ok()) return true;
  for (const CommitMessage& m : *messages) {
    if (!m.deleted_files.empty() || !m.compact_before.empty()) return true;
  }
  return false;
}

// Every snapshot after `since` was made by (kUser, kIdentifier), the first not a COMPACT one.
Status NewSnapshotsBy(const TableState& st, int64_t since, const char* when) {
  for (size_t i = static_cast<size_t>(since); i < st.snapshots.size(); ++i) {
    const Snapshot& s = st.snapshots[i];
    if (s.commit_user != kUser || s.commit_identifier != kIdentifier) {
      return Status::Internal(when, ": snapshot ", s.id, " by (", s.commit_user, ", ",
                              s.commit_identifier, ")");
    }
    if (i == static_cast<size_t>(since) && s.commit_kind == CommitKind::kCompact) {
      return Status::Internal(when, ": a COMPACT snapshot before the data snapshot");
    }
  }
  return Status::OK();
}

// With Shape::complete, whether `after` is `before` (a data snapshot by (kUser, kIdentifier) whose
// level-0 files wait for its compaction) plus exactly that COMPACT snapshot, level 0 taken up.
bool Completed(const Shape& shape, const TableState& before, const TableState& after) {
  if (!shape.complete || !before.level0 || after.latest != before.latest + 1 || after.level0) {
    return false;
  }
  const Snapshot& s = after.snapshots.back();
  return s.commit_user == kUser && s.commit_identifier == kIdentifier &&
         s.commit_kind == CommitKind::kCompact;
}

// The table reads as `want_before` with no new snapshot, or as `want_after` with the new
// commit's data snapshot (and maybe its COMPACT snapshot) on top. With deletion vectors, a data
// snapshot whose COMPACT snapshot is missing leaves its rows in level-0 files, which reads skip
// (as Java's): the table then reads as `want_before` until a later compaction (see Execute).
Result<TableState> CheckBeforeOrAfter(const std::string& root, const Shape& shape,
                                      int64_t before_latest,
                                      const std::vector<std::string>& want_before,
                                      const std::vector<std::string>& want_after,
                                      const char* when) {
  Result<TableState> now = Inspect(root, shape);
  if (!now.ok()) {
    return Status::Internal(when, ": the table does not read: ", now.status().ToString());
  }
  int64_t added = now->latest - before_latest;
  if (added == 0) {
    if (now->rows != want_before) {
      return Status::Internal(when, ", no new snapshot: ", Diff(now->rows, want_before));
    }
  } else if (added == 1 || added == 2) {
    FJORD_RETURN_NOT_OK(NewSnapshotsBy(*now, before_latest, when));
    const std::vector<std::string>& want = shape.dv && now->level0 ? want_before : want_after;
    if (now->rows != want) {
      return Status::Internal(when, ", new snapshot", now->level0 ? " (level 0 left)" : "", ": ",
                              Diff(now->rows, want));
    }
  } else {
    return Status::Internal(when, ": latest snapshot ", now->latest, " (was ", before_latest, ")");
  }
  return now;
}

class Runner {
 public:
  explicit Runner(const Options& options) : opt_(options) {}

  Stats& stats() { return stats_; }
  // The operations of the last attempt ("<op> <path>").
  const std::vector<std::string>& last_log() const { return last_log_; }
  // The rows deletion vectors mark at the end of the last run (tables that need lookup).
  int64_t last_deleted_rows() const { return last_deleted_rows_; }

  // Runs `spec` in `dir`, which holds its setup. Returns the number of operations the attempt
  // performed (for a run without a crash: the number of crash points), -1 after a failure.
  int64_t Run(const RunSpec& spec, Setup setup, const std::string& dir, int64_t run_number,
              bool enumerated) {
    ++stats_.runs;
    if (enumerated) ++stats_.enumerated;
    int64_t ops = -1;
    Status st = Execute(spec, std::move(setup), dir, run_number, &ops);
    std::error_code ec;
    if (!st.ok()) {
      ++stats_.failures;
      std::lock_guard<std::mutex> lock(output_mu);
      std::cerr << "FAIL run " << run_number << " [" << spec.shape.Describe() << " "
                << ModeName(spec.mode) << "]: " << st.ToString() << "\n  replay: --replay "
                << spec.ToString() << "\n  table kept in " << dir << "\n";
      return -1;
    }
    if (opt_.verbose) {
      std::lock_guard<std::mutex> lock(output_mu);
      std::cerr << "ok run " << run_number << " " << spec.ToString() << " ops=" << ops << "\n";
    }
    fs::remove_all(dir, ec);
    return ops;
  }

 private:
  Status Execute(const RunSpec& spec, Setup setup, const std::string& dir, int64_t run_number,
                 int64_t* ops_out) {
    std::string root = RootIn(dir);
    bool pk = spec.shape.pk;
    const Batch& batch = setup.batch;
    int64_t before_latest = setup.before.latest;
    std::vector<std::string> want_before = Expected(setup.history, pk);
    std::vector<Batch> with_new = setup.history;
    with_new.push_back(batch);
    std::vector<std::string> want_after = Expected(with_new, pk);

    // The attempt, crashing at operation crash_at.
    auto io = std::make_shared<FaultInjectionFileIO>(
        spec.ambiguous ? std::make_shared<AmbiguousCreateFileIO>(FileIO::Local())
                       : FileIO::Local());
    io->FailAt(spec.ambiguous ? 0 : spec.crash_at, FaultInjectionFileIO::Mode::kCrash);
    const Shape& shape = spec.shape;
    Status attempt = Attempt(spec.mode, dir, io, batch, shape);
    *ops_out = io->operations();
    last_log_ = io->log();
    bool crashed = io->crashed();
    if (spec.ambiguous) {
      // The committer does not know whether its snapshot exists: it may report an error, but it
      // must not commit a second time, and the snapshot it did create stands.
      ++stats_.ambiguous;
      FJORD_ASSIGN_OR_RAISE(TableState now, Inspect(root, shape));
      CommitCount count = CountCommits(now, kUser, kIdentifier);
      if (count.data != 1) {
        return Status::Internal("after an ambiguous snapshot creation: ", count.data,
                                " data snapshots by (", kUser, ", ", kIdentifier,
                                "); the attempt returned ", attempt.ToString());
      }
    } else if (crashed) {
      ++stats_.crashed;
      std::vector<std::string> log = io->log();
      if (!log.empty()) ++stats_.crash_points[Category(log.back())];
    } else if (!attempt.ok()) {
      return Status::Internal("attempt failed without a crash: ", attempt.ToString());
    }

    // 1. After the crash: before or after, nothing in between.
    FJORD_ASSIGN_OR_RAISE(
        TableState crashed_state,
        CheckBeforeOrAfter(root, shape, before_latest, want_before, want_after, "after the crash"));
    bool landed = crashed_state.latest > before_latest;
    if (crashed && landed) ++stats_.landed;
    if (landed && crashed_state.level0) ++stats_.partial;
    bool keep = opt_.keep_every > 0 && run_number % opt_.keep_every == 0;
    if (keep) FJORD_RETURN_NOT_OK(Keep(root, crashed_state.rows, run_number, "crashed"));

    // 2. Extras: another writer commits in between; the retry crashes once more.
    std::vector<Batch> order = landed ? with_new : setup.history;
    std::mt19937_64 extra_rng(spec.seed ^ 0x9e3779b97f4a7c15ULL);
    auto chance = [&](int percent) {
      return spec.extras && static_cast<int>(extra_rng() % 100) < percent;
    };
    TableState before_retry = crashed_state;
    // Not when messages committed again delete files (a compaction): another writer in the same
    // bucket may have compacted them away, a conflict that fails the commit, as in Java.
    if (chance(25) && !(spec.mode == WriteMode::kCommitCrash && DeletesFiles(MessagesIn(dir)))) {
      ++stats_.interleaved;
      Batch other = setup.gen.Make(setup.gen.Pick(1, 10), /*disjoint=*/true);
      FJORD_ASSIGN_OR_RAISE(auto snap,
                            WriteAndCommit(root, FileIO::Local(), other, shape, "interloper", 1));
      if (!snap) return Status::Internal("interleaved commit did nothing");
      order.push_back(std::move(other));
      FJORD_ASSIGN_OR_RAISE(before_retry, Inspect(root, shape));
      if (shape.dv && before_retry.level0) {
        // The crash left level-0 files that the other writer's compaction did not take up (it
        // wrote into other buckets): unread until a compaction of their buckets.
        ++stats_.followups;
        FJORD_RETURN_NOT_OK(CompactTable(root));
        FJORD_ASSIGN_OR_RAISE(before_retry, Inspect(root, shape));
      }
      if (before_retry.rows != Expected(order, pk)) {
        return Status::Internal("before the retry: ", Diff(before_retry.rows, Expected(order, pk)));
      }
    }
    if (chance(20) && *ops_out > 0) {
      ++stats_.double_crashes;
      auto io2 = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
      io2->FailAt(1 + static_cast<int64_t>(extra_rng() % (*ops_out + 10)),
                  FaultInjectionFileIO::Mode::kCrash);
      Result<std::optional<int64_t>> r = Retry(spec.mode, dir, io2, batch, shape);
      if (!io2->crashed() && !r.ok()) {
        return Status::Internal("a retry failed without a crash: ", r.status().ToString());
      }
      if (landed) {
        FJORD_ASSIGN_OR_RAISE(TableState s2, Inspect(root, shape));
        if (Completed(shape, before_retry, s2)) {
          if (s2.rows != Expected(order, pk)) {
            return Status::Internal("a crashed retry completed the commit: ",
                                    Diff(s2.rows, Expected(order, pk)));
          }
          ++stats_.completed;
          before_retry = std::move(s2);
        } else if (s2.rows != before_retry.rows || s2.latest != before_retry.latest) {
          return Status::Internal("a crashed retry of a landed commit changed the table");
        }
      } else {
        std::vector<Batch> order_new = order;
        order_new.push_back(batch);
        FJORD_ASSIGN_OR_RAISE(
            TableState s2, CheckBeforeOrAfter(root, shape, before_retry.latest, Expected(order, pk),
                                              Expected(order_new, pk), "after a crashed retry"));
        if (s2.latest > before_retry.latest) {
          landed = true;
          order = std::move(order_new);
        }
        before_retry = std::move(s2);
      }
    }

    // 3. The retry with a fresh FileIO commits exactly once.
    Result<std::optional<int64_t>> retry = Retry(spec.mode, dir, FileIO::Local(), batch, shape);
    if (!retry.ok()) return Status::Internal("the retry failed: ", retry.status().ToString());
    // With Shape::complete, a retry after a crash that left the data snapshot alone adds the
    // missing COMPACT snapshot, and nothing else.
    bool completing = landed && retry->has_value() && shape.complete && before_retry.level0;
    if (landed && retry->has_value() && !completing) {
      return Status::Internal("the retry committed again (snapshot ", **retry,
                              ") though the crashed attempt had committed");
    }
    if (!landed && !retry->has_value()) {
      return Status::Internal("the retry committed nothing though the attempt had not committed");
    }
    if (!landed) order.push_back(batch);
    FJORD_ASSIGN_OR_RAISE(TableState final_state, Inspect(root, shape));
    std::vector<std::string> want_final = Expected(order, pk);
    if (shape.dv && final_state.level0) {
      // The data snapshot landed without its COMPACT snapshot, and the retry (Java's rule: the
      // identifier is committed) did not add it: the batch waits in level 0, unread.
      std::vector<Batch> visible(order.begin(), order.end() - 1);
      if (final_state.rows != Expected(visible, pk)) {
        return Status::Internal("final rows, level 0 left: ",
                                Diff(final_state.rows, Expected(visible, pk)));
      }
    } else if (final_state.rows != want_final) {
      return Status::Internal("final rows: ", Diff(final_state.rows, want_final));
    }
    CommitCount count = CountCommits(final_state, kUser, kIdentifier);
    if (count.data != 1 || count.compact > 1) {
      return Status::Internal(count.data, " data and ", count.compact, " COMPACT snapshots by (",
                              kUser, ", ", kIdentifier, ")");
    }
    if (count.compact == 1) ++stats_.compactions;
    int64_t added = final_state.latest - before_retry.latest;
    if (retry->has_value() ? (added < 1 || added > 2) : added != 0) {
      return Status::Internal("the retry added ", added, " snapshots");
    }
    if (completing) {
      if (!Completed(shape, before_retry, final_state)) {
        return Status::Internal("the retry did not complete the commit with one COMPACT snapshot");
      }
      ++stats_.completed;
    } else if (retry->has_value()) {
      FJORD_RETURN_NOT_OK(NewSnapshotsBy(final_state, before_retry.latest, "after the retry"));
    }
    if (shape.NeedsLookup() && final_state.level0) {
      // Level-0 files left by such a crash: the next compaction of their buckets (here a
      // dedicated one) takes them up, writes their changelog and marks the rows they replace;
      // then nothing of the batch is missing.
      ++stats_.followups;
      FJORD_RETURN_NOT_OK(CompactTable(root));
      FJORD_ASSIGN_OR_RAISE(final_state, Inspect(root, shape));
      if (final_state.level0) return Status::Internal("level-0 files left after a compaction");
      if (final_state.rows != want_final) {
        return Status::Internal("rows after the compaction: ", Diff(final_state.rows, want_final));
      }
    }
    if (shape.lookup_changelog && !final_state.replayed) {
      return Status::Internal("the final changelog was not replayed");
    }
    if (final_state.replayed) ++stats_.replays;
    if (final_state.vectors > 0) ++stats_.with_vectors;
    last_deleted_rows_ = final_state.deleted_rows;
    if (chance(30)) {
      Result<std::optional<int64_t>> again = Retry(spec.mode, dir, FileIO::Local(), batch, shape);
      if (!again.ok()) return Status::Internal("a second retry: ", again.status().ToString());
      if (again->has_value()) return Status::Internal("a second retry committed again");
      FJORD_ASSIGN_OR_RAISE(TableState s3, Inspect(root, shape));
      if (s3.rows != want_final || s3.latest != final_state.latest) {
        return Status::Internal("a second retry changed the table");
      }
    }
    if (keep) FJORD_RETURN_NOT_OK(Keep(root, final_state.rows, run_number, "final"));
    return Status::OK();
  }

  Status Keep(const std::string& root, const std::vector<std::string>& rows, int64_t run_number,
              const std::string& what) {
    std::string dest = opt_.keep_dir + "/run-" + std::to_string(run_number) + "-" + what;
    std::error_code ec;
    fs::remove_all(dest, ec);
    fs::create_directories(dest, ec);
    fs::copy(root, dest + "/table", fs::copy_options::recursive, ec);
    if (ec) return Status::IOError("cannot copy ", root, " to ", dest, ": ", ec.message());
    std::ofstream out(dest + "/expected.jsonl", std::ios::binary);
    for (const std::string& r : rows) out << r << "\n";
    return out ? Status::OK() : Status::IOError("cannot write ", dest, "/expected.jsonl");
  }

  const Options& opt_;
  Stats stats_;
  std::vector<std::string> last_log_;
  int64_t last_deleted_rows_ = 0;
};

// Whether an operation of the log changes a file other than by appending to a stream: the crash
// points that the sampled enumeration always keeps.
bool ChangesFile(const std::string& entry) {
  std::string op = entry.substr(0, entry.find(' '));
  return op == "write-file" || op == "create-if-absent" || op == "overwrite" ||
         op == "open-output" || op == "close" || op == "delete" || op == "mkdirs" || op == "rename";
}

Shape RandomShape(std::mt19937_64* rng, bool lookup_only) {
  Shape s;
  s.pk = (*rng)() % 2 || lookup_only;
  s.partitioned = (*rng)() % 2;
  static const char* kFormats[] = {"parquet", "orc", "avro"};
  s.file_format = kFormats[(*rng)() % 3];
  s.manifest_format = (*rng)() % 5 == 0 ? "orc" : "avro";
  s.compression = (*rng)() % 5 == 0 ? "zstd" : "snappy";
  if (s.pk && (*rng)() % 2 == 0) s.compaction_trigger = 2;
  s.buckets = s.pk ? 1 + static_cast<int>((*rng)() % 4)
                   : ((*rng)() % 3 == 0 ? -1 : 1 + static_cast<int>((*rng)() % 4));
  if (s.pk) {
    // One primary-key table in four needs lookup: deletion vectors, lookup changelog or both.
    int lookup = static_cast<int>((*rng)() % (lookup_only ? 3 : 8));
    s.dv = lookup == 0 || lookup == 2;
    s.lookup_changelog = lookup == 1 || lookup == 2;
    s.split = s.NeedsLookup() && !s.partitioned && s.buckets == 1 && (*rng)() % 2 == 0;
  }
  return s;
}

// Random runs draw their crash point from the fixed scenarios of the same kind and mode.
int KindOf(const Shape& s) { return !s.pk ? 0 : (s.NeedsLookup() ? 2 : 1); }

Shape LookupShape(bool partitioned, int buckets, const char* format, bool dv, bool changelog,
                  bool wait, bool split, bool complete = false) {
  Shape s;
  s.pk = true;
  s.partitioned = partitioned;
  s.buckets = buckets;
  s.file_format = format;
  s.dv = dv;
  s.lookup_changelog = changelog;
  s.lookup_wait = wait;
  s.split = split;
  s.complete = complete;
  return s;
}

Status CopyDir(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::remove_all(to, ec);
  fs::copy(from, to, fs::copy_options::recursive, ec);
  if (ec) return Status::IOError("cannot copy ", from, " to ", to, ": ", ec.message());
  return Status::OK();
}

int Main(int argc, char** argv) {
  // Writers allocate and free buffers of megabytes per file; keep them in the heap instead of
  // mapping and unmapping them every time (halves the system time of a run).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 256 << 20);
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seed") {
      opt.seed = std::stoull(next());
    } else if (a == "--runs") {
      opt.runs = std::stoll(next());
    } else if (a == "--enumerate") {
      opt.enumerate = true;
    } else if (a == "--keep-every") {
      opt.keep_every = std::stoll(next());
    } else if (a == "--keep-dir") {
      opt.keep_dir = next();
    } else if (a == "--scratch") {
      opt.scratch = next();
    } else if (a == "--max-seconds") {
      opt.max_seconds = std::stod(next());
    } else if (a == "--jobs") {
      opt.jobs = std::max(1, std::stoi(next()));
    } else if (a == "--replay") {
      opt.replay = next();
    } else if (a == "--lookup-only") {
      opt.lookup_only = true;
    } else if (a == "--all-points") {
      opt.all_points = true;
    } else if (a == "--scenario") {
      opt.scenario = std::stoi(next());
    } else if (a == "--verbose") {
      opt.verbose = true;
    } else {
      std::cerr << "usage: fjord_crash_test [--enumerate] [--runs N] [--seed S] [--jobs J]\n"
                   "         [--max-seconds T] [--keep-every K --keep-dir D] [--scratch DIR]\n"
                   "         [--replay SPEC] [--scenario K] [--all-points]\n"
                   "         [--lookup-only] [--verbose]\n";
      return 2;
    }
  }
  if (opt.keep_every > 0 && opt.keep_dir.empty()) {
    std::cerr << "--keep-every needs --keep-dir\n";
    return 2;
  }
  bool own_scratch = opt.scratch.empty();
  if (own_scratch) {
    // tmpfs when there is one: the local FileIO syncs every file it publishes, and the runs are
    // about what reaches the FileIO, not about the disk.
    std::error_code ec;
    fs::path base = fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0
                        ? fs::path("/dev/shm")
                        : fs::temp_directory_path();
    std::string templ = (base / "fjord-crash-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) {
      std::cerr << "cannot create a scratch directory\n";
      return 1;
    }
    opt.scratch = templ;
  }
  {
    // Writers' spill folders and the lookup cache's local files go to the temp directory: put it
    // in the scratch folder too (tmpfs when there is one).
    std::string tmp = opt.scratch + "/tmp";
    std::error_code ec;
    fs::create_directories(tmp, ec);
    if (!ec) ::setenv("TMPDIR", tmp.c_str(), 1);
  }
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  Stats total;
  if (!opt.replay.empty()) {
    std::optional<RunSpec> spec = RunSpec::Parse(opt.replay);
    if (!spec) {
      std::cerr << "bad --replay spec\n";
      return 2;
    }
    opt.verbose = true;
    Runner runner(opt);
    std::string dir = opt.scratch + "/replay";
    Result<Setup> setup = BuildSetup(*spec, dir);
    if (!setup.ok()) {
      std::cerr << "setup failed: " << setup.status().ToString() << "\n";
      return 1;
    }
    runner.Run(*spec, std::move(*setup), dir, 1, false);
    bool ok = runner.stats().failures == 0;
    std::error_code ec;
    if (own_scratch && ok) fs::remove_all(opt.scratch, ec);
    return ok ? 0 : 1;
  }

  // Fixed scenarios: each set up once (a template folder), run once without a crash to count its
  // operations, and with --enumerate crashed at every one of them.
  struct Fixed {
    Shape shape;
    WriteMode mode;
    int history;
  };
  const std::vector<Fixed> fixed = {
      {{false, false, -1, "parquet", "avro", "zstd"}, WriteMode::kOnePhase, 0},
      {{false, true, 3, "orc", "avro", "snappy"}, WriteMode::kOnePhase, 2},
      {{false, true, 2, "avro", "orc", "snappy"}, WriteMode::kPrepareCrash, 1},
      {{false, true, -1, "parquet", "avro", "snappy"}, WriteMode::kCommitCrash, 2},
      {{true, false, 1, "avro", "avro", "snappy"}, WriteMode::kOnePhase, 1},
      {{true, true, 2, "parquet", "avro", "snappy", 2}, WriteMode::kOnePhase, 3},
      {{true, true, 3, "orc", "orc", "snappy", 2}, WriteMode::kPrepareCrash, 2},
      {{true, false, 2, "parquet", "avro", "snappy", 2}, WriteMode::kCommitCrash, 3},
      // Tables that need lookup (issue 19): deletion vectors (a: the first with two compactions
      // in one prepare), lookup changelog with lookup-wait (b) and without (c: the commit carries
      // an earlier commit's compaction; committed as `fjord run` does, completing a commit of
      // which only the data snapshot landed), both (d).
      {LookupShape(false, 1, "parquet", true, false, true, true), WriteMode::kOnePhase, 3},
      {LookupShape(true, 2, "orc", true, false, true, false), WriteMode::kPrepareCrash, 2},
      {LookupShape(true, 2, "avro", false, true, true, false), WriteMode::kOnePhase, 2},
      {LookupShape(false, 2, "parquet", false, true, false, false, true), WriteMode::kCommitCrash,
       2},
      {LookupShape(false, 1, "orc", true, true, true, true), WriteMode::kOnePhase, 3},
      {LookupShape(true, 2, "parquet", true, true, true, false), WriteMode::kCommitCrash, 2},
  };
  struct Task {
    RunSpec spec;
    int fixed = -1;  // template to copy; -1: a random run that sets itself up
    int64_t run_number = 0;
  };
  std::vector<RunSpec> fixed_specs;
  std::vector<std::optional<Setup>> templates;
  std::vector<int64_t> fixed_ops;
  std::vector<std::vector<std::string>> fixed_logs;
  std::vector<int64_t> fixed_deleted;  // rows marked deleted after the clean run
  // Operations of a clean attempt: the mean over the fixed scenarios of a kind.
  std::map<std::pair<int, WriteMode>, int64_t> estimate, estimate_count;
  int64_t run_number = 0;
  {
    Runner runner(opt);
    for (size_t k = 0; k < fixed.size(); ++k) {
      RunSpec spec;
      spec.shape = fixed[k].shape;
      spec.mode = fixed[k].mode;
      spec.history = fixed[k].history;
      spec.seed = opt.seed * 7919 + k;
      std::string tdir = opt.scratch + "/template-" + std::to_string(k);
      Result<Setup> setup = BuildSetup(spec, tdir);
      if (!setup.ok()) {
        std::cerr << "FAIL setting up " << spec.ToString() << ": " << setup.status().ToString()
                  << "\n";
        ++total.failures;
        fixed_specs.push_back(spec);
        templates.emplace_back();
        fixed_ops.push_back(-1);
        fixed_logs.emplace_back();
        fixed_deleted.push_back(0);
        continue;
      }
      std::string dir = opt.scratch + "/run-" + std::to_string(++run_number);
      int64_t ops = -1;
      if (CopyDir(tdir, dir).ok()) ops = runner.Run(spec, *setup, dir, run_number, false);
      fixed_specs.push_back(spec);
      templates.emplace_back(std::move(*setup));
      fixed_ops.push_back(ops);
      fixed_logs.push_back(runner.last_log());
      fixed_deleted.push_back(runner.last_deleted_rows());
      auto key = std::make_pair(KindOf(spec.shape), spec.mode);
      estimate[key] += ops;
      ++estimate_count[key];
    }
    total.Add(runner.stats());
  }

  std::vector<Task> tasks;
  std::vector<int64_t> crash_points(fixed.size(), 0);  // enumerated per scenario
  if (opt.enumerate) {
    for (size_t k = 0; k < fixed.size(); ++k) {
      if (opt.scenario >= 0 && static_cast<int>(k) != opt.scenario) continue;
      bool sampled = fixed_specs[k].shape.NeedsLookup() && fixed_ops[k] > 60 && !opt.all_points;
      for (int64_t c = 1; c <= fixed_ops[k]; ++c) {
        const std::vector<std::string>& log = fixed_logs[k];
        if (sampled && c % opt.sample != 0 &&
            !(c <= static_cast<int64_t>(log.size()) && ChangesFile(log[c - 1]))) {
          continue;
        }
        ++crash_points[k];
        Task t{fixed_specs[k], static_cast<int>(k), ++run_number};
        t.spec.crash_at = c;
        tasks.push_back(t);
      }
    }
  }
  // Randomised runs: the crash point is drawn up to a little beyond the operation count of the
  // fixed scenarios of the same kind (table kind, write mode); a run that does not reach it
  // finishes without a crash and is checked all the same.
  std::mt19937_64 rng(opt.seed);
  for (int64_t i = 0; i < opt.runs; ++i) {
    Task t;
    t.spec.shape = RandomShape(&rng, opt.lookup_only);
    t.spec.mode = static_cast<WriteMode>(rng() % 3);
    // Half the commit-only runs on tables that need lookup commit as `fjord run` does.
    t.spec.shape.complete =
        t.spec.mode == WriteMode::kCommitCrash && t.spec.shape.NeedsLookup() && rng() % 2 == 0;
    t.spec.history = static_cast<int>(rng() % 4);
    t.spec.seed = rng();
    t.spec.extras = true;
    auto key = std::make_pair(KindOf(t.spec.shape), t.spec.mode);
    int64_t est = std::max<int64_t>(estimate[key] / std::max<int64_t>(estimate_count[key], 1), 20);
    t.spec.crash_at = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(est * 11 / 10));
    t.spec.ambiguous = rng() % 10 == 0;
    t.run_number = ++run_number;
    tasks.push_back(t);
  }

  std::atomic<size_t> next{0};
  std::atomic<bool> out_of_time{false};
  std::vector<Stats> per_thread(static_cast<size_t>(opt.jobs));
  auto worker = [&](int j) {
    Runner runner(opt);
    for (;;) {
      size_t i = next++;
      if (i >= tasks.size()) break;
      if (opt.max_seconds > 0 && elapsed() > opt.max_seconds) {
        out_of_time = true;
        break;
      }
      const Task& t = tasks[i];
      std::string dir = opt.scratch + "/run-" + std::to_string(t.run_number);
      if (t.fixed >= 0) {
        if (!templates[static_cast<size_t>(t.fixed)]) continue;
        Status st = CopyDir(opt.scratch + "/template-" + std::to_string(t.fixed), dir);
        if (!st.ok()) {
          ++runner.stats().failures;
          std::lock_guard<std::mutex> lock(output_mu);
          std::cerr << "FAIL " << st.ToString() << "\n";
          continue;
        }
        runner.Run(t.spec, *templates[static_cast<size_t>(t.fixed)], dir, t.run_number, true);
      } else {
        Result<Setup> setup = BuildSetup(t.spec, dir);
        if (!setup.ok()) {
          ++runner.stats().failures;
          std::lock_guard<std::mutex> lock(output_mu);
          std::cerr << "FAIL setting up run " << t.run_number << ": " << setup.status().ToString()
                    << "\n  replay: --replay " << t.spec.ToString() << "\n";
          continue;
        }
        runner.Run(t.spec, std::move(*setup), dir, t.run_number, false);
      }
    }
    per_thread[static_cast<size_t>(j)] = runner.stats();
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < opt.jobs; ++j) threads.emplace_back(worker, j);
  for (std::thread& t : threads) t.join();
  for (const Stats& s : per_thread) total.Add(s);

  for (size_t k = 0; k < fixed.size(); ++k) {
    std::cout << "scenario " << fixed_specs[k].shape.Describe() << " "
              << ModeName(fixed_specs[k].mode) << " history=" << fixed_specs[k].history << ": "
              << fixed_ops[k] << " operations";
    if (opt.enumerate) {
      std::cout << (crash_points[k] == fixed_ops[k]
                        ? ", each crashed"
                        : ", crashed at " + std::to_string(crash_points[k]));
    }
    if (templates[k] && fixed_specs[k].shape.dv) {
      std::cout << "; rows marked deleted before " << templates[k]->before.deleted_rows
                << ", after " << fixed_deleted[k];
    }
    if (templates[k] && templates[k]->deferred_compaction) {
      std::cout << "; the messages carry the compaction of the previous checkpoint";
    }
    std::cout << "\n";
  }
  if (out_of_time) std::cout << "time limit reached: not every run was started\n";
  std::cout << "crash test: " << total.runs << " runs (" << total.enumerated
            << " at enumerated crash points, " << (total.runs - total.enumerated)
            << " clean or random), " << total.crashed << " crashed, " << total.landed
            << " crashed after their snapshot was in, " << total.double_crashes
            << " crashed retries, " << total.interleaved << " interleaved writers, "
            << total.compactions << " commits with a COMPACT snapshot, " << total.ambiguous
            << " ambiguous snapshot creations; lookup tables: " << total.partial
            << " crashes left the data snapshot without its COMPACT snapshot, " << total.followups
            << " compactions took level 0 up afterwards, " << total.with_vectors
            << " final reads applied deletion vectors, " << total.replays
            << " changelog replays matched, " << total.completed
            << " retries added the missing COMPACT snapshot; " << total.failures << " failures; "
            << elapsed() << " s, " << opt.jobs << " jobs, seed " << opt.seed << "\n";
  std::cout << "crash points by operation (what the crashing operation touched):\n";
  for (const auto& [what, n] : total.crash_points) std::cout << "  " << n << "  " << what << "\n";
  if (own_scratch && total.failures == 0) {
    std::error_code ec;
    fs::remove_all(opt.scratch, ec);
  }
  return total.failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace fjord

int main(int argc, char** argv) { return fjord::Main(argc, argv); }

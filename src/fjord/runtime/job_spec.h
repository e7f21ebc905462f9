// The YAML job file of `fjord run` (docs/streaming.md): what to read (`source`), which table to
// write (`sink`) and how (`pipeline`). Parsed and checked whole before anything runs: an unknown
// key, a missing one or a bad value is Invalid naming the file, the line and the key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"
#include "fjord/result.h"

namespace fjord::runtime {

struct FilesSourceSpec {
  std::string path;              // directory, absolute (relative ones resolved at the job file)
  std::string pattern = "*";     // glob on file names (fnmatch)
  std::string format = "jsonl";  // jsonl | csv
  std::string csv_null;          // CSV: unquoted field text meaning NULL
  int64_t poll_interval_ms = 200;
  // Rows that do not fit the table: "fail" stops the job; "dead-letter" appends them (with the
  // file, line and error) to `dead_letter` (default: <state-dir>/dead-letter.jsonl).
  std::string on_error = "fail";
  std::string dead_letter;
};

struct DatagenSourceSpec {
  double rows_per_second = 1000;  // 0: as fast as the writers take them
  int64_t rows = -1;              // total rows; -1: unbounded (then --bounded is refused)
  int64_t key_range = 1000;       // keys 0 .. key_range-1
  double update_ratio = 0;        // share of rows reusing a key emitted before
  uint64_t seed = 1;
};

struct KafkaSourceSpec {
  std::string bootstrap_servers;
  std::vector<std::string> topics;
  // Or every topic whose name matches this regular expression (whole name), looked for again at
  // each discovery interval: topics created later (a new source table) are read too.
  std::string topic_pattern;
  std::string format = "jsonl";    // jsonl: one JSON object per message value
  std::string group_id;            // only to commit offsets back for monitoring
  std::string start = "earliest";  // earliest | latest | timestamp:<ms>, without a checkpoint
  int64_t start_timestamp_ms = -1;
  std::map<std::string, std::string> properties;  // extra librdkafka configuration
  int64_t discovery_interval_ms = 5000;           // how often new partitions are looked for
  std::string on_error = "fail";                  // fail | dead-letter (as files)
  std::string dead_letter;
};

// `source.type: postgres` (docs/cdc.md, "The PostgreSQL source").
struct PostgresSourceSpec {
  std::string host = "127.0.0.1";
  int port = 5432;
  std::string user = "postgres";
  std::string password;  // empty: none (trust, or ~/.pgpass / PGPASSWORD as libpq reads them)
  std::string database;
  // The schemas whose tables are included (exact names); empty: "public".
  std::vector<std::string> schemas;
  // Regular expressions (ECMAScript, whole match) on the table name or on "schema.table", as
  // Java's postgres_sync_table --table_name; a table is included when one matches. Empty: every
  // table of `schemas`.
  std::vector<std::string> tables;
  std::string slot_name = "fjord";
  std::string publication_name = "fjord";
  // Create the slot / the publication (publishing inserts, updates and deletes; FOR TABLES IN
  // SCHEMA the schemas without `tables`, else FOR TABLE the included tables) when missing;
  // otherwise a missing one is NotFound. With create_publication the source also adds new
  // included tables to a FOR TABLE publication.
  bool create_slot = true;
  bool create_publication = true;
  // How often a standby status update goes to the server (also what keeps the walsender from
  // timing the connection out).
  int64_t status_interval_ms = 10000;
  // How often the catalog is checked for new included tables when the publication lists its
  // tables (FOR TABLE); they are added to it and read from a snapshot (docs/cdc.md).
  int64_t discovery_interval_ms = 5000;
  int64_t idle_wait_ms = 150;
  // Rows fetched per query of the initial snapshot.
  int64_t snapshot_fetch_rows = 5000;
  cdc::TypeMapping type_mapping;  // to-string maps every column to STRING
};

struct SourceSpec {
  std::string type;  // files | datagen | kafka
  // A CDC job (docs/cdc.md): the files' lines or the Kafka message values are messages of this
  // CDC format (debezium-json, canal-json, maxwell-json, ogg-json, json); empty: rows of the table.
  std::string cdc_format;
  std::vector<std::string> type_mapping;  // CDC: Java's type mapping options
  int decode_threads = 2;                 // CDC: threads decoding a batch of messages
  FilesSourceSpec files;
  DatagenSourceSpec datagen;
  KafkaSourceSpec kafka;
  PostgresSourceSpec postgres;
  int64_t batch_rows = 4096;  // rows per batch read from the source
};

struct SinkSpec {
  std::string table;                           // table directory (table sync)
  std::map<std::string, std::string> options;  // dynamic table options for this job's writers
  // CDC jobs (docs/cdc.md). Database sync: every source table into `database` of `warehouse`.
  std::string warehouse;
  std::string database;
  std::vector<std::string> primary_key;     // for tables the job creates; else the messages'
  std::vector<std::string> partition_keys;  // for tables the job creates
  std::vector<std::pair<std::string, std::string>> table_options;  // for tables the job creates
  std::vector<std::string> computed_columns;                       // "name=function(args)"
  std::string including_tables = ".*";  // database sync: source table names (regex, whole)
  std::string excluding_tables;         // database sync: source table names left out (regex)
  std::string table_prefix;             // database sync: Paimon table = prefix + name + suffix
  std::string table_suffix;
  // Database sync, as Java's TableNameConverter: the prefix / suffix of the tables of a source
  // database (keys lower-cased, matched lower-cased), over table_prefix / table_suffix; a source
  // table's Paimon name (keys lower-cased), over both.
  std::map<std::string, std::string> table_prefix_db;
  std::map<std::string, std::string> table_suffix_db;
  std::map<std::string, std::string> table_mapping;
  std::string including_dbs = ".*";  // database sync: source database names (regex, whole)
  std::string excluding_dbs;         // database sync: source database names left out (regex)
  // Database sync: false names a source table's Paimon table `<database>_<table>` (before the
  // prefix and suffix), so that same-named tables of several databases stay apart.
  bool merge_shards = true;
  // Database sync: the partition keys of the tables created for some source tables (by name),
  // over partition_keys.
  std::map<std::string, std::vector<std::string>> table_partition_keys;
  // Java's metadata columns (runtime/cdc_metadata.h), each named prefix + name.
  std::vector<std::string> metadata_columns;
  std::string metadata_column_prefix;
};

struct PipelineSpec {
  std::string name;  // names the job in snapshot properties; default: the job file's stem
  int parallelism = 1;
  int64_t checkpoint_interval_ms = 10000;
  int64_t checkpoint_timeout_ms = 600000;  // a checkpoint taking longer fails the job
  int64_t min_pause_ms = 0;                // between the end of a checkpoint and the next
  std::string state_dir;
  int checkpoints_retained = 3;
  int queue_batches = 4;  // bounded queue per writer, in batches
  int metrics_port = 0;   // 0: no metrics endpoint
  std::string metrics_address = "127.0.0.1";
};

struct JobSpec {
  std::string file;  // the job file, as given
  SourceSpec source;
  SinkSpec sink;
  PipelineSpec pipeline;

  // The source delivers change records (a CDC format), not rows of the table.
  bool cdc() const { return !source.cdc_format.empty() || source.type == "postgres"; }
};

// Parses YAML text; `file` names errors, `base_dir` resolves relative paths.
Result<JobSpec> ParseJobSpec(const std::string& text, const std::string& file,
                             const std::string& base_dir);
// Reads and parses the job file at `path`.
Result<JobSpec> LoadJobSpec(const std::string& path);

// "500ms", "1s", "2 min", "1h"; a bare number is milliseconds (as Flink's durations).
Result<int64_t> ParseDurationMillis(const std::string& text);

}  // namespace fjord::runtime

#include "fjord/runtime/job_spec.h"

#include <gtest/gtest.h>

#include "fjord/testing/test_util.h"

namespace fjord::runtime {
namespace {

bool HasError(const Status& st, StatusCode code, const std::string& text) {
  return st.code() == code && st.message().find(text) != std::string::npos;
}

Status ParseError(const std::string& text) {
  auto r = ParseJobSpec(text, "job.yaml", "/base");
  return r.ok() ? Status::OK() : r.status();
}

TEST(JobSpecTest, ParsesEveryKey) {
  ASSERT_OK_AND_ASSIGN(JobSpec job, ParseJobSpec(R"(
source: {type: files, path: in, pattern: "*.csv", format: csv, csv-null: "NULL", batch-rows: 10}
sink:
  table: /w/db.db/t
  options: {write-buffer-size: 64 mb}
pipeline:
  name: ingest
  parallelism: 3
  checkpoint-interval: 2s
  state-dir: state
  checkpoints-retained: 5
  checkpoint-timeout: 1min
  min-pause: 500ms
)",
                                                 "dir/job.yaml", "/base"));
  EXPECT_EQ(job.source.type, "files");
  EXPECT_EQ(job.source.files.path, "/base/in");
  EXPECT_EQ(job.source.files.pattern, "*.csv");
  EXPECT_EQ(job.source.files.format, "csv");
  EXPECT_EQ(job.source.files.csv_null, "NULL");
  EXPECT_EQ(job.source.batch_rows, 10);
  EXPECT_EQ(job.sink.table, "/w/db.db/t");
  EXPECT_EQ(job.sink.options.at("write-buffer-size"), "64 mb");
  EXPECT_EQ(job.pipeline.name, "ingest");
  EXPECT_EQ(job.pipeline.parallelism, 3);
  EXPECT_EQ(job.pipeline.checkpoint_interval_ms, 2000);
  EXPECT_EQ(job.pipeline.state_dir, "/base/state");
  EXPECT_EQ(job.pipeline.checkpoints_retained, 5);
  EXPECT_EQ(job.pipeline.checkpoint_timeout_ms, 60000);
  EXPECT_EQ(job.pipeline.min_pause_ms, 500);
}

TEST(JobSpecTest, DefaultsAndDatagen) {
  ASSERT_OK_AND_ASSIGN(JobSpec job, ParseJobSpec(R"(
source: {type: datagen, rows-per-second: 500, rows: 1000, key-range: 10, update-ratio: 0.5, seed: 7}
sink: {table: t}
pipeline: {state-dir: /s}
)",
                                                 "x/my-job.yaml", "/b"));
  EXPECT_EQ(job.pipeline.name, "my-job");
  EXPECT_EQ(job.pipeline.parallelism, 1);
  EXPECT_EQ(job.pipeline.checkpoint_interval_ms, 10000);
  EXPECT_EQ(job.source.datagen.rows, 1000);
  EXPECT_EQ(job.source.datagen.key_range, 10);
  EXPECT_DOUBLE_EQ(job.source.datagen.update_ratio, 0.5);
  EXPECT_EQ(job.source.datagen.seed, 7u);
  EXPECT_EQ(job.sink.table, "/b/t");
}

TEST(JobSpecTest, FilesDeadLetter) {
  ASSERT_OK_AND_ASSIGN(JobSpec job, ParseJobSpec(R"(
source: {type: files, path: in, on-error: dead-letter}
sink: {table: t}
pipeline: {state-dir: s}
)",
                                                 "job.yaml", "/b"));
  EXPECT_EQ(job.source.files.on_error, "dead-letter");
  EXPECT_EQ(job.source.files.dead_letter, "/b/s/dead-letter.jsonl");
  ASSERT_OK_AND_ASSIGN(job, ParseJobSpec(R"(
source: {type: files, path: in, on-error: dead-letter, dead-letter: bad.jsonl}
sink: {table: t}
pipeline: {state-dir: s}
)",
                                         "job.yaml", "/b"));
  EXPECT_EQ(job.source.files.dead_letter, "/b/bad.jsonl");
  EXPECT_TRUE(HasError(ParseError("source: {type: files, path: in, dead-letter: x}\n"
                                  "sink: {table: t}\npipeline: {state-dir: s}\n"),
                       StatusCode::kInvalid, "line 1: source.dead-letter: needs on-error"));
  EXPECT_TRUE(HasError(ParseError("source: {type: files, path: in, on-error: skip}\n"
                                  "sink: {table: t}\npipeline: {state-dir: s}\n"),
                       StatusCode::kInvalid, "source.on-error: must be fail or dead-letter"));
}

TEST(JobSpecTest, ErrorsNameFileLineAndKey) {
  const std::string sink = "sink: {table: t}\n";
  const std::string pipeline = "pipeline: {state-dir: s}\n";
  // An unknown key, on line 3.
  Status st = ParseError("source:\n  type: files\n  pathh: x\n" + sink + pipeline);
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid, "job.yaml line 3: source.pathh: unknown key"))
      << st.ToString();
  st = ParseError("source: {type: files, path: x}\n" + sink +
                  "pipeline:\n  state-dir: s\n  parallelism: two\n");
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid,
                       "job.yaml line 5: pipeline.parallelism: must be an integer, got 'two'"))
      << st.ToString();
  st = ParseError("source: {type: files, path: x}\n" + sink +
                  "pipeline: {state-dir: s, checkpoint-interval: 1 fortnight}\n");
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid, "job.yaml line 3: pipeline.checkpoint-interval"))
      << st.ToString();
  st = ParseError("source: {type: ftp, path: x}\n" + sink + pipeline);
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid, "line 1: source.type: unknown source type 'ftp'"))
      << st.ToString();
  st = ParseError("source: {type: files}\n" + sink + pipeline);
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid, "source.path: missing")) << st.ToString();
  st = ParseError("source: {type: files, path: x}\n" + sink + "pipeline: {parallelism: 1}\n");
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid, "line 3: pipeline.state-dir: missing"))
      << st.ToString();
  st = ParseError("source: {type: files, path: x}\n" + sink +
                  "pipeline: {state-dir: s, metrics-port: 99999}\n");
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid, "line 3: pipeline.metrics-port: at most 65535"))
      << st.ToString();
  st = ParseError("source: {type: files, path: x}\n" + sink + pipeline + "extra: 1\n");
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid, "line 4: job.extra: unknown key"))
      << st.ToString();
  st = ParseError("source: [1, 2\n");
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid, "job.yaml line 2: not valid YAML"))
      << st.ToString();
  st = ParseError("source: {type: datagen, update-ratio: 1.5}\n" + sink + pipeline);
  EXPECT_TRUE(HasError(st, StatusCode::kInvalid, "source.update-ratio: must be between 0 and 1"))
      << st.ToString();
}

TEST(JobSpecTest, Durations) {
  EXPECT_EQ(*ParseDurationMillis("250"), 250);
  EXPECT_EQ(*ParseDurationMillis("250ms"), 250);
  EXPECT_EQ(*ParseDurationMillis("3s"), 3000);
  EXPECT_EQ(*ParseDurationMillis("2 min"), 120000);
  EXPECT_EQ(*ParseDurationMillis("1h"), 3600000);
  EXPECT_FALSE(ParseDurationMillis("s").ok());
  EXPECT_FALSE(ParseDurationMillis("1 day").ok());
}

TEST(JobSpecTest, PostgresSourceIntervals) {
  ASSERT_OK_AND_ASSIGN(JobSpec job, ParseJobSpec(R"y(
source: {type: postgres, database: shop, tables: ["orders|items"], status-interval: 3s,
         discovery-interval: 2s}
sink: {warehouse: wh, database: ods}
pipeline: {state-dir: s}
)y",
                                                 "job.yaml", "/base"));
  EXPECT_EQ(job.source.postgres.status_interval_ms, 3000);
  EXPECT_EQ(job.source.postgres.discovery_interval_ms, 2000);
  ASSERT_OK_AND_ASSIGN(job, ParseJobSpec("source: {type: postgres, database: shop}\n"
                                         "sink: {warehouse: wh, database: ods}\n"
                                         "pipeline: {state-dir: s}\n",
                                         "job.yaml", "/base"));
  EXPECT_EQ(job.source.postgres.discovery_interval_ms, 5000);
  EXPECT_TRUE(HasError(
      ParseError("source: {type: postgres, database: shop, discovery-interval: "
                 "soon}\nsink: {warehouse: wh, database: ods}\npipeline: {state-dir: s}\n"),
      StatusCode::kInvalid, "source.discovery-interval"));
}

TEST(JobSpecTest, CdcDatabaseSync) {
  ASSERT_OK_AND_ASSIGN(JobSpec job, ParseJobSpec(R"y(
source: {type: kafka, bootstrap-servers: "h:1", topic: [a, b], format: debezium-json,
         type-mapping: [to-nullable, char-to-string]}
sink:
  warehouse: wh
  database: ods
  including-tables: "orders|items"
  excluding-tables: "tmp_.*"
  table-prefix: ods_
  table-suffix: _rt
  primary-key: id
  partition-keys: [dt]
  computed-columns: ["dt=date_format(ts, yyyy-MM-dd)"]
  table-options: {bucket: "4", changelog-producer: input}
  options: {write-buffer-size: 64 mb}
pipeline: {state-dir: s}
)y",
                                                 "job.yaml", "/base"));
  EXPECT_TRUE(job.cdc());
  EXPECT_EQ(job.source.cdc_format, "debezium-json");
  EXPECT_EQ(job.source.type_mapping, (std::vector<std::string>{"to-nullable", "char-to-string"}));
  EXPECT_EQ(job.sink.warehouse, "/base/wh");
  EXPECT_EQ(job.sink.database, "ods");
  EXPECT_EQ(job.sink.including_tables, "orders|items");
  EXPECT_EQ(job.sink.excluding_tables, "tmp_.*");
  EXPECT_EQ(job.sink.table_prefix, "ods_");
  EXPECT_EQ(job.sink.table_suffix, "_rt");
  EXPECT_EQ(job.sink.primary_key, (std::vector<std::string>{"id"}));
  EXPECT_EQ(job.sink.partition_keys, (std::vector<std::string>{"dt"}));
  EXPECT_EQ(job.sink.computed_columns.size(), 1u);
  ASSERT_EQ(job.sink.table_options.size(), 2u);
  EXPECT_EQ(job.sink.table_options[0], (std::pair<std::string, std::string>{"bucket", "4"}));
  EXPECT_TRUE(job.sink.table.empty());
}

TEST(JobSpecTest, CdcTableSyncFromFiles) {
  ASSERT_OK_AND_ASSIGN(JobSpec job, ParseJobSpec(R"(
source: {type: files, path: in, format: canal-json}
sink: {table: wh/db.db/t, primary-key: [id, k]}
pipeline: {state-dir: s}
)",
                                                 "job.yaml", "/base"));
  EXPECT_TRUE(job.cdc());
  EXPECT_EQ(job.source.cdc_format, "canal-json");
  EXPECT_EQ(job.source.files.format, "jsonl");
  EXPECT_EQ(job.sink.table, "/base/wh/db.db/t");
  EXPECT_EQ(job.sink.primary_key, (std::vector<std::string>{"id", "k"}));
}

TEST(JobSpecTest, CdcKeysRefused) {
  // CDC keys without a CDC format, and the other way round.
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: files, path: in}
sink: {table: t, primary-key: [id]}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid, "job.yaml line 3: sink.primary-key: unknown key"));
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: files, path: in, type-mapping: [to-string]}
sink: {table: t}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid,
                       "job.yaml line 2: source.type-mapping: only for a CDC format"));
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: files, path: in, format: debezium-json, type-mapping: [to-strin]}
sink: {table: t}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid, "unsupported type mapping option 'to-strin'"));
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: files, path: in, format: debezium-json}
sink: {table: t, warehouse: w, database: d}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid, "not both"));
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: files, path: in, format: debezium-json}
sink: {warehouse: w}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid, "sink.database: missing"));
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: files, path: in, format: debezium-json}
sink: {table: w/d.db/t, table-prefix: x}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid, "sink.table-prefix: only for database sync"));
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: files, path: in, format: debezium-json}
sink: {warehouse: w, database: d, including-tables: "a("}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid, "sink.including-tables: not a regular expression"));
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: files, path: in, format: avro-json}
sink: {table: t}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid,
                       "unknown format 'avro-json' (jsonl, csv, debezium-json"));
}

// decode-threads is a key of every source that decodes CDC messages: files and kafka.
TEST(JobSpecTest, DecodeThreadsForFilesAndKafka) {
  for (const char* source : {"{type: files, path: in, format: canal-json, decode-threads: 3}",
                             "{type: kafka, bootstrap-servers: 'h:1', topic: t, "
                             "format: debezium-json, decode-threads: 3}"}) {
    SCOPED_TRACE(source);
    ASSERT_OK_AND_ASSIGN(JobSpec job,
                         ParseJobSpec(std::string("source: ") + source +
                                          "\nsink: {table: w/d.db/t}\npipeline: {state-dir: s}\n",
                                      "job.yaml", "/base"));
    EXPECT_EQ(job.source.decode_threads, 3);
  }
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: kafka, bootstrap-servers: "h:1", topic: t, decode-threads: 2}
sink: {table: t}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid,
                       "job.yaml line 2: source.decode-threads: only for a CDC format"));
  EXPECT_TRUE(HasError(ParseError(R"(
source: {type: kafka, bootstrap-servers: "h:1", topic: t, format: ogg-json, decode-threads: 65}
sink: {table: t}
pipeline: {state-dir: s}
)"),
                       StatusCode::kInvalid, "source.decode-threads: at most 64"));
}

// Java's routing and metadata options, under their Fjord keys.
TEST(JobSpecTest, CdcJavasRoutingAndMetadataKeys) {
  ASSERT_OK_AND_ASSIGN(JobSpec job, ParseJobSpec(R"(
source: {type: files, path: in, format: debezium-json}
sink:
  warehouse: wh
  database: ods
  table-prefix-db: {Shop_EU: eu_}
  table-suffix-db: {shop_us: _us}
  table-mapping: {Orders: all_orders}
  including-dbs: "shop_.*"
  excluding-dbs: shop_test
  merge-shards: false
  multiple-table-partition-keys: {orders: [dt, region], items: dt}
  metadata-columns: [database_name, table_name, op_ts]
  metadata-column-prefix: src_
pipeline: {state-dir: s}
)",
                                                 "job.yaml", "/base"));
  const SinkSpec& s = job.sink;
  EXPECT_EQ(s.table_prefix_db, (std::map<std::string, std::string>{{"shop_eu", "eu_"}}));
  EXPECT_EQ(s.table_suffix_db, (std::map<std::string, std::string>{{"shop_us", "_us"}}));
  EXPECT_EQ(s.table_mapping, (std::map<std::string, std::string>{{"orders", "all_orders"}}));
  EXPECT_EQ(s.including_dbs, "shop_.*");
  EXPECT_EQ(s.excluding_dbs, "shop_test");
  EXPECT_FALSE(s.merge_shards);
  EXPECT_EQ(s.table_partition_keys.at("orders"), (std::vector<std::string>{"dt", "region"}));
  EXPECT_EQ(s.table_partition_keys.at("items"), (std::vector<std::string>{"dt"}));
  EXPECT_EQ(s.metadata_columns, (std::vector<std::string>{"database_name", "table_name", "op_ts"}));
  EXPECT_EQ(s.metadata_column_prefix, "src_");

  auto error = [](const std::string& source, const std::string& sink) {
    return ParseError("source: " + source + "\nsink: " + sink + "\npipeline: {state-dir: s}\n");
  };
  const std::string files = "{type: files, path: in, format: debezium-json}";
  EXPECT_TRUE(HasError(error(files, "{table: w/d.db/t, table-mapping: {a: b}}"),
                       StatusCode::kInvalid, "sink.table-mapping: only for database sync"));
  EXPECT_TRUE(HasError(error(files, "{warehouse: w, database: d, including-dbs: \"(\"}"),
                       StatusCode::kInvalid, "sink.including-dbs: not a regular expression"));
  EXPECT_TRUE(HasError(error(files, "{warehouse: w, database: d, merge-shards: no}"),
                       StatusCode::kInvalid, "sink.merge-shards: must be true or false"));
  // Metadata columns the source cannot give are refused by name, saying why.
  EXPECT_TRUE(HasError(error(files, "{table: w/d.db/t, metadata-columns: [topic]}"),
                       StatusCode::kInvalid,
                       "job.yaml line 2: sink.metadata-columns: metadata column 'topic' is not "
                       "available from a files source: a Kafka message's metadata"));
  EXPECT_TRUE(HasError(error("{type: files, path: in, format: canal-json}",
                             "{table: w/d.db/t, metadata-columns: op_ts}"),
                       StatusCode::kInvalid,
                       "metadata column 'op_ts' is not available from a files source: the "
                       "change's time is read from debezium-json messages"));
  EXPECT_TRUE(HasError(error(files, "{table: w/d.db/t, metadata-columns: [schema_name]}"),
                       StatusCode::kInvalid, "only the postgres source knows a table's schema"));
  EXPECT_TRUE(HasError(error(files, "{table: w/d.db/t, metadata-columns: [row_kind]}"),
                       StatusCode::kInvalid,
                       "unknown metadata column 'row_kind' (Java's: database_name, table_name, "
                       "schema_name, op_ts, topic, partition, offset, timestamp, timestamp_type)"));
  EXPECT_TRUE(HasError(error(files, "{table: w/d.db/t, metadata-columns: [op_ts, op_ts]}"),
                       StatusCode::kInvalid, "'op_ts' is given twice"));
  EXPECT_OK(error("{type: postgres, database: shop}",
                  "{warehouse: w, database: d, metadata-columns: [schema_name, op_ts]}"));
  EXPECT_OK(error("{type: kafka, bootstrap-servers: h:1, topic: t, format: canal-json}",
                  "{warehouse: w, database: d, metadata-columns: [topic, partition, offset, "
                  "timestamp, timestamp_type, table_name]}"));
}

// Java's names of the sync options: Fjord's key, or why Fjord does not support the option.
TEST(JobSpecTest, JavasSyncOptionNamesRefusedWithTheirFjordKey) {
  auto error = [](const std::string& sink) {
    return ParseError("source: {type: files, path: in, format: debezium-json}\nsink: " + sink +
                      "\npipeline: {state-dir: s}\n");
  };
  EXPECT_TRUE(HasError(error("{warehouse: w, database: d, mode: divided}"), StatusCode::kInvalid,
                       "job.yaml line 2: sink.mode: `mode` is Java's --mode; Fjord does not "
                       "support it: a Fjord job is always Java's combined mode"));
  EXPECT_TRUE(HasError(error("{warehouse: w, database: d, eager_init: true}"), StatusCode::kInvalid,
                       "sink.eager_init: `eager_init` is Java's --eager_init; Fjord does not "
                       "support it: "));
  EXPECT_TRUE(HasError(error("{warehouse: w, database: d, eager-init: true}"), StatusCode::kInvalid,
                       "`eager-init` is Java's --eager_init; Fjord does not"));
  for (const char* key : {"catalog_conf", "ignore-incompatible",
                          "sync_primary_keys_from_source_schema", "mysql_conf"}) {
    EXPECT_TRUE(HasError(error(std::string("{warehouse: w, database: d, ") + key + ": x}"),
                         StatusCode::kInvalid, "Fjord does not support it: "))
        << key;
  }
  EXPECT_TRUE(HasError(error("{warehouse: w, database: d, table_prefix: ods_}"),
                       StatusCode::kInvalid,
                       "sink.table_prefix: `table_prefix` is Java's --table_prefix; Fjord's key "
                       "is sink.table-prefix"));
  EXPECT_TRUE(HasError(error("{warehouse: w, database: d, metadata-column: [op_ts]}"),
                       StatusCode::kInvalid, "Fjord's key is sink.metadata-columns"));
  EXPECT_TRUE(HasError(error("{warehouse: w, database: d, table_conf: {bucket: 2}}"),
                       StatusCode::kInvalid, "Fjord's key is sink.table-options"));
  EXPECT_TRUE(HasError(ParseError("source: {type: files, path: in, format: debezium-json, "
                                  "type_mapping: to-string}\nsink: {table: w/d.db/t}\n"
                                  "pipeline: {state-dir: s}\n"),
                       StatusCode::kInvalid, "Fjord's key is source.type-mapping"));
  // Other unknown keys: the list of known ones.
  EXPECT_TRUE(HasError(error("{warehouse: w, database: d, tables: x}"), StatusCode::kInvalid,
                       "sink.tables: unknown key (known: "));
}

}  // namespace
}  // namespace fjord::runtime

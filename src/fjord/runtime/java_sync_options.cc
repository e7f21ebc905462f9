#include "fjord/runtime/java_sync_options.h"

namespace fjord::runtime {

const std::vector<JavaSyncOption>& JavaSyncOptions() {
  static const std::vector<JavaSyncOption> kOptions = {
      // --warehouse, --database and --table are sink.warehouse, sink.database and sink.table.
      {"table_conf", "sink.table-options", nullptr},
      {"catalog_conf", nullptr,
       "Fjord's catalog is the filesystem catalog of the warehouse directory; there are no "
       "catalog options (metastore, uri, lock, ...)"},
      {"kafka_conf",
       "the keys of a `source.type: kafka` (bootstrap-servers, topic, format, "
       "properties, ...)",
       nullptr},
      {"postgres_conf",
       "the keys of a `source.type: postgres` (host, port, database, schemas, "
       "tables, slot, ...)",
       nullptr},
      {"mysql_conf", nullptr,
       "Fjord has no MySQL source; read MySQL's changes from Kafka (debezium-json, canal-json, "
       "maxwell-json)"},
      {"mongodb_conf", nullptr, "Fjord has no MongoDB source"},
      {"pulsar_conf", nullptr, "Fjord has no Pulsar source"},
      {"table_prefix", "sink.table-prefix", nullptr},
      {"table_suffix", "sink.table-suffix", nullptr},
      {"table_prefix_db", "sink.table-prefix-db", nullptr},
      {"table_suffix_db", "sink.table-suffix-db", nullptr},
      {"table_mapping", "sink.table-mapping", nullptr},
      {"including_tables", "sink.including-tables", nullptr},
      {"excluding_tables", "sink.excluding-tables", nullptr},
      {"including_dbs", "sink.including-dbs", nullptr},
      {"excluding_dbs", "sink.excluding-dbs", nullptr},
      {"merge_shards", "sink.merge-shards", nullptr},
      {"partition_keys", "sink.partition-keys", nullptr},
      {"multiple_table_partition_keys", "sink.multiple-table-partition-keys", nullptr},
      {"primary_keys", "sink.primary-key", nullptr},
      {"type_mapping", "source.type-mapping", nullptr},
      {"computed_column", "sink.computed-columns", nullptr},
      {"metadata_column", "sink.metadata-columns", nullptr},
      {"metadata_column_prefix", "sink.metadata-column-prefix", nullptr},
      {"mode", nullptr,
       "a Fjord job is always Java's combined mode: one job writes every table and takes new "
       "source tables as they appear; Java's divided mode (a sink per existing table, new tables "
       "not followed) has no counterpart"},
      {"eager_init", nullptr,
       "Fjord creates or opens a table at its first record and has no Flink operators to "
       "initialize early"},
      {"ignore_incompatible", nullptr,
       "Fjord does not compare an existing table with the source's schema at start; a record "
       "the table cannot take fails the job naming it (schema evolution rules, docs/cdc.md)"},
      {"sync_primary_keys_from_source_schema", nullptr,
       "Fjord always takes the messages' primary keys when the job gives none that are all "
       "columns of the table (Java's default, true)"},
  };
  return kOptions;
}

std::optional<std::string> JavaSyncOptionMessage(const std::string& key) {
  for (const JavaSyncOption& o : JavaSyncOptions()) {
    std::string java = o.java;
    std::string dashed = java;
    for (char& ch : dashed) {
      if (ch == '_') ch = '-';
    }
    if (key != java && key != dashed) continue;
    std::string out = "`" + key + "` is Java's --" + java + "; ";
    if (o.fjord) return out + "Fjord's key is " + o.fjord;
    return out + "Fjord does not support it: " + o.why;
  }
  return std::nullopt;
}

}  // namespace fjord::runtime

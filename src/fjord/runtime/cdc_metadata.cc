#include "fjord/runtime/cdc_metadata.h"

#include <cstdio>
#include <set>

#include "fjord/common/calendar.h"

namespace fjord::runtime {

namespace {

struct Known {
  const char* name;
  MetadataColumn::Kind kind;
  const char* type;
};

// Java's converters (CdcMetadataConverter, KafkaMetadataConverter) with their types.
constexpr Known kKnown[] = {
    {"database_name", MetadataColumn::kDatabaseName, "STRING NOT NULL"},
    {"table_name", MetadataColumn::kTableName, "STRING NOT NULL"},
    {"schema_name", MetadataColumn::kSchemaName, "STRING NOT NULL"},
    {"op_ts", MetadataColumn::kOpTs, "TIMESTAMP_LTZ(3) NOT NULL"},
    {"topic", MetadataColumn::kTopic, "STRING"},
    {"partition", MetadataColumn::kPartition, "INT"},
    {"offset", MetadataColumn::kOffset, "BIGINT"},
    {"timestamp", MetadataColumn::kTimestamp, "TIMESTAMP_LTZ(3)"},
    {"timestamp_type", MetadataColumn::kTimestampType, "STRING"},
};

// Why the source cannot give `kind`; empty when it can.
std::string Unavailable(MetadataColumn::Kind kind, const std::string& source_type,
                        const std::string& format) {
  switch (kind) {
    case MetadataColumn::kDatabaseName:
    case MetadataColumn::kTableName:
      return "";
    case MetadataColumn::kSchemaName:
      if (source_type == "postgres") return "";
      return "only the postgres source knows a table's schema (Java: postgres_sync_table)";
    case MetadataColumn::kOpTs:
      if (source_type == "postgres" || format == "debezium-json") return "";
      return "the change's time is read from debezium-json messages (source.ts_ms) and the "
             "postgres source (the commit time); " +
             format + " messages carry none that Fjord reads";
    default:
      if (source_type == "kafka") return "";
      return "a Kafka message's metadata, only for source.type kafka (Java: kafka_sync_table)";
  }
}

Status Missing(const cdc::CdcRecord& record, const MetadataColumn& column, const char* what) {
  return Status::Invalid(record.origin, ": metadata column ", column.name, " (",
                         column.type->ToString(), "): ", what);
}

}  // namespace

Result<std::vector<MetadataColumn>> ParseMetadataColumns(const std::vector<std::string>& names,
                                                         const std::string& prefix,
                                                         const std::string& source_type,
                                                         const std::string& format) {
  std::vector<MetadataColumn> out;
  std::set<std::string> seen;
  for (const std::string& name : names) {
    const Known* known = nullptr;
    for (const Known& k : kKnown) {
      if (name == k.name) known = &k;
    }
    if (known == nullptr) {
      std::string list;
      for (const Known& k : kKnown) list += std::string(list.empty() ? "" : ", ") + k.name;
      return Status::Invalid("unknown metadata column '", name, "' (Java's: ", list, ")");
    }
    if (!seen.insert(name).second) {
      return Status::Invalid("metadata column '", name, "' is given twice");
    }
    std::string why = Unavailable(known->kind, source_type, format);
    if (!why.empty()) {
      return Status::Invalid("metadata column '", name, "' is not available from a ", source_type,
                             " source: ", why);
    }
    FJORD_ASSIGN_OR_RAISE(DataTypePtr type, ParseDataType(known->type));
    out.push_back(MetadataColumn{known->kind, prefix + name, std::move(type)});
  }
  return out;
}

std::string UtcMillisText(int64_t millis) {
  int64_t days = FloorDiv(millis, 86400000);
  int64_t in_day = FloorMod(millis, 86400000);
  CivilDate d = CivilFromDays(days);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u %02lld:%02lld:%02lld.%03lldZ",
                static_cast<long long>(d.year), d.month, d.day,
                static_cast<long long>(in_day / 3600000),
                static_cast<long long>(in_day / 60000 % 60),
                static_cast<long long>(in_day / 1000 % 60), static_cast<long long>(in_day % 1000));
  return buf;
}

Status AppendMetadataColumns(const std::vector<MetadataColumn>& columns, cdc::CdcRecord* record) {
  for (const MetadataColumn& c : columns) {
    std::optional<std::string> value;
    const cdc::KafkaMessageInfo* kafka = record->kafka.get();
    switch (c.kind) {
      case MetadataColumn::kDatabaseName:
        if (!record->database) return Missing(*record, c, "the message names no database");
        value = record->database;
        break;
      case MetadataColumn::kTableName:
        if (!record->table) return Missing(*record, c, "the message names no table");
        value = record->table;
        break;
      case MetadataColumn::kSchemaName:
        if (!record->schema) return Missing(*record, c, "the record has no schema");
        value = record->schema;
        break;
      case MetadataColumn::kOpTs:
        if (!record->op_ts_ms) {
          return Missing(*record, c, "the message has no change time (Debezium's source.ts_ms)");
        }
        value = UtcMillisText(*record->op_ts_ms);
        break;
      case MetadataColumn::kTopic:
        if (kafka) value = kafka->topic;
        break;
      case MetadataColumn::kPartition:
        if (kafka) value = std::to_string(kafka->partition);
        break;
      case MetadataColumn::kOffset:
        if (kafka) value = std::to_string(kafka->offset);
        break;
      case MetadataColumn::kTimestamp:
        if (kafka) value = UtcMillisText(kafka->timestamp_ms);
        break;
      case MetadataColumn::kTimestampType:
        if (kafka) value = kafka->timestamp_type;
        break;
    }
    cdc::CdcColumn* slot = nullptr;
    for (cdc::CdcColumn& existing : record->columns) {
      if (existing.name == c.name) slot = &existing;
    }
    if (slot == nullptr) slot = &record->columns.emplace_back();
    slot->name = c.name;
    slot->type = c.type;
    slot->value = std::move(value);
    slot->description.reset();
  }
  return Status::OK();
}

}  // namespace fjord::runtime

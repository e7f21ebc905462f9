// The change records of CDC ingestion (docs/cdc.md): what a CDC format makes of one message of a
// database's change stream, and what the direct PostgreSQL source makes of one change, before the
// runtime turns them into rows of a Paimon table. As Java Paimon's RichCdcMultiplexRecord: the
// source database and table, a row kind, the columns with the Paimon types the message says they
// have (all STRING when it says nothing), the primary keys it names, and each value as the text
// Java Paimon's TypeUtils.castFromCdcValueString takes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/data_type.h"

namespace fjord::cdc {

// Paimon's RowKind codes.
enum class ChangeKind : int8_t { kInsert = 0, kUpdateBefore = 1, kUpdateAfter = 2, kDelete = 3 };

// "+I", "-U", "+U", "-D".
const char* ChangeKindName(ChangeKind kind);

// Where a Kafka message was read, for Java's Kafka metadata columns (docs/cdc.md).
struct KafkaMessageInfo {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp_ms = -1;                       // as librdkafka gives it; -1: none
  std::string timestamp_type = "NoTimestampType";  // CreateTime, LogAppendTime, NoTimestampType
};

struct CdcColumn {
  std::string name;
  DataTypePtr type;                  // the Paimon type the message gives the column
  std::optional<std::string> value;  // nullopt: NULL
  std::optional<std::string> description;
};

struct CdcRecord {
  std::optional<std::string> database;  // as the message names it; nullopt: not named
  std::optional<std::string> table;
  ChangeKind kind = ChangeKind::kInsert;
  std::vector<CdcColumn> columns;         // in the message's order
  std::vector<std::string> primary_keys;  // as the message names them; may be empty
  std::optional<std::string> comment;     // table comment, when the message carries one
  // For Java's metadata columns (docs/cdc.md): the source table's schema (the PostgreSQL
  // source), the time of the change in epoch milliseconds when the message or source gives it
  // (Debezium's source.ts_ms; PostgreSQL's commit time, 0 for snapshot reads, as Java), and the
  // Kafka message it came from.
  std::optional<std::string> schema;
  std::optional<int64_t> op_ts_ms;
  std::shared_ptr<const KafkaMessageInfo> kafka;
  // Where the record's message came from (CdcMessage::origin), set by the source, for errors.
  std::string origin;

  // The column named `name` (exact match), or null.
  const CdcColumn* Find(const std::string& name) const;
};

// One message of a change stream as a source read it.
struct CdcMessage {
  std::optional<std::string> key;    // the Kafka message key, when there is one
  std::optional<std::string> value;  // nullopt: a tombstone (a Kafka message without value)
  std::shared_ptr<const KafkaMessageInfo> kafka;  // the Kafka source's messages: where it was read
  // Where it came from, for errors and dead letters: "kafka topic orders partition 2 offset 1811"
  // or "file in/a.jsonl line 12".
  std::string origin;
};

}  // namespace fjord::cdc

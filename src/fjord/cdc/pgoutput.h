// PostgreSQL's logical replication stream as the `pgoutput` plugin writes it (protocol version 1,
// "Logical Replication Message Formats" of the PostgreSQL manual), decoded from bytes: the
// CopyData framing of the walsender (XLogData 'w', primary keepalive 'k', the standby status
// update 'r' we send back) and the messages inside XLogData. Pure decoding, no connection: the
// PostgreSQL source (runtime/postgres_source.h) reads the bytes through libpq.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord::cdc::pgoutput {

// "16/B374D848", PostgreSQL's text form of an LSN.
std::string FormatLsn(uint64_t lsn);
Result<uint64_t> ParseLsn(std::string_view text);

// One column value of a TupleData: 'n' NULL, 'u' an unchanged TOASTed value (not sent), 't' text.
struct TupleValue {
  char kind = 'n';
  std::string text;
};
using Tuple = std::vector<TupleValue>;

struct RelationColumn {
  bool key = false;  // part of the replica identity
  std::string name;
  uint32_t type_oid = 0;
  int32_t type_modifier = -1;
};

// One pgoutput message. Only the fields of its `type` are set.
struct Message {
  // 'B' Begin, 'C' Commit, 'O' Origin, 'R' Relation, 'Y' Type, 'I' Insert, 'U' Update, 'D' Delete,
  // 'T' Truncate, 'M' logical decoding message.
  char type = 0;
  uint64_t final_lsn = 0;     // Begin: the LSN of the transaction's commit record
  uint64_t commit_lsn = 0;    // Commit
  uint64_t end_lsn = 0;       // Commit: the end of the commit record
  int64_t timestamp = 0;      // Begin, Commit: microseconds since 2000-01-01
  uint32_t xid = 0;           // Begin
  uint32_t relation_id = 0;   // Relation, Insert, Update, Delete
  std::string nspname;        // Relation, Type: the schema
  std::string name;           // Relation: the table; Type: the type; Origin: the origin; M: prefix
  char replica_identity = 0;  // Relation: 'd' default, 'n' nothing, 'f' full, 'i' index
  std::vector<RelationColumn> columns;  // Relation
  uint32_t type_oid = 0;                // Type
  char old_kind = 0;  // Update, Delete: 'K' key columns only, 'O' the whole old row, 0 none
  Tuple old_tuple;
  Tuple new_tuple;                     // Insert, Update
  std::vector<uint32_t> relation_ids;  // Truncate
  uint8_t truncate_options = 0;        // Truncate: 1 CASCADE, 2 RESTART IDENTITY
  std::string content;                 // M
};

// A pgoutput message (the payload of an XLogData). Malformed bytes: Invalid naming the message
// type and what is missing.
Result<Message> DecodeMessage(std::string_view bytes);

// One CopyData message of START_REPLICATION's stream.
struct StreamMessage {
  char type = 0;           // 'w' XLogData, 'k' primary keepalive
  uint64_t wal_start = 0;  // w
  uint64_t wal_end = 0;    // w, k: the server's WAL end
  int64_t send_time = 0;
  bool reply_requested = false;  // k
  std::string_view payload;      // w: the pgoutput message (a view of the input)
};
Result<StreamMessage> DecodeStreamMessage(std::string_view bytes);

// A standby status update ('r'): written/flushed/applied up to `lsn` (the slot's confirmed flush
// position moves to `lsn`), at `now` (microseconds since 2000-01-01).
std::string EncodeStandbyStatus(uint64_t lsn, int64_t now, bool reply_requested);

// Microseconds since 2000-01-01 (PostgreSQL's epoch) now.
int64_t PostgresNow();

}  // namespace fjord::cdc::pgoutput

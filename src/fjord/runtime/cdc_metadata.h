// Java's metadata columns of CDC jobs (docs/cdc.md, `sink.metadata-columns`; Java's
// --metadata_column, CdcMetadataProcessor): columns the job appends to every record of a table,
// after the computed columns, holding where the record came from rather than a source column,
// so that they can be part of a table's primary key (two shards of a table merged into one
// Paimon table with key [database_name, id] keep both rows of an id).
//
// | name | type | value | sources |
// | `database_name`, `table_name` | STRING NOT NULL | the record's source database and table | all
// | | `schema_name` | STRING NOT NULL | the table's schema | postgres | | `op_ts` |
// TIMESTAMP_LTZ(3) NOT NULL | the change's time | postgres, debezium-json | | `topic`, `partition`,
// `offset` | STRING, INT, BIGINT | the Kafka message's | kafka | | `timestamp`, `timestamp_type` |
// TIMESTAMP_LTZ(3), STRING | the Kafka message's | kafka |
#pragma once

#include <string>
#include <vector>

#include "fjord/cdc/cdc_record.h"
#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord::runtime {

struct MetadataColumn {
  enum Kind {
    kDatabaseName,
    kTableName,
    kSchemaName,
    kOpTs,
    kTopic,
    kPartition,
    kOffset,
    kTimestamp,
    kTimestampType
  };
  Kind kind;
  std::string name;  // the column's name: the prefix, then Java's name
  DataTypePtr type;
};

// The metadata columns `names` (Java's names) of a job whose source is `source_type` (files,
// kafka, postgres) reading messages of `format` (empty for postgres), each named `prefix` + its
// name. Invalid naming a name that is unknown, given twice, or one the source cannot give (and
// why).
Result<std::vector<MetadataColumn>> ParseMetadataColumns(const std::vector<std::string>& names,
                                                         const std::string& prefix,
                                                         const std::string& source_type,
                                                         const std::string& format);

// Appends the values of `columns` for `record` to its columns (a column of the same name is
// replaced), as value texts the rows take. Invalid naming the record's origin when it lacks a
// value of a NOT NULL column (a message without database or source.ts_ms).
Status AppendMetadataColumns(const std::vector<MetadataColumn>& columns, cdc::CdcRecord* record);

// Epoch milliseconds as the text a TIMESTAMP_LTZ value is read from: "2024-05-01 10:00:00.123Z".
std::string UtcMillisText(int64_t millis);

}  // namespace fjord::runtime

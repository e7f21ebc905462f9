// Decodes the columns of one ORC stripe (ORC Specification v1, "Column Encodings") into Arrow
// arrays in Fjord's canonical form (format/arrow_types.h), for every type Paimon writes to ORC:
//
//   BOOLEAN        BOOLEAN (boolean RLE)          TINYINT..BIGINT  BYTE (byte RLE), SHORT/INT/LONG
//   FLOAT, DOUBLE  FLOAT, DOUBLE (IEEE 754 LE)    DECIMAL          DECIMAL (varint + scale, or
//   CHAR/VARCHAR   STRING/CHAR/VARCHAR (DIRECT                      decimal64 RLE without
//   SECONDARY)
//                  or DICTIONARY, v1 or v2)       BINARY/VARBINARY BINARY
//   DATE           DATE                           TIME             INT (millis of the day)
//   TIMESTAMP      TIMESTAMP                      TIMESTAMP_LTZ    TIMESTAMP_INSTANT
//   ARRAY          LIST                           MAP, MULTISET    MAP
//   ROW            STRUCT (fields matched by name)
//
// Integer kinds may be read as any Paimon integer type (and FLOAT as DOUBLE); other pairings are
// NotImplemented. UNION columns are NotImplemented.
//
// MAP columns with NULL keys: Arrow's MapArray cannot hold a NULL key (constructing one aborts the
// process), so a MAP column marked in ColumnContext::maps_as_lists comes out as
// list<entries: struct<key, value>> with a nullable key: the same buffers a MapArray would have,
// under a list type. Fjord's layers above accept that form wherever they accept a MAP
// (arrow_types.h). An unmarked MAP column whose keys turn out to hold NULLs is Corruption.
//
// Timestamps: the DATA stream holds seconds from 2015-01-01 00:00:00 and SECONDARY the
// nanoseconds (trailing decimal zeros removed, their count - 1 in the low 3 bits). TIMESTAMP
// values are wall-clock times of the stripe's writer time zone and come out as that wall clock
// read as UTC (what Arrow's ORC reader and Java Paimon return); TIMESTAMP_INSTANT values are UTC
// instants. As ORC's readers do, a value before 1970 with more than 999999 nanoseconds is one
// second earlier than its stored seconds say (Java's writer truncates toward zero); as ORC's C++
// reader does, the nanoseconds are decoded with an arithmetic shift, so the negative ones Arrow's
// writer stores for such values read back as Arrow wrote them. Values are floored to the unit of
// the Paimon precision.
//
// Every stream is bounds-checked: bad input is a Status naming the file, the column and the
// stream, never a crash.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/orc/orc_types.h"
#include "fjord/format/orc/stripe.h"

namespace fjord::orc {

struct ColumnContext {
  const std::vector<OrcType>* types = nullptr;  // the file's type tree
  const StripeData* stripe = nullptr;
  std::string_view source;  // the file, for errors
  // By column id: the MAP columns to build as list<struct<key, value>> (their keys may be NULL).
  // Shorter than `types` (or empty) means false for the ids past its end.
  std::vector<bool> maps_as_lists;
};

// The `length` values of ORC column `column` in the stripe, as Paimon type `type`; `name` names
// the column in errors (e.g. "attrs.key"). `parent_valid` holds `length` bytes (0 or 1), or is
// nullptr when all are 1: where it is 0 the parent STRUCT is NULL, ORC stores nothing for the
// column and the value comes out NULL.
Result<std::shared_ptr<arrow::ArrayData>> ReadColumn(const ColumnContext& ctx, uint32_t column,
                                                     const DataType& type, const std::string& name,
                                                     int64_t length, const uint8_t* parent_valid);

}  // namespace fjord::orc

// How Paimon types live in Arrow memory inside Fjord (the "canonical" Arrow form):
//   BOOLEAN bool, TINYINT..BIGINT int8..int64, FLOAT float32, DOUBLE float64,
//   DECIMAL(p,s) decimal128(p,s), CHAR/VARCHAR utf8, BINARY/VARBINARY binary, DATE date32,
//   TIME time32[ms], TIMESTAMP(p) timestamp[ms|us|ns] by p (<=3, <=6, >6), TIMESTAMP_LTZ the same
//   with time zone "UTC", ARRAY list, MULTISET map<element, int32>, MAP map, ROW struct.
// Every reader converts to this form, so the layers above handle one representation.
//
// One exception: a MAP (or MULTISET) whose keys hold NULLs, which Arrow's MapArray cannot
// represent (building one aborts the process). Such a column (read by Fjord's own ORC reader,
// orc/orc_reader.h) is list<entries: struct<key, value>> with a nullable key field: the buffers
// of a MapArray under a list type. ToCanonical keeps that form, UnifyMapForms reconciles it with
// the map form across tables, and row_json / arrow_values read and build both forms. Code that
// reads a MAP column should view it as a ListArray of a StructArray (MapEntries below), never
// static_cast it to a MapArray.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <vector>

#include "fjord/data_type.h"

namespace fjord {

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const DataType& type);
Result<std::shared_ptr<arrow::Field>> ToArrowField(const DataField& field);
Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const std::vector<DataField>& fields);

// Registers Arrow's compute kernels (Arrow 21+ keeps them in libarrow_compute). Idempotent and
// thread-safe; every code path that calls arrow::compute runs it first.
void EnsureArrowCompute();

// Casts `array` to the canonical Arrow type of `type` (a no-op when it already has it). A MAP held
// in the list form (NULL keys) stays in the list form.
Result<std::shared_ptr<arrow::Array>> ToCanonical(const std::shared_ptr<arrow::Array>& array,
                                                  const DataType& type);

// The list form of a MAP with NULL keys: list<entries: struct<key (nullable), value>>.
std::shared_ptr<arrow::DataType> NullKeyMapType(const std::shared_ptr<arrow::DataType>& key,
                                                const std::shared_ptr<arrow::Field>& value);

// The key and value arrays of a MAP column in either form: `array` must be a MapArray or a
// ListArray of a two-field StructArray. Entries [value_offset(i), value_offset(i + 1)) of the
// list belong to row i.
struct MapEntries {
  const arrow::ListArray* list = nullptr;
  std::shared_ptr<arrow::Array> keys;
  std::shared_ptr<arrow::Array> items;
};
MapEntries ViewMap(const arrow::Array& array);

// Tables read from different files can hold one MAP column in the map form in some and in the
// list form in others. Returns `tables` with such columns converted (zero-copy) to the list form
// wherever any table has it, so that they can be concatenated; tables are returned unchanged
// when their schemas are equal.
Result<std::vector<std::shared_ptr<arrow::Table>>> UnifyMapForms(
    const std::vector<std::shared_ptr<arrow::Table>>& tables);

// `type` with every MAP inside it in the list form.
std::shared_ptr<arrow::DataType> WithListFormMaps(const std::shared_ptr<arrow::DataType>& type);

// `batch` under `schema`, whose column types it has up to MAP forms and field flags: a map-form
// column the schema wants in the list form is retyped (zero-copy); a list-form column the schema
// wants in the map form is retyped when none of its keys is NULL, else Invalid naming the column.
// Any other difference is Invalid.
Result<std::shared_ptr<arrow::RecordBatch>> ConformToSchema(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::shared_ptr<arrow::Schema>& schema);

}  // namespace fjord

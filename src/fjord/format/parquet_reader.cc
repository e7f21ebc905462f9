// Parquet data files in batches: one Arrow record-batch reader per row group that the chunk filter
// keeps, over a buffered input stream (no pre-buffering of whole column chunks), so an open file
// holds its current pages and one batch.

#include <arrow/api.h>
#include <arrow/io/interfaces.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/statistics.h>

#include "fjord/common/arrow_status.h"
#include "fjord/format/file_batches.h"

namespace fjord {

namespace {

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* out) {
  if (field.is_leaf()) {
    out->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectLeaves(child, out);
}

template <typename Stats>
const Stats& As(const parquet::Statistics& s) {
  return static_cast<const Stats&>(s);
}

// The [min, max] of a row group's column as Values of `type`; nullopt for types whose Parquet
// statistics Fjord does not prune on (floating point for NaN, timestamps for their several
// physical encodings, decimals stored as bytes, nested types).
std::optional<std::pair<Value, Value>> MinMax(const parquet::Statistics& s, const DataType& type) {
  using parquet::Type;
  Type::type physical = s.physical_type();
  switch (type.root()) {
    case TypeRoot::kBoolean:
      if (physical != Type::BOOLEAN) return std::nullopt;
      return std::make_pair(Value(As<parquet::BoolStatistics>(s).min()),
                            Value(As<parquet::BoolStatistics>(s).max()));
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kDate: {
      if (physical != Type::INT32) return std::nullopt;
      int32_t lo = As<parquet::Int32Statistics>(s).min();
      int32_t hi = As<parquet::Int32Statistics>(s).max();
      if (type.root() == TypeRoot::kTinyInt) {
        return std::make_pair(Value(static_cast<int8_t>(lo)), Value(static_cast<int8_t>(hi)));
      }
      if (type.root() == TypeRoot::kSmallInt) {
        return std::make_pair(Value(static_cast<int16_t>(lo)), Value(static_cast<int16_t>(hi)));
      }
      return std::make_pair(Value(lo), Value(hi));
    }
    case TypeRoot::kBigInt:
      if (physical != Type::INT64) return std::nullopt;
      return std::make_pair(Value(As<parquet::Int64Statistics>(s).min()),
                            Value(As<parquet::Int64Statistics>(s).max()));
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: {
      if (physical != Type::BYTE_ARRAY) return std::nullopt;
      const parquet::ByteArray& lo = As<parquet::ByteArrayStatistics>(s).min();
      const parquet::ByteArray& hi = As<parquet::ByteArrayStatistics>(s).max();
      return std::make_pair(Value(std::string(reinterpret_cast<const char*>(lo.ptr), lo.len)),
                            Value(std::string(reinterpret_cast<const char*>(hi.ptr), hi.len)));
    }
    case TypeRoot::kDecimal: {
      Decimal lo{0, type.precision(), type.scale()};
      Decimal hi = lo;
      if (physical == Type::INT32) {
        lo.unscaled = As<parquet::Int32Statistics>(s).min();
        hi.unscaled = As<parquet::Int32Statistics>(s).max();
      } else if (physical == Type::INT64) {
        lo.unscaled = As<parquet::Int64Statistics>(s).min();
        hi.unscaled = As<parquet::Int64Statistics>(s).max();
      } else {
        return std::nullopt;
      }
      return std::make_pair(Value(lo), Value(hi));
    }
    default:
      return std::nullopt;
  }
}

// Statistics of `field` (a top-level column read from `leaves`) in one row group.
std::optional<ColumnStats> RowGroupStats(const parquet::RowGroupMetaData& rg,
                                         const std::vector<int>& leaves, const DataField& field) {
  if (leaves.size() != 1) return std::nullopt;  // nested: no pruning
  std::unique_ptr<parquet::ColumnChunkMetaData> chunk = rg.ColumnChunk(leaves[0]);
  if (!chunk->is_stats_set()) return std::nullopt;
  std::shared_ptr<parquet::Statistics> s = chunk->statistics();
  if (!s) return std::nullopt;
  ColumnStats out;
  if (s->HasNullCount()) out.null_count = s->null_count();
  if (s->HasMinMax()) {
    if (auto mm = MinMax(*s, *field.type)) {
      out.min = std::move(mm->first);
      out.max = std::move(mm->second);
    }
  }
  return out;
}

class ParquetBatchReader : public ChunkBatchReader {
 public:
  ParquetBatchReader(std::string path, std::vector<DataField> fields,
                     std::unique_ptr<parquet::arrow::FileReader> reader, std::vector<int> leaves,
                     std::vector<int> row_groups, std::vector<int64_t> first_rows,
                     int64_t batch_rows)
      : ChunkBatchReader(batch_rows),
        path_(std::move(path)),
        fields_(std::move(fields)),
        reader_(std::move(reader)),
        leaves_(std::move(leaves)),
        row_groups_(std::move(row_groups)),
        first_rows_(std::move(first_rows)) {}

  void set_skipped(int64_t rows) { skipped_ = rows; }

 protected:
  Result<std::shared_ptr<arrow::RecordBatch>> NextChunk(int64_t* first_row) override {
    while (true) {
      if (batches_) {
        std::shared_ptr<arrow::RecordBatch> batch;
        arrow::Status st = batches_->ReadNext(&batch);
        if (!st.ok()) return FromArrow(st).WithContext(path_);
        if (batch) {
          *first_row = first_rows_[current_] + in_group_;
          in_group_ += batch->num_rows();
          if (batch->num_rows() == 0) continue;
          return ConformBatch(batch, fields_, path_);
        }
        batches_.reset();
        ++current_;
      }
      if (current_ >= row_groups_.size()) return std::shared_ptr<arrow::RecordBatch>();
      auto opened = reader_->GetRecordBatchReader({row_groups_[current_]}, leaves_);
      if (!opened.ok()) return FromArrow(opened.status()).WithContext(path_);
      batches_ = std::move(*opened);
      in_group_ = 0;
    }
  }

 private:
  std::string path_;
  std::vector<DataField> fields_;
  std::unique_ptr<parquet::arrow::FileReader> reader_;
  std::vector<int> leaves_;
  std::vector<int> row_groups_;
  std::vector<int64_t> first_rows_;  // position of each kept row group's first row
  size_t current_ = 0;
  std::unique_ptr<arrow::RecordBatchReader> batches_;
  int64_t in_group_ = 0;
};

}  // namespace

Result<std::unique_ptr<BatchReader>> OpenParquetFile(FileIO* io, const std::string& path,
                                                     const std::vector<DataField>& fields,
                                                     const FileReadOptions& options) {
  FJORD_ASSIGN_OR_RAISE(auto input, io->OpenInput(path));
  parquet::ReaderProperties props = parquet::default_reader_properties();
  props.enable_buffered_stream();
  props.set_buffer_size(1 << 20);  // also one request per MB on S3
  parquet::ArrowReaderProperties arrow_props;
  arrow_props.set_coerce_int96_timestamp_unit(arrow::TimeUnit::NANO);
  arrow_props.set_batch_size(options.batch_rows > 0 ? options.batch_rows : 1);
  arrow_props.set_pre_buffer(false);
  parquet::arrow::FileReaderBuilder builder;
  arrow::Status st = builder.Open(input, props);
  if (!st.ok()) return Status::Corruption(path, ": not a readable Parquet file: ", st.message());
  std::unique_ptr<parquet::arrow::FileReader> reader;
  st = builder.properties(arrow_props)->Build(&reader);
  if (!st.ok()) return Status::Corruption(path, ": ", st.message());

  const auto& manifest = reader->manifest();
  std::vector<int> leaves;
  std::vector<std::vector<int>> leaves_of(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    bool found = false;
    for (const auto& sf : manifest.schema_fields) {
      if (sf.field->name() == fields[i].name) {
        CollectLeaves(sf, &leaves_of[i]);
        found = true;
        break;
      }
    }
    if (!found) return Status::Corruption(path, ": data file has no column '", fields[i].name, "'");
    leaves.insert(leaves.end(), leaves_of[i].begin(), leaves_of[i].end());
  }

  std::shared_ptr<parquet::FileMetaData> meta = reader->parquet_reader()->metadata();
  std::vector<int> row_groups;
  std::vector<int64_t> first_rows;
  int64_t position = 0;
  int64_t skipped = 0;
  for (int g = 0; g < meta->num_row_groups(); ++g) {
    std::unique_ptr<parquet::RowGroupMetaData> rg = meta->RowGroup(g);
    int64_t rows = rg->num_rows();
    bool keep = true;
    if (options.chunk_filter) {
      std::vector<std::optional<ColumnStats>> stats;
      for (size_t i = 0; i < fields.size(); ++i) {
        stats.push_back(RowGroupStats(*rg, leaves_of[i], fields[i]));
      }
      keep = options.chunk_filter(stats, rows);
    }
    if (keep) {
      row_groups.push_back(g);
      first_rows.push_back(position);
    } else {
      skipped += rows;
    }
    position += rows;
  }
  auto out = std::make_unique<ParquetBatchReader>(path, fields, std::move(reader),
                                                  std::move(leaves), std::move(row_groups),
                                                  std::move(first_rows), options.batch_rows);
  out->set_skipped(skipped);
  return std::unique_ptr<BatchReader>(std::move(out));
}

}  // namespace fjord

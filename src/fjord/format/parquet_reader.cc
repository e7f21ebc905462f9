// Parquet data files in batches. Each row group that the chunk filter keeps is either read whole
// (when small) or streamed through one Arrow record-batch reader over a buffered input stream (no
// pre-buffering of whole column chunks). Streaming keeps a reader per column open: input buffer,
// decompressed page and decoded dictionary, several MB each with Paimon's 1 MB pages and 1 MB
// dictionaries, so that a merge over many runs of many columns would hold more for small row
// groups than their decoded rows; those are read whole, string columns whose pages are all
// dictionary-encoded kept as dictionaries and decoded batch by batch, so the decoded size of a row
// group read whole is known from its metadata.

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/io/interfaces.h>
#include <arrow/util/parallel.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/statistics.h>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/file_batches.h"
#include "fjord/format/parquet_selective.h"

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

// Whether every data page of `chunk` is dictionary-encoded (known from its encoding statistics).
bool AllPagesDictionary(const parquet::ColumnChunkMetaData& chunk) {
  if (!chunk.has_dictionary_page() || chunk.encoding_stats().empty()) return false;
  for (const parquet::PageEncodingStats& e : chunk.encoding_stats()) {
    if (e.page_type == parquet::PageType::DICTIONARY_PAGE) continue;
    if (e.encoding != parquet::Encoding::PLAIN_DICTIONARY &&
        e.encoding != parquet::Encoding::RLE_DICTIONARY) {
      return false;
    }
  }
  return true;
}

bool IsStringOrBinary(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return true;
    default:
      return false;
  }
}

// Bytes of decoded values per value of a fixed-width physical type (0 for BYTE_ARRAY).
int64_t FixedWidth(const parquet::ColumnDescriptor& column) {
  switch (column.physical_type()) {
    case parquet::Type::BOOLEAN:
      return 1;
    case parquet::Type::INT32:
    case parquet::Type::FLOAT:
      return 4;
    case parquet::Type::INT64:
    case parquet::Type::DOUBLE:
      return 8;
    case parquet::Type::INT96:
      return 12;
    case parquet::Type::FIXED_LEN_BYTE_ARRAY:
      return column.type_length();
    default:
      return 0;
  }
}

class ParquetBatchReader : public ChunkBatchReader {
 public:
  // `leaves` are the projected leaf columns; `as_dictionary[k]` whether leaf k is read as a
  // dictionary (a top-level string column whose pages are all dictionary-encoded).
  ParquetBatchReader(std::string path, std::vector<DataField> fields,
                     std::unique_ptr<parquet::arrow::FileReader> reader, std::vector<int> leaves,
                     std::vector<bool> as_dictionary, std::vector<int> row_groups,
                     std::vector<int64_t> first_rows, const FileReadOptions& options)
      : ChunkBatchReader(options.batch_rows),
        whole_bytes_per_leaf_(options.whole_row_group_bytes_per_column),
        path_(std::move(path)),
        fields_(std::move(fields)),
        reader_(std::move(reader)),
        leaves_(std::move(leaves)),
        as_dictionary_(std::move(as_dictionary)),
        row_groups_(std::move(row_groups)),
        first_rows_(std::move(first_rows)),
        pool_(options.pool != nullptr ? options.pool : arrow::default_memory_pool()),
        spare_threads_(options.spare_threads),
        parallel_(options.parallel_columns) {}

  void set_skipped(int64_t rows) { skipped_ = rows; }
  int64_t row_groups_read_whole() const override { return read_whole_; }
  // Reads through parquet_selective.h, the filter's columns first (every requested column
  // SelectiveDecodable).
  void set_row_filter(RowFilter filter) {
    row_filter_ = std::move(filter);
    in_filter_.assign(fields_.size(), false);
    for (int c : row_filter_.columns) in_filter_[static_cast<size_t>(c)] = true;
  }
  bool applies_row_filter() const override { return static_cast<bool>(row_filter_); }
  int64_t rows_filtered() const override { return filtered_; }

 protected:
  // The last row group, read whole (or none left).
  bool ChunksDecodedToEnd() const override {
    if (row_filter_) return false;
    return current_ >= row_groups_.size() || (whole_ && current_ + 1 == row_groups_.size());
  }

  Result<std::shared_ptr<arrow::RecordBatch>> NextChunk(int64_t* first_row) override {
    if (!parallel_ && spare_threads_ && spare_threads_->load(std::memory_order_relaxed)) {
      // Arrow's reader asks at every batch (and row group) whether to decode its columns at once.
      parallel_ = true;
      reader_->set_use_threads(true);
    }
    if (row_filter_) return NextSelected(first_row);
    while (true) {
      if (batches_) {
        std::shared_ptr<arrow::RecordBatch> batch;
        arrow::Status st = batches_->ReadNext(&batch);
        if (!st.ok()) return FromArrow(st).WithContext(path_);
        if (batch) {
          *first_row = first_rows_[current_] + in_group_;
          in_group_ += batch->num_rows();
          if (batch->num_rows() == 0) continue;
          FJORD_ASSIGN_OR_RAISE(batch, DecodeDictionaries(batch));
          return ConformBatch(batch, fields_, path_);
        }
        batches_.reset();
        whole_.reset();
        ++current_;
      }
      if (current_ >= row_groups_.size()) return std::shared_ptr<arrow::RecordBatch>();
      in_group_ = 0;
      if (ReadWhole(row_groups_[current_])) {
        auto table = reader_->ReadRowGroup(row_groups_[current_], leaves_);
        if (!table.ok()) return FromArrow(table.status()).WithContext(path_);
        whole_ = std::move(*table);
        ++read_whole_;
        auto sliced = std::make_unique<arrow::TableBatchReader>(whole_);
        sliced->set_chunksize(batch_rows());
        batches_ = std::move(sliced);
        continue;
      }
      auto opened = reader_->GetRecordBatchReader({row_groups_[current_]}, leaves_);
      if (!opened.ok()) return FromArrow(opened.status()).WithContext(path_);
      batches_ = std::move(*opened);
    }
  }

 private:
  // The next batch of rows the row filter keeps: the filter's columns of up to batch_rows() rows
  // decoded, the filter asked, then the other columns decoded at the kept rows only.
  Result<std::shared_ptr<arrow::RecordBatch>> NextSelected(int64_t* first_row) {
    while (true) {
      if (group_left_ == 0) {
        columns_.clear();
        group_.reset();
        if (current_ >= row_groups_.size()) return std::shared_ptr<arrow::RecordBatch>();
        FJORD_RETURN_NOT_OK(OpenSelected(row_groups_[current_]));
        if (group_left_ == 0) {
          ++current_;
          continue;
        }
      }
      const int64_t n = std::min(batch_rows(), group_left_);
      const int64_t first = first_rows_[current_] + in_group_;
      arrow::FieldVector filter_fields;
      arrow::ArrayVector filter_columns;
      for (int c : row_filter_.columns) {
        FJORD_ASSIGN_OR_RAISE(auto column, ReadSelected(c, n, nullptr, n));
        filter_fields.push_back(arrow::field(fields_[static_cast<size_t>(c)].name, column->type()));
        filter_columns.push_back(std::move(column));
      }
      auto filter_batch = arrow::RecordBatch::Make(arrow::schema(filter_fields), n, filter_columns);
      FJORD_ASSIGN_OR_RAISE(std::vector<uint8_t> keep, row_filter_.keep(*filter_batch, first));
      if (static_cast<int64_t>(keep.size()) != n) {
        return Status::Invalid(path_, ": the row filter decided ", keep.size(), " rows of ", n);
      }
      int64_t kept = 0;
      for (uint8_t k : keep) kept += k != 0;
      in_group_ += n;
      group_left_ -= n;
      if (group_left_ == 0) ++current_;
      filtered_ += n - kept;
      arrow::ArrayVector out(fields_.size());
      FJORD_RETURN_NOT_OK(ReadOthers(n, kept == n ? nullptr : keep.data(), kept, &out));
      if (group_left_ == 0) columns_.clear();
      if (kept == 0) continue;
      arrow::FieldVector out_fields;
      for (size_t k = 0; k < row_filter_.columns.size(); ++k) {
        auto c = static_cast<size_t>(row_filter_.columns[k]);
        out[c] = filter_columns[k];
        if (kept == n) continue;
        FJORD_ASSIGN_OR_RAISE(out[c], KeepRows(out[c], keep, kept));
      }
      for (size_t c = 0; c < fields_.size(); ++c) {
        out_fields.push_back(arrow::field(fields_[c].name, out[c]->type()));
      }
      *first_row = first;
      return ConformBatch(arrow::RecordBatch::Make(arrow::schema(out_fields), kept, out), fields_,
                          path_);
    }
  }

  // The columns not in the row filter, of the next `n` rows, those kept (skipped when none is):
  // into `out`, on Arrow's CPU pool at once with parallel_columns.
  Status ReadOthers(int64_t n, const uint8_t* keep, int64_t kept, arrow::ArrayVector* out) {
    std::vector<int> others;
    for (size_t c = 0; c < fields_.size(); ++c) {
      if (!in_filter_[c]) others.push_back(static_cast<int>(c));
    }
    std::vector<Status> done(others.size());
    auto one = [&](int j) {
      const int c = others[static_cast<size_t>(j)];
      Status& st = done[static_cast<size_t>(j)];
      if (kept == 0) {
        st = columns_[static_cast<size_t>(c)]->Skip(n).WithContext(path_);
      } else {
        Result<std::shared_ptr<arrow::Array>> read = ReadSelected(c, n, keep, kept);
        if (read.ok()) (*out)[static_cast<size_t>(c)] = *read;
        st = read.status();
      }
      return arrow::Status::OK();
    };
    FJORD_ARROW_RETURN_NOT_OK(arrow::internal::OptionalParallelFor(
        parallel_ && others.size() > 1, static_cast<int>(others.size()), one));
    for (Status& st : done) FJORD_RETURN_NOT_OK(st);
    return Status::OK();
  }

  Status OpenSelected(int g) {
    in_group_ = 0;
    group_ = reader_->parquet_reader()->RowGroup(g);
    group_left_ = group_->metadata()->num_rows();
    const parquet::SchemaDescriptor* schema = reader_->parquet_reader()->metadata()->schema();
    for (size_t c = 0; c < fields_.size(); ++c) {
      int leaf = leaves_[c];
      FJORD_ASSIGN_OR_RAISE(auto column,
                            MakeSelectiveColumn(group_->Column(leaf), *schema->Column(leaf),
                                                *fields_[c].type, pool_));
      columns_.push_back(std::move(column));
    }
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::Array>> ReadSelected(int c, int64_t n, const uint8_t* keep,
                                                     int64_t kept) {
    Result<std::shared_ptr<arrow::Array>> read =
        columns_[static_cast<size_t>(c)]->Read(n, keep, kept);
    if (!read.ok()) {
      return read.status().WithContext(path_, ": column '", fields_[static_cast<size_t>(c)].name,
                                       "'");
    }
    return read;
  }

  // The values of `column` whose `keep` byte is not 0.
  static Result<std::shared_ptr<arrow::Array>> KeepRows(const std::shared_ptr<arrow::Array>& column,
                                                        const std::vector<uint8_t>& keep,
                                                        int64_t kept) {
    std::vector<int64_t> indices;
    indices.reserve(static_cast<size_t>(kept));
    for (size_t i = 0; i < keep.size(); ++i) {
      if (keep[i]) indices.push_back(static_cast<int64_t>(i));
    }
    EnsureArrowCompute();
    arrow::Int64Builder b;
    FJORD_ARROW_RETURN_NOT_OK(b.AppendValues(indices));
    FJORD_ARROW_ASSIGN_OR_RAISE(auto idx, b.Finish());
    FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, arrow::compute::Take(column, idx));
    return taken.make_array();
  }

  // Whether row group `g` is read whole: its projected columns decode to at most
  // whole_bytes_per_leaf_ per leaf on average (FileReadOptions). Decoded sizes: fixed-width values
  // by count, strings by their pages' uncompressed size, plus 4 bytes a row for indices where read
  // as a dictionary. A dictionary-encoded string column that is neither read as a dictionary nor
  // fell back to plain pages could decode to far more than its pages (repeated values): such row
  // groups stream.
  bool ReadWhole(int g) const {
    std::shared_ptr<parquet::FileMetaData> meta = reader_->parquet_reader()->metadata();
    std::unique_ptr<parquet::RowGroupMetaData> rg = meta->RowGroup(g);
    int64_t bytes = 0;
    for (size_t k = 0; k < leaves_.size(); ++k) {
      std::unique_ptr<parquet::ColumnChunkMetaData> chunk = rg->ColumnChunk(leaves_[k]);
      int64_t width = FixedWidth(*meta->schema()->Column(leaves_[k]));
      int64_t pages = chunk->total_uncompressed_size();
      if (width > 0) {
        bytes += std::max(pages, chunk->num_values() * width);
      } else if (as_dictionary_[k]) {
        bytes += pages + 4 * chunk->num_values();
      } else if (AllPagesDictionary(*chunk)) {
        return false;
      } else {
        bytes += pages;
      }
    }
    return bytes <= whole_bytes_per_leaf_ * static_cast<int64_t>(leaves_.size());
  }

  // `batch` with its dictionary columns (strings read as dictionaries) decoded.
  Result<std::shared_ptr<arrow::RecordBatch>> DecodeDictionaries(
      const std::shared_ptr<arrow::RecordBatch>& batch) const {
    std::shared_ptr<arrow::RecordBatch> out = batch;
    for (int c = 0; c < batch->num_columns(); ++c) {
      const auto& column = batch->column(c);
      if (column->type_id() != arrow::Type::DICTIONARY) continue;
      const auto& dict_type = static_cast<const arrow::DictionaryType&>(*column->type());
      auto decoded = arrow::compute::Cast(*column, dict_type.value_type());
      if (!decoded.ok()) return FromArrow(decoded.status()).WithContext(path_);
      auto field = batch->schema()->field(c)->WithType(dict_type.value_type());
      auto replaced = out->SetColumn(c, field, *decoded);
      if (!replaced.ok()) return FromArrow(replaced.status()).WithContext(path_);
      out = std::move(*replaced);
    }
    return out;
  }

  int64_t whole_bytes_per_leaf_;
  std::string path_;
  std::vector<DataField> fields_;
  std::unique_ptr<parquet::arrow::FileReader> reader_;
  std::vector<int> leaves_;
  std::vector<bool> as_dictionary_;
  std::vector<int> row_groups_;
  std::vector<int64_t> first_rows_;  // position of each kept row group's first row
  size_t current_ = 0;
  std::unique_ptr<arrow::RecordBatchReader> batches_;
  std::shared_ptr<arrow::Table> whole_;  // the current row group, when read whole
  int64_t in_group_ = 0;
  int64_t read_whole_ = 0;
  RowFilter row_filter_;
  std::vector<bool> in_filter_;  // per requested field: one of the row filter's columns
  std::shared_ptr<parquet::RowGroupReader> group_;
  std::vector<std::unique_ptr<SelectiveColumn>> columns_;  // per requested field
  int64_t group_left_ = 0;
  int64_t filtered_ = 0;
  arrow::MemoryPool* pool_;                                 // FileReadOptions::pool
  std::shared_ptr<const std::atomic<bool>> spare_threads_;  // FileReadOptions::spare_threads
  bool parallel_;  // columns decoded at once (FileReadOptions::parallel_columns, spare_threads)
};

}  // namespace

Result<std::unique_ptr<BatchReader>> OpenParquetFile(FileIO* io, const std::string& path,
                                                     const std::vector<DataField>& fields,
                                                     const FileReadOptions& options) {
  FJORD_ASSIGN_OR_RAISE(auto input, io->OpenInput(path));
  arrow::MemoryPool* pool = options.pool != nullptr ? options.pool : arrow::default_memory_pool();
  parquet::ReaderProperties props(pool);
  props.enable_buffered_stream();
  // Each streamed column holds one such buffer (besides its page): on an object store one request
  // per MB; on a local disk 256 KB, a quarter of the memory of a wide file's read at the same
  // speed (docs/performance.md, "Smaller read buffers").
  props.set_buffer_size(io->IsObjectStore() ? int64_t{1} << 20 : int64_t{256} << 10);
  parquet::ArrowReaderProperties arrow_props;
  arrow_props.set_coerce_int96_timestamp_unit(arrow::TimeUnit::NANO);
  arrow_props.set_batch_size(options.batch_rows > 0 ? options.batch_rows : 1);
  arrow_props.set_pre_buffer(false);
  arrow_props.set_use_threads(options.parallel_columns);
  parquet::arrow::FileReaderBuilder builder;
  arrow::Status st = builder.Open(input, props);
  if (!st.ok()) return Status::Corruption(path, ": not a readable Parquet file: ", st.message());
  std::shared_ptr<parquet::FileMetaData> meta = builder.raw_reader()->metadata();
  parquet::arrow::SchemaManifest manifest;
  st = parquet::arrow::SchemaManifest::Make(meta->schema(), meta->key_value_metadata(), arrow_props,
                                            &manifest);
  if (!st.ok()) return Status::Corruption(path, ": ", st.message());

  std::vector<int> leaves;
  std::vector<std::vector<int>> leaves_of(fields.size());
  std::vector<bool> as_dictionary;
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
    for (int leaf : leaves_of[i]) {
      bool dictionary = leaves_of[i].size() == 1 && IsStringOrBinary(*fields[i].type) &&
                        meta->schema()->Column(leaf)->physical_type() == parquet::Type::BYTE_ARRAY;
      for (int g = 0; g < meta->num_row_groups() && dictionary; ++g) {
        dictionary = AllPagesDictionary(*meta->RowGroup(g)->ColumnChunk(leaf));
      }
      if (dictionary) {
        EnsureArrowCompute();  // to decode them
        arrow_props.set_read_dictionary(leaf, true);
      }
      leaves.push_back(leaf);
      as_dictionary.push_back(dictionary);
    }
  }
  // Late materialization (FileReadOptions::row_filter) where every requested column is flat and
  // of a type parquet_selective.h decodes.
  bool selective = static_cast<bool>(options.row_filter);
  for (size_t i = 0; i < fields.size() && selective; ++i) {
    selective = leaves_of[i].size() == 1 &&
                SelectiveDecodable(*meta->schema()->Column(leaves_of[i][0]), *fields[i].type);
  }
  std::unique_ptr<parquet::arrow::FileReader> reader;
  st = builder.memory_pool(pool)->properties(arrow_props)->Build(&reader);
  if (!st.ok()) return Status::Corruption(path, ": ", st.message());

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
  auto out = std::make_unique<ParquetBatchReader>(
      path, fields, std::move(reader), std::move(leaves), std::move(as_dictionary),
      std::move(row_groups), std::move(first_rows), options);
  out->set_skipped(skipped);
  if (selective) out->set_row_filter(options.row_filter);
  return std::unique_ptr<BatchReader>(std::move(out));
}

}  // namespace fjord

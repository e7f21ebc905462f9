#include "fjord/format/data_file_writer.h"

#include <arrow/api.h>
#include <arrow/io/interfaces.h>
#include <arrow/util/compression.h>
#include <arrow/util/thread_pool.h>
#include <parquet/arrow/schema.h>
#include <parquet/arrow/writer.h>
#include <parquet/file_writer.h>
#include <parquet/properties.h>
#include <parquet/schema.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "fjord/common/arrow_status.h"
#include "fjord/common/batch_bytes.h"
#include "fjord/common/calendar.h"
#include "fjord/common/executor.h"
#include "fjord/common/json.h"
#include "fjord/common/strings.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/avro/container.h"
#include "fjord/format/dictionary_probe.h"
#include "fjord/format/orc/orc_writer.h"
#include "fjord/format/parquet_footer_stats.h"

namespace fjord {

namespace {

bool IsTimestamp(const DataType& t) {
  return t.root() == TypeRoot::kTimestamp || t.root() == TypeRoot::kTimestampLtz;
}

Result<arrow::Compression::type> ArrowCompression(std::string_view name) {
  std::string n = Lower(name);
  if (n == "zstd" || n == "zstandard") return arrow::Compression::ZSTD;
  if (n == "lz4") return arrow::Compression::LZ4_FRAME;
  if (n == "snappy") return arrow::Compression::SNAPPY;
  if (n == "gzip" || n == "deflate" || n == "zlib") return arrow::Compression::GZIP;
  if (n == "none" || n == "uncompressed" || n.empty()) return arrow::Compression::UNCOMPRESSED;
  if (n == "brotli") return arrow::Compression::BROTLI;
  return Status::NotImplemented("file.compression '", name, "' is not supported");
}

// Java's SpecialFields ids of nested Parquet nodes (int arithmetic wraps as in Java).
constexpr uint32_t kStructuredBase = 2147483647u / 4;
int32_t ArrayElementId(int32_t id, int depth) {
  return static_cast<int32_t>(kStructuredBase + static_cast<uint32_t>(id) * 1024u +
                              static_cast<uint32_t>(depth));
}
int32_t MapKeyId(int32_t id, int depth) {
  return static_cast<int32_t>(kStructuredBase - static_cast<uint32_t>(id) * 1024u -
                              static_cast<uint32_t>(depth));
}
int32_t MapValueId(int32_t id, int depth) { return ArrayElementId(id, depth); }

using parquet::schema::GroupNode;
using parquet::schema::Node;
using parquet::schema::NodePtr;
using parquet::schema::PrimitiveNode;

// GroupNode::Make rejects the None logical type; no annotation is a null pointer there.
std::shared_ptr<const parquet::LogicalType> GroupLogical(const Node& node) {
  const auto& lt = node.logical_type();
  return lt && !lt->is_none() ? lt : nullptr;
}

// Arrow's Parquet schema for a column, with Java's field ids and INT96 for TIMESTAMP(7..9).
// `id` is the id of this node, `base` the field id nested ids derive from, `depth` its depth.
Result<NodePtr> RebuildNode(const Node& node, const DataType& type, int32_t id, int32_t base,
                            int depth) {
  if (node.is_primitive()) {
    const auto& p = static_cast<const PrimitiveNode&>(node);
    if (IsTimestamp(type) && type.precision() > 6) {
      return PrimitiveNode::Make(node.name(), node.repetition(), parquet::LogicalType::None(),
                                 parquet::Type::INT96, -1, id);
    }
    if (type.root() == TypeRoot::kTime) {
      // Java annotates TIME as TIME(MILLIS, isAdjustedToUTC = true); Arrow writes false.
      return PrimitiveNode::Make(
          node.name(), node.repetition(),
          parquet::LogicalType::Time(true, parquet::LogicalType::TimeUnit::MILLIS),
          parquet::Type::INT32, -1, id);
    }
    return PrimitiveNode::Make(node.name(), node.repetition(), node.logical_type(),
                               p.physical_type(), p.type_length(), id);
  }
  const auto& g = static_cast<const GroupNode&>(node);
  parquet::schema::NodeVector children;
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      if (g.field_count() != 1 || g.field(0)->is_primitive()) {
        return Status::Internal("unexpected Parquet list layout for ", type.ToString());
      }
      const auto& list = static_cast<const GroupNode&>(*g.field(0));
      FJORD_ASSIGN_OR_RAISE(NodePtr element,
                            RebuildNode(*list.field(0), *type.element(),
                                        ArrayElementId(base, depth + 1), base, depth + 1));
      children.push_back(
          GroupNode::Make(list.name(), list.repetition(), {element}, GroupLogical(list), -1));
      break;
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      if (g.field_count() != 1 || g.field(0)->is_primitive()) {
        return Status::Internal("unexpected Parquet map layout for ", type.ToString());
      }
      const auto& kv = static_cast<const GroupNode&>(*g.field(0));
      DataTypePtr count = DataType::Int(false);
      const DataType& kt = type.root() == TypeRoot::kMap ? *type.key() : *type.element();
      const DataType& vt = type.root() == TypeRoot::kMap ? *type.value() : *count;
      FJORD_ASSIGN_OR_RAISE(
          NodePtr key, RebuildNode(*kv.field(0), kt, MapKeyId(base, depth + 1), base, depth + 1));
      FJORD_ASSIGN_OR_RAISE(
          NodePtr value,
          RebuildNode(*kv.field(1), vt, MapValueId(base, depth + 1), base, depth + 1));
      children.push_back(
          GroupNode::Make(kv.name(), kv.repetition(), {key, value}, GroupLogical(kv), -1));
      break;
    }
    case TypeRoot::kRow: {
      const auto& fields = type.fields();
      if (static_cast<size_t>(g.field_count()) != fields.size()) {
        return Status::Internal("unexpected Parquet group layout for ", type.ToString());
      }
      for (size_t i = 0; i < fields.size(); ++i) {
        FJORD_ASSIGN_OR_RAISE(
            NodePtr child, RebuildNode(*g.field(static_cast<int>(i)), *fields[i].type, fields[i].id,
                                       fields[i].id, 0));
        children.push_back(child);
      }
      break;
    }
    default:
      return Status::Internal("unexpected Parquet group for ", type.ToString());
  }
  return GroupNode::Make(node.name(), node.repetition(), children, GroupLogical(node), id);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Format implementations.

class DataFileWriter::Impl {
 public:
  virtual ~Impl() = default;
  virtual Status Write(const std::shared_ptr<arrow::RecordBatch>& batch) = 0;
  virtual int64_t EstimatedSize() const = 0;
  virtual int64_t PredictableBytes() const { return 0; }
  virtual Status Settle() { return Status::OK(); }
  virtual int64_t BufferedBytes() const { return 0; }
  // Closes the file; returns its exact size.
  virtual Result<int64_t> Finish() = 0;
};

namespace {

// Bytes written to `stream`, then closes it.
Result<int64_t> CloseStream(arrow::io::OutputStream* stream) {
  FJORD_ARROW_ASSIGN_OR_RAISE(int64_t size, stream->Tell());
  if (!stream->closed()) FJORD_ARROW_RETURN_NOT_OK(stream->Close());
  return size;
}

class ParquetImpl : public DataFileWriter::Impl {
 public:
  static Result<std::unique_ptr<Impl>> Make(std::shared_ptr<arrow::io::OutputStream> stream,
                                            const std::vector<DataField>& fields,
                                            const DataFileWriterOptions& options) {
    auto impl = std::make_unique<ParquetImpl>();
    impl->stream_ = std::move(stream);
    impl->fields_ = fields;
    impl->options_ = options;
    FJORD_ASSIGN_OR_RAISE(impl->schema_, ToArrowSchema(fields));
    FJORD_ASSIGN_OR_RAISE(impl->codec_, ArrowCompression(options.compression));
    return std::unique_ptr<Impl>(std::move(impl));
  }

  // Starts the file when its first rows are encoded (or, with none, when it is finished): with
  // dictionaries on, the columns whose values in `first` are all distinct are written plain
  // (dictionary_probe.h), as are options_.parquet_plain_columns.
  Status Start(const std::vector<std::shared_ptr<arrow::RecordBatch>>& first) {
    parquet::WriterProperties::Builder builder;
    builder.version(parquet::ParquetVersion::PARQUET_1_0)
        ->data_page_version(parquet::ParquetDataPageVersion::V1)
        ->compression(codec_)
        ->data_pagesize(options_.parquet_page_size)
        ->max_row_group_length(std::numeric_limits<int32_t>::max())
        // Whole bounds, however long, as parquet-mr writes them (and as the file's own stats
        // are read back from them: parquet_footer_stats.h).
        ->max_statistics_size(std::numeric_limits<size_t>::max())
        ->enable_store_decimal_as_integer();
    if (codec_ == arrow::Compression::ZSTD) builder.compression_level(options_.zstd_level);
    if (options_.parquet_dictionary) {
      builder.enable_dictionary();
      for (const std::string& column : options_.parquet_plain_columns) {
        builder.disable_dictionary(column);
      }
      for (const std::string& column : DistinctValueColumns(first)) {
        builder.disable_dictionary(column);
      }
    } else {
      builder.disable_dictionary();
    }
    if (options_.parquet_pool != nullptr) builder.memory_pool(options_.parquet_pool);
    auto props = builder.build();
    // No coercion: every canonical timestamp unit is written as is (ms, us as INT64; ns as INT96
    // through the rebuilt schema). No ARROW:schema key/value metadata, like Java.
    parquet::ArrowWriterProperties::Builder arrow_builder;
    // Only buffered row groups encode their columns at once (WriteHeld); held groups are
    // written so only while parquet_spare_threads says so.
    if (options_.parquet_spare_threads && options_.parquet_hold_row_group) {
      arrow_builder.set_use_threads(true);
    }
    auto arrow_props = arrow_builder.build();
    std::shared_ptr<parquet::SchemaDescriptor> descr;
    FJORD_ARROW_RETURN_NOT_OK(
        parquet::arrow::ToParquetSchema(schema_.get(), *props, *arrow_props, &descr));
    // The parquet schema classes report errors by throwing.
    try {
      return Init(descr->group_node(), props, arrow_props);
    } catch (const std::exception& e) {
      return Status::IOError("cannot start Parquet file: ", e.what());
    }
  }

  Status Init(const GroupNode* root, std::shared_ptr<parquet::WriterProperties> props,
              std::shared_ptr<parquet::ArrowWriterProperties> arrow_props) {
    parquet::schema::NodeVector columns;
    for (size_t i = 0; i < fields_.size(); ++i) {
      FJORD_ASSIGN_OR_RAISE(
          NodePtr n, RebuildNode(*root->field(static_cast<int>(i)), *fields_[i].type, fields_[i].id,
                                 fields_[i].id, 0));
      columns.push_back(n);
    }
    auto message = std::static_pointer_cast<GroupNode>(
        GroupNode::Make("paimon_schema", parquet::Repetition::REQUIRED, columns));
    auto file_writer = parquet::ParquetFileWriter::Open(stream_, message, props);
    FJORD_ARROW_RETURN_NOT_OK(parquet::arrow::FileWriter::Make(
        arrow::default_memory_pool(), std::move(file_writer), schema_, arrow_props, &writer_));
    return Status::OK();
  }

  // A row group closes at the first Write after it reached parquet_block_size bytes of rows. Held
  // groups (DataFileWriterOptions::parquet_hold_row_group) are written then; buffered ones are
  // encoded batch by batch.
  Status Write(const std::shared_ptr<arrow::RecordBatch>& batch) override {
    if (group_bytes_ >= GroupLimit()) FJORD_RETURN_NOT_OK(CloseGroup());
    FJORD_ASSIGN_OR_RAISE(int64_t bytes, RowBytes(*batch));
    group_bytes_ += bytes;
    if (batch->num_rows() == 0) return Status::OK();
    if (options_.parquet_hold_row_group) {
      held_.push_back(batch);
      return Status::OK();
    }
    staged_.push_back(batch);
    staged_bytes_ += bytes;
    if (staged_bytes_ >= options_.parquet_stage_bytes) return WriteStaged();
    return Status::OK();
  }

  // Encodes the staged batches as one: each column's dictionary is probed for many rows in a
  // row instead of a few thousand at a time, which keeps its hash table in the cache.
  Status WriteStaged() {
    if (staged_.empty()) return Status::OK();
    std::shared_ptr<arrow::RecordBatch> rows = staged_[0];
    if (staged_.size() > 1) {
      FJORD_ARROW_ASSIGN_OR_RAISE(rows, arrow::ConcatenateRecordBatches(staged_));
    }
    if (!writer_) FJORD_RETURN_NOT_OK(Start(staged_));
    staged_.clear();
    staged_bytes_ = 0;
    FJORD_ARROW_RETURN_NOT_OK(writer_->WriteRecordBatch(*rows));
    return Status::OK();
  }

  ~ParquetImpl() override { (void)Settle(); }

  // Writes held rows as one row group (the first one starts the file): with threads to spare,
  // as one batch whose columns Arrow's CPU pool encodes at once (a buffered row group, closed by
  // the next group or the file's end).
  Status WriteHeld(const std::vector<std::shared_ptr<arrow::RecordBatch>>& rows) {
    if (!writer_) FJORD_RETURN_NOT_OK(Start(rows));
    if (options_.parquet_spare_threads && options_.parquet_spare_threads() &&
        !arrow::internal::GetCpuThreadPool()->OwnsThisThread()) {
      FJORD_ARROW_ASSIGN_OR_RAISE(auto batch, arrow::ConcatenateRecordBatches(rows));
      FJORD_ARROW_RETURN_NOT_OK(writer_->NewBufferedRowGroup());
      FJORD_ARROW_RETURN_NOT_OK(writer_->WriteRecordBatch(*batch));
      return Status::OK();
    }
    FJORD_ARROW_ASSIGN_OR_RAISE(auto table,
                                arrow::Table::FromRecordBatches(rows[0]->schema(), rows));
    FJORD_ARROW_RETURN_NOT_OK(writer_->WriteTable(*table, std::numeric_limits<int64_t>::max()));
    return Status::OK();
  }

  // While a group is encoded in the background only that task touches writer_ and stream_.
  Status Settle() override {
    if (!encoding_) return Status::OK();
    Status st = encoding_->Wait();
    encoding_.reset();
    encoding_bytes_ = 0;
    return st;
  }

  // `background`: a held group goes to parquet_background if there is one (not when the file is
  // finished: its caller would only wait for it).
  Status CloseGroup(bool background = true) {
    FJORD_RETURN_NOT_OK(WriteStaged());
    FJORD_RETURN_NOT_OK(Settle());
    if (!held_.empty() && background && options_.parquet_background) {
      FJORD_ARROW_ASSIGN_OR_RAISE(encoding_from_, stream_->Tell());
      encoding_bytes_ = group_bytes_;
      encoding_ = std::make_shared<ClaimableTask>(
          [this, rows = std::move(held_)] { return WriteHeld(rows); });
      held_.clear();
      options_.parquet_background([task = encoding_] { return task->Run(); });
    } else if (!held_.empty()) {
      FJORD_RETURN_NOT_OK(WriteHeld(held_));
      held_.clear();
    } else if (!options_.parquet_hold_row_group && group_bytes_ > 0 && writer_) {
      FJORD_ARROW_RETURN_NOT_OK(writer_->NewBufferedRowGroup());
    }
    flushed_bytes_ += group_bytes_;
    group_bytes_ = 0;
    ++groups_closed_;
    return Status::OK();
  }

  // The size at which the open row group closes.
  int64_t GroupLimit() const {
    const int64_t first = options_.parquet_first_block_size;
    const int64_t block = options_.parquet_block_size;
    return groups_closed_ == 0 && first > 0 ? std::min(first, block) : block;
  }

  int64_t BufferedBytes() const override {
    return options_.parquet_hold_row_group ? encoding_bytes_ + group_bytes_ : staged_bytes_;
  }

  int64_t EstimatedSize() const override {
    if (encoding_) return encoding_from_ + encoding_bytes_ + group_bytes_;
    auto pos = stream_->Tell();
    return (pos.ok() ? *pos : flushed_bytes_) + group_bytes_;
  }

  // Within a row group the estimate grows by the rows' bytes; the next Write starts a new group
  // once its limit is reached, so a group holds at most that before it.
  int64_t PredictableBytes() const override {
    const int64_t limit = GroupLimit();
    return group_bytes_ >= limit ? options_.parquet_block_size : limit - group_bytes_;
  }

  Result<int64_t> Finish() override {
    FJORD_RETURN_NOT_OK(options_.parquet_hold_row_group ? CloseGroup(/*background=*/false)
                                                        : WriteStaged());
    if (!writer_) FJORD_RETURN_NOT_OK(Start({}));
    FJORD_ARROW_RETURN_NOT_OK(writer_->Close());
    return CloseStream(stream_.get());
  }

  // The footer, once Finish closed the file.
  std::shared_ptr<parquet::FileMetaData> metadata() const { return writer_->metadata(); }

 private:
  std::shared_ptr<arrow::io::OutputStream> stream_;
  std::vector<DataField> fields_;
  DataFileWriterOptions options_;
  arrow::Compression::type codec_ = arrow::Compression::UNCOMPRESSED;
  std::shared_ptr<arrow::Schema> schema_;
  std::unique_ptr<parquet::arrow::FileWriter> writer_;     // from the first rows encoded (Start)
  std::vector<std::shared_ptr<arrow::RecordBatch>> held_;  // rows of the open row group
  // Buffered row groups: batches not encoded yet, up to parquet_stage_bytes.
  std::vector<std::shared_ptr<arrow::RecordBatch>> staged_;
  int64_t staged_bytes_ = 0;
  int64_t group_bytes_ = 0;
  int64_t flushed_bytes_ = 0;
  int64_t groups_closed_ = 0;
  // The row group being encoded by parquet_background, its rows' bytes, and the stream's
  // position when it closed.
  std::shared_ptr<ClaimableTask> encoding_;
  int64_t encoding_bytes_ = 0;
  int64_t encoding_from_ = 0;
};

}  // namespace

namespace {

// Fjord's own ORC writer (orc/orc_writer.h).
class OrcImpl : public DataFileWriter::Impl {
 public:
  static Result<std::unique_ptr<Impl>> Make(std::shared_ptr<arrow::io::OutputStream> stream,
                                            const std::vector<DataField>& fields,
                                            const DataFileWriterOptions& options) {
    auto impl = std::make_unique<OrcImpl>();
    impl->stream_ = std::move(stream);
    orc::OrcWriterOptions wo;
    FJORD_ASSIGN_OR_RAISE(wo.compression, orc::OrcCompressionFor(options.compression));
    // zstd takes file.compression.zstd-level; zlib Java's levels (orc_writer.h).
    wo.compression_level = wo.compression == OrcCompression::kZstd ? options.zstd_level : -1;
    if (options.orc_stripe_size <= 0 || options.orc_compress_size <= 0 ||
        options.orc_compress_size >= (int64_t{1} << 23)) {
      return Status::Invalid("orc.stripe.size ", options.orc_stripe_size, " / orc.compress.size ",
                             options.orc_compress_size, " out of range");
    }
    wo.stripe_size = static_cast<uint64_t>(options.orc_stripe_size);
    wo.compression_block_size = static_cast<uint64_t>(options.orc_compress_size);
    wo.rows_between_checks = std::max<int64_t>(1, options.orc_rows_between_checks);
    FJORD_ASSIGN_OR_RAISE(impl->writer_, orc::OrcWriter::Open(impl->stream_, fields, wo));
    return std::unique_ptr<Impl>(std::move(impl));
  }

  Status Write(const std::shared_ptr<arrow::RecordBatch>& batch) override {
    return writer_->Write(*batch);
  }

  int64_t EstimatedSize() const override { return writer_->EstimatedSize(); }

  Result<int64_t> Finish() override {
    FJORD_ASSIGN_OR_RAISE(int64_t size, writer_->Finish());
    FJORD_ASSIGN_OR_RAISE(int64_t closed, CloseStream(stream_.get()));
    if (closed != size) return Status::IOError("ORC file: wrote ", closed, " of ", size, " bytes");
    return size;
  }

 private:
  std::shared_ptr<arrow::io::OutputStream> stream_;
  std::unique_ptr<orc::OrcWriter> writer_;
};

// ---- Avro ----

Json Nullable(Json t, bool nullable) {
  if (!nullable) return t;
  return Json::array({"null", std::move(t)});
}

Json LogicalJson(const char* base, const char* logical) {
  Json j = Json::object();
  j["type"] = base;
  j["logicalType"] = logical;
  return j;
}

bool IsStringKey(const DataType& t) {
  return t.root() == TypeRoot::kVarChar || t.root() == TypeRoot::kChar;
}

Result<Json> AvroType(const DataType& type, const std::string& row_name) {
  Json t;
  switch (type.root()) {
    case TypeRoot::kBoolean:
      t = "boolean";
      break;
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
      t = "int";
      break;
    case TypeRoot::kBigInt:
      t = "long";
      break;
    case TypeRoot::kFloat:
      t = "float";
      break;
    case TypeRoot::kDouble:
      t = "double";
      break;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      t = "string";
      break;
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
      t = "bytes";
      break;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      bool ltz = type.root() == TypeRoot::kTimestampLtz;
      if (type.precision() <= 3) {
        t = LogicalJson("long", ltz ? "local-timestamp-millis" : "timestamp-millis");
      } else if (type.precision() <= 6) {
        t = LogicalJson("long", ltz ? "local-timestamp-micros" : "timestamp-micros");
      } else {
        return Status::NotImplemented(
            "Avro does not support TIMESTAMP type with precision: ", type.precision(),
            ", it only supports precision less than 6.");
      }
      break;
    }
    case TypeRoot::kDate:
      t = LogicalJson("int", "date");
      break;
    case TypeRoot::kTime:
      if (type.precision() > 3) {
        return Status::NotImplemented(
            "Avro does not support TIME type with precision: ", type.precision(),
            ", it only supports precision less than 3.");
      }
      t = LogicalJson("int", "time-millis");
      break;
    case TypeRoot::kDecimal:
      t = LogicalJson("bytes", "decimal");
      t["precision"] = type.precision();
      t["scale"] = type.scale();
      break;
    case TypeRoot::kRow: {
      t = Json::object();
      t["type"] = "record";
      t["name"] = row_name;
      Json fields = Json::array();
      for (const DataField& f : type.fields()) {
        Json jf = Json::object();
        jf["name"] = f.name;
        FJORD_ASSIGN_OR_RAISE(jf["type"], AvroType(*f.type, row_name + "_" + f.name));
        if (f.type->nullable()) jf["default"] = nullptr;
        fields.push_back(std::move(jf));
      }
      t["fields"] = std::move(fields);
      break;
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      DataTypePtr count = DataType::Int(false);
      const DataType& kt = type.root() == TypeRoot::kMap ? *type.key() : *type.element();
      const DataType& vt = type.root() == TypeRoot::kMap ? *type.value() : *count;
      if (IsStringKey(kt)) {
        t = Json::object();
        t["type"] = "map";
        FJORD_ASSIGN_OR_RAISE(t["values"], AvroType(vt, row_name));
      } else {
        Json record = Json::object();
        record["type"] = "record";
        record["name"] = row_name;
        Json key = Json::object();
        key["name"] = "key";
        FJORD_ASSIGN_OR_RAISE(key["type"], AvroType(kt, row_name + "_key"));
        Json value = Json::object();
        value["name"] = "value";
        FJORD_ASSIGN_OR_RAISE(value["type"], AvroType(vt, row_name + "_value"));
        if (vt.nullable()) value["default"] = nullptr;
        record["fields"] = Json::array({std::move(key), std::move(value)});
        t = Json::object();
        t["type"] = "array";
        t["items"] = std::move(record);
        t["logicalType"] = "map";
      }
      break;
    }
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      t = Json::object();
      t["type"] = "array";
      FJORD_ASSIGN_OR_RAISE(t["items"], AvroType(*type.element(), row_name));
      break;
    }
    default:
      return Status::NotImplemented("Avro data files do not support ", type.ToString());
  }
  return Nullable(std::move(t), type.nullable());
}

constexpr const char* kAvroRecordName = "org.apache.paimon.avro.generated.record";

Result<Json> AvroSchemaJson(const std::vector<DataField>& fields) {
  DataTypePtr row = DataType::Row(fields, false);
  return AvroType(*row, kAvroRecordName);
}

Result<avro::Datum> ToDatum(const Value& v, const DataType& type);

Result<avro::Datum> ToDatumNonNull(const Value& v, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return avro::Datum::Boolean(v.get<bool>());
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      return avro::Datum::Int(static_cast<int32_t>(v.AsInt64()));
    case TypeRoot::kBigInt:
      return avro::Datum::Long(v.AsInt64());
    case TypeRoot::kFloat:
      return avro::Datum::Float(v.get<float>());
    case TypeRoot::kDouble:
      return avro::Datum::Double(v.get<double>());
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return avro::Datum::String(v.get<std::string>());
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
      return avro::Datum::Bytes(v.get<std::string>());
    case TypeRoot::kDecimal:
      return avro::Datum::Bytes(v.get<Decimal>().ToUnscaledBytes());
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      const Timestamp& ts = v.get<Timestamp>();
      if (type.precision() <= 3) return avro::Datum::Long(ts.millis);
      return avro::Datum::Long(ts.millis * 1000 + FloorDiv(ts.nanos_of_milli, 1000));
    }
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      std::vector<avro::Datum> items;
      for (const Value& item : v.list()) {
        FJORD_ASSIGN_OR_RAISE(avro::Datum d, ToDatum(item, *type.element()));
        items.push_back(std::move(d));
      }
      return avro::Datum::Array(std::move(items));
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      DataTypePtr count = DataType::Int(false);
      const DataType& kt = type.root() == TypeRoot::kMap ? *type.key() : *type.element();
      const DataType& vt = type.root() == TypeRoot::kMap ? *type.value() : *count;
      ValueMap entries;
      if (v.is<std::shared_ptr<const ValueMap>>()) {
        entries = v.map();
      } else {
        // A MULTISET given as a list of elements: count equal ones.
        for (const Value& e : v.list()) {
          auto it = std::find_if(entries.begin(), entries.end(),
                                 [&](const auto& kv) { return kv.first == e; });
          if (it == entries.end()) {
            entries.emplace_back(e, Value(int32_t{1}));
          } else {
            it->second = Value(static_cast<int32_t>(it->second.AsInt64() + 1));
          }
        }
      }
      if (IsStringKey(kt)) {
        std::vector<std::pair<std::string, avro::Datum>> out;
        for (const auto& [k, val] : entries) {
          if (k.is_null()) return Status::Invalid("Avro map keys cannot be null");
          FJORD_ASSIGN_OR_RAISE(avro::Datum d, ToDatum(val, vt));
          out.emplace_back(k.get<std::string>(), std::move(d));
        }
        return avro::Datum::Map(std::move(out));
      }
      std::vector<avro::Datum> items;
      for (const auto& [k, val] : entries) {
        FJORD_ASSIGN_OR_RAISE(avro::Datum kd, ToDatum(k, *kt.WithNullable(kt.nullable())));
        FJORD_ASSIGN_OR_RAISE(avro::Datum vd, ToDatum(val, vt));
        items.push_back(avro::Datum::Record({std::move(kd), std::move(vd)}));
      }
      return avro::Datum::Array(std::move(items));
    }
    case TypeRoot::kRow: {
      const auto& fields = type.fields();
      const ValueList& values = v.list();
      if (values.size() != fields.size()) {
        return Status::Invalid("ROW value has ", values.size(), " fields, type has ",
                               fields.size());
      }
      std::vector<avro::Datum> items;
      for (size_t i = 0; i < fields.size(); ++i) {
        Result<avro::Datum> d = ToDatum(values[i], *fields[i].type);
        if (!d.ok()) return d.status().WithContext("field '", fields[i].name, "'");
        items.push_back(std::move(*d));
      }
      return avro::Datum::Record(std::move(items));
    }
    default:
      return Status::NotImplemented("Avro data files do not support ", type.ToString());
  }
}

Result<avro::Datum> ToDatum(const Value& v, const DataType& type) {
  if (v.is_null()) {
    if (!type.nullable()) return Status::Invalid("null value for NOT NULL ", type.ToString());
    return avro::Datum::Null();
  }
  FJORD_ASSIGN_OR_RAISE(avro::Datum d, ToDatumNonNull(v, type));
  if (type.nullable()) return avro::Datum::Union(1, std::move(d));
  return d;
}

Result<avro::Codec> AvroCodec(std::string_view name) {
  std::string n = Lower(name);
  if (n == "zstd" || n == "zstandard") return avro::Codec::kZstandard;
  if (n == "snappy") return avro::Codec::kSnappy;
  if (n == "deflate" || n == "gzip") return avro::Codec::kDeflate;
  if (n == "none" || n == "uncompressed" || n == "null" || n.empty()) return avro::Codec::kNull;
  return Status::NotImplemented("file.compression '", name, "' is not supported for Avro");
}

class AvroImpl : public DataFileWriter::Impl {
 public:
  static Result<std::unique_ptr<Impl>> Make(std::shared_ptr<arrow::io::OutputStream> stream,
                                            const std::vector<DataField>& fields,
                                            const DataFileWriterOptions& options,
                                            const std::string& path) {
    auto impl = std::make_unique<AvroImpl>();
    impl->stream_ = std::move(stream);
    impl->fields_ = fields;
    FJORD_ASSIGN_OR_RAISE(Json json, AvroSchemaJson(fields));
    avro::SchemaParseOptions po;
    po.validate_names = false;
    FJORD_ASSIGN_OR_RAISE(auto schema, avro::Schema::FromJson(json, po));
    avro::WriterOptions wo;
    FJORD_ASSIGN_OR_RAISE(wo.codec, AvroCodec(options.compression));
    if (wo.codec == avro::Codec::kZstandard) wo.compression_level = options.zstd_level;
    wo.source = path;
    FJORD_ASSIGN_OR_RAISE(impl->writer_, avro::ContainerWriter::Create(schema, std::move(wo)));
    return std::unique_ptr<Impl>(std::move(impl));
  }

  // The Avro path converts row by row, so the writer hands it Values it already has.
  Status WriteRow(const std::vector<Value>& row) {
    std::vector<avro::Datum> items;
    items.reserve(row.size());
    for (size_t c = 0; c < row.size(); ++c) {
      Result<avro::Datum> d = ToDatum(row[c], *fields_[c].type);
      if (!d.ok()) return d.status().WithContext("column '", fields_[c].name, "'");
      items.push_back(std::move(*d));
    }
    return writer_->Append(avro::Datum::Record(std::move(items)));
  }

  Status Write(const std::shared_ptr<arrow::RecordBatch>&) override {
    return Status::Internal("AvroImpl::Write is driven row by row");
  }

  int64_t EstimatedSize() const override { return writer_->EstimatedSize(); }

  Result<int64_t> Finish() override {
    FJORD_ASSIGN_OR_RAISE(std::string bytes, writer_->Finish());
    FJORD_ARROW_RETURN_NOT_OK(stream_->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
    FJORD_ASSIGN_OR_RAISE(int64_t size, CloseStream(stream_.get()));
    if (size != static_cast<int64_t>(bytes.size())) {
      return Status::IOError("Avro file: wrote ", size, " of ", bytes.size(), " bytes");
    }
    return size;
  }

 private:
  std::shared_ptr<arrow::io::OutputStream> stream_;
  std::vector<DataField> fields_;
  std::unique_ptr<avro::ContainerWriter> writer_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------

Result<DataFileWriterOptions> DataFileWriterOptions::FromOptions(
    const Options& options, const std::vector<DataField>& fields, FileFormat format) {
  DataFileWriterOptions out;
  if (std::optional<std::string> compression = options.Get("file.compression")) {
    out.compression = *compression;
  }
  FJORD_ASSIGN_OR_RAISE(auto level, options.GetInt("file.compression.zstd-level"));
  if (level) out.zstd_level = static_cast<int32_t>(*level);
  if (options.Get("parquet.block.size")) {
    FJORD_ASSIGN_OR_RAISE(auto block, options.GetMemorySize("parquet.block.size"));
    if (block) out.parquet_block_size = *block;
  }
  if (options.Get("parquet.page.size")) {
    FJORD_ASSIGN_OR_RAISE(auto page, options.GetMemorySize("parquet.page.size"));
    if (page) out.parquet_page_size = *page;
  }
  if (options.Get("orc.stripe.size")) {
    FJORD_ASSIGN_OR_RAISE(auto stripe, options.GetMemorySize("orc.stripe.size"));
    if (stripe) out.orc_stripe_size = *stripe;
  }
  if (options.Get("orc.compress.size")) {
    FJORD_ASSIGN_OR_RAISE(auto block, options.GetMemorySize("orc.compress.size"));
    if (block) out.orc_compress_size = *block;
  }
  FJORD_ASSIGN_OR_RAISE(auto checks, options.GetInt("orc.rows.between.memory.checks"));
  if (checks) out.orc_rows_between_checks = *checks;
  if (options.Get("parquet.enable.dictionary")) {
    FJORD_ASSIGN_OR_RAISE(auto dict, options.GetBool("parquet.enable.dictionary"));
    if (dict) out.parquet_dictionary = *dict;
  }
  std::vector<std::string> names;
  for (const DataField& f : fields) names.push_back(f.name);
  FJORD_ASSIGN_OR_RAISE(out.stats_modes, StatsModesFor(names, options, format));
  return out;
}

DataFileWriter::DataFileWriter(std::unique_ptr<Impl> impl, std::string path, FileFormat format,
                               std::vector<DataField> fields, std::vector<StatsMode> modes)
    : impl_(std::move(impl)),
      path_(std::move(path)),
      format_(format),
      fields_(std::move(fields)),
      modes_(std::move(modes)) {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (format_ == FileFormat::kAvro) {
      collectors_.emplace_back(modes_[i], fields_[i].type);
    } else {
      footer_stats_.emplace_back(fields_[i].type, format_);
      // Columns whose stats come from the Parquet footer, or are not kept at all, are not
      // accumulated as the rows pass.
      bool from_footer =
          format_ == FileFormat::kParquet && StatsFromParquetFooter(*fields_[i].type);
      accumulate_.push_back(!from_footer && modes_[i].kind != StatsMode::Kind::kNone);
    }
  }
}

DataFileWriter::~DataFileWriter() = default;

int64_t StaggeredFirstBlockSize(int64_t index, int64_t block) {
  constexpr double kGolden = 0.6180339887498949;  // (sqrt(5) - 1) / 2
  double fraction = static_cast<double>(index) * kGolden;
  fraction -= std::floor(fraction);
  if (fraction == 0) fraction = 1;
  return std::max(block / 16, static_cast<int64_t>(fraction * static_cast<double>(block)));
}

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Open(FileIO* io, const std::string& path,
                                                             FileFormat format,
                                                             std::vector<DataField> fields,
                                                             DataFileWriterOptions options) {
  std::vector<StatsMode> modes = options.stats_modes;
  if (modes.empty()) {
    std::vector<std::string> names;
    for (const DataField& f : fields) names.push_back(f.name);
    FJORD_ASSIGN_OR_RAISE(modes, StatsModesFor(names, Options(), format));
  }
  if (modes.size() != fields.size()) {
    return Status::Invalid(path, ": ", modes.size(), " stats modes for ", fields.size(),
                           " columns");
  }
  if (format == FileFormat::kAvro) {
    // Fail on unsupported types before creating the file.
    Result<Json> json = AvroSchemaJson(fields);
    if (!json.ok()) return json.status().WithContext(path);
  }
  FJORD_ASSIGN_OR_RAISE(auto stream, io->OpenOutput(path));
  Result<std::unique_ptr<Impl>> impl = Status::Internal("no format");
  switch (format) {
    case FileFormat::kParquet:
      impl = ParquetImpl::Make(stream, fields, options);
      break;
    case FileFormat::kOrc:
      impl = OrcImpl::Make(stream, fields, options);
      break;
    case FileFormat::kAvro:
      impl = AvroImpl::Make(stream, fields, options, path);
      break;
  }
  if (!impl.ok()) {
    (void)stream->Close();
    return impl.status().WithContext(path);
  }
  return std::unique_ptr<DataFileWriter>(
      new DataFileWriter(std::move(*impl), path, format, std::move(fields), std::move(modes)));
}

Status DataFileWriter::Write(const arrow::RecordBatch& batch) {
  if (finished_) return Status::Invalid(path_, ": writer already finished");
  if (batch.num_columns() != static_cast<int>(fields_.size())) {
    return Status::Invalid(path_, ": batch has ", batch.num_columns(), " columns, file has ",
                           fields_.size());
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  arrow::FieldVector arrow_fields;
  for (size_t c = 0; c < fields_.size(); ++c) {
    const DataField& f = fields_[c];
    auto column = batch.column(static_cast<int>(c));
    FJORD_ASSIGN_OR_RAISE(auto af, ToArrowField(f));
    if (!column->type()->Equals(*af->type())) {
      return Status::Invalid(path_, ": column '", f.name, "' is ", column->type()->ToString(),
                             ", expected ", af->type()->ToString());
    }
    if (!f.type->nullable() && column->null_count() > 0) {
      return Status::Invalid(path_, ": column '", f.name, "' is NOT NULL but has ",
                             column->null_count(), " nulls");
    }
    columns.push_back(column);
    arrow_fields.push_back(af);
  }
  if (format_ == FileFormat::kAvro) {
    auto* avro = static_cast<AvroImpl*>(impl_.get());
    std::vector<Value> row(fields_.size());
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      for (size_t c = 0; c < fields_.size(); ++c) {
        Result<Value> v = ValueFromArrow(*columns[c], r, *fields_[c].type);
        if (!v.ok()) return v.status().WithContext(path_, ": column '", fields_[c].name, "'");
        row[c] = std::move(*v);
        collectors_[c].Collect(row[c]);
      }
      Status st = avro->WriteRow(row);
      if (!st.ok()) return st.WithContext(path_, ": row ", row_count_ + r);
    }
  } else {
    auto conformed =
        arrow::RecordBatch::Make(arrow::schema(arrow_fields), batch.num_rows(), std::move(columns));
    Status st = impl_->Write(conformed);
    if (!st.ok()) return st.WithContext(path_);
    for (size_t c = 0; c < fields_.size(); ++c) {
      if (!accumulate_[c]) continue;
      FJORD_RETURN_NOT_OK(footer_stats_[c].Update(*conformed->column(static_cast<int>(c))));
    }
  }
  row_count_ += batch.num_rows();
  return Status::OK();
}

Status DataFileWriter::Write(const arrow::Table& table) {
  arrow::TableBatchReader reader(table);
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    FJORD_ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) break;
    FJORD_RETURN_NOT_OK(Write(*batch));
  }
  return Status::OK();
}

int64_t DataFileWriter::EstimatedSize() const { return impl_->EstimatedSize(); }
int64_t DataFileWriter::PredictableBytes() const { return impl_->PredictableBytes(); }

int64_t DataFileWriter::BufferedBytes() const { return impl_->BufferedBytes(); }

Status DataFileWriter::Settle() {
  Status st = impl_->Settle();
  return st.ok() ? st : st.WithContext(path_);
}

Result<DataFileWriteResult> DataFileWriter::Finish() {
  if (finished_) return Status::Invalid(path_, ": writer already finished");
  finished_ = true;
  Result<int64_t> size = impl_->Finish();
  if (!size.ok()) return size.status().WithContext(path_);
  DataFileWriteResult out;
  out.path = path_;
  out.file_size = *size;
  out.row_count = row_count_;
  out.stats_modes = modes_;
  std::shared_ptr<parquet::FileMetaData> footer;
  if (format_ == FileFormat::kParquet) footer = static_cast<ParquetImpl*>(impl_.get())->metadata();
  for (size_t c = 0; c < fields_.size(); ++c) {
    const DataType& type = *fields_[c].type;
    if (format_ == FileFormat::kAvro) {
      out.stats.push_back(collectors_[c].Finish());
    } else if (modes_[c].kind == StatsMode::Kind::kNone) {
      out.stats.emplace_back();
    } else if (format_ == FileFormat::kParquet && StatsFromParquetFooter(type)) {
      Result<DataColumnStats> exact = ParquetFooterStats(*footer, static_cast<int>(c), type);
      if (!exact.ok()) return exact.status().WithContext(path_);
      out.stats.push_back(ConvertStats(*exact, modes_[c], type));
    } else {
      out.stats.push_back(ConvertStats(footer_stats_[c].Finish(), modes_[c], type));
    }
  }
  return out;
}

Result<DataFileWriteResult> WriteDataFile(FileIO* io, const std::string& path, FileFormat format,
                                          const std::vector<DataField>& fields,
                                          const arrow::Table& table,
                                          DataFileWriterOptions options) {
  FJORD_ASSIGN_OR_RAISE(auto writer,
                        DataFileWriter::Open(io, path, format, fields, std::move(options)));
  FJORD_RETURN_NOT_OK(writer->Write(table));
  return writer->Finish();
}

Result<std::string> AvroSchemaJsonFor(const std::vector<DataField>& fields) {
  FJORD_ASSIGN_OR_RAISE(Json json, AvroSchemaJson(fields));
  avro::SchemaParseOptions po;
  po.validate_names = false;
  FJORD_ASSIGN_OR_RAISE(auto schema, avro::Schema::FromJson(json, po));
  return schema->ToJson();
}

}  // namespace fjord

#include "fjord/lsm/kv_file_reader.h"

#include <arrow/api.h>

#include <algorithm>

namespace fjord {

namespace {

std::vector<DataField> SystemFields() {
  return {DataField{0, kSequenceNumberColumn, DataType::BigInt(false), {}, {}},
          DataField{0, kValueKindColumn, DataType::TinyInt(false), {}, {}}};
}

// The files of one sorted run, opened one after another.
class FileRunReader : public KvRunReader {
 public:
  FileRunReader(KvFileReaderFactory* factory, std::string bucket_dir,
                std::vector<DataFileMeta> files, std::vector<DataField> fields,
                std::shared_ptr<arrow::Schema> schema,
                KvFileReaderFactory::DeletionOfFn deletion_of, bool alone)
      : factory_(factory),
        alone_(alone),
        deletion_of_(std::move(deletion_of)),
        bucket_dir_(std::move(bucket_dir)),
        files_(std::move(files)),
        fields_(std::move(fields)),
        schema_(std::move(schema)) {}

  bool RestInMemory() const override {
    return next_ >= files_.size() && (!current_ || current_->decoded_to_end());
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      if (!current_) {
        if (next_ >= files_.size()) return std::shared_ptr<arrow::RecordBatch>();
        const DataFileMeta& file = files_[next_++];
        std::shared_ptr<const DeletionVector> deletion;
        if (deletion_of_) {
          FJORD_ASSIGN_OR_RAISE(deletion, deletion_of_(file));
        }
        FJORD_ASSIGN_OR_RAISE(
            current_, factory_->OpenFile(bucket_dir_, file, fields_, true, deletion, {}, alone_));
      }
      FJORD_ASSIGN_OR_RAISE(auto batch, current_->Next());
      if (!batch) {
        current_.reset();
        continue;
      }
      // The layout's names, but each column's own type: a MAP column that may hold NULL keys
      // comes as a list of entries (arrow_types.h), which a map-typed field must not claim.
      arrow::FieldVector fields;
      for (int c = 0; c < batch->num_columns(); ++c) {
        const auto& f = schema_->field(c);
        fields.push_back(arrow::field(f->name(), batch->column(c)->type(), f->nullable()));
      }
      return arrow::RecordBatch::Make(arrow::schema(fields), batch->num_rows(), batch->columns());
    }
  }

 private:
  KvFileReaderFactory* factory_;
  bool alone_;
  KvFileReaderFactory::DeletionOfFn deletion_of_;
  std::string bucket_dir_;
  std::vector<DataFileMeta> files_;
  std::vector<DataField> fields_;
  std::shared_ptr<arrow::Schema> schema_;
  size_t next_ = 0;
  std::unique_ptr<BatchReader> current_;
};

}  // namespace

KvFileReaderFactory::KvFileReaderFactory(std::shared_ptr<FileIO> io, std::string table_root,
                                         TableSchema read_schema, int64_t batch_rows)
    : io_(io),
      root_(table_root),
      read_schema_(std::move(read_schema)),
      batch_rows_(batch_rows > 0 ? batch_rows : 1),
      snapshots_(std::move(io), std::move(table_root)) {}

Result<const TableSchema*> KvFileReaderFactory::SchemaOf(int64_t schema_id) {
  if (schema_id == read_schema_.id) return &read_schema_;
  std::lock_guard<std::mutex> lock(*schemas_mu_);
  auto it = schemas_.find(schema_id);
  if (it == schemas_.end()) {
    FJORD_ASSIGN_OR_RAISE(TableSchema s, snapshots_.LoadSchema(schema_id));
    it = schemas_.emplace(schema_id, std::move(s)).first;
  }
  return &it->second;  // map nodes stay where they are
}

Result<std::unique_ptr<BatchReader>> KvFileReaderFactory::OpenFile(
    const std::string& bucket_dir, const DataFileMeta& file, std::vector<DataField> fields,
    bool with_system_columns, std::shared_ptr<const DeletionVector> deletion, ChunkFilter filter,
    bool alone, RowFilter row_filter) {
  FJORD_ASSIGN_OR_RAISE(const TableSchema* file_schema, SchemaOf(file.schema_id));
  std::string path =
      file.external_path ? *file.external_path : JoinPath(bucket_dir, file.file_name);
  FJORD_ASSIGN_OR_RAISE(FileFormat format, FileFormatOfPath(file.file_name));
  EvolvedReadSpec spec;
  spec.file_fields = file_schema->fields;
  spec.read_fields = std::move(fields);
  if (with_system_columns) spec.system_fields = SystemFields();
  spec.deletion = std::move(deletion);
  spec.expected_rows = file.row_count;
  spec.options.batch_rows = batch_rows_;
  spec.options.parallel_columns = parallel_columns_;
  spec.options.spare_threads = spare_threads_;
  spec.options.pool = pool_.get();
  spec.options.chunk_filter = std::move(filter);
  spec.options.row_filter = std::move(row_filter);
  spec.options.whole_row_group_bytes_per_column =
      alone ? std::min(whole_row_group_bytes_, kWholeRowGroupBytesAlone) : whole_row_group_bytes_;
  Result<std::unique_ptr<BatchReader>> reader =
      OpenEvolvedFile(io_.get(), path, format, std::move(spec));
  if (!reader.ok() && reader.status().IsNotFound()) {
    return Status::NotFound("data file ", path, " listed by the snapshot is missing");
  }
  return reader;
}

Result<std::unique_ptr<KvRunReader>> KvFileReaderFactory::OpenRun(const std::string& bucket_dir,
                                                                  std::vector<DataFileMeta> files,
                                                                  const KvLayout& layout,
                                                                  DeletionOfFn deletion_of,
                                                                  bool alone) {
  return std::unique_ptr<KvRunReader>(new FileRunReader(this, bucket_dir, std::move(files),
                                                        layout.fields, layout.schema,
                                                        std::move(deletion_of), alone));
}

Result<std::unique_ptr<KvRunReader>> KvFileReaderFactory::OpenRun(const std::string& bucket_dir,
                                                                  std::vector<DataFileMeta> files) {
  FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(read_schema_));
  return OpenRun(bucket_dir, std::move(files), layout);
}

}  // namespace fjord

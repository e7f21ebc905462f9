// ORC data files in batches: through Arrow's ORC adapter (a batch reader over the file, or over
// each stripe when the chunk filter skips some), or with Fjord's own reader one stripe at a time
// where Arrow cannot read the file (MAP columns with NULL keys, which Arrow aborts on; TIMESTAMPs
// outside what nanoseconds hold, which it refuses). Stripes whose statistics the chunk filter
// rules out (orc_stripe_stats.h) are read by neither; positions count their rows. CHAR values
// come out without their padding, as Java's ORC reader returns them.

#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/io/interfaces.h>

#include <algorithm>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/file_batches.h"
#include "fjord/format/orc/orc_reader.h"
#include "fjord/format/orc/orc_tail.h"
#include "fjord/format/orc_stripe_stats.h"

namespace fjord {

namespace {

bool HasChar(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kChar:
      return true;
    case TypeRoot::kArray:
    case TypeRoot::kVector:
    case TypeRoot::kMultiset:
      return HasChar(*type.element());
    case TypeRoot::kMap:
      return HasChar(*type.key()) || HasChar(*type.value());
    case TypeRoot::kRow:
      return std::any_of(type.fields().begin(), type.fields().end(),
                         [](const DataField& f) { return HasChar(*f.type); });
    default:
      return false;
  }
}

// `data` (canonical form of `type`) with the trailing blanks of its CHAR values removed, as Java's
// ORC reader returns CHAR(n) values (ORC's CharTreeReader right-trims what writers pad to n).
// A child is replaced by an equal array starting at offset 0, which its parent's offsets and
// offset address the same way.
Result<std::shared_ptr<arrow::ArrayData>> TrimChars(const std::shared_ptr<arrow::ArrayData>& data,
                                                    const DataType& type) {
  if (!HasChar(type)) return data;
  if (type.root() == TypeRoot::kChar) {
    EnsureArrowCompute();
    arrow::compute::TrimOptions blanks(" ");
    auto trimmed = arrow::compute::CallFunction("utf8_rtrim", {arrow::MakeArray(data)}, &blanks);
    if (!trimmed.ok()) return FromArrow(trimmed.status());
    return trimmed->make_array()->data();
  }
  auto out = data->Copy();
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      FJORD_ASSIGN_OR_RAISE(out->child_data[0], TrimChars(data->child_data[0], *type.element()));
      break;
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      DataTypePtr count = DataType::Int(false);
      const DataType& key = type.root() == TypeRoot::kMap ? *type.key() : *type.element();
      const DataType& value = type.root() == TypeRoot::kMap ? *type.value() : *count;
      auto entries = data->child_data[0]->Copy();
      FJORD_ASSIGN_OR_RAISE(entries->child_data[0], TrimChars(entries->child_data[0], key));
      FJORD_ASSIGN_OR_RAISE(entries->child_data[1], TrimChars(entries->child_data[1], value));
      out->child_data[0] = entries;
      break;
    }
    case TypeRoot::kRow:
      for (size_t i = 0; i < type.fields().size(); ++i) {
        FJORD_ASSIGN_OR_RAISE(out->child_data[i],
                              TrimChars(data->child_data[i], *type.fields()[i].type));
      }
      break;
    default:
      break;
  }
  return out;
}

// `batch` (conformed to `fields`) with its CHAR values unpadded.
Result<std::shared_ptr<arrow::RecordBatch>> TrimBatch(std::shared_ptr<arrow::RecordBatch> batch,
                                                      const std::vector<DataField>& fields,
                                                      const std::string& path) {
  if (std::none_of(fields.begin(), fields.end(),
                   [](const DataField& f) { return HasChar(*f.type); })) {
    return batch;
  }
  arrow::ArrayVector columns = batch->columns();
  for (size_t c = 0; c < fields.size(); ++c) {
    if (!HasChar(*fields[c].type)) continue;
    Result<std::shared_ptr<arrow::ArrayData>> trimmed =
        TrimChars(columns[c]->data(), *fields[c].type);
    if (!trimmed.ok()) return trimmed.status().WithContext(path, ": column '", fields[c].name, "'");
    columns[c] = arrow::MakeArray(*trimmed);
  }
  return arrow::RecordBatch::Make(batch->schema(), batch->num_rows(), columns);
}

class OrcBatchReader : public ChunkBatchReader {
 public:
  OrcBatchReader(std::string path, std::vector<DataField> fields,
                 std::shared_ptr<arrow::io::RandomAccessFile> input, Result<OrcTail> tail,
                 const FileReadOptions& options)
      : ChunkBatchReader(options.batch_rows),
        path_(std::move(path)),
        fields_(std::move(fields)),
        input_(std::move(input)),
        tail_(std::move(tail)),
        filter_(options.chunk_filter) {}

  // Chooses the reader and the stripes to read; called once before the first batch.
  Status Start() {
    std::vector<std::string> names;
    for (const DataField& f : fields_) names.push_back(f.name);
    // A tail we cannot decompress ourselves (LZO) is left to Arrow, which can (every stripe).
    if (tail_.ok()) {
      FJORD_RETURN_NOT_OK(ChooseStripes());
      if (!CheckArrowCanReadOrc(*tail_, names, path_).ok()) return StartOwn(0);
    } else if (tail_.status().code() != StatusCode::kNotImplemented) {
      return tail_.status();
    }
    auto reader = arrow::adapters::orc::ORCFileReader::Open(input_, arrow::default_memory_pool());
    if (!reader.ok()) {
      return Status::Corruption(path_, ": not a readable ORC file: ", reader.status().message());
    }
    arrow_reader_ = std::move(*reader);
    if (skipped_ == 0) {
      auto batches = arrow_reader_->GetRecordBatchReader(batch_rows(), names);
      if (!batches.ok()) return FromArrow(batches.status()).WithContext(path_);
      arrow_batches_ = std::move(*batches);
      return Status::OK();
    }
    // Stripe by stripe, the kept ones only; Arrow selects top-level columns by index.
    if (arrow_reader_->NumberOfStripes() != static_cast<int64_t>(keep_.size())) {
      return Status::Corruption(path_, ": ORC footer has ", keep_.size(), " stripes, Arrow reads ",
                                arrow_reader_->NumberOfStripes());
    }
    auto schema = arrow_reader_->ReadSchema();
    if (!schema.ok()) return FromArrow(schema.status()).WithContext(path_);
    for (const DataField& f : fields_) {
      int index = (*schema)->GetFieldIndex(f.name);
      if (index < 0) return Status::Corruption(path_, ": data file has no column '", f.name, "'");
      indices_.push_back(index);
    }
    by_stripe_ = true;
    return Status::OK();
  }

 protected:
  Result<std::shared_ptr<arrow::RecordBatch>> NextChunk(int64_t* first_row) override {
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      if (own_) {
        while (own_->next_stripe() < keep_.size() && !keep_[own_->next_stripe()]) {
          rows_ += static_cast<int64_t>(tail_->stripes[own_->next_stripe()].rows);
          own_->Skip();
        }
        FJORD_ASSIGN_OR_RAISE(batch, own_->Next());
        if (!batch) return batch;
        // After a switch from Arrow's reader: drop the rows it already returned.
        if (rows_ < skip_until_) {
          int64_t drop = std::min(skip_until_ - rows_, batch->num_rows());
          rows_ += drop;
          batch = batch->Slice(drop);
        }
      } else {
        if (!arrow_batches_) {
          FJORD_ASSIGN_OR_RAISE(bool more, OpenNextArrowStripe());
          if (!more) return std::shared_ptr<arrow::RecordBatch>();
        }
        arrow::Status st = arrow_batches_->ReadNext(&batch);
        if (!st.ok()) {
          // Arrow's ORC adapter reads every TIMESTAMP in nanoseconds and refuses values outside
          // 1677-2262, which Paimon writes at lower precisions (e.g. 9999-12-31 in a
          // TIMESTAMP(3)); our reader keeps each column's own unit.
          if (tail_.ok() && st.message().find("out of range for nanosecond") != std::string::npos) {
            FJORD_RETURN_NOT_OK(StartOwn(rows_));
            continue;
          }
          return FromArrow(st).WithContext(path_);
        }
        if (!batch) {
          if (!by_stripe_) return batch;
          arrow_batches_.reset();  // the next kept stripe
          continue;
        }
      }
      if (batch->num_rows() == 0) continue;
      *first_row = rows_;
      rows_ += batch->num_rows();
      FJORD_ASSIGN_OR_RAISE(batch, ConformBatch(batch, fields_, path_));
      return TrimBatch(std::move(batch), fields_, path_);
    }
  }

 private:
  // Asks the chunk filter about each stripe (by its statistics); counts the rows it skips.
  Status ChooseStripes() {
    if (!filter_) return Status::OK();
    FJORD_ARROW_ASSIGN_OR_RAISE(int64_t size, input_->GetSize());
    OrcReadAt read_at = [input = input_, path = path_](uint64_t offset,
                                                       uint64_t length) -> Result<std::string> {
      auto buffer = input->ReadAt(static_cast<int64_t>(offset), static_cast<int64_t>(length));
      if (!buffer.ok()) return FromArrow(buffer.status()).WithContext(path);
      return (*buffer)->ToString();
    };
    FJORD_ASSIGN_OR_RAISE(keep_, OrcStripesToRead(*tail_, static_cast<uint64_t>(size), read_at,
                                                  path_, fields_, filter_));
    for (size_t i = 0; i < keep_.size(); ++i) {
      if (!keep_[i]) skipped_ += static_cast<int64_t>(tail_->stripes[i].rows);
    }
    return Status::OK();
  }

  // Opens Arrow's reader of the next kept stripe that has rows; false after the last.
  Result<bool> OpenNextArrowStripe() {
    if (!by_stripe_) return false;
    while (arrow_stripe_ < arrow_reader_->NumberOfStripes()) {
      int64_t stripe = arrow_stripe_++;
      if (!keep_[static_cast<size_t>(stripe)]) continue;
      arrow::adapters::orc::StripeInformation info = arrow_reader_->GetStripeInformation(stripe);
      if (info.num_rows <= 0) continue;
      arrow::Status st = arrow_reader_->Seek(info.first_row_id);
      if (!st.ok()) return FromArrow(st).WithContext(path_);
      auto batches = arrow_reader_->NextStripeReader(batch_rows(), indices_);
      if (!batches.ok()) return FromArrow(batches.status()).WithContext(path_);
      arrow_batches_ = std::move(*batches);
      rows_ = info.first_row_id;
      return true;
    }
    return false;
  }

  Status StartOwn(int64_t skip_until) {
    FJORD_ARROW_ASSIGN_OR_RAISE(int64_t size, input_->GetSize());
    read_at_ = [input = input_, path = path_](uint64_t offset,
                                              uint64_t length) -> Result<std::string> {
      auto buffer = input->ReadAt(static_cast<int64_t>(offset), static_cast<int64_t>(length));
      if (!buffer.ok()) return FromArrow(buffer.status()).WithContext(path);
      return (*buffer)->ToString();
    };
    FJORD_ASSIGN_OR_RAISE(own_, orc::OrcStripeReader::Make(*tail_, static_cast<uint64_t>(size),
                                                           read_at_, path_, fields_));
    arrow_batches_.reset();
    arrow_reader_.reset();
    skip_until_ = skip_until;
    rows_ = 0;
    return Status::OK();
  }

  std::string path_;
  std::vector<DataField> fields_;
  std::shared_ptr<arrow::io::RandomAccessFile> input_;
  Result<OrcTail> tail_;
  ChunkFilter filter_;
  std::vector<bool> keep_;  // per stripe, whether the filter keeps it; empty: every stripe
  std::unique_ptr<arrow::adapters::orc::ORCFileReader> arrow_reader_;
  std::shared_ptr<arrow::RecordBatchReader> arrow_batches_;
  bool by_stripe_ = false;    // Arrow reads the kept stripes one by one
  std::vector<int> indices_;  // of the fields in Arrow's schema, when by_stripe_
  int64_t arrow_stripe_ = 0;  // the next stripe to consider, when by_stripe_
  OrcReadAt read_at_;
  std::unique_ptr<orc::OrcStripeReader> own_;
  int64_t rows_ = 0;  // the position in the file of the next row read
  int64_t skip_until_ = 0;
};

bool HasMap(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kMap:
    case TypeRoot::kMultiset:
      return true;
    case TypeRoot::kArray:
    case TypeRoot::kVector:
      return HasMap(*type.element());
    case TypeRoot::kRow:
      return std::any_of(type.fields().begin(), type.fields().end(),
                         [](const DataField& f) { return HasMap(*f.type); });
    default:
      return false;
  }
}

// Whether `column` or a column below it is in `marked`.
bool SubtreeMarked(const std::vector<OrcType>& types, uint32_t column,
                   const std::vector<bool>& marked) {
  if (column >= types.size()) return false;
  if (column < marked.size() && marked[column]) return true;
  for (uint32_t child : types[column].subtypes) {
    if (SubtreeMarked(types, child, marked)) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<bool>> ListFormMapFields(FileIO* io, const std::string& path, FileFormat format,
                                            const std::vector<DataField>& fields) {
  std::vector<bool> out(fields.size(), false);
  if (format != FileFormat::kOrc) return out;
  if (std::none_of(fields.begin(), fields.end(),
                   [](const DataField& f) { return HasMap(*f.type); })) {
    return out;
  }
  FJORD_ASSIGN_OR_RAISE(auto input, io->OpenInput(path));
  Result<OrcTail> tail = ReadOrcTail(input.get(), path);
  if (!tail.ok()) {
    if (tail.status().code() == StatusCode::kNotImplemented) return out;  // Arrow reads it
    return tail.status();
  }
  std::vector<std::string> names;
  for (const DataField& f : fields) names.push_back(f.name);
  if (CheckArrowCanReadOrc(*tail, names, path).ok()) return out;
  std::vector<bool> lists = orc::MapsWithNullableKeys(*tail);
  if (tail->types.empty()) return out;
  const OrcType& root = tail->types[0];
  for (size_t i = 0; i < fields.size(); ++i) {
    for (size_t c = 0; c < root.field_names.size() && c < root.subtypes.size(); ++c) {
      if (root.field_names[c] == fields[i].name) {
        out[i] = SubtreeMarked(tail->types, root.subtypes[c], lists);
        break;
      }
    }
  }
  return out;
}

Result<std::unique_ptr<BatchReader>> OpenOrcFile(FileIO* io, const std::string& path,
                                                 const std::vector<DataField>& fields,
                                                 const FileReadOptions& options) {
  FJORD_ASSIGN_OR_RAISE(auto input, io->OpenInput(path));
  // Arrow's ORC adapter aborts the process on input it cannot represent (MAP keys with NULLs):
  // check the tail ourselves first and read such files with our own reader.
  Result<OrcTail> tail = ReadOrcTail(input.get(), path);
  auto reader = std::make_unique<OrcBatchReader>(path, fields, input, std::move(tail), options);
  FJORD_RETURN_NOT_OK(reader->Start());
  return std::unique_ptr<BatchReader>(std::move(reader));
}

}  // namespace fjord

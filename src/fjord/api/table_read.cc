// The public read: ReadBuilder and the TableReader that hands out batches.

#include "fjord/table_read.h"

#include <arrow/api.h>

#include <algorithm>
#include <string>
#include <thread>

#include "fjord/api/arrow_bridge.h"
#include "fjord/api/table_stream_internal.h"
#include "fjord/expr/partition_text.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/binary_row.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/read/table_read.h"

namespace fjord {

struct ReadBuilder::State {
  ReadRequest request;
  int64_t batch_rows = 8192;
  int threads = 0;                             // 0: one per core
  std::map<std::string, std::string> options;  // dynamic read options
};

namespace {

// "[v1, v2]" for a stored row of `fields`; "?" when it does not decode.
std::string RowText(const std::string& stored, const std::vector<DataField>& fields) {
  std::vector<DataTypePtr> types;
  for (const DataField& f : fields) types.push_back(f.type->WithNullable(true));
  auto values = DecodeStoredBinaryRow(stored, types);
  if (!values.ok()) return "?";
  std::string out = "[";
  for (size_t i = 0; i < values->size(); ++i) {
    if (i) out += ", ";
    out += ValueToString((*values)[i], *types[i]);
  }
  return out + "]";
}

// "k=v,k2=v2" (PartitionText, the form `--partition` takes) for a stored partition row; "?" when
// it does not decode.
std::string PartitionRowText(const std::string& stored, const std::vector<DataField>& fields,
                             const std::string& default_name) {
  std::vector<DataTypePtr> types;
  for (const DataField& f : fields) types.push_back(f.type->WithNullable(true));
  auto values = DecodeStoredBinaryRow(stored, types);
  if (!values.ok()) return "?";
  return PartitionText(fields, *values, default_name);
}

// Batches of a read as they are pulled through the table's readers.
class TableReaderImpl : public TableReader {
 public:
  explicit TableReaderImpl(ReadStream stream) : stream_(std::move(stream)) {}

  const TableSchema& schema() const override { return stream_.schema; }
  const std::vector<DataField>& fields() const override { return stream_.fields; }
  std::optional<int64_t> snapshot_id() const override {
    if (!stream_.snapshot) return std::nullopt;
    return stream_.snapshot->id;
  }

  Status ExportSchema(struct ArrowSchema* out) override {
    return api::ExportSchema(*stream_.arrow_schema, out);
  }

  Status Next(struct ArrowArray* out) override {
    FJORD_ASSIGN_OR_RAISE(auto batch, stream_.rows->Next());
    if (!batch) {
      out->release = nullptr;
      return Status::OK();
    }
    return api::ExportBatch(*batch, out);
  }

 private:
  ReadStream stream_;
};

// The C stream over a TableReader.
struct StreamState {
  std::unique_ptr<TableReader> reader;
  std::string last_error;
};

int StreamResult(StreamState* state, const Status& st) {
  if (st.ok()) return 0;
  state->last_error = st.ToString();
  return st.code() == StatusCode::kInvalid ? 22 /* EINVAL */ : 5 /* EIO */;
}

int StreamGetSchema(struct ArrowArrayStream* stream, struct ArrowSchema* out) {
  auto* state = static_cast<StreamState*>(stream->private_data);
  return StreamResult(state, state->reader->ExportSchema(out));
}
int StreamGetNext(struct ArrowArrayStream* stream, struct ArrowArray* out) {
  auto* state = static_cast<StreamState*>(stream->private_data);
  return StreamResult(state, state->reader->Next(out));
}
const char* StreamLastError(struct ArrowArrayStream* stream) {
  auto* state = static_cast<StreamState*>(stream->private_data);
  return state->last_error.empty() ? nullptr : state->last_error.c_str();
}
void StreamRelease(struct ArrowArrayStream* stream) {
  delete static_cast<StreamState*>(stream->private_data);
  stream->release = nullptr;
}

}  // namespace

void ExportTableReader(std::unique_ptr<TableReader> reader, struct ArrowArrayStream* out) {
  out->get_schema = StreamGetSchema;
  out->get_next = StreamGetNext;
  out->get_last_error = StreamLastError;
  out->release = StreamRelease;
  out->private_data = new StreamState{std::move(reader), {}};
}

ReadBuilder::ReadBuilder(std::shared_ptr<const FileStoreTable> table)
    : table_(std::move(table)), state_(std::make_unique<State>()) {}
ReadBuilder::~ReadBuilder() = default;
ReadBuilder::ReadBuilder(const ReadBuilder& other)
    : table_(other.table_), state_(std::make_unique<State>(*other.state_)) {}
ReadBuilder& ReadBuilder::operator=(const ReadBuilder& other) {
  table_ = other.table_;
  state_ = std::make_unique<State>(*other.state_);
  return *this;
}

ReadBuilder& ReadBuilder::Select(std::vector<std::string> columns) {
  state_->request.columns = std::move(columns);
  return *this;
}
ReadBuilder& ReadBuilder::Where(std::string filter) {
  state_->request.where = std::move(filter);
  return *this;
}
ReadBuilder& ReadBuilder::Partition(PartitionSpec partition) {
  state_->request.partition = std::move(partition);
  return *this;
}
ReadBuilder& ReadBuilder::AtSnapshot(int64_t snapshot_id) {
  state_->request.selector = {};
  state_->request.selector.snapshot_id = snapshot_id;
  return *this;
}
ReadBuilder& ReadBuilder::AtTimestamp(int64_t epoch_millis) {
  state_->request.selector = {};
  state_->request.selector.timestamp_millis = epoch_millis;
  return *this;
}
ReadBuilder& ReadBuilder::AtTag(std::string tag) {
  state_->request.selector = {};
  state_->request.selector.tag = std::move(tag);
  return *this;
}
ReadBuilder& ReadBuilder::WithOptions(std::map<std::string, std::string> options) {
  for (auto& [k, v] : options) state_->options[k] = std::move(v);
  return *this;
}
ReadBuilder& ReadBuilder::WithBatchRows(int64_t rows) {
  state_->batch_rows = rows > 0 ? rows : 1;
  return *this;
}
ReadBuilder& ReadBuilder::WithThreads(int threads) {
  state_->threads = threads > 0 ? threads : 0;
  return *this;
}
ReadBuilder& ReadBuilder::InSplitOrder(bool on) {
  state_->request.in_split_order = on;
  return *this;
}

Result<std::shared_ptr<const FileStoreTable>> ReadBuilder::ReadTable() const {
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> table,
                        table_->WithDynamicOptions(state_->options));
  FJORD_RETURN_NOT_OK(table->CheckOptions(OptionUse::kRead));
  return table;
}

Result<ReadPlan> ReadBuilder::Plan() const {
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> table_, ReadTable());
  const ScanSelector& selector = state_->request.selector;
  FJORD_ASSIGN_OR_RAISE(auto resolved, table_->Resolve(selector));
  FJORD_ASSIGN_OR_RAISE(ScanPlan plan,
                        table_->Plan(selector, state_->request.where, state_->request.partition));
  const TableSchema& schema = resolved.second;
  std::vector<DataField> partition_fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataField> key_fields = schema.FieldsByName(schema.TrimmedPrimaryKeys());
  ReadPlan out;
  if (plan.snapshot) out.snapshot_id = plan.snapshot->id;
  out.splits = static_cast<int64_t>(plan.splits.size());
  for (const DataSplit& split : plan.splits) {
    std::string partition = PartitionRowText(split.partition, partition_fields,
                                             table_->core_options().partition_default_name());
    for (const DataFileMeta& f : split.files) {
      PlannedFile p;
      p.partition = partition;
      p.bucket = split.bucket;
      p.file_name = f.file_name;
      p.level = f.level;
      p.row_count = f.row_count;
      p.file_size = f.file_size;
      p.min_key = RowText(f.min_key, key_fields);
      p.max_key = RowText(f.max_key, key_fields);
      p.has_deletion_vector = split.deletion_files.count(f.file_name) > 0;
      out.files.push_back(std::move(p));
    }
  }
  return out;
}

Result<std::unique_ptr<TableReader>> ReadBuilder::Open() const {
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> table_, ReadTable());
  ReadRequest request = state_->request;
  request.threads = state_->threads > 0
                        ? state_->threads
                        : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  FJORD_ASSIGN_OR_RAISE(ReadStream stream, table_->OpenRead(request, state_->batch_rows));
  return std::unique_ptr<TableReader>(new TableReaderImpl(std::move(stream)));
}

Status ReadBuilder::OpenStream(struct ArrowArrayStream* out) const {
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<TableReader> reader, Open());
  ExportTableReader(std::move(reader), out);
  return Status::OK();
}

Result<std::unique_ptr<StreamReader>> ReadBuilder::OpenStreaming() const {
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> table, ReadTable());
  if (state_->request.selector.snapshot_id || state_->request.selector.timestamp_millis ||
      state_->request.selector.tag) {
    return Status::Invalid("a streaming read starts where scan.mode and the scan.* options say; ",
                           "AtSnapshot, AtTimestamp and AtTag are for batch reads");
  }
  return OpenStreamReader(std::move(table), state_->request, state_->batch_rows);
}

}  // namespace fjord

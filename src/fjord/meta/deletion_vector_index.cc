#include "fjord/meta/deletion_vector_index.h"

#include <limits>

namespace fjord {

namespace {

constexpr char kVersion1 = 1;  // Java's DeletionVectorsIndexFile.VERSION_ID_V1

std::string PathOf(const TablePaths& paths, const IndexFileMeta& meta) {
  return meta.external_path ? *meta.external_path : paths.IndexFile(meta.file_name);
}

}  // namespace

Result<EncodedDeletionVectors> EncodeDeletionVectorsIndex(
    const std::vector<std::pair<std::string, std::shared_ptr<const DeletionVector>>>& vectors,
    bool bitmap64) {
  EncodedDeletionVectors out;
  out.bytes.push_back(kVersion1);
  for (const auto& [data_file, vector] : vectors) {
    if (vector == nullptr) return Status::Invalid("no deletion vector given for ", data_file);
    Result<std::string> entry = vector->Encode(bitmap64);
    if (!entry.ok()) return entry.status().WithContext("deletion vector of ", data_file);
    // DeletionVectorMeta holds int32 offsets and lengths, as Java's DataOutputStream counts.
    if (out.bytes.size() + entry->size() > static_cast<size_t>(INT32_MAX)) {
      return Status::Invalid("deletion vectors index file would exceed 2 GB at ", data_file);
    }
    DeletionVectorMeta range;
    range.data_file_name = data_file;
    range.offset = static_cast<int32_t>(out.bytes.size());
    range.length = static_cast<int32_t>(DeletionVectorRangeLength(entry->size(), bitmap64));
    range.cardinality = vector->cardinality();
    out.bytes += *entry;
    out.ranges.push_back(std::move(range));
  }
  return out;
}

Result<std::map<std::string, std::shared_ptr<const DeletionVector>>> ReadDeletionVectorsIndexFile(
    FileIO* io, const TablePaths& paths, const IndexFileMeta& meta) {
  const std::string path = PathOf(paths, meta);
  if (meta.index_type != kDeletionVectorsIndexType) {
    return Status::Invalid("index file ", path, " has type '", meta.index_type,
                           "', not DELETION_VECTORS");
  }
  if (!meta.dv_ranges) {
    return Status::Corruption("deletion vectors index file ", path,
                              ": its index manifest entry has no _DELETIONS_VECTORS_RANGES");
  }
  Result<std::string> bytes = io->ReadFile(path);
  if (!bytes.ok()) return bytes.status().WithContext("reading deletion vectors index file ", path);
  if (bytes->empty() || (*bytes)[0] != kVersion1) {
    return Status::Corruption(
        "deletion vectors index file ", path, ": version ",
        bytes->empty() ? std::string("missing") : std::to_string(static_cast<int>((*bytes)[0])),
        ", expected 1");
  }
  std::map<std::string, std::shared_ptr<const DeletionVector>> out;
  for (const DeletionVectorMeta& range : *meta.dv_ranges) {
    FJORD_ASSIGN_OR_RAISE(DeletionVector dv,
                          DeletionVector::Decode(*bytes, range.offset, range.length, path));
    out[range.data_file_name] = std::make_shared<const DeletionVector>(std::move(dv));
  }
  return out;
}

Result<IndexFileMeta> WriteDeletionVectorsIndexFile(
    FileIO* io, const TablePaths& paths, const std::string& file_name,
    const std::vector<std::pair<std::string, std::shared_ptr<const DeletionVector>>>& vectors,
    bool bitmap64) {
  FJORD_ASSIGN_OR_RAISE(EncodedDeletionVectors encoded,
                        EncodeDeletionVectorsIndex(vectors, bitmap64));
  const std::string path = paths.IndexFile(file_name);
  Status st = io->CreateIfAbsent(path, encoded.bytes);
  if (!st.ok()) return st.WithContext("writing deletion vectors index file ", path);
  IndexFileMeta meta;
  meta.index_type = std::string(kDeletionVectorsIndexType);
  meta.file_name = file_name;
  meta.file_size = static_cast<int64_t>(encoded.bytes.size());
  meta.row_count = static_cast<int64_t>(encoded.ranges.size());
  meta.dv_ranges = std::move(encoded.ranges);
  return meta;
}

Result<BucketDeletionVectors> BucketDeletionVectors::Restore(
    std::shared_ptr<FileIO> io, TablePaths paths, IndexFileNamer* namer, bool bitmap64,
    const std::vector<IndexFileMeta>& restored) {
  BucketDeletionVectors b(std::move(io), std::move(paths), namer, bitmap64);
  for (const IndexFileMeta& meta : restored) {
    FJORD_ASSIGN_OR_RAISE(auto vectors, ReadDeletionVectorsIndexFile(b.io_.get(), b.paths_, meta));
    for (auto& [data_file, dv] : vectors) b.vectors_[data_file] = Entry{std::move(dv), nullptr};
  }
  return b;
}

DeletionBitmap& BucketDeletionVectors::MutableBitmap(Entry& e) {
  if (e.bitmap == nullptr) {
    e.bitmap = e.snapshot ? std::make_unique<DeletionBitmap>(*e.snapshot)
                          : std::make_unique<DeletionBitmap>();
  }
  return *e.bitmap;
}

Status BucketDeletionVectors::CheckRange(const std::string& data_file, int64_t position) const {
  const int64_t max = bitmap64_ ? kMaxDeletionPosition64 : kMaxDeletionPosition32;
  if (position < 0 || position > max) {
    return Status::Invalid("deleted position ", position, " of data file ", data_file,
                           " is outside the range of ", bitmap64_ ? "64" : "32",
                           "-bit deletion vectors (0..", max, ")",
                           bitmap64_ ? "" : "; set deletion-vectors.bitmap64 for larger files");
  }
  return Status::OK();
}

Status BucketDeletionVectors::NotifyDeletion(const std::string& data_file, int64_t position) {
  FJORD_RETURN_NOT_OK(CheckRange(data_file, position));
  Entry& e = vectors_[data_file];
  if (MutableBitmap(e).Delete(position)) {
    e.snapshot.reset();
    modified_ = true;
  }
  return Status::OK();
}

Status BucketDeletionVectors::NotifyVector(const std::string& data_file,
                                           const DeletionVector& vector) {
  if (!vector.positions().empty()) {
    FJORD_RETURN_NOT_OK(CheckRange(data_file, vector.positions().front()));
    FJORD_RETURN_NOT_OK(CheckRange(data_file, vector.positions().back()));
  }
  vectors_[data_file] = Entry{std::make_shared<const DeletionVector>(vector), nullptr};
  modified_ = true;
  return Status::OK();
}

Status BucketDeletionVectors::MergeVector(const std::string& data_file,
                                          const DeletionVector& vector) {
  auto it = vectors_.find(data_file);
  if (it == vectors_.end()) return NotifyVector(data_file, vector);
  if (!vector.positions().empty()) {
    FJORD_RETURN_NOT_OK(CheckRange(data_file, vector.positions().front()));
    FJORD_RETURN_NOT_OK(CheckRange(data_file, vector.positions().back()));
  }
  MutableBitmap(it->second).Merge(vector);
  it->second.snapshot.reset();
  modified_ = true;  // as Java's mergeNewDeletion, even when nothing new was added
  return Status::OK();
}

void BucketDeletionVectors::RemoveVectorOf(const std::string& data_file) {
  if (vectors_.erase(data_file) > 0) modified_ = true;
}

std::shared_ptr<const DeletionVector> BucketDeletionVectors::VectorOf(
    const std::string& data_file) {
  auto it = vectors_.find(data_file);
  if (it == vectors_.end()) return nullptr;
  Entry& e = it->second;
  if (e.snapshot == nullptr) {
    e.snapshot = std::make_shared<const DeletionVector>(e.bitmap->Snapshot());
  }
  return e.snapshot;
}

std::vector<std::string> BucketDeletionVectors::DataFiles() const {
  std::vector<std::string> out;
  out.reserve(vectors_.size());
  for (const auto& [data_file, e] : vectors_) out.push_back(data_file);
  return out;
}

Result<std::optional<IndexFileMeta>> BucketDeletionVectors::WriteIfModified() {
  if (!modified_) return std::optional<IndexFileMeta>();
  // Java writes its HashMap's order; readers go by dv_ranges, so Fjord writes by file name.
  std::vector<std::pair<std::string, std::shared_ptr<const DeletionVector>>> vectors;
  vectors.reserve(vectors_.size());
  for (const auto& [data_file, e] : vectors_) vectors.emplace_back(data_file, VectorOf(data_file));
  FJORD_ASSIGN_OR_RAISE(
      IndexFileMeta meta,
      WriteDeletionVectorsIndexFile(io_.get(), paths_, namer_->Next(), vectors, bitmap64_));
  modified_ = false;
  return std::optional<IndexFileMeta>(std::move(meta));
}

}  // namespace fjord

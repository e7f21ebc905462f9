#include "fjord/table/commit/commit_message_codec.h"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "fjord/meta/manifest_writer.h"

namespace fjord {

namespace {

constexpr std::string_view kMagic = "FJCOMMIT";
constexpr size_t kHeaderSize = 8 + 2 + 8;
constexpr size_t kCrcSize = 4;

// Body record tags.
constexpr uint16_t kDataFilesTag = 1;
constexpr uint16_t kMessageTag = 2;
constexpr uint16_t kIndexFilesTag = 3;
// Message field tags.
constexpr uint16_t kPartitionTag = 1;
constexpr uint16_t kBucketTag = 2;
constexpr uint16_t kTotalBucketsTag = 3;

// The file lists of a message: tag, member, the kind of their manifest entries, name in errors.
struct FileListField {
  uint16_t tag;
  std::vector<DataFileMeta> CommitMessage::*files;
  FileKind kind;
  const char* name;
};
constexpr FileListField kFileLists[] = {
    {4, &CommitMessage::new_files, FileKind::kAdd, "new files"},
    {5, &CommitMessage::deleted_files, FileKind::kDelete, "deleted files"},
    {6, &CommitMessage::changelog_files, FileKind::kAdd, "changelog files"},
    {7, &CommitMessage::compact_before, FileKind::kDelete, "compact before"},
    {8, &CommitMessage::compact_after, FileKind::kAdd, "compact after"},
    {9, &CommitMessage::compact_changelog_files, FileKind::kAdd, "compact changelog files"},
};

// The index-file lists, ranges into the index-manifest container.
struct IndexListField {
  uint16_t tag;
  std::vector<IndexFileMeta> CommitMessage::*files;
  FileKind kind;
  const char* name;
};
constexpr IndexListField kIndexLists[] = {
    {10, &CommitMessage::new_index_files, FileKind::kAdd, "new index files"},
    {11, &CommitMessage::deleted_index_files, FileKind::kDelete, "deleted index files"},
    {12, &CommitMessage::compact_new_index_files, FileKind::kAdd, "compact new index files"},
    {13, &CommitMessage::compact_deleted_index_files, FileKind::kDelete,
     "compact deleted index files"},
};

// A fixed Avro sync marker keeps the encoding deterministic.
constexpr std::string_view kSyncMarker = "fjord-commit-msg";
static_assert(kSyncMarker.size() == 16);

uint32_t Crc32(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (!data.empty()) {
    uInt n = static_cast<uInt>(std::min<size_t>(data.size(), std::numeric_limits<uInt>::max()));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), n);
    data.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

void PutUint(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetUint(std::string_view in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}

void PutRecord(std::string* out, uint16_t tag, std::string_view value) {
  PutUint(out, tag, 2);
  PutUint(out, value.size(), 4);
  out->append(value);
}

std::string Int32Value(int32_t v) {
  std::string s;
  PutUint(&s, static_cast<uint32_t>(v), 4);
  return s;
}

std::string RangeValue(uint32_t first, uint32_t count) {
  std::string s;
  PutUint(&s, first, 4);
  PutUint(&s, count, 4);
  return s;
}

struct Record {
  uint16_t tag;
  std::string_view value;
};

// Splits `data` into records; `what` names the enclosing structure in errors.
Result<std::vector<Record>> SplitRecords(std::string_view data, std::string_view source,
                                         const std::string& what) {
  std::vector<Record> out;
  size_t pos = 0;
  while (pos < data.size()) {
    if (data.size() - pos < 6) {
      return Status::Corruption(source, ": ", what, ": truncated record header at byte ", pos);
    }
    auto tag = static_cast<uint16_t>(GetUint(data.substr(pos), 2));
    uint64_t length = GetUint(data.substr(pos + 2), 4);
    pos += 6;
    if (length > data.size() - pos) {
      return Status::Corruption(source, ": ", what, ": record with tag ", tag, " says ", length,
                                " bytes, only ", data.size() - pos, " remain");
    }
    out.push_back(Record{tag, data.substr(pos, length)});
    pos += length;
  }
  return out;
}

// A FileIO holding one file in memory, so that the manifest reader can decode an Avro container
// that is not on any storage.
class OneFileIO : public FileIO {
 public:
  OneFileIO(std::string path, std::string_view data) : path_(std::move(path)), data_(data) {}
  Result<std::string> ReadFile(const std::string& path) override {
    if (path != path_) return Status::NotFound(path);
    return std::string(data_);
  }
  Status WriteFile(const std::string&, std::string_view) override { return Unsupported(); }
  Status CreateIfAbsent(const std::string&, std::string_view) override { return Unsupported(); }
  Status Overwrite(const std::string&, std::string_view) override { return Unsupported(); }
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(const std::string&) override {
    return Unsupported();
  }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(const std::string&) override {
    return Unsupported();
  }
  Result<bool> Exists(const std::string& path) override { return path == path_; }
  Result<FileStatus> GetStatus(const std::string&) override { return Unsupported(); }
  Result<std::vector<FileStatus>> List(const std::string&) override { return Unsupported(); }
  Status MakeDirs(const std::string&) override { return Unsupported(); }
  Status Delete(const std::string&) override { return Unsupported(); }
  Status DeleteDirRecursive(const std::string&) override { return Unsupported(); }
  Status Rename(const std::string&, const std::string&) override { return Unsupported(); }

 private:
  static Status Unsupported() { return Status::Internal("in-memory FileIO: not supported"); }
  std::string path_;
  std::string_view data_;
};

struct FileRange {
  uint32_t first = 0;
  uint32_t count = 0;
};

const std::string& FileNameOf(const ManifestEntry& e) { return e.file.file_name; }
const std::string& FileNameOf(const IndexManifestEntry& e) { return e.file_name; }
bool MatchesMessage(const ManifestEntry& e, const CommitMessage& m) {
  return e.partition == m.partition && e.bucket == m.bucket && e.total_buckets == m.total_buckets;
}
bool MatchesMessage(const IndexManifestEntry& e, const CommitMessage& m) {
  return e.partition == m.partition && e.bucket == m.bucket;
}
DataFileMeta FileOf(const ManifestEntry& e) { return e.file; }
IndexFileMeta FileOf(const IndexManifestEntry& e) { return IndexFileOf(e); }

// The files of `range` in `entries` (data-file or index-file entries), each used once.
template <typename Entry>
Result<std::vector<decltype(FileOf(Entry{}))>> TakeFiles(
    const std::vector<Entry>& entries, std::vector<bool>* used, const FileRange& range,
    FileKind kind, const CommitMessage& m, std::string_view source, const std::string& what) {
  constexpr bool kIndex = std::is_same_v<Entry, IndexManifestEntry>;
  const char* noun = kIndex ? "index file " : "data file ";
  if (range.first > entries.size() || range.count > entries.size() - range.first) {
    return Status::Corruption(source, ": ", what, ": files ", range.first, "..",
                              uint64_t{range.first} + range.count, " out of range (",
                              entries.size(), kIndex ? " index files)" : " data files)");
  }
  std::vector<decltype(FileOf(Entry{}))> out;
  out.reserve(range.count);
  for (uint32_t i = range.first; i < range.first + range.count; ++i) {
    const Entry& e = entries[i];
    if ((*used)[i]) {
      return Status::Corruption(source, ": ", what, ": ", noun, i, " (", FileNameOf(e),
                                ") is referenced twice");
    }
    (*used)[i] = true;
    if (e.kind != kind || !MatchesMessage(e, m)) {
      return Status::Corruption(source, ": ", what, ": ", noun, i, " (", FileNameOf(e),
                                ") does not match its message (kind, partition or bucket)");
    }
    out.push_back(FileOf(e));
  }
  return out;
}

Result<FileRange> ParseRange(std::string_view value, std::string_view source,
                             const std::string& what) {
  if (value.size() != 8) {
    return Status::Corruption(source, ": ", what, ": a file range has 8 bytes, not ", value.size());
  }
  return FileRange{static_cast<uint32_t>(GetUint(value, 4)),
                   static_cast<uint32_t>(GetUint(value.substr(4), 4))};
}

Result<int32_t> ParseInt32(std::string_view value, std::string_view source,
                           const std::string& what) {
  if (value.size() != 4) {
    return Status::Corruption(source, ": ", what, ": an int has 4 bytes, not ", value.size());
  }
  return static_cast<int32_t>(static_cast<uint32_t>(GetUint(value, 4)));
}

}  // namespace

Result<std::string> EncodeCommitMessages(const std::vector<CommitMessage>& messages) {
  std::vector<ManifestEntry> entries;
  std::vector<IndexManifestEntry> index_entries;
  std::string message_records;
  for (const CommitMessage& m : messages) {
    std::string fields;
    PutRecord(&fields, kPartitionTag, m.partition);
    PutRecord(&fields, kBucketTag, Int32Value(m.bucket));
    PutRecord(&fields, kTotalBucketsTag, Int32Value(m.total_buckets));
    for (const FileListField& list : kFileLists) {
      const std::vector<DataFileMeta>& files = m.*list.files;
      if (files.empty()) continue;  // absent = empty: older readers keep reading the file
      PutRecord(
          &fields, list.tag,
          RangeValue(static_cast<uint32_t>(entries.size()), static_cast<uint32_t>(files.size())));
      for (const DataFileMeta& f : files) {
        entries.push_back(ManifestEntry{list.kind, m.partition, m.bucket, m.total_buckets, f});
      }
    }
    for (const IndexListField& list : kIndexLists) {
      const std::vector<IndexFileMeta>& files = m.*list.files;
      if (files.empty()) continue;
      PutRecord(&fields, list.tag,
                RangeValue(static_cast<uint32_t>(index_entries.size()),
                           static_cast<uint32_t>(files.size())));
      for (const IndexFileMeta& f : files) {
        index_entries.push_back(MakeIndexManifestEntry(list.kind, m.partition, m.bucket, f));
      }
    }
    if (fields.size() > std::numeric_limits<uint32_t>::max()) {
      return Status::Invalid("commit message too large to encode");
    }
    PutRecord(&message_records, kMessageTag, fields);
  }
  std::string body;
  ManifestWriterOptions options;
  options.format = ManifestFormat::kAvro;
  options.codec = avro::Codec::kNull;
  options.sync_marker = std::string(kSyncMarker);
  // One container section of `rows`, encoded by `encode`, when there are any.
  auto section = [&](uint16_t tag, const auto& rows, auto encode, const char* what) -> Status {
    if (rows.empty()) return Status::OK();
    FJORD_ASSIGN_OR_RAISE(std::string container, encode(rows, options));
    if (container.size() > std::numeric_limits<uint32_t>::max()) {
      return Status::Invalid("commit messages too large to encode (", rows.size(), " ", what, ")");
    }
    PutRecord(&body, tag, container);
    return Status::OK();
  };
  FJORD_RETURN_NOT_OK(section(kDataFilesTag, entries, EncodeManifestFile, "data files"));
  FJORD_RETURN_NOT_OK(section(kIndexFilesTag, index_entries, EncodeIndexManifest, "index files"));
  body += message_records;
  std::string out(kMagic);
  PutUint(&out, kCommitMessageFormatVersion, 2);
  PutUint(&out, body.size(), 8);
  out += body;
  PutUint(&out, Crc32(out), 4);
  return out;
}

Result<std::vector<CommitMessage>> DecodeCommitMessages(std::string_view data,
                                                        std::string_view source) {
  if (data.size() < kMagic.size() || data.substr(0, kMagic.size()) != kMagic) {
    return Status::Invalid(source, ": not a Fjord commit-message file (it does not start with \"",
                           kMagic, "\")");
  }
  if (data.size() < kHeaderSize) {
    return Status::Corruption(source, ": truncated: ", data.size(), " bytes, shorter than the ",
                              kHeaderSize, "-byte header");
  }
  auto version = static_cast<uint16_t>(GetUint(data.substr(8), 2));
  if (version != kCommitMessageFormatVersion) {
    return Status::Invalid(source, ": commit-message format version ", version,
                           " is not supported (this Fjord reads version ",
                           kCommitMessageFormatVersion, ")");
  }
  uint64_t body_size = GetUint(data.substr(10), 8);
  uint64_t available = data.size() - kHeaderSize;
  if (available < kCrcSize || body_size != available - kCrcSize) {
    if (available < kCrcSize || body_size > available - kCrcSize) {
      return Status::Corruption(source, ": truncated: the header announces ", body_size,
                                " body bytes and a 4-byte checksum, the file has ", available,
                                " bytes after the header");
    }
    return Status::Corruption(source, ": ", available - kCrcSize - body_size,
                              " unexpected bytes after the body");
  }
  std::string_view body = data.substr(kHeaderSize, body_size);
  uint32_t stored_crc = static_cast<uint32_t>(GetUint(data.substr(kHeaderSize + body_size), 4));
  uint32_t crc = Crc32(data.substr(0, kHeaderSize + body_size));
  if (stored_crc != crc) {
    return Status::Corruption(source, ": checksum mismatch (stored ", stored_crc, ", computed ",
                              crc, "): the file is damaged");
  }

  FJORD_ASSIGN_OR_RAISE(std::vector<Record> records, SplitRecords(body, source, "body"));
  std::vector<ManifestEntry> entries;
  std::vector<IndexManifestEntry> index_entries;
  bool have_files = false, have_index = false;
  std::vector<std::string_view> message_values;
  for (const Record& r : records) {
    if (r.tag == kDataFilesTag) {
      if (have_files) return Status::Corruption(source, ": two data-file sections");
      have_files = true;
      std::string where = std::string(source) + " (data files)";
      OneFileIO io(where, r.value);
      FJORD_ASSIGN_OR_RAISE(entries, ReadManifestFile(&io, where, "avro"));
    } else if (r.tag == kIndexFilesTag) {
      if (have_index) return Status::Corruption(source, ": two index-file sections");
      have_index = true;
      std::string where = std::string(source) + " (index files)";
      OneFileIO io(where, r.value);
      FJORD_ASSIGN_OR_RAISE(index_entries, ReadIndexManifest(&io, where, "avro"));
    } else if (r.tag == kMessageTag) {
      message_values.push_back(r.value);
    } else {
      return Status::Invalid(source, ": unknown section tag ", r.tag,
                             " (written by a newer Fjord?)");
    }
  }

  std::vector<bool> used(entries.size(), false);
  std::vector<bool> index_used(index_entries.size(), false);
  std::vector<CommitMessage> out;
  out.reserve(message_values.size());
  for (size_t i = 0; i < message_values.size(); ++i) {
    std::string what = "message " + std::to_string(i);
    FJORD_ASSIGN_OR_RAISE(std::vector<Record> fields,
                          SplitRecords(message_values[i], source, what));
    CommitMessage m;
    std::vector<uint16_t> seen;
    std::vector<std::pair<const FileListField*, FileRange>> ranges;
    std::vector<std::pair<const IndexListField*, FileRange>> index_ranges;
    for (const Record& f : fields) {
      if (std::find(seen.begin(), seen.end(), f.tag) != seen.end()) {
        return Status::Corruption(source, ": ", what, ": field tag ", f.tag, " appears twice");
      }
      seen.push_back(f.tag);
      switch (f.tag) {
        case kPartitionTag:
          m.partition = std::string(f.value);
          break;
        case kBucketTag: {
          FJORD_ASSIGN_OR_RAISE(m.bucket, ParseInt32(f.value, source, what + " bucket"));
          break;
        }
        case kTotalBucketsTag: {
          FJORD_ASSIGN_OR_RAISE(m.total_buckets,
                                ParseInt32(f.value, source, what + " total buckets"));
          break;
        }
        default: {
          const FileListField* list = nullptr;
          for (const FileListField& l : kFileLists) {
            if (l.tag == f.tag) list = &l;
          }
          const IndexListField* index_list = nullptr;
          for (const IndexListField& l : kIndexLists) {
            if (l.tag == f.tag) index_list = &l;
          }
          if (index_list != nullptr) {
            FJORD_ASSIGN_OR_RAISE(FileRange range,
                                  ParseRange(f.value, source, what + " " + index_list->name));
            index_ranges.emplace_back(index_list, range);
            break;
          }
          if (list == nullptr) {
            return Status::Invalid(source, ": ", what, ": unknown field tag ", f.tag,
                                   " (written by a newer Fjord?)");
          }
          FJORD_ASSIGN_OR_RAISE(FileRange range,
                                ParseRange(f.value, source, what + " " + list->name));
          ranges.emplace_back(list, range);
        }
      }
    }
    for (uint16_t required : {kPartitionTag, kBucketTag, kTotalBucketsTag}) {
      if (std::find(seen.begin(), seen.end(), required) == seen.end()) {
        static const char* kNames[] = {"", "partition", "bucket", "total buckets"};
        return Status::Corruption(source, ": ", what, ": required field '", kNames[required],
                                  "' is missing");
      }
    }
    for (const auto& [list, range] : ranges) {
      FJORD_ASSIGN_OR_RAISE(m.*list->files, TakeFiles(entries, &used, range, list->kind, m, source,
                                                      what + " " + list->name));
    }
    for (const auto& [list, range] : index_ranges) {
      FJORD_ASSIGN_OR_RAISE(m.*list->files, TakeFiles(index_entries, &index_used, range, list->kind,
                                                      m, source, what + " " + list->name));
    }
    out.push_back(std::move(m));
  }
  for (size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) {
      return Status::Corruption(source, ": data file ", i, " (", entries[i].file.file_name,
                                ") belongs to no message");
    }
  }
  for (size_t i = 0; i < index_used.size(); ++i) {
    if (!index_used[i]) {
      return Status::Corruption(source, ": index file ", i, " (", index_entries[i].file_name,
                                ") belongs to no message");
    }
  }
  return out;
}

}  // namespace fjord

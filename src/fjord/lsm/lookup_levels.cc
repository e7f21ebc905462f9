#include "fjord/lsm/lookup_levels.h"

#include <arrow/api.h>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_set>

#include "fjord/lsm/interval_partition.h"
#include "fjord/lsm/lookup_cache.h"

namespace fjord {

namespace {

class LookupLevelsImpl : public LookupLevels {
 public:
  LookupLevelsImpl(std::shared_ptr<LookupCacheImpl> cache, KvFileReaderFactory* readers,
                   std::string bucket_dir, KvLayout layout, LookupPayload payload,
                   KvFileReaderFactory::DeletionOfFn deletion_of, SortKeyEncoder key_encoder)
      : cache_(std::move(cache)),
        readers_(readers),
        bucket_dir_(std::move(bucket_dir)),
        layout_(std::move(layout)),
        payload_(payload),
        deletion_of_(std::move(deletion_of)),
        key_encoder_(std::move(key_encoder)) {
    for (int k : layout_.key_columns) {
      key_types_.push_back(layout_.fields[static_cast<size_t>(k)].type);
    }
    // Lookup files of one data file differ by what they store: the payload and the layout.
    size_t layout_hash = std::hash<std::string>()(layout_.schema->ToString());
    id_prefix_ = bucket_dir_ + "/";
    id_suffix_ =
        "#" + std::to_string(static_cast<int>(payload_)) + "#" + std::to_string(layout_hash);
  }

  ~LookupLevelsImpl() override {
    for (const auto& level : levels_) {
      for (const Slot& slot : level) cache_->Drop(slot.id);
    }
  }

  Status SetFiles(const std::vector<DataFileMeta>& files) override {
    std::vector<DataFileMeta> above0;
    for (const DataFileMeta& f : files) {
      if (f.level >= 1) above0.push_back(f);
    }
    FJORD_ASSIGN_OR_RAISE(std::vector<KeyRange> ranges,
                          FileKeyRanges(above0, key_types_, /*declared_nullability=*/true));
    std::vector<std::vector<Slot>> levels;
    std::unordered_set<std::string> kept;
    for (size_t i = 0; i < above0.size(); ++i) {
      size_t level = static_cast<size_t>(above0[i].level);
      if (levels.size() <= level) levels.resize(level + 1);
      Slot slot;
      slot.id = id_prefix_ + above0[i].file_name + id_suffix_;
      slot.file = std::move(above0[i]);
      slot.range = std::move(ranges[i]);
      kept.insert(slot.id);
      levels[level].push_back(std::move(slot));
    }
    for (auto& level : levels) {
      std::sort(level.begin(), level.end(),
                [](const Slot& a, const Slot& b) { return a.range.min < b.range.min; });
      for (size_t i = 1; i < level.size(); ++i) {
        if (!(level[i - 1].range.max < level[i].range.min)) {
          return Status::Invalid("lookup levels of ", bucket_dir_, ": files ",
                                 level[i - 1].file.file_name, " and ", level[i].file.file_name,
                                 " of level ", level[i].file.level, " overlap in keys");
        }
      }
    }
    for (const auto& level : levels_) {
      for (const Slot& slot : level) {
        if (!kept.count(slot.id)) cache_->Drop(slot.id);
      }
    }
    levels_ = std::move(levels);
    return Status::OK();
  }

  Result<std::optional<LookupHit>> Lookup(std::string_view key, int32_t start_level) override {
    for (size_t level = static_cast<size_t>(std::max(start_level, 1)); level < levels_.size();
         ++level) {
      std::vector<Slot>& files = levels_[level];
      // The first file whose range ends at or after the key; it holds the key if it starts
      // before it.
      auto it = std::lower_bound(files.begin(), files.end(), key, [](const Slot& s, auto k) {
        return std::string_view(s.range.max) < k;
      });
      if (it == files.end() || key < std::string_view(it->range.min)) continue;
      FJORD_ASSIGN_OR_RAISE(std::optional<LookupHit> hit, LookupFile(*it, key));
      if (hit) return hit;
    }
    return std::optional<LookupHit>();
  }

 private:
  struct Slot {
    DataFileMeta file;
    KeyRange range;
    std::string id;
    // The file's deletion vector, asked once per SetFiles.
    bool deletion_known = false;
    std::shared_ptr<const DeletionVector> deletion;
  };

  Result<std::optional<LookupHit>> LookupFile(Slot& slot, std::string_view key) {
    if (!slot.deletion_known) {
      if (deletion_of_) {
        FJORD_ASSIGN_OR_RAISE(slot.deletion, deletion_of_(slot.file));
      }
      slot.deletion_known = true;
    }
    std::shared_ptr<LocalLookupFile> file = cache_->Acquire(slot.id);
    if (!file) {
      FJORD_ASSIGN_OR_RAISE(file, Build(slot));
    }
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const LookupFileMeta> meta, cache_->Meta(*file));
    if (meta->has_bloom && !meta->bloom.MayContain(key)) return std::optional<LookupHit>();
    auto b = std::lower_bound(
        meta->last_keys.begin(), meta->last_keys.end(), key,
        [](const std::string& last, std::string_view k) { return std::string_view(last) < k; });
    if (b == meta->last_keys.end()) return std::optional<LookupHit>();
    FJORD_ASSIGN_OR_RAISE(
        std::shared_ptr<const LookupBlock> block,
        cache_->Block(*file, *meta, static_cast<size_t>(b - meta->last_keys.begin())));
    int64_t entry = block->Find(key);
    if (entry < 0) return std::optional<LookupHit>();
    std::string_view payload = block->Payload(entry);
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    uint64_t position = 0;
    if (!GetVarint(&p, p + payload.size(), &position)) {
      return Status::Corruption("lookup file ", file->path(), " of ", slot.file.file_name,
                                ": bad position");
    }
    // Rows deleted since the file was built: deletion vectors only grow, so the file stays
    // valid with the current vector applied here.
    if (slot.deletion && slot.deletion->IsDeleted(static_cast<int64_t>(position))) {
      return std::optional<LookupHit>();
    }
    LookupHit hit;
    hit.level = slot.file.level;
    hit.file_name = slot.file.file_name;
    if (payload_ == LookupPayload::kPosition || payload_ == LookupPayload::kRecordAndPosition) {
      hit.position = static_cast<int64_t>(position);
    }
    if (payload_ == LookupPayload::kRecord || payload_ == LookupPayload::kRecordAndPosition) {
      hit.record = block->Record(entry);
    }
    return std::optional<LookupHit>(std::move(hit));
  }

  // Builds the lookup file of `slot` from its data file as read now.
  Result<std::shared_ptr<LocalLookupFile>> Build(const Slot& slot) {
    Result<std::shared_ptr<LocalLookupFile>> built = BuildUnchecked(slot);
    if (!built.ok()) {
      return built.status().WithContext("building the lookup file of ", bucket_dir_, "/",
                                        slot.file.file_name);
    }
    return built;
  }

  Result<std::shared_ptr<LocalLookupFile>> BuildUnchecked(const Slot& slot) {
    const DataFileMeta& data = slot.file;
    bool with_records =
        payload_ == LookupPayload::kRecord || payload_ == LookupPayload::kRecordAndPosition;
    // Read without the deletion vector, which is applied here: positions are the data file's
    // physical row numbers.
    FJORD_ASSIGN_OR_RAISE(auto reader,
                          readers_->OpenFile(bucket_dir_, data, layout_.fields, true, nullptr));
    const std::vector<int64_t> empty;
    const std::vector<int64_t>& deleted = slot.deletion ? slot.deletion->positions() : empty;
    size_t next_deleted = 0;
    uint64_t uid = 0;
    std::string path = cache_->NewPath(&uid);
    std::unique_ptr<LookupFileWriter> writer;
    double fpp = cache_->options().bloom_filter ? cache_->options().bloom_fpp : 0;
    int64_t expected = std::max<int64_t>(data.row_count - static_cast<int64_t>(deleted.size()), 1);
    int64_t position = 0;
    std::string payload;
    while (true) {
      FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::RecordBatch> batch, reader->Next());
      if (!batch) break;
      batch = WithLayoutNames(batch);
      if (!writer) {
        FJORD_ASSIGN_OR_RAISE(
            writer,
            LookupFileWriter::Open(path, expected, fpp, with_records ? batch->schema() : nullptr));
      }
      FJORD_ASSIGN_OR_RAISE(EncodedRows keys, key_encoder_.Encode(*batch));
      for (int64_t r = 0; r < batch->num_rows(); ++r, ++position) {
        while (next_deleted < deleted.size() && deleted[next_deleted] < position) ++next_deleted;
        if (next_deleted < deleted.size() && deleted[next_deleted] == position) continue;
        // Every payload holds the position: rows deleted later are recognised by it.
        payload.clear();
        PutVarint(&payload, static_cast<uint64_t>(position));
        FJORD_RETURN_NOT_OK(writer->Add(keys[r], payload, with_records ? batch : nullptr, r));
      }
    }
    if (!writer) {
      FJORD_ASSIGN_OR_RAISE(
          writer,
          LookupFileWriter::Open(path, expected, fpp, with_records ? layout_.schema : nullptr));
    }
    std::shared_ptr<const LookupFileMeta> meta;
    FJORD_ASSIGN_OR_RAISE(int64_t size, writer->Finish(&meta));
    return cache_->Insert(slot.id, uid, std::move(path), size, std::move(meta));
  }

  // The layout's names with each column's own type, as the run reader gives them.
  std::shared_ptr<arrow::RecordBatch> WithLayoutNames(
      const std::shared_ptr<arrow::RecordBatch>& batch) const {
    arrow::FieldVector fields;
    for (int c = 0; c < batch->num_columns(); ++c) {
      const auto& f = layout_.schema->field(c);
      fields.push_back(arrow::field(f->name(), batch->column(c)->type(), f->nullable()));
    }
    return arrow::RecordBatch::Make(arrow::schema(fields), batch->num_rows(), batch->columns());
  }

  std::shared_ptr<LookupCacheImpl> cache_;
  KvFileReaderFactory* readers_;
  std::string bucket_dir_;
  KvLayout layout_;
  LookupPayload payload_;
  KvFileReaderFactory::DeletionOfFn deletion_of_;
  SortKeyEncoder key_encoder_;
  std::vector<DataTypePtr> key_types_;
  std::string id_prefix_;
  std::string id_suffix_;
  std::vector<std::vector<Slot>> levels_;  // by level; level 0 stays empty
};

}  // namespace

Result<std::unique_ptr<LookupLevels>> LookupLevels::Make(
    std::shared_ptr<LookupCache> cache, KvFileReaderFactory* readers, std::string bucket_dir,
    KvLayout layout, LookupPayload payload, KvFileReaderFactory::DeletionOfFn deletion_of) {
  if (!cache || !readers) return Status::Invalid("lookup levels need a cache and readers");
  auto impl = std::static_pointer_cast<LookupCacheImpl>(std::move(cache));
  FJORD_RETURN_NOT_OK(impl->Init());
  FJORD_ASSIGN_OR_RAISE(SortKeyEncoder encoder, layout.KeyEncoder());
  return std::unique_ptr<LookupLevels>(
      new LookupLevelsImpl(std::move(impl), readers, std::move(bucket_dir), std::move(layout),
                           payload, std::move(deletion_of), std::move(encoder)));
}

}  // namespace fjord

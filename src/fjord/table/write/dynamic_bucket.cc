#include "fjord/table/write/dynamic_bucket.h"

#include <algorithm>
#include <set>

#include "fjord/common/ids.h"
#include "fjord/meta/hash_index.h"

namespace fjord {

void AddHashIndexChanges(const std::vector<HashIndexChange>& changes, int32_t total_buckets,
                         std::vector<CommitMessage>* messages) {
  for (const HashIndexChange& c : changes) {
    auto it = std::find_if(messages->begin(), messages->end(), [&](const CommitMessage& m) {
      return m.partition == c.partition && m.bucket == c.bucket;
    });
    if (it == messages->end()) {
      CommitMessage m;
      m.partition = c.partition;
      m.bucket = c.bucket;
      m.total_buckets = total_buckets;
      it = messages->insert(messages->end(), std::move(m));
    }
    it->new_index_files.push_back(IndexFileOf(c.new_file));
    if (c.old_file) it->deleted_index_files.push_back(IndexFileOf(*c.old_file));
  }
}

namespace {

// Buckets are stored as int16 in Java's index (Int2ShortHashMap); ids go up to 32766.
constexpr int32_t kMaxBucketsUnbounded = 32767;

// Key hash -> bucket, open addressing (6 bytes a slot, at most half full): a partition may
// hold tens of millions of keys, which a node-based map would keep at several times the size.
class HashToBucket {
 public:
  HashToBucket() { Resize(64); }

  // -1 when absent.
  int32_t Find(int32_t key) const {
    for (size_t i = Slot(key);; i = (i + 1) & mask_) {
      if (buckets_[i] < 0) return -1;
      if (keys_[i] == key) return buckets_[i];
    }
  }

  // Sets key -> bucket (the last write wins, as Java's map does).
  void Put(int32_t key, int32_t bucket) {
    size_t i = Slot(key);
    while (buckets_[i] >= 0 && keys_[i] != key) i = (i + 1) & mask_;
    if (buckets_[i] < 0) ++size_;
    keys_[i] = key;
    buckets_[i] = static_cast<int16_t>(bucket);
    if (size_ * 2 > keys_.size()) Resize(keys_.size() * 2);
  }

  size_t size() const { return size_; }

 private:
  size_t Slot(int32_t key) const {
    return static_cast<size_t>((static_cast<uint32_t>(key) * 0x9E3779B1u) >> shift_) & mask_;
  }

  void Resize(size_t slots) {
    std::vector<int32_t> keys = std::move(keys_);
    std::vector<int16_t> buckets = std::move(buckets_);
    keys_.assign(slots, 0);
    buckets_.assign(slots, -1);
    mask_ = slots - 1;
    int bits = 0;
    while ((size_t{1} << bits) < slots) ++bits;
    shift_ = 32 - bits;
    size_ = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (buckets[i] >= 0) Put(keys[i], buckets[i]);
    }
  }

  std::vector<int32_t> keys_;
  std::vector<int16_t> buckets_;  // -1 = empty slot
  size_t mask_ = 0;
  int shift_ = 0;
  size_t size_ = 0;
};

}  // namespace

struct DynamicBucketAssigner::PartitionIndex {
  HashToBucket hash_to_bucket;
  std::map<int32_t, int64_t> non_full;  // candidate bucket -> keys, ascending
  std::set<int32_t> buckets;            // every bucket of the partition
  std::vector<int32_t> bucket_list;     // the same, for a random pick
  std::map<int32_t, int64_t> key_counts;
  bool upper_bound_reached = false;
  int32_t next_free = 0;                        // no id below it is free (ids are never given back)
  std::map<int32_t, IndexManifestEntry> files;  // current index file per bucket
  std::map<int32_t, std::vector<int32_t>> new_hashes;  // keys added since the last commit
};

Result<DynamicBucketOptions> DynamicBucketOptions::FromOptions(const CoreOptions& options) {
  DynamicBucketOptions o;
  o.target_row_num = options.dynamic_bucket_target_row_num();
  if (o.target_row_num < 1) {
    return Status::Invalid("option 'dynamic-bucket.target-row-num' must be at least 1, got ",
                           o.target_row_num);
  }
  o.max_buckets = options.dynamic_bucket_max_buckets();
  if (o.max_buckets != -1 && (o.max_buckets < 1 || o.max_buckets > kMaxBucketsUnbounded)) {
    return Status::Invalid("option 'dynamic-bucket.max-buckets' must be -1 (no limit) or 1 to ",
                           kMaxBucketsUnbounded, ", got ", o.max_buckets);
  }
  return o;
}

DynamicBucketAssigner::DynamicBucketAssigner(std::shared_ptr<FileIO> io, std::string table_root,
                                             std::string manifest_format,
                                             DynamicBucketOptions options)
    : io_(io),
      snapshots_(std::move(io), std::move(table_root)),
      manifest_format_(std::move(manifest_format)),
      options_(options),
      file_uuid_(RandomUuid()),
      random_(std::random_device{}()) {}

DynamicBucketAssigner::~DynamicBucketAssigner() = default;

Status DynamicBucketAssigner::RefreshIndexManifest() {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots_.LatestId());
  if (latest == manifest_snapshot_) return Status::OK();
  snapshot_files_.clear();
  manifest_snapshot_ = latest;
  if (!latest) return Status::OK();
  FJORD_ASSIGN_OR_RAISE(Snapshot snapshot, snapshots_.Load(*latest));
  if (!snapshot.index_manifest) return Status::OK();
  std::string path = snapshots_.paths().ManifestFile(*snapshot.index_manifest);
  FJORD_ASSIGN_OR_RAISE(std::vector<IndexManifestEntry> entries,
                        ReadIndexManifest(io_.get(), path, manifest_format_));
  for (IndexManifestEntry& e : entries) {
    if (e.kind != FileKind::kAdd || e.index_type != kHashIndexType) continue;
    snapshot_files_[e.partition].push_back(std::move(e));
  }
  return Status::OK();
}

Result<DynamicBucketAssigner::PartitionIndex*> DynamicBucketAssigner::IndexOf(
    const std::string& partition) {
  auto it = partitions_.find(partition);
  if (it != partitions_.end()) return it->second.get();
  FJORD_RETURN_NOT_OK(RefreshIndexManifest());
  auto index = std::make_unique<PartitionIndex>();
  auto files = snapshot_files_.find(partition);
  if (files != snapshot_files_.end()) {
    for (const IndexManifestEntry& e : files->second) {
      if (e.bucket < 0 || e.bucket >= kMaxBucketsUnbounded) {
        return Status::Corruption("hash index file ", e.file_name, " is listed for bucket ",
                                  e.bucket, ", outside 0..", kMaxBucketsUnbounded - 1);
      }
      if (index->files.count(e.bucket)) {
        return Status::Corruption("the index manifest of snapshot ", *manifest_snapshot_,
                                  " lists two hash index files for bucket ", e.bucket, ": ",
                                  index->files[e.bucket].file_name, " and ", e.file_name);
      }
      FJORD_ASSIGN_OR_RAISE(std::vector<int32_t> hashes,
                            ReadHashIndexFile(io_.get(), snapshots_.paths(), e));
      for (int32_t h : hashes) index->hash_to_bucket.Put(h, e.bucket);
      index->files[e.bucket] = e;
      index->key_counts[e.bucket] += static_cast<int64_t>(hashes.size());
      index->buckets.insert(e.bucket);
    }
  }
  index->non_full = index->key_counts;
  index->bucket_list.assign(index->buckets.begin(), index->buckets.end());
  PartitionIndex* raw = index.get();
  partitions_.emplace(partition, std::move(index));
  return raw;
}

Result<int32_t> DynamicBucketAssigner::AssignIn(PartitionIndex& index, int32_t key_hash) {
  int32_t known = index.hash_to_bucket.Find(key_hash);
  if (known >= 0) return known;
  int32_t bucket = -1;
  // An existing bucket with room; full ones stop being candidates.
  for (auto it = index.non_full.begin(); it != index.non_full.end();) {
    if (it->second < options_.target_row_num) {
      ++it->second;
      bucket = it->first;
      break;
    }
    it = index.non_full.erase(it);
  }
  if (bucket < 0 && !index.upper_bound_reached) {
    // A new bucket: the smallest id not in use under the cap.
    int32_t cap = options_.max_buckets == -1 ? kMaxBucketsUnbounded : options_.max_buckets;
    while (index.next_free < cap && index.buckets.count(index.next_free)) ++index.next_free;
    if (index.next_free < cap) {
      bucket = index.next_free;
      index.non_full[bucket] = 1;
      index.buckets.insert(bucket);
      index.bucket_list.push_back(bucket);
    }
    if (bucket < 0) {
      if (options_.max_buckets == -1) {
        return Status::Invalid("a partition reached ", kMaxBucketsUnbounded,
                               " dynamic buckets; raise 'dynamic-bucket.target-row-num' (now ",
                               options_.target_row_num, ")");
      }
      index.upper_bound_reached = true;
    }
  }
  if (bucket < 0) {
    // Over the cap: a random existing bucket, as Java does.
    std::uniform_int_distribution<size_t> pick(0, index.bucket_list.size() - 1);
    bucket = index.bucket_list[pick(random_)];
  }
  index.hash_to_bucket.Put(key_hash, bucket);
  index.key_counts[bucket]++;
  index.new_hashes[bucket].push_back(key_hash);
  return bucket;
}

Status DynamicBucketAssigner::AssignBuckets(const std::vector<std::string>& partitions,
                                            const std::vector<int32_t>& row_partition,
                                            std::vector<int32_t>* buckets) {
  if (row_partition.size() != buckets->size()) {
    return Status::Invalid("bucket assignment got ", buckets->size(), " hashes for ",
                           row_partition.size(), " rows");
  }
  std::vector<PartitionIndex*> indexes(partitions.size(), nullptr);
  for (size_t i = 0; i < buckets->size(); ++i) {
    auto p = static_cast<size_t>(row_partition[i]);
    if (p >= partitions.size()) return Status::Invalid("row ", i, " has no partition");
    if (!indexes[p]) {
      FJORD_ASSIGN_OR_RAISE(indexes[p], IndexOf(partitions[p]));
    }
    FJORD_ASSIGN_OR_RAISE((*buckets)[i], AssignIn(*indexes[p], (*buckets)[i]));
  }
  return Status::OK();
}

Result<int32_t> DynamicBucketAssigner::Assign(const std::string& partition, int32_t key_hash) {
  FJORD_ASSIGN_OR_RAISE(PartitionIndex * index, IndexOf(partition));
  return AssignIn(*index, key_hash);
}

Result<std::vector<HashIndexChange>> DynamicBucketAssigner::PrepareCommit() {
  std::vector<HashIndexChange> changes;
  for (auto& [partition, index] : partitions_) {
    for (auto& [bucket, added] : index->new_hashes) {
      if (added.empty()) continue;
      HashIndexChange change;
      change.partition = partition;
      change.bucket = bucket;
      std::vector<int32_t> hashes;
      auto old = index->files.find(bucket);
      if (old != index->files.end()) {
        change.old_file = old->second;
        FJORD_ASSIGN_OR_RAISE(hashes,
                              ReadHashIndexFile(io_.get(), snapshots_.paths(), old->second));
      }
      hashes.insert(hashes.end(), added.begin(), added.end());
      std::string name = "index-" + file_uuid_ + "-" + std::to_string(file_counter_++);
      FJORD_ASSIGN_OR_RAISE(change.new_file, WriteHashIndexFile(io_.get(), snapshots_.paths(), name,
                                                                partition, bucket, hashes));
      index->files[bucket] = change.new_file;
      added.clear();
      changes.push_back(std::move(change));
    }
  }
  return changes;
}

Result<std::map<int32_t, int64_t>> DynamicBucketAssigner::BucketKeyCounts(
    const std::string& partition) {
  FJORD_ASSIGN_OR_RAISE(PartitionIndex * index, IndexOf(partition));
  return index->key_counts;
}

}  // namespace fjord

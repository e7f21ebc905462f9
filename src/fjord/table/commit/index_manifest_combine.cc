#include "fjord/table/commit/index_manifest_combine.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

namespace fjord {

namespace {

constexpr std::string_view kHashIndex = "HASH";
constexpr std::string_view kDeletionVectors = "DELETION_VECTORS";

enum class Keying { kBucket, kUnawareDv, kFileName };

Keying KeyingOf(const std::string& type, bool bucket_unaware) {
  if (type == kHashIndex) return Keying::kBucket;
  if (type == kDeletionVectors) return bucket_unaware ? Keying::kUnawareDv : Keying::kBucket;
  return Keying::kFileName;
}

// One slot of the combined manifest: (partition, bucket, type) for bucketed keying, the file
// name (with the type, so that types never collide) otherwise.
using Slot = std::tuple<std::string, int32_t, std::string, std::string>;

Slot SlotOf(const IndexManifestEntry& e, Keying keying) {
  if (keying == Keying::kBucket) return {e.partition, e.bucket, e.index_type, ""};
  return {"", 0, e.index_type, e.file_name};
}

std::vector<std::string> DvDataFiles(const IndexManifestEntry& e) {
  std::vector<std::string> out;
  if (e.dv_ranges) {
    for (const DeletionVectorMeta& dv : *e.dv_ranges) out.push_back(dv.data_file_name);
  }
  return out;
}

}  // namespace

Result<std::vector<IndexManifestEntry>> CombineIndexManifest(
    const std::vector<IndexManifestEntry>& previous, const std::vector<IndexManifestEntry>& changes,
    bool bucket_unaware) {
  // Slots in first-insertion order; an emptied slot stays as nullopt.
  std::vector<std::optional<IndexManifestEntry>> entries;
  std::map<Slot, size_t> slots;
  std::set<std::string> dv_data_files;  // data files with a deletion vector (unaware tables)
  for (const IndexManifestEntry& e : previous) {
    if (e.kind != FileKind::kAdd) {
      return Status::Corruption("the previous index manifest holds a DELETE entry for ",
                                e.file_name);
    }
    Keying keying = KeyingOf(e.index_type, bucket_unaware);
    Slot slot = SlotOf(e, keying);
    auto [it, inserted] = slots.emplace(slot, entries.size());
    if (inserted) {
      entries.push_back(e);
    } else {
      entries[it->second] = e;
    }
    if (keying == Keying::kUnawareDv) {
      for (std::string& f : DvDataFiles(e)) dv_data_files.insert(std::move(f));
    }
  }
  // Deletes first, so that a file replacing another in its slot is not removed with it.
  for (const IndexManifestEntry& e : changes) {
    if (e.kind != FileKind::kDelete) continue;
    Keying keying = KeyingOf(e.index_type, bucket_unaware);
    auto it = slots.find(SlotOf(e, keying));
    bool present = it != slots.end() && entries[it->second].has_value();
    if (keying != Keying::kBucket && !present) {
      return Status::Invalid("index file ", e.file_name, " (", e.index_type,
                             ") is deleted but is not in the index manifest");
    }
    if (keying == Keying::kUnawareDv) {
      for (const std::string& f : DvDataFiles(e)) {
        if (dv_data_files.erase(f) == 0) {
          return Status::Invalid("index file ", e.file_name, " deletes the deletion vector of ", f,
                                 ", which has none");
        }
      }
    }
    if (present) entries[it->second].reset();
  }
  for (const IndexManifestEntry& e : changes) {
    if (e.kind != FileKind::kAdd) continue;
    Keying keying = KeyingOf(e.index_type, bucket_unaware);
    Slot slot = SlotOf(e, keying);
    auto it = slots.find(slot);
    bool present = it != slots.end() && entries[it->second].has_value();
    if (keying == Keying::kUnawareDv) {
      if (present) {
        return Status::Invalid("index file ", e.file_name, " is added but is already there");
      }
      for (const std::string& f : DvDataFiles(e)) {
        if (!dv_data_files.insert(f).second) {
          return Status::Invalid("index file ", e.file_name,
                                 " adds a deletion vector for data file ", f,
                                 ", which already has one");
        }
      }
    }
    if (it == slots.end()) {
      slots.emplace(std::move(slot), entries.size());
      entries.push_back(e);
    } else {
      entries[it->second] = e;
    }
  }
  std::vector<IndexManifestEntry> out;
  for (auto& e : entries) {
    if (e) out.push_back(std::move(*e));
  }
  return out;
}

}  // namespace fjord

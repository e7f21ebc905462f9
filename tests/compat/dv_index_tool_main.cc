// fjord_dv_index_tool: writes DELETION_VECTORS index files with Fjord's BucketDeletionVectors
// (meta/deletion_vector_index.h) for compat.java_reads_fjord_deletion_vectors, which has Java
// Paimon read them.
//
//   fjord_dv_index_tool DIR SEED
//
// Writes DIR/index/index-<uuid>-<n>, for each layout (32- and 64-bit): a bucket of random vectors
// of several shapes, deleted in random order; that bucket restored and changed (more deletions,
// a merged vector, a replaced vector, a removed file); and a bucket whose vectors were all
// removed. Prints one JSON line per file: {"path", "bitmap64", "ranges": [[data file, offset,
// length, cardinality], ...], "vectors": {data file: [positions]}}, the vectors taken from a
// reference set kept beside the maintainer (not from what it wrote). Exit status 0, or 1 with the
// error on stderr.
#include <algorithm>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/deletion_vector_index.h"

namespace {

using fjord::BucketDeletionVectors;
using fjord::DeletionVector;
using Reference = std::map<std::string, std::set<int64_t>>;

// Positions of one vector, of the shape `kind` picks.
std::vector<int64_t> Shape(int kind, bool bitmap64, std::mt19937_64& rng) {
  std::vector<int64_t> out;
  auto rand = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  switch (kind % 7) {
    case 0:  // sparse over many 64K blocks
      for (int i = 0; i < 500; ++i) out.push_back(rand(10'000'000));
      break;
    case 1: {  // long runs, crossing block boundaries
      int64_t start = rand(200'000);
      for (int64_t p = start; p < start + 150'000; ++p) out.push_back(p);
      break;
    }
    case 2:  // every other position of two blocks: bitset containers
      for (int64_t p = 65536; p < 3 * 65536; p += 2) out.push_back(p);
      break;
    case 3:  // runs of 3 with gaps of 2: arrays and runs of equal size, and runs slightly smaller
      for (int64_t p = 0; p < 9000; p += 5) {
        out.insert(out.end(), {p, p + 1, p + 2});
      }
      out.insert(out.end(), {100'000, 100'001, 100'002, 100'003, 100'004, 100'009});
      // A block where both are 10 bytes: Java keeps the array.
      out.insert(out.end(), {200'000, 200'001, 200'002, 200'010, 200'011});
      break;
    case 4:  // the top of the layout's range (64-bit: a few high halves, as Java allocates
             // every one below the largest)
      if (bitmap64) {
        for (int64_t high : {0, 1, 3}) {
          for (int i = 0; i < 50; ++i) out.push_back((high << 32) + rand(int64_t{1} << 32));
        }
      } else {
        for (int i = 0; i < 300; ++i) out.push_back(fjord::kMaxDeletionPosition32 - rand(200'000));
        out.push_back(fjord::kMaxDeletionPosition32);
      }
      break;
    case 5:  // one position
      out.push_back(rand(1000));
      break;
    case 6:  // dense random: more than 4096 in a block, not regular
      for (int i = 0; i < 30'000; ++i) out.push_back(rand(65536 * 2));
      break;
  }
  return out;
}

std::string Json(const std::string& path, bool bitmap64, const fjord::IndexFileMeta& meta,
                 const Reference& ref) {
  std::string s =
      "{\"path\":\"" + path + "\",\"bitmap64\":" + (bitmap64 ? "true" : "false") + ",\"ranges\":[";
  bool first = true;
  for (const auto& r : *meta.dv_ranges) {
    s += (first ? "" : ",");
    s += "[\"" + r.data_file_name + "\"," + std::to_string(r.offset) + "," +
         std::to_string(r.length) + "," + std::to_string(r.cardinality.value_or(-1)) + "]";
    first = false;
  }
  s += "],\"vectors\":{";
  first = true;
  for (const auto& [file, positions] : ref) {
    s += (first ? "\"" : ",\"") + file + "\":[";
    bool p1 = true;
    for (int64_t p : positions) {
      s += (p1 ? "" : ",") + std::to_string(p);
      p1 = false;
    }
    s += "]";
    first = false;
  }
  return s + "}}";
}

fjord::Status Run(const std::string& dir, uint64_t seed) {
  auto io = fjord::FileIO::Local();
  fjord::TablePaths paths{dir};
  FJORD_RETURN_NOT_OK(io->MakeDirs(paths.IndexDir()));
  fjord::IndexFileNamer namer;
  std::mt19937_64 rng(seed);
  for (bool bitmap64 : {false, true}) {
    // 1. A new bucket: vectors of every shape, positions deleted in random order.
    FJORD_ASSIGN_OR_RAISE(auto bucket,
                          BucketDeletionVectors::Restore(io, paths, &namer, bitmap64, {}));
    Reference ref;
    for (int kind = 0; kind < 7; ++kind) {
      std::string file =
          "data-" + std::to_string(kind) + "-" + std::to_string(rng() % 1000) + ".parquet";
      std::vector<int64_t> positions = Shape(kind, bitmap64, rng);
      std::shuffle(positions.begin(), positions.end(), rng);
      for (int64_t p : positions) {
        FJORD_RETURN_NOT_OK(bucket.NotifyDeletion(file, p));
        ref[file].insert(p);
      }
    }
    FJORD_ASSIGN_OR_RAISE(auto first, bucket.WriteIfModified());
    std::cout << Json(paths.IndexFile(first->file_name), bitmap64, *first, ref) << "\n";

    // 2. Restored from that file and changed.
    FJORD_ASSIGN_OR_RAISE(auto again,
                          BucketDeletionVectors::Restore(io, paths, &namer, bitmap64, {*first}));
    auto it = ref.begin();
    const std::string merged = it->first, replaced = (++it)->first, removed = (++it)->first;
    std::vector<int64_t> extra = Shape(6, bitmap64, rng);
    std::sort(extra.begin(), extra.end());
    extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
    FJORD_RETURN_NOT_OK(again.MergeVector(merged, DeletionVector(extra)));
    ref[merged].insert(extra.begin(), extra.end());
    FJORD_RETURN_NOT_OK(again.NotifyVector(replaced, DeletionVector({1, 2, 3, 65536})));
    ref[replaced] = {1, 2, 3, 65536};
    again.RemoveVectorOf(removed);
    ref.erase(removed);
    for (int i = 0; i < 1000; ++i) {
      int64_t p = static_cast<int64_t>(rng() % 500'000);
      FJORD_RETURN_NOT_OK(again.NotifyDeletion("data-new.parquet", p));
      ref["data-new.parquet"].insert(p);
    }
    FJORD_ASSIGN_OR_RAISE(auto second, again.WriteIfModified());
    std::cout << Json(paths.IndexFile(second->file_name), bitmap64, *second, ref) << "\n";

    // 3. Every vector removed: the version byte alone.
    for (const auto& [file, positions] : ref) again.RemoveVectorOf(file);
    FJORD_ASSIGN_OR_RAISE(auto empty, again.WriteIfModified());
    std::cout << Json(paths.IndexFile(empty->file_name), bitmap64, *empty, {}) << "\n";
  }
  return fjord::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: fjord_dv_index_tool DIR SEED\n";
    return 2;
  }
  fjord::Status st = Run(argv[1], std::stoull(argv[2]));
  if (!st.ok()) {
    std::cerr << "fjord_dv_index_tool: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}

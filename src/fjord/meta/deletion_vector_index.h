// DELETION_VECTORS index files (spec/format.md §9.2) and the deletion vectors of one bucket
// (Java's DeletionVectorsIndexFile and BucketedDvMaintainer).
//
// An index file is the version byte 1 followed by encoded vectors back to back
// (format/deletion_vector.h); its IndexFileMeta lists them in `dv_ranges`: data file name,
// offset of the entry, length (Java's convention per layout, DeletionVectorRangeLength) and
// cardinality; `row_count` is the number of vectors and `file_size` the file's bytes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/format/deletion_vector.h"
#include "fjord/meta/index_file_namer.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/table_paths.h"
#include "fjord/result.h"

namespace fjord {

inline constexpr std::string_view kDeletionVectorsIndexType = "DELETION_VECTORS";

// An index file's bytes and its dv_ranges, vectors in the order given.
struct EncodedDeletionVectors {
  std::string bytes;
  std::vector<DeletionVectorMeta> ranges;
};
Result<EncodedDeletionVectors> EncodeDeletionVectorsIndex(
    const std::vector<std::pair<std::string, std::shared_ptr<const DeletionVector>>>& vectors,
    bool bitmap64);

// The vectors of the index file `meta` names (its external path, else `index/<file name>`), by
// data file name. Errors name the file: not a DELETION_VECTORS entry, no dv_ranges, unknown
// version byte, a range that does not decode.
Result<std::map<std::string, std::shared_ptr<const DeletionVector>>> ReadDeletionVectorsIndexFile(
    FileIO* io, const TablePaths& paths, const IndexFileMeta& meta);

// Writes `vectors` as the new index file `index/<file_name>` (created whole, AlreadyExists if
// taken) and returns its IndexFileMeta.
Result<IndexFileMeta> WriteDeletionVectorsIndexFile(
    FileIO* io, const TablePaths& paths, const std::string& file_name,
    const std::vector<std::pair<std::string, std::shared_ptr<const DeletionVector>>>& vectors,
    bool bitmap64);

// The deletion vectors of one (partition, bucket) while a writer changes them (Java's
// BucketedDvMaintainer). Vectors handed out by VectorOf are immutable snapshots: a reader may
// keep one while the maintainer changes that file's vector. Not thread-safe.
class BucketDeletionVectors {
 public:
  // The vectors of `restored` (the bucket's DELETION_VECTORS index files, none for a new
  // bucket); a file named by two of them keeps the later one (Java's putAll). `namer` names
  // the files WriteIfModified writes and must outlive this object; `bitmap64` is the table's
  // `deletion-vectors.bitmap64`, the layout new vectors and written files use.
  static Result<BucketDeletionVectors> Restore(std::shared_ptr<FileIO> io, TablePaths paths,
                                               IndexFileNamer* namer, bool bitmap64,
                                               const std::vector<IndexFileMeta>& restored);

  // Marks `position` of `data_file` deleted (Java's notifyNewDeletion(file, position)); the
  // bucket counts as modified only when the position was not deleted yet. Invalid when the
  // position is outside the layout's range (0 .. 2^31 - 1 for 32-bit vectors).
  Status NotifyDeletion(const std::string& data_file, int64_t position);
  // Replaces the vector of `data_file` (Java's notifyNewDeletion(file, vector)).
  Status NotifyVector(const std::string& data_file, const DeletionVector& vector);
  // Adds `vector` to the vector of `data_file`, if any (Java's mergeNewDeletion).
  Status MergeVector(const std::string& data_file, const DeletionVector& vector);
  // Drops the vector of `data_file`, e.g. when a compaction removed the file (Java's
  // removeDeletionVectorOf); modified only when there was one.
  void RemoveVectorOf(const std::string& data_file);

  // The vector of `data_file`, null when it has none.
  std::shared_ptr<const DeletionVector> VectorOf(const std::string& data_file);
  // The data files that have a vector, sorted.
  std::vector<std::string> DataFiles() const;
  bool modified() const { return modified_; }
  bool bitmap64() const { return bitmap64_; }

  // When modified since the restore or the last write: writes all the vectors as one new index
  // file (Java 1.4.2 writes a single file per bucket here, whatever
  // `deletion-vector.index-file.target-size` says; with no vector left it is the version byte
  // alone, which replaces the old files) and returns its meta; nullopt when not modified.
  Result<std::optional<IndexFileMeta>> WriteIfModified();

 private:
  BucketDeletionVectors(std::shared_ptr<FileIO> io, TablePaths paths, IndexFileNamer* namer,
                        bool bitmap64)
      : io_(std::move(io)), paths_(std::move(paths)), namer_(namer), bitmap64_(bitmap64) {}

  // A vector as snapshot, as bitmap being changed, or both; at least one is set.
  struct Entry {
    std::shared_ptr<const DeletionVector> snapshot;
    std::unique_ptr<DeletionBitmap> bitmap;
  };
  DeletionBitmap& MutableBitmap(Entry& e);
  Status CheckRange(const std::string& data_file, int64_t position) const;

  std::shared_ptr<FileIO> io_;
  TablePaths paths_;
  IndexFileNamer* namer_;
  bool bitmap64_;
  bool modified_ = false;
  std::map<std::string, Entry> vectors_;
};

}  // namespace fjord

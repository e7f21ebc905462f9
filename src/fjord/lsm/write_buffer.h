// The write buffer of one (partition, bucket) writer of a primary-key table (behaviour.md §1.4):
// key-value records are kept as Arrow batches, sorted by (key, order) a few megabytes at a time;
// when the table writer's shared
// memory budget (`write-buffer-size`) runs out, the largest buffer sorts its records by (key,
// order) and spills them to a local file as one sorted run (`write-buffer-spillable`), so that a
// flush writes few, large files instead of many small ones. At flush the in-memory part (sorted)
// and the spilled runs are merged by KvMergeReader.
//
// Not thread-safe. Spill files live in `spill_dir` and are deleted when their run has been read or
// the buffer is destroyed.
#pragma once

#include <arrow/type_fwd.h>
#include <arrow/util/compression.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "fjord/common/executor.h"
#include "fjord/lsm/key_value.h"
#include "fjord/lsm/kv_merge.h"

namespace fjord {

struct SpillOptions {
  std::string spill_dir;                        // a local directory (created on first spill)
  std::string compression = "zstd";             // spill-compression: zstd, lz4, none
  int32_t zstd_level = 1;                       // spill-compression.zstd-level
  int32_t max_spill_files = 128;                // local-sort.max-num-file-handles
  int64_t chunk_rows = 4096;                    // rows per batch in spill files and sorted runs
  int64_t sort_chunk_bytes = int64_t{4} << 20;  // records sorted together as they arrive
  // Sorted chunks, merged batches and spill files read back (null: Arrow's default pool); must
  // outlive the buffer and its runs (a RecyclingPool does).
  arrow::MemoryPool* pool = nullptr;
  // The table's merge keeps each key's last record (deduplicate without ignore-delete) and no
  // reader needs the others (no input changelog): a spill then writes only the last record of
  // each key among the records it holds, which is what the flush's merge would keep of them.
  bool last_record_wins = false;
  // Where a full chunk is sorted while the buffer takes the next records (null: on the thread
  // that adds them). The buffer waits for its sorts before it spills, hands out its runs or is
  // destroyed.
  BackgroundExecutor background;
};

// The sort chunk for a writer whose buffers share `write_buffer_size`: a sixteenth of it, within
// 4-16 MB (16 MB at the default 256 MB). Larger chunks leave fewer sorted runs for the spill's and
// the flush's merge (a 256 MB buffer held 64 chunks of 4 MB), and a chunk still in the processor's
// cache when sorted has its rows copied in key order at a fraction of the cost of a cold one; but
// the rows after the last full chunk are sorted at the flush, on the committing thread, so 32 MB
// chunks made small commits slower (docs/performance.md, "Sort chunks").
int64_t SortChunkBytes(int64_t write_buffer_size);

// One spill taken out of a SortBuffer (TakeSpill): its sorted chunks, merged and written to the
// spill file by Write on any thread while the buffer goes on taking records.
class SpillJob {
 public:
  // Writes the spill file; on error removes it (the buffer's owner must then be discarded: the
  // records are in neither).
  Status Write();
  // The chunks' Arrow memory, held until the job is destroyed.
  int64_t memory_bytes() const { return memory_bytes_; }
  // The file's bytes, once written.
  int64_t file_bytes() const { return file_bytes_; }

 private:
  friend class SortBuffer;
  SpillJob() = default;
  KvLayout layout_;
  int64_t chunk_rows_ = 0;
  std::vector<std::shared_ptr<arrow::RecordBatch>> chunks_;
  std::string path_;
  std::shared_ptr<arrow::util::Codec> codec_;
  arrow::MemoryPool* pool_ = nullptr;
  bool last_record_wins_ = false;
  int64_t memory_bytes_ = 0;
  int64_t file_bytes_ = 0;
  std::atomic<int64_t>* spilled_bytes_ = nullptr;  // the buffer's count
};

class SortBuffer {
 public:
  SortBuffer(KvLayout layout, SpillOptions options);
  ~SortBuffer();
  SortBuffer(const SortBuffer&) = delete;
  SortBuffer& operator=(const SortBuffer&) = delete;

  // Appends records in the KvLayout schema (sequence numbers and kinds already set).
  Status Add(std::shared_ptr<arrow::RecordBatch> records);

  // Bytes of Arrow memory held by the in-memory part.
  int64_t memory_bytes() const { return memory_bytes_; }
  int64_t record_count() const { return records_in_memory_ + records_spilled_; }
  bool empty() const { return record_count() == 0; }
  int32_t spill_file_count() const { return static_cast<int32_t>(spill_files_.size()); }
  int64_t spilled_bytes() const { return spilled_bytes_.load(); }

  // Sorts the in-memory records and writes them to a spill file; merges spill files when there
  // are `max_spill_files` of them. On error the records stay in memory.
  Status Spill();

  // Takes the in-memory records out as a spill to be written by the job (null: nothing in
  // memory); the buffer lists the job's file among its runs at once and takes new records
  // meanwhile. Its runs (TakeRuns), a later TakeSpill or Spill, and the buffer's destruction must
  // wait until the job's Write has ended. Merges the spill files first when there are
  // `max_spill_files` of them.
  Result<std::unique_ptr<SpillJob>> TakeSpill();

  // The buffered records as sorted runs (the in-memory part sorted, then each spill file) and
  // empties the buffer. Readers delete their spill file when done. With `read_ahead`, spill files
  // (at most kMaxReadAheadRuns of them) are read ahead, each on a thread of its own: for a
  // writer with a core to spare.
  Result<std::vector<std::unique_ptr<KvRunReader>>> TakeRuns(bool read_ahead = false);

 private:
  // Sorts the records that arrived since the last sealed chunk into a new sorted chunk; with
  // `background` (and an executor), on another thread. Without, every sorted chunk is in sorted_
  // on return.
  Status SealPending(bool background = false);
  // Waits for the chunk being sorted, if any, and adds it to sorted_ (after the chunks sealed
  // before it).
  Status CollectSorts();
  // Batches of fewer than kSmallBatchRows rows are appended to builders (one per column) that
  // become one pending batch at kSmallBatchRows rows, or before a larger batch or a seal.
  Status AppendSmall(const arrow::RecordBatch& records);
  Status FinishSmall();
  static constexpr int64_t kSmallBatchRows = 1024;
  static constexpr size_t kMaxReadAheadRuns = 16;
  // A new spill file's path (the directory made, the codec chosen).
  Result<std::string> NextSpillPath();
  // The in-memory records now live in the spill file `path` (written or being written).
  void MarkSpilled(std::string path);
  Status MergeSpillFiles();

  KvLayout layout_;
  SpillOptions options_;
  // Records not sorted yet (arrival order), and sorted chunks: sorting a chunk at a time and
  // merging the chunks keeps the extra memory of a sort to one chunk instead of the buffer.
  std::vector<std::shared_ptr<arrow::RecordBatch>> pending_;
  int64_t pending_bytes_ = 0;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> small_;  // rows of small batches
  int64_t small_rows_ = 0;
  int64_t small_bytes_ = 0;      // the builders' capacity, as counted in memory_bytes_
  bool small_supported_ = true;  // false: a column type has no slice-appending builder
  std::vector<std::shared_ptr<arrow::RecordBatch>> sorted_;
  // The chunk being sorted in the background (one at a time); its input's bytes stay in
  // memory_bytes_ until it is collected.
  struct Sorting {
    std::shared_ptr<ClaimableTask> task;
    std::shared_ptr<arrow::RecordBatch> sorted;  // set by the task
    int64_t input_bytes = 0;
  };
  std::unique_ptr<Sorting> sorting_;
  int64_t memory_bytes_ = 0;
  int64_t records_in_memory_ = 0;
  int64_t records_spilled_ = 0;
  std::atomic<int64_t> spilled_bytes_{0};  // also counted by SpillJobs on other threads
  std::vector<std::string> spill_files_;
  // The spill files' codec (spill-compression), made at the first spill; null: none.
  std::shared_ptr<arrow::util::Codec> spill_codec_;
  bool spill_codec_made_ = false;
  int spill_counter_ = 0;
};

}  // namespace fjord

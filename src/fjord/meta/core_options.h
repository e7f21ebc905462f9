// CoreOptions: the table options Fjord reads, parsed once per schema into typed values (Java's
// org.apache.paimon.CoreOptions). Absent options take the option registry's defaults
// (common/option_defs.inc); options the registry gives no default are derived here as Java derives
// them (target-file-size, num-sorted-run.stop-trigger, num-levels) or stay unset (std::nullopt).
// Every option is parsed when CoreOptions is made, so a value that does not parse fails there,
// with an error naming the option and the value; opening a table with such an option fails.
//
// Options that are not one value per table stay in options(): per-column options
// (fields.<column>.*, read by the merge engines and the statistics modes) and the file formats'
// own options (parquet.*, orc.*, avro.*), read by format/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/format/data_file_reader.h"
#include "fjord/options.h"
#include "fjord/result.h"
#include "fjord/schema.h"

namespace fjord {

enum class MergeEngine : unsigned char { kDeduplicate, kPartialUpdate, kAggregation, kFirstRow };
enum class ChangelogProducer : unsigned char { kNone, kInput, kFullCompaction, kLookup };
enum class LookupCompactMode : unsigned char { kRadical, kGentle };

// "deduplicate", "partial-update", ...; "none", "input", "full-compaction", "lookup".
std::string_view MergeEngineName(MergeEngine engine);
std::string_view ChangelogProducerName(ChangelogProducer producer);

class CoreOptions {
 public:
  // The schema's effective options (TableSchema::EffectiveOptions: the compatibility defaults of
  // old schema versions applied). Dynamic options are part of the schema a FileStoreTable holds.
  static Result<CoreOptions> Make(const TableSchema& schema);
  // Layered options (catalog defaults, table, dynamic).
  static Result<CoreOptions> FromOptions(Options options);
  // An effective options map, e.g. in tests.
  static Result<CoreOptions> FromMap(const std::map<std::string, std::string>& options);

  // The options as given, over the registry's defaults: for per-column and file-format options.
  const Options& options() const { return options_; }

  // ---- Layout
  int32_t bucket() const { return bucket_; }  // -1: dynamic, -2: postponed, N > 0: fixed
  // `bucket-key`, empty when not set (then the trimmed primary key is hashed).
  const std::vector<std::string>& bucket_key() const { return bucket_key_; }
  const std::string& bucket_function_type() const { return bucket_function_type_; }  // lower case
  const std::string& partition_default_name() const { return partition_default_name_; }

  // ---- Data files
  // `file.format`; NotImplemented for the formats the registry knows but Fjord does not write
  // (csv, json, text, lance).
  Result<FileFormat> file_format() const { return ParseFileFormat(file_format_); }
  const std::string& file_compression() const { return file_compression_; }
  int32_t file_compression_zstd_level() const { return file_compression_zstd_level_; }
  const std::string& data_file_prefix() const { return data_file_prefix_; }
  // changelog-file.prefix: names of the changelog files the writer produces.
  const std::string& changelog_file_prefix() const { return changelog_file_prefix_; }
  // `target-file-size`, else 128 MB for primary-key tables and 256 MB for append tables.
  int64_t target_file_size(bool has_primary_key) const;
  bool metadata_stats_dense_store() const { return metadata_stats_dense_store_; }

  // ---- Manifests
  const std::string& manifest_format() const { return manifest_format_; }  // lower case
  const std::string& manifest_compression() const { return manifest_compression_; }
  int64_t manifest_target_file_size() const { return manifest_target_file_size_; }
  // Threads reading manifest files while planning (`scan.manifest.parallelism`; unset: cores).
  std::optional<int32_t> scan_manifest_parallelism() const { return scan_manifest_parallelism_; }
  int32_t manifest_merge_min_count() const { return manifest_merge_min_count_; }
  int64_t manifest_full_compaction_threshold_size() const {
    return manifest_full_compaction_threshold_size_;
  }

  // ---- Primary keys and merging
  MergeEngine merge_engine() const { return merge_engine_; }
  // `ignore-delete`, else the first of its deprecated keys that is set (first-row.ignore-delete,
  // deduplicate.ignore-delete, partial-update.ignore-delete).
  bool ignore_delete() const { return ignore_delete_; }
  bool ignore_update_before() const { return ignore_update_before_; }
  // `sequence.field`, split at commas and trimmed; empty when not set.
  const std::vector<std::string>& sequence_fields() const { return sequence_fields_; }
  bool sequence_field_descending() const { return sequence_field_descending_; }
  const std::optional<std::string>& rowkind_field() const { return rowkind_field_; }
  ChangelogProducer changelog_producer() const { return changelog_producer_; }
  // changelog-producer.row-deduplicate, and its ignore-fields split at commas as Java splits
  // them (not trimmed: "a, b" names "a" and " b"); empty when unset.
  bool changelog_row_deduplicate() const { return changelog_row_deduplicate_; }
  const std::vector<std::string>& changelog_row_deduplicate_ignore_fields() const {
    return changelog_row_deduplicate_ignore_fields_;
  }
  bool force_lookup() const { return force_lookup_; }
  bool deletion_vectors_enabled() const { return deletion_vectors_enabled_; }
  bool deletion_vectors_bitmap64() const { return deletion_vectors_bitmap64_; }
  // `lookup-wait`, else its old key changelog-producer.lookup-wait.
  bool lookup_wait() const { return lookup_wait_; }
  LookupCompactMode lookup_compact() const { return lookup_compact_; }
  const std::optional<int32_t>& lookup_compact_max_interval() const {
    return lookup_compact_max_interval_;
  }
  // The local lookup cache of lookup compaction (lsm/lookup_levels.h).
  int64_t lookup_cache_max_memory_size() const { return lookup_cache_max_memory_; }
  int64_t lookup_cache_max_disk_size() const { return lookup_cache_max_disk_; }
  int64_t lookup_cache_file_retention_millis() const { return lookup_cache_retention_; }
  bool lookup_cache_bloom_filter_enabled() const { return lookup_cache_bloom_; }
  double lookup_cache_bloom_filter_fpp() const { return lookup_cache_bloom_fpp_; }

  // ---- Writing
  int64_t write_buffer_size() const { return write_buffer_size_; }
  bool write_buffer_spillable() const { return write_buffer_spillable_; }
  const std::string& spill_compression() const { return spill_compression_; }
  int32_t spill_compression_zstd_level() const { return spill_compression_zstd_level_; }
  int32_t local_sort_max_num_file_handles() const { return local_sort_max_num_file_handles_; }
  // `write-only`, else its old key write.compaction-skip.
  bool write_only() const { return write_only_; }
  bool commit_force_compact() const { return commit_force_compact_; }
  int64_t dynamic_bucket_target_row_num() const { return dynamic_bucket_target_row_num_; }
  int32_t dynamic_bucket_max_buckets() const { return dynamic_bucket_max_buckets_; }

  // ---- Compaction
  int32_t num_sorted_run_compaction_trigger() const { return compaction_trigger_; }
  // `num-sorted-run.stop-trigger`, else the compaction trigger + 3.
  int32_t num_sorted_run_stop_trigger() const { return stop_trigger_; }
  // `num-levels`, else the compaction trigger + 1.
  int32_t num_levels() const { return num_levels_; }
  int32_t compaction_max_size_amplification_percent() const { return max_size_amplification_; }
  int32_t compaction_size_ratio() const { return size_ratio_; }
  int32_t compaction_offpeak_start_hour() const { return offpeak_start_hour_; }
  int32_t compaction_offpeak_end_hour() const { return offpeak_end_hour_; }
  int32_t compaction_offpeak_ratio() const { return offpeak_ratio_; }
  const std::optional<int64_t>& compaction_optimization_interval_millis() const {
    return optimization_interval_millis_;
  }
  const std::optional<int64_t>& compaction_total_size_threshold() const {
    return total_size_threshold_;
  }
  const std::optional<int64_t>& compaction_incremental_size_threshold() const {
    return incremental_size_threshold_;
  }
  bool compaction_force_up_level_0() const { return force_up_level_0_; }
  bool compaction_force_rewrite_all_files() const { return force_rewrite_all_files_; }
  int32_t compaction_min_file_num() const { return min_file_num_; }
  int32_t compaction_file_num_limit() const { return file_num_limit_; }
  int64_t source_split_open_file_cost() const { return open_file_cost_; }
  const std::optional<int32_t>& full_compaction_delta_commits() const {
    return full_compaction_delta_commits_;
  }

  // ---- Committing
  int32_t commit_max_retries() const { return commit_max_retries_; }
  int64_t commit_min_retry_wait_millis() const { return commit_min_retry_wait_; }
  int64_t commit_max_retry_wait_millis() const { return commit_max_retry_wait_; }
  const std::optional<int64_t>& commit_timeout_millis() const { return commit_timeout_; }
  bool dynamic_partition_overwrite() const { return dynamic_partition_overwrite_; }
  bool overwrite_upgrade() const { return overwrite_upgrade_; }
  const std::optional<bool>& snapshot_ignore_empty_commit() const {
    return snapshot_ignore_empty_commit_;
  }

  // ---- Table features Fjord does not write yet
  bool clustering_incremental() const { return clustering_incremental_; }
  bool data_evolution_enabled() const { return data_evolution_enabled_; }
  bool row_tracking_enabled() const { return row_tracking_enabled_; }

 private:
  class Reader;
  CoreOptions() = default;

  Options options_;

  int32_t bucket_ = 0;
  std::vector<std::string> bucket_key_;
  std::string bucket_function_type_;
  std::string partition_default_name_;

  std::string file_format_;
  std::string file_compression_;
  int32_t file_compression_zstd_level_ = 0;
  std::string data_file_prefix_;
  std::string changelog_file_prefix_;
  std::optional<int64_t> target_file_size_;
  bool metadata_stats_dense_store_ = false;

  std::string manifest_format_;
  std::string manifest_compression_;
  int64_t manifest_target_file_size_ = 0;
  std::optional<int32_t> scan_manifest_parallelism_;
  int32_t manifest_merge_min_count_ = 0;
  int64_t manifest_full_compaction_threshold_size_ = 0;

  MergeEngine merge_engine_ = MergeEngine::kDeduplicate;
  bool ignore_delete_ = false;
  bool ignore_update_before_ = false;
  std::vector<std::string> sequence_fields_;
  bool sequence_field_descending_ = false;
  std::optional<std::string> rowkind_field_;
  ChangelogProducer changelog_producer_ = ChangelogProducer::kNone;
  bool changelog_row_deduplicate_ = false;
  std::vector<std::string> changelog_row_deduplicate_ignore_fields_;
  bool force_lookup_ = false;
  bool deletion_vectors_enabled_ = false;
  bool deletion_vectors_bitmap64_ = false;
  bool lookup_wait_ = false;
  LookupCompactMode lookup_compact_ = LookupCompactMode::kRadical;
  std::optional<int32_t> lookup_compact_max_interval_;
  int64_t lookup_cache_max_memory_ = 0;
  int64_t lookup_cache_max_disk_ = 0;
  int64_t lookup_cache_retention_ = 0;
  bool lookup_cache_bloom_ = true;
  double lookup_cache_bloom_fpp_ = 0;

  int64_t write_buffer_size_ = 0;
  bool write_buffer_spillable_ = false;
  std::string spill_compression_;
  int32_t spill_compression_zstd_level_ = 0;
  int32_t local_sort_max_num_file_handles_ = 0;
  bool write_only_ = false;
  bool commit_force_compact_ = false;
  int64_t dynamic_bucket_target_row_num_ = 0;
  int32_t dynamic_bucket_max_buckets_ = 0;

  int32_t compaction_trigger_ = 0;
  int32_t stop_trigger_ = 0;
  int32_t num_levels_ = 0;
  int32_t max_size_amplification_ = 0;
  int32_t size_ratio_ = 0;
  int32_t offpeak_start_hour_ = 0;
  int32_t offpeak_end_hour_ = 0;
  int32_t offpeak_ratio_ = 0;
  std::optional<int64_t> optimization_interval_millis_;
  std::optional<int64_t> total_size_threshold_;
  std::optional<int64_t> incremental_size_threshold_;
  bool force_up_level_0_ = false;
  bool force_rewrite_all_files_ = false;
  int32_t min_file_num_ = 0;
  int32_t file_num_limit_ = 0;
  int64_t open_file_cost_ = 0;
  std::optional<int32_t> full_compaction_delta_commits_;

  int32_t commit_max_retries_ = 0;
  int64_t commit_min_retry_wait_ = 0;
  int64_t commit_max_retry_wait_ = 0;
  std::optional<int64_t> commit_timeout_;
  bool dynamic_partition_overwrite_ = false;
  bool overwrite_upgrade_ = false;
  std::optional<bool> snapshot_ignore_empty_commit_;

  bool clustering_incremental_ = false;
  bool data_evolution_enabled_ = false;
  bool row_tracking_enabled_ = false;
};

}  // namespace fjord

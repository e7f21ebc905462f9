#include "fjord/meta/core_options.h"

#include <initializer_list>
#include <limits>
#include <utility>

#include "fjord/common/strings.h"

namespace fjord {

std::string_view MergeEngineName(MergeEngine engine) {
  switch (engine) {
    case MergeEngine::kDeduplicate:
      return "deduplicate";
    case MergeEngine::kPartialUpdate:
      return "partial-update";
    case MergeEngine::kAggregation:
      return "aggregation";
    case MergeEngine::kFirstRow:
      return "first-row";
  }
  return "?";
}

std::string_view ChangelogProducerName(ChangelogProducer producer) {
  switch (producer) {
    case ChangelogProducer::kNone:
      return "none";
    case ChangelogProducer::kInput:
      return "input";
    case ChangelogProducer::kFullCompaction:
      return "full-compaction";
    case ChangelogProducer::kLookup:
      return "lookup";
  }
  return "?";
}

// Typed reads of one option each, over the registry's defaults. Errors name the option and the
// value. "Optional" reads give nullopt for an option that is neither set nor has a default.
class CoreOptions::Reader {
 public:
  explicit Reader(const Options& options) : o_(options) {}

  // Whether a layer above the registry's default sets `key`.
  bool IsSet(std::string_view key) const {
    std::optional<OptionLayer> layer = o_.LayerOf(key);
    return layer && *layer != OptionLayer::kDefault;
  }

  Result<std::string> Text(std::string_view key) const {
    std::optional<std::string> v = o_.Get(key);
    if (!v) return NoDefault(key);
    return *v;
  }
  std::optional<std::string> OptionalText(std::string_view key) const { return o_.Get(key); }

  // An enum option, checked against the registry's values, in lower case.
  Result<std::string> Enum(std::string_view key) const {
    FJORD_ASSIGN_OR_RAISE(std::string v, Text(key));
    FJORD_RETURN_NOT_OK(ValidateOptionValue(key, v));
    return Lower(Trim(v));
  }

  Result<bool> Bool(std::string_view key) const {
    FJORD_ASSIGN_OR_RAISE(std::optional<bool> v, o_.GetBool(key));
    if (!v) return NoDefault(key);
    return *v;
  }
  Result<std::optional<bool>> OptionalBool(std::string_view key) const { return o_.GetBool(key); }

  Result<int64_t> Long(std::string_view key) const {
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> v, o_.GetInt(key));
    if (!v) return NoDefault(key);
    return *v;
  }

  Result<std::optional<int32_t>> OptionalInt(std::string_view key) const {
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> v, o_.GetInt(key));
    if (!v) return std::optional<int32_t>();
    if (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("option '", key, "': '", *o_.Get(key), "' is out of range for an int");
    }
    return std::optional<int32_t>(static_cast<int32_t>(*v));
  }
  Result<int32_t> Int(std::string_view key) const {
    FJORD_ASSIGN_OR_RAISE(std::optional<int32_t> v, OptionalInt(key));
    if (!v) return NoDefault(key);
    return *v;
  }

  Result<double> Double(std::string_view key) const {
    FJORD_ASSIGN_OR_RAISE(std::optional<double> v, o_.GetDouble(key));
    if (!v) return NoDefault(key);
    return *v;
  }

  Result<std::optional<int64_t>> OptionalMemorySize(std::string_view key) const {
    return o_.GetMemorySize(key);
  }
  Result<int64_t> MemorySize(std::string_view key) const {
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> v, o_.GetMemorySize(key));
    if (!v) return NoDefault(key);
    return *v;
  }

  Result<std::optional<int64_t>> OptionalDuration(std::string_view key) const {
    return o_.GetDurationMillis(key);
  }
  Result<int64_t> Duration(std::string_view key) const {
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> v, o_.GetDurationMillis(key));
    if (!v) return NoDefault(key);
    return *v;
  }

  // `key` if a layer sets it, else the first of `old_keys` that is set, else `key`'s default.
  std::string_view WithFallbacks(std::string_view key,
                                 std::initializer_list<std::string_view> old_keys) const {
    if (IsSet(key)) return key;
    for (std::string_view old : old_keys) {
      if (IsSet(old)) return old;
    }
    return key;
  }

 private:
  static Status NoDefault(std::string_view key) {
    return Status::Internal("option '", key, "' has no value and the registry gives no default");
  }

  const Options& o_;
};

Result<CoreOptions> CoreOptions::Make(const TableSchema& schema) {
  return FromOptions(Options::FromTable(schema.EffectiveOptions()));
}

Result<CoreOptions> CoreOptions::FromMap(const std::map<std::string, std::string>& options) {
  return FromOptions(Options::FromTable(options));
}

Result<CoreOptions> CoreOptions::FromOptions(Options options) {
  CoreOptions c;
  c.options_ = std::move(options);
  const Reader r(c.options_);

  // Layout.
  FJORD_ASSIGN_OR_RAISE(c.bucket_, r.Int("bucket"));
  c.bucket_key_ = SplitCommaList(r.OptionalText("bucket-key").value_or(std::string()));
  FJORD_ASSIGN_OR_RAISE(c.bucket_function_type_, r.Enum("bucket-function.type"));
  FJORD_ASSIGN_OR_RAISE(c.partition_default_name_, r.Text("partition.default-name"));

  // Data files and manifests.
  FJORD_ASSIGN_OR_RAISE(c.file_format_, r.Enum("file.format"));
  FJORD_ASSIGN_OR_RAISE(c.file_compression_, r.Text("file.compression"));
  FJORD_ASSIGN_OR_RAISE(c.file_compression_zstd_level_, r.Int("file.compression.zstd-level"));
  FJORD_ASSIGN_OR_RAISE(c.data_file_prefix_, r.Text("data-file.prefix"));
  FJORD_ASSIGN_OR_RAISE(c.changelog_file_prefix_, r.Text("changelog-file.prefix"));
  FJORD_ASSIGN_OR_RAISE(c.target_file_size_, r.OptionalMemorySize("target-file-size"));
  FJORD_ASSIGN_OR_RAISE(c.metadata_stats_dense_store_, r.Bool("metadata.stats-dense-store"));
  FJORD_ASSIGN_OR_RAISE(c.manifest_format_, r.Enum("manifest.format"));
  FJORD_ASSIGN_OR_RAISE(c.manifest_compression_, r.Text("manifest.compression"));
  FJORD_ASSIGN_OR_RAISE(c.manifest_target_file_size_, r.MemorySize("manifest.target-file-size"));
  FJORD_ASSIGN_OR_RAISE(c.scan_manifest_parallelism_, r.OptionalInt("scan.manifest.parallelism"));
  if (c.scan_manifest_parallelism_ && *c.scan_manifest_parallelism_ < 1) {
    return Status::Invalid("scan.manifest.parallelism must be at least 1, got ",
                           *c.scan_manifest_parallelism_);
  }
  FJORD_ASSIGN_OR_RAISE(c.manifest_merge_min_count_, r.Int("manifest.merge-min-count"));
  FJORD_ASSIGN_OR_RAISE(c.manifest_full_compaction_threshold_size_,
                        r.MemorySize("manifest.full-compaction-threshold-size"));

  // Primary keys and merging.
  FJORD_ASSIGN_OR_RAISE(std::string engine, r.Enum("merge-engine"));
  c.merge_engine_ = engine == "partial-update" ? MergeEngine::kPartialUpdate
                    : engine == "aggregation"  ? MergeEngine::kAggregation
                    : engine == "first-row"    ? MergeEngine::kFirstRow
                                               : MergeEngine::kDeduplicate;
  FJORD_ASSIGN_OR_RAISE(c.ignore_delete_,
                        r.Bool(r.WithFallbacks("ignore-delete", {"first-row.ignore-delete",
                                                                 "deduplicate.ignore-delete",
                                                                 "partial-update.ignore-delete"})));
  FJORD_ASSIGN_OR_RAISE(c.ignore_update_before_, r.Bool("ignore-update-before"));
  c.sequence_fields_ = SplitCommaList(r.OptionalText("sequence.field").value_or(std::string()));
  FJORD_ASSIGN_OR_RAISE(std::string order, r.Enum("sequence.field.sort-order"));
  c.sequence_field_descending_ = order == "descending";
  c.rowkind_field_ = r.OptionalText("rowkind.field");
  FJORD_ASSIGN_OR_RAISE(std::string producer, r.Enum("changelog-producer"));
  c.changelog_producer_ = producer == "input"             ? ChangelogProducer::kInput
                          : producer == "full-compaction" ? ChangelogProducer::kFullCompaction
                          : producer == "lookup"          ? ChangelogProducer::kLookup
                                                          : ChangelogProducer::kNone;
  FJORD_ASSIGN_OR_RAISE(c.changelog_row_deduplicate_, r.Bool("changelog-producer.row-deduplicate"));
  if (std::optional<std::string> ignore =
          r.OptionalText("changelog-producer.row-deduplicate-ignore-fields")) {
    // Java's String.split(","): no trimming, trailing empty pieces dropped.
    std::string_view rest = *ignore;
    std::vector<std::string>& out = c.changelog_row_deduplicate_ignore_fields_;
    while (true) {
      size_t comma = rest.find(',');
      out.emplace_back(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    while (!out.empty() && out.back().empty()) out.pop_back();
  }
  FJORD_ASSIGN_OR_RAISE(c.force_lookup_, r.Bool("force-lookup"));
  FJORD_ASSIGN_OR_RAISE(c.deletion_vectors_enabled_, r.Bool("deletion-vectors.enabled"));
  FJORD_ASSIGN_OR_RAISE(c.deletion_vectors_bitmap64_, r.Bool("deletion-vectors.bitmap64"));
  FJORD_ASSIGN_OR_RAISE(c.lookup_wait_,
                        r.Bool(r.WithFallbacks("lookup-wait", {"changelog-producer.lookup-wait"})));
  FJORD_ASSIGN_OR_RAISE(std::string lookup_compact, r.Enum("lookup-compact"));
  c.lookup_compact_ =
      lookup_compact == "gentle" ? LookupCompactMode::kGentle : LookupCompactMode::kRadical;
  FJORD_ASSIGN_OR_RAISE(c.lookup_compact_max_interval_,
                        r.OptionalInt("lookup-compact.max-interval"));
  FJORD_ASSIGN_OR_RAISE(c.lookup_cache_max_memory_, r.MemorySize("lookup.cache-max-memory-size"));
  FJORD_ASSIGN_OR_RAISE(c.lookup_cache_max_disk_, r.MemorySize("lookup.cache-max-disk-size"));
  FJORD_ASSIGN_OR_RAISE(c.lookup_cache_retention_, r.Duration("lookup.cache-file-retention"));
  FJORD_ASSIGN_OR_RAISE(c.lookup_cache_bloom_, r.Bool("lookup.cache.bloom.filter.enabled"));
  FJORD_ASSIGN_OR_RAISE(c.lookup_cache_bloom_fpp_, r.Double("lookup.cache.bloom.filter.fpp"));

  // Writing.
  FJORD_ASSIGN_OR_RAISE(c.write_buffer_size_, r.MemorySize("write-buffer-size"));
  FJORD_ASSIGN_OR_RAISE(c.write_buffer_spillable_, r.Bool("write-buffer-spillable"));
  FJORD_ASSIGN_OR_RAISE(c.spill_compression_, r.Text("spill-compression"));
  FJORD_ASSIGN_OR_RAISE(c.spill_compression_zstd_level_, r.Int("spill-compression.zstd-level"));
  FJORD_ASSIGN_OR_RAISE(c.local_sort_max_num_file_handles_,
                        r.Int("local-sort.max-num-file-handles"));
  FJORD_ASSIGN_OR_RAISE(c.write_only_,
                        r.Bool(r.WithFallbacks("write-only", {"write.compaction-skip"})));
  FJORD_ASSIGN_OR_RAISE(c.commit_force_compact_, r.Bool("commit.force-compact"));
  FJORD_ASSIGN_OR_RAISE(c.dynamic_bucket_target_row_num_, r.Long("dynamic-bucket.target-row-num"));
  FJORD_ASSIGN_OR_RAISE(c.dynamic_bucket_max_buckets_, r.Int("dynamic-bucket.max-buckets"));

  // Compaction.
  FJORD_ASSIGN_OR_RAISE(c.compaction_trigger_, r.Int("num-sorted-run.compaction-trigger"));
  FJORD_ASSIGN_OR_RAISE(std::optional<int32_t> stop, r.OptionalInt("num-sorted-run.stop-trigger"));
  c.stop_trigger_ = stop.value_or(c.compaction_trigger_ + 3);
  FJORD_ASSIGN_OR_RAISE(std::optional<int32_t> levels, r.OptionalInt("num-levels"));
  c.num_levels_ = levels.value_or(c.compaction_trigger_ + 1);
  FJORD_ASSIGN_OR_RAISE(c.max_size_amplification_,
                        r.Int("compaction.max-size-amplification-percent"));
  FJORD_ASSIGN_OR_RAISE(c.size_ratio_, r.Int("compaction.size-ratio"));
  FJORD_ASSIGN_OR_RAISE(c.offpeak_start_hour_, r.Int("compaction.offpeak.start.hour"));
  FJORD_ASSIGN_OR_RAISE(c.offpeak_end_hour_, r.Int("compaction.offpeak.end.hour"));
  FJORD_ASSIGN_OR_RAISE(c.offpeak_ratio_, r.Int("compaction.offpeak-ratio"));
  FJORD_ASSIGN_OR_RAISE(c.optimization_interval_millis_,
                        r.OptionalDuration("compaction.optimization-interval"));
  FJORD_ASSIGN_OR_RAISE(c.total_size_threshold_,
                        r.OptionalMemorySize("compaction.total-size-threshold"));
  FJORD_ASSIGN_OR_RAISE(c.incremental_size_threshold_,
                        r.OptionalMemorySize("compaction.incremental-size-threshold"));
  FJORD_ASSIGN_OR_RAISE(c.force_up_level_0_, r.Bool("compaction.force-up-level-0"));
  FJORD_ASSIGN_OR_RAISE(c.force_rewrite_all_files_, r.Bool("compaction.force-rewrite-all-files"));
  FJORD_ASSIGN_OR_RAISE(c.min_file_num_, r.Int("compaction.min.file-num"));
  FJORD_ASSIGN_OR_RAISE(c.file_num_limit_, r.Int("compaction.file-num-limit"));
  FJORD_ASSIGN_OR_RAISE(c.open_file_cost_, r.MemorySize("source.split.open-file-cost"));
  FJORD_ASSIGN_OR_RAISE(c.full_compaction_delta_commits_,
                        r.OptionalInt("full-compaction.delta-commits"));

  // Committing.
  FJORD_ASSIGN_OR_RAISE(c.commit_max_retries_, r.Int("commit.max-retries"));
  FJORD_ASSIGN_OR_RAISE(c.commit_min_retry_wait_, r.Duration("commit.min-retry-wait"));
  FJORD_ASSIGN_OR_RAISE(c.commit_max_retry_wait_, r.Duration("commit.max-retry-wait"));
  FJORD_ASSIGN_OR_RAISE(c.commit_timeout_, r.OptionalDuration("commit.timeout"));
  FJORD_ASSIGN_OR_RAISE(c.dynamic_partition_overwrite_, r.Bool("dynamic-partition-overwrite"));
  FJORD_ASSIGN_OR_RAISE(c.overwrite_upgrade_, r.Bool("overwrite-upgrade"));
  FJORD_ASSIGN_OR_RAISE(c.snapshot_ignore_empty_commit_,
                        r.OptionalBool("snapshot.ignore-empty-commit"));

  // Table features.
  FJORD_ASSIGN_OR_RAISE(c.clustering_incremental_, r.Bool("clustering.incremental"));
  FJORD_ASSIGN_OR_RAISE(c.data_evolution_enabled_, r.Bool("data-evolution.enabled"));
  FJORD_ASSIGN_OR_RAISE(c.row_tracking_enabled_, r.Bool("row-tracking.enabled"));
  return c;
}

int64_t CoreOptions::target_file_size(bool has_primary_key) const {
  // Java's CoreOptions#targetFileSize: the registry has no default because it depends on this.
  return target_file_size_.value_or(has_primary_key ? int64_t{128} << 20 : int64_t{256} << 20);
}

}  // namespace fjord

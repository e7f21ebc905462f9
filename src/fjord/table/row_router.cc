#include "fjord/table/row_router.h"

#include <arrow/api.h>

#include "fjord/format/arrow_values.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/bucket.h"

namespace fjord {

Result<RowRouter> RowRouter::Make(const TableSchema& schema) {
  RowRouter r;
  std::string bucket_text = schema.Option("bucket").value_or("-1");
  int64_t buckets = 0;
  try {
    buckets = std::stoll(bucket_text);
  } catch (...) {
    return Status::Invalid("option 'bucket' is not a number: '", bucket_text, "'");
  }
  if (buckets == 0 || buckets < -2 || buckets > INT32_MAX) {
    return Status::Invalid("option 'bucket' must be -1 or a positive count, got ", buckets);
  }
  if (!schema.primary_keys.empty() && buckets < 0) {
    return Status::NotImplemented(
        "writing primary-key tables with bucket = ", buckets,
        " (dynamic or postponed buckets) is not supported yet; create the table with a fixed "
        "bucket count ('bucket' = N > 0)");
  }
  if (buckets == -2) return Status::Invalid("bucket = -2 is only valid for primary-key tables");
  r.total_buckets_ = static_cast<int32_t>(buckets);
  for (const std::string& p : schema.partition_keys) {
    int i = schema.FieldIndex(p);
    if (i < 0) return Status::Invalid("partition key '", p, "' is not a column");
    r.partition_columns_.push_back(i);
    r.partition_types_.push_back(schema.fields[static_cast<size_t>(i)].type->WithNullable(true));
  }
  if (buckets > 0) {
    for (const std::string& b : schema.BucketKeys()) {
      int i = schema.FieldIndex(b);
      if (i < 0) return Status::Invalid("bucket key '", b, "' is not a column");
      r.bucket_columns_.push_back(i);
      r.bucket_types_.push_back(schema.fields[static_cast<size_t>(i)].type);
    }
  }
  return r;
}

Result<std::map<PartitionBucket, std::vector<int64_t>>> RowRouter::Route(
    const arrow::RecordBatch& rows) const {
  std::map<PartitionBucket, std::vector<int64_t>> groups;
  std::vector<Value> pvalues(partition_columns_.size());
  std::vector<Value> bvalues(bucket_columns_.size());
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    for (size_t i = 0; i < partition_columns_.size(); ++i) {
      FJORD_ASSIGN_OR_RAISE(
          pvalues[i], ValueFromArrow(*rows.column(partition_columns_[i]), r, *partition_types_[i]));
    }
    FJORD_ASSIGN_OR_RAISE(std::string partition, EncodeStoredBinaryRow(pvalues, partition_types_));
    int32_t bucket = 0;
    if (total_buckets_ > 0) {
      for (size_t i = 0; i < bucket_columns_.size(); ++i) {
        FJORD_ASSIGN_OR_RAISE(
            bvalues[i], ValueFromArrow(*rows.column(bucket_columns_[i]), r, *bucket_types_[i]));
      }
      FJORD_ASSIGN_OR_RAISE(std::string key, EncodeBinaryRow(bvalues, bucket_types_));
      bucket = BucketOf(key, total_buckets_);
    }
    groups[{std::move(partition), bucket}].push_back(r);
  }
  return groups;
}

}  // namespace fjord

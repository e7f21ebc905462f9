#include "fjord/table/commit/message_check.h"

#include "fjord/format/binary_row.h"

namespace fjord {

Status CheckMessagesFitTable(const std::vector<CommitMessage>& messages, const TableSchema& schema,
                             std::string_view table_path, std::string_view source) {
  std::vector<DataTypePtr> types;
  for (const DataField& f : schema.FieldsByName(schema.partition_keys)) {
    types.push_back(f.type->WithNullable(true));
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    const CommitMessage& m = messages[i];
    Result<std::vector<Value>> partition = DecodeStoredBinaryRow(m.partition, types);
    if (!partition.ok()) {
      return Status::Invalid(
          source, ": message ", i, " does not fit table ", table_path,
          " (its partition is not a row of the partition keys: ", partition.status().message(),
          "); were the messages prepared for another table?");
    }
    if (m.total_buckets > 0 && (m.bucket < 0 || m.bucket >= m.total_buckets)) {
      return Status::Invalid(source, ": message ", i, " names bucket ", m.bucket, " of ",
                             m.total_buckets);
    }
  }
  return Status::OK();
}

}  // namespace fjord

// Partition, bucket and statistics pruning never drops a matching row, and does prune.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <filesystem>

#include "fjord/format/row_json.h"
#include "fjord/table/file_store_table.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

std::string Fixture(const std::string& rel) {
  return testing::FixturesDir() + "/paimon-java/" + rel;
}

// Rows as sorted canonical JSON lines.
std::vector<std::string> Lines(const ReadResult& r) {
  std::vector<std::string> out;
  auto t = r.rows->CombineChunks().ValueOrDie();
  std::vector<std::shared_ptr<arrow::Array>> cols;
  for (int c = 0; c < t->num_columns(); ++c) {
    cols.push_back(t->column(c)->num_chunks()
                       ? t->column(c)->chunk(0)
                       : arrow::MakeEmptyArray(t->column(c)->type()).ValueOrDie());
  }
  for (int64_t i = 0; i < t->num_rows(); ++i) {
    std::string line;
    EXPECT_OK(AppendRowJson(cols, r.fields, i, &line));
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t FileCount(const ScanPlan& plan) {
  size_t n = 0;
  for (const auto& s : plan.splits) n += s.files.size();
  return n;
}

struct Case {
  const char* table;
  const char* where;
  bool expect_pruning;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.table << " WHERE " << c.where; }

class PruningTest : public ::testing::TestWithParam<Case> {};

TEST_P(PruningTest, SameRowsAsFilteringEverything) {
  const Case& c = GetParam();
  ASSERT_OK_AND_ASSIGN(auto table, FileStoreTable::Open(Fixture(c.table)));
  ASSERT_OK_AND_ASSIGN(ReadResult all, table->Read(ReadRequest{}));
  ASSERT_OK_AND_ASSIGN(auto filter, Predicate::Parse(c.where, all.schema.fields));
  // Reference: every row, filtered one by one.
  auto batch = all.rows->CombineChunksToBatch().ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto mask, filter.Evaluate(*batch));
  auto expected_rows = arrow::compute::Filter(all.rows, mask).ValueOrDie().table();
  ReadResult expected = all;
  expected.rows = expected_rows;

  ReadRequest req;
  req.where = c.where;
  ASSERT_OK_AND_ASSIGN(ReadResult pruned, table->Read(req));
  EXPECT_EQ(Lines(pruned), Lines(expected)) << c.table << " WHERE " << c.where;

  ASSERT_OK_AND_ASSIGN(ScanPlan full_plan, table->Plan(ScanSelector{}));
  ASSERT_OK_AND_ASSIGN(ScanPlan pruned_plan, table->Plan(ScanSelector{}, c.where));
  if (c.expect_pruning) {
    EXPECT_LT(FileCount(pruned_plan), FileCount(full_plan)) << c.where;
  } else {
    EXPECT_LE(FileCount(pruned_plan), FileCount(full_plan)) << c.where;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, PruningTest,
    ::testing::Values(
        // partition pruning
        Case{"parquet/append_09.db/append_09", "f1 = 10", true},
        Case{"parquet/append_09.db/append_09", "f1 = 20 OR f0 = 'Bob'", false},
        Case{"parquet/append_09.db/append_09", "f1 IN (20, 30)", true},
        Case{"orc/multi_partition_append_table.db/multi_partition_append_table", "f1 = 10", true},
        // value statistics of append files
        Case{"parquet/append_09.db/append_09", "f3 > 16.5", true},
        Case{"parquet/append_09.db/append_09", "f0 = 'Zed'", true},
        Case{"parquet/append_09.db/append_09", "f3 IS NULL", true},
        Case{"parquet/append_09.db/append_09", "NOT f3 IS NOT NULL", true},
        // bucket pruning and key statistics of primary-key files
        Case{"parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", "f2 = 1", true},
        Case{"parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor",
             "f0 = 'Alice' AND f1 = 10", true},
        Case{"parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", "f3 > 12", false},
        Case{"orc/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", "f2 IN (0, 1)", false},
        Case{"parquet/pk_table_nested_type.db/pk_table_nested_type", "shopId = 1", true},
        Case{"parquet/pk_09.db/pk_09", "f2 = 0", false},
        Case{"avro/pk_with_multiple_type.db/pk_with_multiple_type", "f7 = 'Alice'", false},
        Case{"parquet/append_table_with_alter_table.db/append_table_with_alter_table", "key0 = 1",
             false}),
    [](const ::testing::TestParamInfo<Case>& info) { return "case" + std::to_string(info.index); });

}  // namespace
}  // namespace fjord

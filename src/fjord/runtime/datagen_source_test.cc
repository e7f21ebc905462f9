#include <arrow/api.h>
#include <gtest/gtest.h>

#include <set>

#include "fjord/runtime/source.h"
#include "fjord/testing/test_util.h"

namespace fjord::runtime {
namespace {

TableSchema Schema() {
  TableSchema s;
  s.fields = {{0, "k", DataType::Int(false), {}, {}},
              {1, "name", DataType::String(), {}, {}},
              {2, "amount", DataType::Double(), {}, {}}};
  s.primary_keys = {"k"};
  s.highest_field_id = 2;
  return s;
}

SourceSpec Spec(double update_ratio) {
  SourceSpec spec;
  spec.type = "datagen";
  spec.batch_rows = 64;
  spec.datagen.rows_per_second = 0;
  spec.datagen.rows = 500;
  spec.datagen.key_range = 100;
  spec.datagen.update_ratio = update_ratio;
  spec.datagen.seed = 42;
  return spec;
}

// Every row of the source from `position` as "k|name|amount" lines.
std::vector<std::string> All(Source* source, const std::string& position) {
  EXPECT_TRUE(source->Seek(position).ok());
  std::vector<std::string> rows;
  bool end = false;
  while (!end) {
    auto batch = source->Next(true, &end);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) break;
    if (!*batch) continue;
    auto k = std::static_pointer_cast<arrow::Int32Array>((*batch)->column(0));
    auto name = std::static_pointer_cast<arrow::StringArray>((*batch)->column(1));
    auto amount = std::static_pointer_cast<arrow::DoubleArray>((*batch)->column(2));
    for (int64_t i = 0; i < k->length(); ++i) {
      rows.push_back(std::to_string(k->Value(i)) + "|" + name->GetString(i) + "|" +
                     std::to_string(amount->Value(i)));
    }
  }
  return rows;
}

TEST(DatagenSourceTest, DeterministicAndResumable) {
  ASSERT_OK_AND_ASSIGN(auto a, MakeDatagenSource(Spec(0.5), Schema()));
  ASSERT_OK_AND_ASSIGN(auto b, MakeDatagenSource(Spec(0.5), Schema()));
  std::vector<std::string> all = All(a.get(), "");
  ASSERT_EQ(all.size(), 500u);
  EXPECT_EQ(All(b.get(), ""), all);
  std::vector<std::string> tail = All(b.get(), R"({"rows":123})");
  EXPECT_EQ(tail, std::vector<std::string>(all.begin() + 123, all.end()));
  // Updates reuse keys emitted before; without updates the keys go round the range.
  std::set<std::string> keys;
  for (const std::string& r : all) keys.insert(r.substr(0, r.find('|')));
  EXPECT_LE(keys.size(), 100u);
  ASSERT_OK_AND_ASSIGN(auto c, MakeDatagenSource(Spec(0), Schema()));
  std::vector<std::string> plain = All(c.get(), "");
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(plain[i].substr(0, plain[i].find('|')), std::to_string(i % 100));
  }
}

TEST(DatagenSourceTest, RefusesColumnsItCannotMake) {
  TableSchema s = Schema();
  s.fields.push_back({3, "d", DataType::Date(), {}, {}});
  auto r = MakeDatagenSource(Spec(0), s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("column 'd'"), std::string::npos);
}

}  // namespace
}  // namespace fjord::runtime

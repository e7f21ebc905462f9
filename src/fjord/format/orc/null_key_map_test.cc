// MAP columns with NULL keys end to end: hand-made ORC files (Arrow cannot write them) read
// through ReadDataFile (the guard sends them to Fjord's own reader), printed as JSON, converted
// to Values and back, unified with the map form and cast; plus the hand-made-only encodings
// (decimal64, a non-UTC writer time zone, v1 dictionaries, pre-1970 timestamps).
#include <arrow/api.h>

#include <fstream>

#include "fjord/common/arrow_status.h"
#include "fjord/file_io.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/format/orc/orc_reader.h"
#include "fjord/format/orc/orc_tail.h"
#include "fjord/format/orc/orc_test_file.h"
#include "fjord/format/row_json.h"
#include "fjord/testing/test_util.h"

namespace fjord::orc {
namespace {

using K = OrcTypeKind;
using orc::testing::BoolRle;
using orc::testing::BuildOrcFile;
using orc::testing::IntRleV1;
using orc::testing::TestStripe;
using orc::testing::TestType;
constexpr uint32_t kPresent = 0, kData = 1, kLength = 2, kDictionaryData = 3, kSecondary = 5;

std::string Write(const fjord::testing::TempDir& dir, const std::string& name,
                  const std::string& bytes) {
  std::string path = dir.Join(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

Result<std::vector<std::string>> Rows(const arrow::Table& table,
                                      const std::vector<DataField>& fields) {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& c : table.columns()) {
    FJORD_ARROW_ASSIGN_OR_RAISE(auto a, arrow::Concatenate(c->chunks()));
    columns.push_back(a);
  }
  std::vector<std::string> out;
  for (int64_t r = 0; r < table.num_rows(); ++r) {
    std::string row;
    FJORD_RETURN_NOT_OK(AppendRowJson(columns, fields, r, &row));
    out.push_back(row);
  }
  return out;
}

// struct<id: INT, attrs: MAP<STRING, INT>> with rows
//   1 {a: 1, NULL: 2} | 2 NULL | 3 {} | 4 {NULL: NULL, b: 3}
std::vector<TestType> MapTypes() {
  return {
      {K::kStruct, {1, 2}, {"id", "attrs"}}, {K::kInt}, {K::kMap, {3, 4}}, {K::kString}, {K::kInt}};
}
TestStripe MapStripe() {
  TestStripe s;
  s.rows = 4;
  s.streams = {{1, kData, IntRleV1({1, 2, 3, 4}, true)},
               {2, kPresent, BoolRle({true, false, true, true})},
               {2, kLength, IntRleV1({2, 0, 2}, false)},
               {3, kPresent, BoolRle({true, false, false, true})},
               {3, kData, "ab"},
               {3, kLength, IntRleV1({1, 1}, false)},
               {4, kPresent, BoolRle({true, true, false, true})},
               {4, kData, IntRleV1({1, 2, 3}, true)}};
  return s;
}
std::vector<DataField> MapFields() {
  return {{0, "id", DataType::Int(), {}, {}},
          {1, "attrs", DataType::Map(DataType::String(), DataType::Int()), {}, {}}};
}
const std::vector<std::string> kMapRows = {R"({"id":1,"attrs":[["a",1],[null,2]]})",
                                           R"({"id":2,"attrs":null})", R"({"id":3,"attrs":[]})",
                                           R"({"id":4,"attrs":[[null,null],["b",3]]})"};

TEST(OrcNullKeyMapTest, ReadDataFileReadsNullKeys) {
  fjord::testing::TempDir dir;
  auto io = FileIO::Local();
  for (OrcCompression codec : {OrcCompression::kNone, OrcCompression::kZstd}) {
    SCOPED_TRACE(OrcCompressionName(codec));
    // Key column 3 has NULLs per its statistics; two stripes.
    std::string bytes = BuildOrcFile(MapTypes(), {MapStripe(), MapStripe()},
                                     {false, false, true, true, true}, codec);
    std::string path = Write(dir, "nk.orc", bytes);
    ASSERT_OK_AND_ASSIGN(auto table, ReadDataFile(io.get(), path, FileFormat::kOrc, MapFields()));
    ASSERT_TRUE(table->ValidateFull().ok());
    EXPECT_EQ(table->column(1)->num_chunks(), 2);
    auto expected_type = NullKeyMapType(arrow::utf8(), arrow::field("value", arrow::int32()));
    EXPECT_TRUE(table->schema()->field(1)->type()->Equals(*expected_type))
        << table->schema()->field(1)->type()->ToString();
    ASSERT_OK_AND_ASSIGN(auto rows, Rows(*table, MapFields()));
    std::vector<std::string> expected = kMapRows;
    expected.insert(expected.end(), kMapRows.begin(), kMapRows.end());
    EXPECT_EQ(rows, expected);

    // Projection: only the map column.
    std::vector<DataField> only = {MapFields()[1]};
    ASSERT_OK_AND_ASSIGN(auto projected, ReadDataFile(io.get(), path, FileFormat::kOrc, only));
    EXPECT_EQ(projected->num_columns(), 1);
    ASSERT_OK_AND_ASSIGN(rows, Rows(*projected, only));
    EXPECT_EQ(rows[3], R"({"attrs":[[null,null],["b",3]]})");
    // A column the file lacks (next to the MAP, so that our reader reads the file).
    std::vector<DataField> missing = {MapFields()[1], {9, "nope", DataType::Int(), {}, {}}};
    EXPECT_THAT(ReadDataFile(io.get(), path, FileFormat::kOrc, missing),
                IsError(StatusCode::kCorruption, "no column 'nope'"));
  }
}

TEST(OrcNullKeyMapTest, LyingStatisticsAreCorruption) {
  // The key column claims no NULLs: a MapArray cannot be built, and must not be attempted.
  std::string bytes = BuildOrcFile(MapTypes(), {MapStripe()}, {false, false, true, false, true});
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, "lie.orc"));
  OrcReadAt read_at = [&](uint64_t o, uint64_t n) -> Result<std::string> {
    return bytes.substr(o, n);
  };
  EXPECT_THAT(ReadOrcFile(tail, bytes.size(), read_at, "lie.orc", MapFields()),
              IsError(StatusCode::kCorruption, "lie.orc: ORC column 'attrs' (id 2, MAP)"));
}

TEST(OrcNullKeyMapTest, ListFormFlowsThroughTheLayersAbove) {
  fjord::testing::TempDir dir;
  auto io = FileIO::Local();
  std::string path =
      Write(dir, "nk.orc", BuildOrcFile(MapTypes(), {MapStripe()}, {false, false, true, true}));
  ASSERT_OK_AND_ASSIGN(auto list_form, ReadDataFile(io.get(), path, FileFormat::kOrc, MapFields()));
  // The same columns in the map form, as another file would give them.
  arrow::Int32Builder ids;
  ASSERT_TRUE(ids.Append(5).ok());
  arrow::MapBuilder maps(arrow::default_memory_pool(), std::make_shared<arrow::StringBuilder>(),
                         std::make_shared<arrow::Int32Builder>());
  ASSERT_TRUE(maps.Append().ok());
  ASSERT_TRUE(static_cast<arrow::StringBuilder*>(maps.key_builder())->Append("z").ok());
  ASSERT_TRUE(static_cast<arrow::Int32Builder*>(maps.item_builder())->Append(9).ok());
  std::shared_ptr<arrow::Array> id_array, map_array;
  ASSERT_TRUE(ids.Finish(&id_array).ok());
  ASSERT_TRUE(maps.Finish(&map_array).ok());
  ASSERT_OK_AND_ASSIGN(auto canonical_map, ToCanonical(map_array, *MapFields()[1].type));
  ASSERT_OK_AND_ASSIGN(auto schema, ToArrowSchema(MapFields()));
  auto map_form = arrow::Table::Make(schema, {id_array, canonical_map});

  ASSERT_OK_AND_ASSIGN(auto unified, UnifyMapForms({map_form, list_form}));
  auto all = arrow::ConcatenateTables(unified);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_TRUE((*all)->ValidateFull().ok());
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(**all, MapFields()));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0], R"({"id":5,"attrs":[["z",9]]})");
  EXPECT_EQ(rows[4], kMapRows[3]);
  // Equal schemas come back as they are.
  ASSERT_OK_AND_ASSIGN(auto same, UnifyMapForms({map_form, map_form}));
  EXPECT_EQ(same[1], map_form);

  // ToCanonical keeps the list form, and casts inside it (schema evolution INT -> BIGINT).
  auto concatenated = arrow::Concatenate(list_form->column(1)->chunks());
  ASSERT_TRUE(concatenated.ok());
  std::shared_ptr<arrow::Array> column = *concatenated;
  ASSERT_OK_AND_ASSIGN(auto same_column, ToCanonical(column, *MapFields()[1].type));
  EXPECT_EQ(same_column, column);
  auto wider = DataType::Map(DataType::String(), DataType::BigInt());
  ASSERT_OK_AND_ASSIGN(auto cast, ToCanonical(column, *wider));
  EXPECT_TRUE(
      cast->type()->Equals(*NullKeyMapType(arrow::utf8(), arrow::field("value", arrow::int64()))));
  std::string json;
  ASSERT_OK(AppendValueJson(*cast, 3, *wider, &json));
  EXPECT_EQ(json, R"([[null,null],["b",3]])");

  // Values out and back in.
  ASSERT_OK_AND_ASSIGN(Value v, ValueFromArrow(*column, 0, *MapFields()[1].type));
  ASSERT_EQ(v.map().size(), 2u);
  EXPECT_TRUE(v.map()[1].first.is_null());
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ASSERT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), column->type(), &builder).ok());
  ASSERT_OK(AppendValueToBuilder(builder.get(), v, *MapFields()[1].type));
  std::shared_ptr<arrow::Array> rebuilt;
  ASSERT_TRUE(builder->Finish(&rebuilt).ok());
  EXPECT_TRUE(rebuilt->Equals(*column->Slice(0, 1)));
}

// Encodings Arrow's writer does not produce: decimal64 (no SECONDARY stream), TIMESTAMP under a
// non-UTC writer time zone, v1 DICTIONARY strings, and nanoseconds of pre-1970 instants.
TEST(OrcHandMadeTest, Decimal64TimeZonesDictionaries) {
  std::vector<TestType> types = {{K::kStruct, {1, 2, 3, 4}, {"d", "ts", "s", "lt"}},
                                 {K::kDecimal, {}, {}, 10, 2},
                                 {K::kTimestamp},
                                 {K::kString},
                                 {K::kTimestampInstant}};
  constexpr int64_t k2015NewYork = 1420070400 + 5 * 3600;
  TestStripe s;
  s.rows = 3;
  s.encodings = {0, 0, 0, 1, 0};
  s.dictionary_sizes = {0, 0, 0, 2, 0};
  s.timezone = "America/New_York";
  s.streams = {
      {1, kData, IntRleV1({12345, -5, 0}, true)},
      // Wall clocks 2020-07-01 12:00:00 (EDT) and 2020-01-15 08:30:00.25 (EST), and a NULL.
      {2, kPresent, BoolRle({true, true, false})},
      {2, kData, IntRleV1({1593619200 - k2015NewYork, 1579095000 - k2015NewYork}, true)},
      {2, kSecondary, IntRleV1({0, (25 << 3) | 6}, false)},
      {3, kData, IntRleV1({1, 0, 1}, false)},
      {3, kDictionaryData, "byeworld"},
      {3, kLength, IntRleV1({3, 5}, false)},
      // 1969-12-31 23:59:58.5 is stored as second -1 with 500000000 nanoseconds.
      {4, kData, IntRleV1({-1 - 1420070400, 0, 5}, true)},
      {4, kSecondary, IntRleV1({(5 << 3) | 7, 0, 1 << 3}, false)}};
  std::string bytes = BuildOrcFile(types, {s});
  std::vector<DataField> fields = {{0, "d", DataType::Decimal(12, 3), {}, {}},
                                   {1, "ts", DataType::Timestamp(3), {}, {}},
                                   {2, "s", DataType::String(), {}, {}},
                                   {3, "lt", DataType::TimestampLtz(9), {}, {}}};
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, "hand.orc"));
  OrcReadAt read_at = [&](uint64_t o, uint64_t n) -> Result<std::string> {
    return bytes.substr(o, n);
  };
  ASSERT_OK_AND_ASSIGN(auto table, ReadOrcFile(tail, bytes.size(), read_at, "hand.orc", fields));
  ASSERT_TRUE(table->ValidateFull().ok());
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(*table, fields));
  EXPECT_EQ(rows, (std::vector<std::string>{
                      R"({"d":"123.450","ts":"2020-07-01T12:00:00.000","s":"world",)"
                      R"("lt":"1969-12-31T23:59:58.500000000Z"})",
                      R"({"d":"-0.050","ts":"2020-01-15T08:30:00.250","s":"bye",)"
                      R"("lt":"2015-01-01T00:00:00.000000000Z"})",
                      R"({"d":"0.000","ts":null,"s":"world",)"
                      R"("lt":"2015-01-01T00:00:05.000000001Z"})"}));

  // An unknown writer time zone is a clear error.
  s.timezone = "Mars/Olympus_Mons";
  bytes = BuildOrcFile(types, {s});
  ASSERT_OK_AND_ASSIGN(tail, ReadOrcTail(bytes, "hand.orc"));
  EXPECT_THAT(ReadOrcFile(tail, bytes.size(), read_at, "hand.orc", fields),
              IsError(StatusCode::kNotImplemented, "writer time zone 'Mars/Olympus_Mons'"));
}

}  // namespace
}  // namespace fjord::orc

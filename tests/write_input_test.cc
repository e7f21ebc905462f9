// Input that is never silently changed (issue 13): the bad-input suite and exact conversion.
//
// BadWriteInput: a table of cases (format x column type x bad value), each written as `fjord write`
// does (ReadInputFile, TableWrite::Write, PrepareCommit, Commit) or as an Arrow batch through
// TableWrite::Write. Each must fail with Invalid naming the file (or the batch), the line (JSON
// lines, CSV) or row (Parquet, batches; 1-based) and the column, plus what is wrong; and the
// table directory must hold exactly the files it held before (no snapshot, no data file).
// The case counts by format and type are printed.
//
// ExactWriteInput: values that fit are stored exactly (leading zeros, big decimals, HALF_UP
// scale rounding, NULL versus empty string, RFC 4180 quoting, nested cells) in every format.
#include <arrow/api.h>
#include <arrow/io/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

// Every type of Paimon, one column each, and a NOT NULL id.
constexpr const char* kColumns =
    "id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE, "
    "dec DECIMAL(10, 2), bigdec DECIMAL(38, 10), c CHAR(3), vc VARCHAR(5), s STRING, "
    "bin BINARY(4), vb VARBINARY(8), bytes BYTES, dt DATE, tm TIME(3), ts TIMESTAMP(3), "
    "ts9 TIMESTAMP(9), ltz TIMESTAMP_LTZ(6), arr ARRAY<INT>, m MAP<STRING, INT>, "
    "r ROW<x INT, y STRING>, ms MULTISET<STRING>, r2 ROW<z VARCHAR(3)>";

std::set<std::string> ListFiles(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    out.insert(std::filesystem::relative(e.path(), dir).string());
  }
  return out;
}

// The files under `dir` (not the directories: an aborted write leaves the bucket directories it
// made, as Java's abort does).
std::set<std::string> ListRegularFiles(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(std::filesystem::relative(e.path(), dir).string());
  }
  return out;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

Status CommitAll(const Table& table, TableWrite& writer) {
  FJORD_ASSIGN_OR_RAISE(CommitMessages messages, writer.PrepareCommit(kBatchCommitIdentifier));
  FJORD_ASSIGN_OR_RAISE(auto commit, table.NewCommit("test"));
  return commit->Commit(messages, kBatchCommitIdentifier).status();
}

// What `fjord write` does with a file: batch by batch, the files written deleted on an error.
Status WriteFile(const Table& table, const std::string& path, InputFormat format,
                 const InputOptions& options = {}) {
  FJORD_ASSIGN_OR_RAISE(auto input, InputFileReader::Open(path, format, table.schema(), options));
  FJORD_ASSIGN_OR_RAISE(auto writer, table.NewWrite());
  FJORD_RETURN_NOT_OK(WriteInputFile(table, *input, *writer, kBatchCommitIdentifier));
  return CommitAll(table, *writer);
}

Status WriteArrow(const Table& table, const arrow::RecordBatch& batch) {
  FJORD_ASSIGN_OR_RAISE(auto writer, table.NewWrite());
  FJORD_RETURN_NOT_OK(WriteBatch(*writer, batch));
  return CommitAll(table, *writer);
}

Status WriteParquet(const std::string& path, const arrow::RecordBatch& batch,
                    int64_t row_group_rows = 1024) {
  auto table = arrow::Table::FromRecordBatches({batch.Slice(0)});
  if (!table.ok()) return Status::Internal(table.status().ToString());
  auto out = arrow::io::FileOutputStream::Open(path);
  if (!out.ok()) return Status::Internal(out.status().ToString());
  auto st = parquet::arrow::WriteTable(**table, arrow::default_memory_pool(), *out, row_group_rows);
  if (!st.ok()) return Status::Internal(st.ToString());
  return Status::OK();
}

// The rows of the latest snapshot in the canonical JSON-lines form.
std::string ReadJsonLines(const Table& table) {
  auto reader = table.NewRead().Open();
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return "";
  struct ArrowSchema schema;
  EXPECT_OK((*reader)->ExportSchema(&schema));
  std::ostringstream out;
  auto writer = RowTextWriter::Make(RowTextFormat::kJsonLines, (*reader)->fields(), &schema, &out);
  EXPECT_TRUE(writer.ok());
  while (true) {
    struct ArrowArray batch;
    EXPECT_OK((*reader)->Next(&batch));
    if (batch.release == nullptr) break;
    EXPECT_OK((*writer)->Write(&batch));
  }
  EXPECT_OK((*writer)->Finish());
  return out.str();
}

std::unique_ptr<Table> MakeTable(const TempDir& dir, const std::string& name,
                                 const std::string& columns) {
  auto catalog = *Catalog::Open(dir.path());
  EXPECT_OK(catalog->CreateDatabase("db", true));
  TableSpec spec;
  spec.fields = *ParseColumnList(columns);
  spec.options = {{"bucket", "-1"}, {"file.format", "parquet"}};
  TableIdentifier id{"db", name};
  EXPECT_OK(catalog->CreateTable(id, spec));
  return *catalog->GetTable(id);
}

// The type label of a column of kColumns, for the counts.
std::string TypeOf(const Table& table, const std::string& column) {
  for (const DataField& f : table.schema().fields) {
    if (f.name == column) {
      std::string t = f.type->ToString();
      if (t.find("LOCAL TIME ZONE") != std::string::npos) return "TIMESTAMP_LTZ";
      return t.substr(0, t.find_first_of("(<"));
    }
  }
  return column;  // a case about the file, not one column
}

struct Case {
  std::string format;                         // jsonl, csv, parquet, batch
  std::string type;                           // the column's type, or what the case is about
  std::string label;                          // a short description for failure messages
  std::string text;                           // the file (text formats)
  std::shared_ptr<arrow::RecordBatch> batch;  // parquet, batch
  std::vector<std::string> expect;            // fragments the message must hold
};

// A JSON-lines file: a good first line, the bad value of `column` on line 2.
Case Json(const std::string& column, const std::string& value, const std::string& what) {
  return {"jsonl",
          column,
          column + " = " + value,
          "{\"id\": 1}\n{\"id\": 2, \"" + column + "\": " + value + "}\n",
          nullptr,
          {"line 2", "column '" + column + "'", what}};
}

// A CSV file: header, a row with NULL, the bad cell of `column` on line 3.
Case Csv(const std::string& column, const std::string& cell, const std::string& what) {
  return {"csv",
          column,
          column + " = " + cell,
          "id," + column + "\n1,\n2," + cell + "\n",
          nullptr,
          {"line 3", "column '" + column + "'", what}};
}

std::vector<Case> TextCases() {
  std::vector<Case> cases = {
      // JSON lines, one bad value of every type.
      Json("b", "\"yes\"", "expected true or false"),
      Json("b", "1", "expected true or false"),
      Json("ti", "200", "out of range for TINYINT"),
      Json("si", "40000", "out of range for SMALLINT"),
      Json("i", "3000000000", "out of range for INT"),
      Json("i", "1.5", "expected an integer"),
      Json("i", "1e5", "expected an integer"),
      Json("i", "\"12\"", "expected an integer"),
      Json("bi", "9223372036854775808", "out of range for BIGINT"),
      Json("f", "1e39", "out of range for FLOAT"),
      Json("f", "\"1.5\"", "expected a number"),
      {"jsonl",
       "DOUBLE",
       "d = 1e400",
       "{\"id\": 1, \"d\": 1e400}\n",
       nullptr,
       {"line 1", "number overflow parsing '1e400'", "(in the value of \"d\")"}},
      Json("d", "\"abc\"", "expected a number"),
      Json("dec", "123456789.12", "does not fit DECIMAL(10, 2)"),
      Json("dec", "\"12x\"", "not a decimal number"),
      Json("dec", "true", "expected a decimal"),
      Json("bigdec", "1e30", "does not fit DECIMAL(38, 10)"),
      Json("bigdec", "\"123456789012345678901234567890\"", "does not fit DECIMAL(38, 10)"),
      Json("c", "\"abcd\"", "more than CHAR(3)"),
      Json("vc", "\"abcdef\"", "more than VARCHAR(5)"),
      Json("s", "7", "expected a string"),
      Json("bin", "\"!!!!\"", "is not base64"),
      Json("vb", "\"AAAAAAAAAAAAAA==\"", "longer than VARBINARY(8)"),
      Json("bytes", "\"abc\"", "is not base64"),
      Json("dt", "\"2026-02-30\"", "2026-02 has 28 days"),
      Json("dt", "\"2026-13-01\"", "has no month 13"),
      Json("dt", "\"20260101\"", "is not a date"),
      Json("tm", "\"25:00:00\"", "is not a time of day"),
      Json("tm", "\"25:00\"", "is not a time"),
      Json("tm", "\"12:00:00.1234\"", "more fraction digits than TIME(3)"),
      Json("ts", "\"2026-02-30 00:00:00\"", "2026-02 has 28 days"),
      Json("ts", "\"2026-01-01 24:00:00\"", "is not a time of day"),
      Json("ts", "\"2026-01-01 00:00:00.0001\"", "more fraction digits than TIMESTAMP(3)"),
      Json("ts9", "\"2300-01-01 00:00:00\"", "out of range for TIMESTAMP(9)"),
      Json("ltz", "\"2026-01-01 00:00:00\"", "ending in Z"),
      Json("arr", "[1, \"x\"]", "element 1"),
      Json("arr", "{\"a\": 1}", "expected a list"),
      Json("m", "[[1, 2]]", "expected a string"),
      Json("m", "{\"a\": 1}", "expected a list of [key, value] pairs"),
      Json("m", "[[null, 2]]", "MAP key may not be NULL"),
      Json("r", "{\"x\": 1, \"z\": 2}", "unknown field 'z'"),
      Json("r", "[1, \"a\"]", "expected an object"),
      Json("r", "{\"x\": \"1\"}", "field 'x'"),
      Json("ms", "[1]", "expected a string"),
      Json("r2", "{\"z\": \"abcd\"}", "field 'z': 'abcd' has 4 characters"),
      Json("ms", "[\"a\", null]", "MULTISET element may not be NULL"),
      {"jsonl",
       "NOT NULL",
       "id null",
       "{\"id\": null}\n",
       nullptr,
       {"line 1", "column 'id' is NOT NULL but the line has null"}},
      {"jsonl",
       "NOT NULL",
       "id missing",
       "{\"id\": 1}\n\n{\"s\": \"x\"}\n",
       nullptr,
       {"line 3", "column 'id' is NOT NULL but the line has no value for it"}},
      {"jsonl",
       "file",
       "unknown column",
       "{\"id\": 1, \"nope\": 2}\n",
       nullptr,
       {"line 1", "unknown column 'nope'"}},
      {"jsonl",
       "file",
       "malformed JSON",
       "{\"id\": 1}\n{\"id\": 2,\n",
       nullptr,
       {"line 2", "invalid JSON"}},
      {"jsonl",
       "file",
       "duplicate key",
       "{\"id\": 1, \"id\": 2}\n",
       nullptr,
       {"line 1", "given twice"}},
      {"jsonl",
       "file",
       "bad row kind",
       "{\"id\": 1, \"_row_kind\": \"+X\"}\n",
       nullptr,
       {"line 1", "_row_kind must be"}},
      // CSV, the same types as text.
      Csv("b", "maybe", "is not a BOOLEAN"),
      Csv("ti", "200", "out of range for TINYINT"),
      Csv("si", "-40000", "out of range for SMALLINT"),
      Csv("i", "3000000000", "out of range for INT"),
      Csv("i", "1e5", "is not an integer"),
      Csv("i", "007x", "is not an integer"),
      Csv("i", " 12", "has blanks around it"),
      Csv("i", "\"\"", "is not an integer"),
      Csv("bi", "99999999999999999999", "out of range for BIGINT"),
      Csv("f", "1e39", "out of range for FLOAT"),
      Csv("f", "0x10", "is not a number"),
      Csv("d", "1.2.3", "is not a number"),
      Csv("d", "1e999", "out of range for DOUBLE"),
      Csv("dec", "123456789.12", "does not fit DECIMAL(10, 2)"),
      Csv("bigdec", "12345678901234567890123456789.5", "does not fit DECIMAL(38, 10)"),
      Csv("c", "abcd", "more than CHAR(3)"),
      Csv("s", "caf\xe9", "not valid UTF-8"),
      Csv("vc", "\"a,b,c,d\"", "more than VARCHAR(5)"),
      Csv("bin", "AAAAAAAA", "longer than BINARY(4)"),
      Csv("vb", "AA=A", "is not base64"),
      Csv("bytes", "AAE", "is not base64"),
      Csv("dt", "2026-02-30", "2026-02 has 28 days"),
      Csv("dt", "2025-02-29", "2025-02 has 28 days"),
      Csv("tm", "25:00:00", "is not a time of day"),
      Csv("tm", "12:60:00", "is not a time of day"),
      Csv("ts", "2026-04-31 00:00:00", "2026-04 has 30 days"),
      Csv("ts", "2026-01-01 00:00:00.0005", "more fraction digits than TIMESTAMP(3)"),
      Csv("ts9", "1600-01-01 00:00:00", "out of range for TIMESTAMP(9)"),
      Csv("ltz", "2026-01-01T00:00:00.1234567Z", "more fraction digits than TIMESTAMP_LTZ(6)"),
      Csv("arr", "\"[1,2.5]\"", "expected an integer"),
      Csv("arr", "1", "expected a list"),
      Csv("m", "\"[[\"\"a\"\"]]\"", "pairs"),
      Csv("r", "\"{\"\"x\"\":1,\"\"w\"\":2}\"", "unknown field 'w'"),
      Csv("ms", "\"[\"\"a\"\"\"", "invalid JSON"),
      {"csv",
       "NOT NULL",
       "id empty",
       "id,s\n,x\n",
       nullptr,
       {"line 2", "column 'id' is NOT NULL but the field is NULL"}},
      {"csv",
       "NOT NULL",
       "id not in the header",
       "s\nx\n",
       nullptr,
       {"line 1", "column 'id'", "header does not have it"}},
      {"csv",
       "file",
       "unknown header",
       "id,nope\n1,2\n",
       nullptr,
       {"line 1", "unknown column 'nope'"}},
      {"csv", "file", "header twice", "id,s,s\n1,a,b\n", nullptr, {"line 1", "'s' given twice"}},
      {"csv",
       "file",
       "unterminated quote",
       "id,s\n1,\"abc\n2,x\n",
       nullptr,
       {"line 2", "not closed"}},
      {"csv",
       "file",
       "quote in unquoted field",
       "id,s\n1,ab\"c\n",
       nullptr,
       {"line 2", "quote inside an unquoted field"}},
      {"csv",
       "file",
       "text after closing quote",
       "id,s\n1,\"ab\"c\n",
       nullptr,
       {"line 2", "after the closing quote"}},
      {"csv", "file", "too few fields", "id,s,i\n1,a\n", nullptr, {"line 2", "2 fields"}},
      {"csv", "file", "empty file", "", nullptr, {"no header"}},
      {"csv",
       "file",
       "bad row kind",
       "id,_row_kind\n1,+X\n",
       nullptr,
       {"line 2", "column '_row_kind'"}},
  };
  return cases;
}

std::shared_ptr<arrow::Array> ArrayOf(const std::shared_ptr<arrow::DataType>& type,
                                      const std::string& json) {
  auto a = arrow::json::ArrayFromJSONString(type, json);
  EXPECT_TRUE(a.ok()) << type->ToString() << " " << json << ": " << a.status().ToString();
  return *a;
}

// Arrow columns (NULL, then the bad value on row 2) for Parquet files and for batches.
struct ArrowCase {
  std::string column;
  std::shared_ptr<arrow::Array> values;
  std::string what;
  bool parquet = true;  // false: Parquet cannot hold the Arrow type (date64 is stored as date32)
  bool row = true;      // false: the types do not convert at all, no row is to blame
};

std::shared_ptr<arrow::Array> NanArray() {
  arrow::DoubleBuilder b;
  EXPECT_TRUE(b.AppendNull().ok());
  EXPECT_TRUE(b.Append(std::nan("")).ok());
  return *b.Finish();
}

std::shared_ptr<arrow::Array> InvalidUtf8() {
  arrow::BinaryBuilder b;
  EXPECT_TRUE(b.AppendNull().ok());
  EXPECT_TRUE(b.Append("\xff").ok());
  return *b.Finish();
}

std::vector<ArrowCase> ArrowCases() {
  using arrow::field;
  auto ts = [](arrow::TimeUnit::type u) { return arrow::timestamp(u); };
  return {
      {"ti", ArrayOf(arrow::int32(), "[null, 200]"), "not in range"},
      {"si", ArrayOf(arrow::int64(), "[null, -40000]"), "not in range"},
      {"i", ArrayOf(arrow::int64(), "[null, 3000000000]"), "not in range"},
      {"i", ArrayOf(arrow::float64(), "[null, 1.5]"), "truncated"},
      {"i", ArrayOf(arrow::utf8(), "[null, \"007x\"]"), "is not an integer"},
      {"i", ArrayOf(arrow::utf8(), "[null, \"1e5\"]"), "is not an integer"},
      {"bi", ArrayOf(arrow::uint64(), "[null, 18446744073709551615]"), "not in range"},
      {"b", ArrayOf(arrow::utf8(), "[null, \"maybe\"]"), "is not a BOOLEAN"},
      {"f", ArrayOf(arrow::float64(), "[null, 1e39]"), "out of range for FLOAT"},
      {"d", ArrayOf(arrow::utf8(), "[null, \"1.2.3\"]"), "is not a number"},
      {"dec", ArrayOf(arrow::decimal128(20, 2), "[null, \"123456789012.34\"]"),
       "does not fit DECIMAL(10, 2)"},
      {"dec", ArrayOf(arrow::float64(), "[null, 1e10]"), "does not fit DECIMAL(10, 2)"},
      {"dec", NanArray(), "is not a DECIMAL"},
      {"dec", ArrayOf(arrow::int64(), "[null, 100000000]"), "does not fit DECIMAL(10, 2)"},
      {"bigdec", ArrayOf(arrow::decimal256(60, 0), "[null, \"1000000000000000000000000000000\"]"),
       "does not fit DECIMAL(38, 10)"},
      {"bigdec", ArrayOf(arrow::utf8(), "[null, \"1e30\"]"), "does not fit DECIMAL(38, 10)"},
      {"c", ArrayOf(arrow::utf8(), "[null, \"abcd\"]"), "more than CHAR(3)"},
      {"vc", ArrayOf(arrow::large_utf8(), "[null, \"abcdef\"]"), "more than VARCHAR(5)"},
      {"s", InvalidUtf8(), "UTF8"},
      {"bin", ArrayOf(arrow::binary(), "[null, \"abcde\"]"), "longer than BINARY(4)"},
      {"vb", ArrayOf(arrow::utf8(), "[null, \"abcdefghi\"]"), "longer than VARBINARY(8)"},
      {"dt", ArrayOf(arrow::utf8(), "[null, \"2026-02-30\"]"), "2026-02 has 28 days"},
      {"dt", ArrayOf(arrow::date64(), "[null, 86400001]"), "would lose data", false},
      {"tm", ArrayOf(arrow::time64(arrow::TimeUnit::MICRO), "[null, 1001]"), "would lose data"},
      {"tm", ArrayOf(arrow::utf8(), "[null, \"25:00:00\"]"), "is not a time of day"},
      {"ts", ArrayOf(ts(arrow::TimeUnit::NANO), "[null, 1000001]"), "would lose data"},
      {"ts", ArrayOf(arrow::utf8(), "[null, \"2026-02-30 00:00:00\"]"), "2026-02 has 28 days"},
      {"ts9", ArrayOf(ts(arrow::TimeUnit::MILLI), "[null, 10413792000000]"), "out of bounds"},
      {"ltz", ArrayOf(arrow::utf8(), "[null, \"2026-01-01 00:00:00\"]"), "ending in Z"},
      {"arr", ArrayOf(arrow::list(arrow::int64()), "[null, [1, 3000000000]]"), "not in range"},
      {"arr", ArrayOf(arrow::utf8(), "[null, \"[1, \\\"x\\\"]\"]"), "element 1"},
      {"m", ArrayOf(arrow::utf8(), "[null, \"{\\\"a\\\": 1}\"]"), "pairs"},
      {"r",
       ArrayOf(arrow::struct_({field("x", arrow::int64()), field("y", arrow::utf8())}),
               "[null, {\"x\": 3000000000, \"y\": \"a\"}]"),
       "not in range"},
      {"r", ArrayOf(arrow::int32(), "[null, 1]"), "cannot convert Arrow int32", true, false},
      {"ms", ArrayOf(arrow::utf8(), "[null, \"[1]\"]"), "expected a string"},
      {"r2", ArrayOf(arrow::struct_({field("z", arrow::utf8())}), "[null, {\"z\": \"abcd\"}]"),
       "field 'z': 'abcd' has 4 characters, more than VARCHAR(3)"},
  };
}

std::shared_ptr<arrow::RecordBatch> BatchOf(const std::string& column,
                                            const std::shared_ptr<arrow::Array>& values) {
  auto id = ArrayOf(arrow::int32(), "[1, 2]");
  return arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field(column, values->type())}), 2,
      {id, values});
}

std::vector<Case> BinaryCases() {
  std::vector<Case> cases;
  for (const ArrowCase& a : ArrowCases()) {
    for (std::string format : {"parquet", "batch"}) {
      if (format == "parquet" && !a.parquet) continue;
      std::vector<std::string> expect = {"column '" + a.column + "'", a.what};
      if (a.row) expect.push_back("row 2");
      cases.push_back({format, a.column, a.column + " = " + a.values->ToString(), "",
                       BatchOf(a.column, a.values), expect});
    }
  }
  auto id_null = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int32())}), 2,
                                          {ArrayOf(arrow::int32(), "[1, null]")});
  auto unknown = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("nope", arrow::int32())}), 1,
      {ArrayOf(arrow::int32(), "[1]"), ArrayOf(arrow::int32(), "[1]")});
  auto no_id = arrow::RecordBatch::Make(arrow::schema({arrow::field("s", arrow::utf8())}), 1,
                                        {ArrayOf(arrow::utf8(), "[\"x\"]")});
  for (const char* format : {"parquet", "batch"}) {
    cases.push_back({format,
                     "NOT NULL",
                     "id null",
                     "",
                     id_null,
                     {"row 2", "column 'id' is NOT NULL but the input has 1 NULL"}});
    cases.push_back({format,
                     "NOT NULL",
                     "id missing",
                     "",
                     no_id,
                     {"column 'id'", "NOT NULL but the input does not have it"}});
    cases.push_back({format, "file", "unknown column", "", unknown, {"unknown column 'nope'"}});
  }
  cases.push_back(
      {"parquet", "file", "not a Parquet file", "id\n1\n", nullptr, {"not a Parquet file"}});
  return cases;
}

class BadWriteInput : public ::testing::Test {
 protected:
  void Run(const std::vector<Case>& cases) {
    auto table = MakeTable(dir_, "t", kColumns);
    const std::set<std::string> before = ListFiles(table->path());
    std::map<std::string, std::map<std::string, int>> counts;
    int n = 0;
    for (const Case& c : cases) {
      SCOPED_TRACE(c.format + " " + c.label);
      std::string file = dir_.Join("input-" + std::to_string(n++) + "." + c.format);
      Status st;
      if (c.format == "batch") {
        st = WriteArrow(*table, *c.batch);
        file = "the batch";
      } else if (c.batch) {
        ASSERT_OK(WriteParquet(file, *c.batch));
        st = WriteFile(*table, file, InputFormat::kParquet);
      } else {
        WriteText(file, c.text);
        st = WriteFile(*table, file,
                       c.format == "jsonl" ? InputFormat::kJsonLines
                       : c.format == "csv" ? InputFormat::kCsv
                                           : InputFormat::kParquet);
      }
      EXPECT_TRUE(st.IsInvalid()) << st.ToString();
      EXPECT_NE(st.message().find(file), std::string::npos) << st.ToString();
      for (const std::string& fragment : c.expect) {
        EXPECT_NE(st.message().find(fragment), std::string::npos)
            << "'" << fragment << "' not in: " << st.ToString();
      }
      EXPECT_EQ(ListFiles(table->path()), before) << "files left behind";
      ++counts[c.format][TypeOf(*table, c.type)];
    }
    auto snapshots = table->Snapshots();
    ASSERT_TRUE(snapshots.ok());
    EXPECT_TRUE(snapshots->empty());
    for (const auto& [format, by_type] : counts) {
      int total = 0;
      std::cout << format << ":";
      for (const auto& [type, count] : by_type) {
        std::cout << " " << type << " " << count;
        total += count;
      }
      std::cout << " (" << total << " cases)\n";
    }
  }

  TempDir dir_;
};

TEST_F(BadWriteInput, JsonLinesAndCsv) { Run(TextCases()); }

TEST_F(BadWriteInput, ParquetAndArrowBatches) { Run(BinaryCases()); }

// The same refusals on a primary-key table (the key-value writer, its buffers and _row_kind).
TEST_F(BadWriteInput, PrimaryKeyTable) {
  auto catalog = *Catalog::Open(dir_.path());
  ASSERT_OK(catalog->CreateDatabase("db", true));
  TableSpec spec;
  spec.fields = *ParseColumnList("id INT NOT NULL, i INT, dt DATE");
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "2"}};
  ASSERT_OK(catalog->CreateTable({"db", "pk"}, spec));
  auto table = *catalog->GetTable({"db", "pk"});
  const std::set<std::string> before = ListFiles(table->path());
  std::string jsonl = dir_.Join("pk.jsonl");
  WriteText(jsonl,
            "{\"id\": 1, \"i\": 1}\n{\"id\": 2, \"dt\": \"2026-02-30\", \"_row_kind\": \"-D\"}\n");
  Status st = WriteFile(*table, jsonl, InputFormat::kJsonLines);
  EXPECT_THAT(st, IsError(StatusCode::kInvalid, "pk.jsonl line 2, column 'dt'"));
  std::string csv = dir_.Join("pk.csv");
  WriteText(csv, "id,_row_kind,i\n1,+U,3000000000\n");
  st = WriteFile(*table, csv, InputFormat::kCsv);
  EXPECT_THAT(st, IsError(StatusCode::kInvalid, "pk.csv line 2, column 'i'"));
  st = WriteArrow(*table, *BatchOf("i", ArrayOf(arrow::int64(), "[null, 3000000000]")));
  EXPECT_THAT(st, IsError(StatusCode::kInvalid, "the batch, row 2, column 'i'"));
  EXPECT_EQ(ListFiles(table->path()), before);
  EXPECT_TRUE(table->Snapshots()->empty());
}

// A write that fails after rows of an earlier call were accepted keeps nothing of the failing
// call and still commits nothing unless asked.
TEST_F(BadWriteInput, FailingBatchAddsNothingToTheWriter) {
  auto table = MakeTable(dir_, "t", "id INT NOT NULL, i INT");
  auto writer = *table->NewWrite();
  auto good = BatchOf("i", ArrayOf(arrow::int64(), "[1, 2]"));
  auto bad = BatchOf("i", ArrayOf(arrow::int64(), "[3, 3000000000]"));
  ASSERT_OK(WriteBatch(*writer, *good));
  Status st = WriteBatch(*writer, *bad);
  EXPECT_TRUE(st.IsInvalid()) << st.ToString();
  ASSERT_OK(CommitAll(*table, *writer));
  EXPECT_EQ(ReadJsonLines(*table), "{\"id\":1,\"i\":1}\n{\"id\":2,\"i\":2}\n");
}

class ExactWriteInput : public ::testing::Test {
 protected:
  TempDir dir_;
};

constexpr const char* kExactColumns =
    "id INT NOT NULL, s STRING, big DECIMAL(38, 10), small DECIMAL(10, 2), dt DATE, "
    "ts TIMESTAMP(6), b BYTES, arr ARRAY<INT>, r ROW<x INT, y STRING>";

TEST_F(ExactWriteInput, Csv) {
  auto table = MakeTable(dir_, "t", kExactColumns);
  std::string path = dir_.Join("in.csv");
  WriteText(path,
            "id,s,big,small,dt,ts,b,arr,r\r\n"
            "1,007,12345678901234567890.1234567891,1.005,2024-02-29,2026-01-01 12:00:00.123456,"
            "AAEC,\"[1,2]\",\"{\"\"x\"\":1,\"\"y\"\":\"\"a,b\"\"}\"\r\n"
            "2,1e5,-0.00000000005,-1.005,,2026-01-01T00:00:00.000000000,,[],\r\n"
            "3,\"\",,,,,,,\r\n"
            "4,,,,,,,,\r\n"
            "\r\n"
            "5,\"a \"\"quoted\"\"\nline, with comma\",1E+2,0.004,,,,,\n");
  ASSERT_OK(WriteFile(*table, path, InputFormat::kCsv));
  EXPECT_EQ(
      ReadJsonLines(*table),
      "{\"id\":1,\"s\":\"007\",\"big\":\"12345678901234567890.1234567891\",\"small\":\"1.01\","
      "\"dt\":\"2024-02-29\",\"ts\":\"2026-01-01T12:00:00.123456\",\"b\":\"AAEC\","
      "\"arr\":[1,2],\"r\":{\"x\":1,\"y\":\"a,b\"}}\n"
      "{\"id\":2,\"s\":\"1e5\",\"big\":\"-0.0000000001\",\"small\":\"-1.01\",\"dt\":null,"
      "\"ts\":\"2026-01-01T00:00:00.000000\",\"b\":null,\"arr\":[],\"r\":null}\n"
      "{\"id\":3,\"s\":\"\",\"big\":null,\"small\":null,\"dt\":null,\"ts\":null,\"b\":null,"
      "\"arr\":null,\"r\":null}\n"
      "{\"id\":4,\"s\":null,\"big\":null,\"small\":null,\"dt\":null,\"ts\":null,\"b\":null,"
      "\"arr\":null,\"r\":null}\n"
      "{\"id\":5,\"s\":\"a \\\"quoted\\\"\\nline, with comma\",\"big\":\"100.0000000000\","
      "\"small\":\"0.00\",\"dt\":null,\"ts\":null,\"b\":null,\"arr\":null,\"r\":null}\n");
}

TEST_F(ExactWriteInput, CsvNullLiteral) {
  auto table = MakeTable(dir_, "t", "id INT NOT NULL, s STRING, i INT");
  std::string path = dir_.Join("in.csv");
  WriteText(path, "id,s,i\n1,,\\N\n2,\\N,7\n3,\"\\N\",\\N\n");
  InputOptions options;
  options.csv_null = "\\N";
  ASSERT_OK(WriteFile(*table, path, InputFormat::kCsv, options));
  EXPECT_EQ(ReadJsonLines(*table),
            "{\"id\":1,\"s\":\"\",\"i\":null}\n{\"id\":2,\"s\":null,\"i\":7}\n"
            "{\"id\":3,\"s\":\"\\\\N\",\"i\":null}\n");
}

TEST_F(ExactWriteInput, JsonLines) {
  auto table = MakeTable(dir_, "t", kExactColumns);
  std::string path = dir_.Join("in.jsonl");
  WriteText(path,
            "{\"id\": 1, \"s\": \"007\", \"big\": 12345678901234567890.1234567891, "
            "\"small\": 1.005, \"dt\": \"2024-02-29\", \"ts\": \"2026-01-01 12:00:00.1234560\"}\n"
            "{\"id\": 2, \"big\": \"-0.00000000005\", \"small\": -1.005e0, \"arr\": [], "
            "\"r\": {\"y\": \"z\"}}\n");
  ASSERT_OK(WriteFile(*table, path, InputFormat::kJsonLines));
  EXPECT_EQ(
      ReadJsonLines(*table),
      "{\"id\":1,\"s\":\"007\",\"big\":\"12345678901234567890.1234567891\",\"small\":\"1.01\","
      "\"dt\":\"2024-02-29\",\"ts\":\"2026-01-01T12:00:00.123456\",\"b\":null,\"arr\":null,"
      "\"r\":null}\n"
      "{\"id\":2,\"s\":null,\"big\":\"-0.0000000001\",\"small\":\"-1.01\",\"dt\":null,"
      "\"ts\":null,\"b\":null,\"arr\":[],\"r\":{\"x\":null,\"y\":\"z\"}}\n");
}

TEST_F(ExactWriteInput, ParquetAndBatches) {
  auto input = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("s", arrow::utf8()),
                     arrow::field("big", arrow::float64()),
                     arrow::field("small", arrow::decimal128(12, 4)),
                     arrow::field("dt", arrow::utf8()),
                     arrow::field("ts", arrow::timestamp(arrow::TimeUnit::NANO)),
                     arrow::field("arr", arrow::list(arrow::int64()))}),
      2,
      {ArrayOf(arrow::int64(), "[1, 2]"), ArrayOf(arrow::utf8(), "[\"007\", \"1e5\"]"),
       ArrayOf(arrow::float64(), "[0.1, -5e-11]"),
       ArrayOf(arrow::decimal128(12, 4), "[\"1.0050\", \"-1.0050\"]"),
       ArrayOf(arrow::utf8(), "[\"2024-02-29\", null]"),
       ArrayOf(arrow::timestamp(arrow::TimeUnit::NANO), "[1000, null]"),
       ArrayOf(arrow::list(arrow::int64()), "[[1, 2147483647], null]")});
  const std::string expected =
      "{\"id\":1,\"s\":\"007\",\"big\":\"0.1000000000\",\"small\":\"1.01\",\"dt\":\"2024-02-29\","
      "\"ts\":\"1970-01-01T00:00:00.000001\",\"b\":null,\"arr\":[1,2147483647],\"r\":null}\n"
      "{\"id\":2,\"s\":\"1e5\",\"big\":\"-0.0000000001\",\"small\":\"-1.01\",\"dt\":null,"
      "\"ts\":null,\"b\":null,\"arr\":null,\"r\":null}\n";
  auto parquet_table = MakeTable(dir_, "p", kExactColumns);
  std::string path = dir_.Join("in.parquet");
  ASSERT_OK(WriteParquet(path, *input));
  ASSERT_OK(WriteFile(*parquet_table, path, InputFormat::kParquet));
  EXPECT_EQ(ReadJsonLines(*parquet_table), expected);
  auto batch_table = MakeTable(dir_, "b", kExactColumns);
  ASSERT_OK(WriteArrow(*batch_table, *input));
  EXPECT_EQ(ReadJsonLines(*batch_table), expected);
}

// `fjord cat --format csv` output reads back as the same rows (the empty string quoted).
TEST_F(ExactWriteInput, CsvRoundTrip) {
  auto table = MakeTable(dir_, "t", kColumns);
  std::string jsonl = dir_.Join("in.jsonl");
  WriteText(
      jsonl,
      "{\"id\": 1, \"b\": true, \"ti\": -128, \"si\": 32767, \"i\": -2147483648, "
      "\"bi\": 9223372036854775807, \"f\": 1.5e38, \"d\": -1e-300, \"dec\": \"-99999999.99\", "
      "\"bigdec\": \"9999999999999999999999999999.9999999999\", \"c\": \"ab\", "
      "\"vc\": \"é,\\\"\\n\", \"s\": \"\", \"bin\": \"AAECAw==\", \"vb\": \"\", "
      "\"bytes\": \"/w==\", \"dt\": \"0001-01-01\", \"tm\": \"23:59:59.999\", "
      "\"ts\": \"9999-12-31T23:59:59.999\", \"ts9\": \"2262-04-11T23:47:16.854775807\", "
      "\"ltz\": \"1969-12-31T23:59:59.999999Z\", \"arr\": [null, 1], "
      "\"m\": [[\"k\", null]], \"r\": {\"x\": 1, \"y\": \"\"}}\n"
      "{\"id\": 2, \"f\": \"NaN\", \"d\": \"-Infinity\"}\n");
  ASSERT_OK(WriteFile(*table, jsonl, InputFormat::kJsonLines));
  std::string first = ReadJsonLines(*table);

  auto reader = *table->NewRead().Open();
  struct ArrowSchema schema;
  ASSERT_OK(reader->ExportSchema(&schema));
  std::ostringstream csv;
  auto writer = *RowTextWriter::Make(RowTextFormat::kCsv, reader->fields(), &schema, &csv);
  while (true) {
    struct ArrowArray batch;
    ASSERT_OK(reader->Next(&batch));
    if (batch.release == nullptr) break;
    ASSERT_OK(writer->Write(&batch));
  }
  ASSERT_OK(writer->Finish());
  auto again = MakeTable(dir_, "again", kColumns);
  std::string csv_path = dir_.Join("out.csv");
  WriteText(csv_path, csv.str());
  ASSERT_OK(WriteFile(*again, csv_path, InputFormat::kCsv));
  EXPECT_EQ(ReadJsonLines(*again), first) << csv.str();
}

// `fjord write` reads its input a batch at a time (InputFileReader): a bad value after files were
// written for the rows before it leaves no file behind, lines and rows are the file's, and row
// kinds that come only in a late batch still apply.
class StreamedWriteInput : public ::testing::Test {
 protected:
  std::unique_ptr<Table> Make(const std::string& name, const std::string& pk,
                              std::vector<std::pair<std::string, std::string>> options) {
    auto catalog = *Catalog::Open(dir_.path());
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = *ParseColumnList("id INT NOT NULL, s STRING");
    if (!pk.empty()) spec.primary_keys = {pk};
    spec.options = std::move(options);
    EXPECT_OK(catalog->CreateTable({"db", name}, spec));
    return *catalog->GetTable({"db", name});
  }

  static size_t DataFiles(const Table& table) {
    size_t n = 0;
    for (const std::string& f : ListRegularFiles(table.path())) {
      n += f.find("bucket-") != std::string::npos && f.find("data-") != std::string::npos;
    }
    return n;
  }

  static std::string Text(int rows) {
    std::string s(40, 'x');
    std::string text;
    for (int i = 0; i < rows; ++i) {
      text += "{\"id\": " + std::to_string(i) + ", \"s\": \"" + s + std::to_string(i) + "\"}\n";
    }
    return text;
  }

  TempDir dir_;
};

TEST_F(StreamedWriteInput, ALateBadLineLeavesNoFiles) {
  // Small files: the writer writes some while the input is still being read.
  auto table = Make(
      "t", "", {{"bucket", "-1"}, {"target-file-size", "64 kb"}, {"parquet.block.size", "16 kb"}});
  const std::set<std::string> before = ListRegularFiles(table->path());
  InputOptions options;
  options.batch_bytes = 64 << 10;
  std::string good = dir_.Join("good.jsonl");
  std::string bad = dir_.Join("bad.jsonl");
  WriteText(good, Text(20000));
  WriteText(bad, Text(20000) + "{\"id\": \"x\"}\n");
  Status st = WriteFile(*table, bad, InputFormat::kJsonLines, options);
  EXPECT_THAT(st, IsError(StatusCode::kInvalid, "bad.jsonl line 20001, column 'id'"));
  EXPECT_EQ(ListRegularFiles(table->path()), before) << "files left behind";
  EXPECT_TRUE(table->Snapshots()->empty());
  // The same rows without the bad line: the files the failed write had written, committed.
  ASSERT_OK(WriteFile(*table, good, InputFormat::kJsonLines, options));
  EXPECT_GT(DataFiles(*table), 2u);
  std::string rows = ReadJsonLines(*table);
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 20000);
}

TEST_F(StreamedWriteInput, PrimaryKeyTableCsvWithLateDeletes) {
  // A small write buffer: the writer flushes files while the input is still being read.
  auto table =
      Make("pk", "id",
           {{"bucket", "2"}, {"write-buffer-size", "64 kb"}, {"write-buffer-spillable", "false"}});
  const std::set<std::string> before = ListRegularFiles(table->path());
  InputOptions options;
  options.batch_bytes = 32 << 10;
  std::string csv = "id,s,_row_kind\n";
  for (int i = 0; i < 20000; ++i) {
    csv += std::to_string(i) + ",\"line\nbreak " + std::to_string(i) + "\",+I\n";
  }
  for (int i = 0; i < 100; ++i) csv += std::to_string(i) + ",,-D\n";  // only in the last batch
  std::string bad = dir_.Join("bad.csv");
  WriteText(bad, csv + "x,y,+I\n");
  Status st = WriteFile(*table, bad, InputFormat::kCsv, options);
  // Line: the header, two lines per inserted record, one per delete, then the bad record.
  EXPECT_THAT(st, IsError(StatusCode::kInvalid, "bad.csv line 40102, column 'id'"));
  EXPECT_EQ(ListRegularFiles(table->path()), before) << "files left behind";
  std::string good = dir_.Join("good.csv");
  WriteText(good, csv);
  ASSERT_OK(WriteFile(*table, good, InputFormat::kCsv, options));
  EXPECT_GT(DataFiles(*table), 2u);
  std::string rows = ReadJsonLines(*table);
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 19900);
  EXPECT_EQ(rows.find("\"id\":99,"), std::string::npos);
  EXPECT_NE(rows.find("{\"id\":100,\"s\":\"line\\nbreak 100\"}"), std::string::npos);
}

TEST_F(StreamedWriteInput, ParquetRowsCountFromTheFileStart) {
  auto table = Make("p", "", {{"bucket", "-1"}});
  const int64_t n = 70000;  // more than one batch of 8Ki rows (16 x 4096 bytes of 8-byte rows)
  arrow::Int64Builder ids;
  for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(ids.Append(i == 69000 - 1 ? 3000000000 : i).ok());
  auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64())}), n,
                                        {*ids.Finish()});
  std::string path = dir_.Join("in.parquet");
  ASSERT_OK(WriteParquet(path, *batch));
  const std::set<std::string> before = ListRegularFiles(table->path());
  InputOptions options;
  options.batch_bytes = 4096;
  Status st = WriteFile(*table, path, InputFormat::kParquet, options);
  EXPECT_THAT(st, IsError(StatusCode::kInvalid, "in.parquet, row 69000, column 'id'"));
  EXPECT_EQ(ListRegularFiles(table->path()), before);
}

// `fjord write --threads N` decodes a Parquet input's columns on N threads: the same rows as on
// one, and a bad value is still named by its row counted from the file's start.
TEST_F(StreamedWriteInput, ParquetColumnsDecodedOnSeveralThreads) {
  const int64_t n = 150000;  // several row groups of 64Ki rows, several batches
  arrow::Int32Builder ids;
  arrow::StringBuilder texts;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(ids.Append(static_cast<int32_t>(i)).ok());
    ASSERT_TRUE(
        (i % 7 == 0 ? texts.AppendNull() : texts.Append("v" + std::to_string(i * 31))).ok());
  }
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("s", arrow::utf8())}), n,
      {*ids.Finish(), *texts.Finish()});
  std::string path = dir_.Join("in.parquet");
  ASSERT_OK(WriteParquet(path, *batch, 65536));
  std::string rows[2];
  for (int threads : {1, 2}) {
    auto table = Make("t" + std::to_string(threads), "", {{"bucket", "-1"}});
    InputOptions options;
    options.batch_bytes = 64 << 10;
    options.threads = threads;
    ASSERT_OK(WriteFile(*table, path, InputFormat::kParquet, options));
    rows[threads - 1] = ReadJsonLines(*table);
  }
  EXPECT_EQ(std::count(rows[0].begin(), rows[0].end(), '\n'), n);
  EXPECT_NE(rows[0].find("{\"id\":149999,\"s\":\"v4649969\"}"), std::string::npos);
  EXPECT_EQ(rows[1], rows[0]);

  // A NULL in the NOT NULL column at row 140,001: named so on two threads too.
  arrow::Int32Builder bad;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_TRUE((i == 140000 ? bad.AppendNull() : bad.Append(static_cast<int32_t>(i))).ok());
  }
  auto bad_batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int32())}), n,
                                            {*bad.Finish()});
  std::string bad_path = dir_.Join("bad.parquet");
  ASSERT_OK(WriteParquet(bad_path, *bad_batch));
  auto table = Make("bad", "", {{"bucket", "-1"}});
  InputOptions options;
  options.threads = 2;
  EXPECT_THAT(WriteFile(*table, bad_path, InputFormat::kParquet, options),
              IsError(StatusCode::kInvalid, "bad.parquet, row 140001, column 'id'"));
  EXPECT_EQ(DataFiles(*table), 0u);
}

// Parquet batches: about 4 x batch_bytes of rows by the file's metadata, at least 64Ki rows
// (the reader's cost per batch), unless 64Ki rows pass 16 x batch_bytes (wide rows).
TEST_F(StreamedWriteInput, ParquetBatchesSizedByBytes) {
  auto table = Make("p", "", {{"bucket", "-1"}});
  auto batch_rows = [&](const std::string& path, int64_t batch_bytes) {
    InputOptions options;
    options.batch_bytes = batch_bytes;
    std::vector<int64_t> rows;
    auto reader = InputFileReader::Open(path, InputFormat::kParquet, table->schema(), options);
    EXPECT_OK(reader.status());
    if (!reader.ok()) return rows;
    while (true) {
      struct ArrowSchema schema;
      struct ArrowArray array;
      Result<bool> more = (*reader)->Next(&schema, &array);
      EXPECT_OK(more.status());
      if (!more.ok() || !*more) break;
      rows.push_back(array.length);
      array.release(&array);
      schema.release(&schema);
    }
    return rows;
  };
  // Narrow rows (about 4 bytes): 64Ki-row batches where 4 x 32 KiB would hold about 32Ki rows.
  const int64_t n = 70000;
  arrow::Int32Builder ids;
  for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(ids.Append(static_cast<int32_t>(i)).ok());
  auto narrow = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int32())}), n,
                                         {*ids.Finish()});
  std::string narrow_path = dir_.Join("narrow.parquet");
  ASSERT_OK(WriteParquet(narrow_path, *narrow));
  EXPECT_EQ(batch_rows(narrow_path, 32 << 10), (std::vector<int64_t>{65536, n - 65536}));
  // Wide rows (about 2 KB): 16 x 16 KiB hold about 128 of them, not 64Ki.
  arrow::Int32Builder wide_ids;
  arrow::StringBuilder texts;
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    ASSERT_TRUE(wide_ids.Append(i).ok());
    std::string text(2000, 'a');
    for (char& ch : text) ch = static_cast<char>('a' + rng() % 26);  // no compression
    ASSERT_TRUE(texts.Append(text).ok());
  }
  auto wide = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("s", arrow::utf8())}), 3000,
      {*wide_ids.Finish(), *texts.Finish()});
  std::string wide_path = dir_.Join("wide.parquet");
  ASSERT_OK(WriteParquet(wide_path, *wide));
  std::vector<int64_t> rows = batch_rows(wide_path, 16 << 10);
  ASSERT_GT(rows.size(), 10u);
  EXPECT_EQ(std::accumulate(rows.begin(), rows.end(), int64_t{0}), 3000);
  EXPECT_LE(*std::max_element(rows.begin(), rows.end()), 200);
}

}  // namespace
}  // namespace fjord

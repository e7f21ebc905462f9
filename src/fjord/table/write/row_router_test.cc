#include "fjord/table/write/row_router.h"

#include <arrow/api.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>

#include "fjord/common/calendar.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/bucket.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

Result<RowRouter> MakeRouter(const TableSchema& schema) {
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema));
  return RowRouter::Make(schema, options);
}

using Groups = std::map<PartitionBucket, std::vector<int64_t>>;

// The row-at-a-time algorithm RowRouter::Route replaced, kept as the reference: one Value per
// cell, the generic encoder per row, one map lookup per row.
Result<Groups> ReferenceRoute(const TableSchema& schema, const arrow::RecordBatch& rows) {
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema));
  int32_t total_buckets = options.bucket();
  std::vector<int> pcols, bcols;
  std::vector<DataTypePtr> ptypes, btypes;
  for (const std::string& p : schema.partition_keys) {
    int i = schema.FieldIndex(p);
    pcols.push_back(i);
    ptypes.push_back(schema.fields[static_cast<size_t>(i)].type->WithNullable(true));
  }
  if (total_buckets > 0) {
    for (const std::string& b : schema.BucketKeys()) {
      int i = schema.FieldIndex(b);
      bcols.push_back(i);
      btypes.push_back(schema.fields[static_cast<size_t>(i)].type);
    }
  }
  Groups groups;
  std::vector<Value> pvalues(pcols.size());
  std::vector<Value> bvalues(bcols.size());
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    for (size_t i = 0; i < pcols.size(); ++i) {
      FJORD_ASSIGN_OR_RAISE(pvalues[i], ValueFromArrow(*rows.column(pcols[i]), r, *ptypes[i]));
    }
    FJORD_ASSIGN_OR_RAISE(std::string partition, EncodeStoredBinaryRow(pvalues, ptypes));
    int32_t bucket = 0;
    if (total_buckets > 0) {
      for (size_t i = 0; i < bcols.size(); ++i) {
        FJORD_ASSIGN_OR_RAISE(bvalues[i], ValueFromArrow(*rows.column(bcols[i]), r, *btypes[i]));
      }
      FJORD_ASSIGN_OR_RAISE(std::string key, EncodeBinaryRow(bvalues, btypes));
      bucket = BucketOf(key, total_buckets);
    }
    groups[{std::move(partition), bucket}].push_back(r);
  }
  return groups;
}

TableSchema MakeSchema(const std::vector<DataTypePtr>& types, std::vector<std::string> partition,
                       std::vector<std::string> bucket_key, int32_t buckets) {
  TableSchema s;
  s.version = TableSchema::kCurrentVersion;
  for (size_t i = 0; i < types.size(); ++i) {
    s.fields.push_back(DataField{static_cast<int32_t>(i), "c" + std::to_string(i), types[i]});
  }
  s.highest_field_id = static_cast<int32_t>(types.size()) - 1;
  s.partition_keys = std::move(partition);
  s.options.emplace_back("bucket", std::to_string(buckets));
  if (!bucket_key.empty()) {
    std::string joined;
    for (const std::string& k : bucket_key) joined += (joined.empty() ? "" : ",") + k;
    s.options.emplace_back("bucket-key", joined);
  }
  return s;
}

Result<std::shared_ptr<arrow::RecordBatch>> MakeBatch(const std::vector<DataTypePtr>& types,
                                                      const std::vector<std::vector<Value>>& rows) {
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (size_t c = 0; c < types.size(); ++c) {
    FJORD_ASSIGN_OR_RAISE(auto at, ToArrowType(*types[c]));
    std::unique_ptr<arrow::ArrayBuilder> builder;
    if (!arrow::MakeBuilder(arrow::default_memory_pool(), at, &builder).ok()) {
      return Status::Internal("no builder for ", at->ToString());
    }
    for (const auto& row : rows) {
      FJORD_RETURN_NOT_OK(AppendValueToBuilder(builder.get(), row[c], *types[c]));
    }
    std::shared_ptr<arrow::Array> array;
    if (!builder->Finish(&array).ok()) return Status::Internal("finish");
    arrays.push_back(array);
    fields.push_back(arrow::field("c" + std::to_string(c), at));
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), static_cast<int64_t>(rows.size()), arrays);
}

// Random values of every type the router meets; `pool` > 0 draws from that many distinct values
// per column (so partitions repeat), and `null_percent` of the values are NULL.
class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  Value Random(const DataType& t) {
    switch (t.root()) {
      case TypeRoot::kBoolean:
        return Value(Bits() % 2 == 0);
      case TypeRoot::kTinyInt:
        return Value(static_cast<int8_t>(Bits()));
      case TypeRoot::kSmallInt:
        return Value(static_cast<int16_t>(Bits()));
      case TypeRoot::kInt:
        return Value(static_cast<int32_t>(Edge<int32_t>()));
      case TypeRoot::kDate:
        return Value(static_cast<int32_t>(static_cast<int64_t>(Bits() % 200000) - 100000));
      case TypeRoot::kTime:
        return Value(static_cast<int32_t>(Bits() % 86400000));
      case TypeRoot::kBigInt:
        return Value(Edge<int64_t>());
      case TypeRoot::kFloat: {
        switch (Bits() % 6) {
          case 0:
            return Value(std::numeric_limits<float>::quiet_NaN());
          case 1:
            return Value(-0.0f);
          case 2:
            return Value(std::numeric_limits<float>::infinity());
          default: {
            auto bits = static_cast<uint32_t>(Bits());
            float f;
            std::memcpy(&f, &bits, 4);
            return Value(f);  // any bit pattern, NaN payloads included
          }
        }
      }
      case TypeRoot::kDouble: {
        if (Bits() % 5 == 0) return Value(-0.0);
        uint64_t bits = Bits();
        double d;
        std::memcpy(&d, &bits, 8);
        return Value(d);
      }
      case TypeRoot::kDecimal: {
        // Uniform in the digit count, then in the value: small and extreme values both occur.
        int digits = static_cast<int>(Bits() % static_cast<uint64_t>(t.precision() + 1));
        Int128 limit = 1;
        for (int i = 0; i < digits; ++i) limit *= 10;
        __extension__ typedef unsigned __int128 U128;
        U128 raw = (static_cast<U128>(Bits()) << 64) | Bits();
        Int128 v = static_cast<Int128>(raw % static_cast<U128>(limit));
        if (Bits() % 2 == 0) v = -v;
        return Value(Decimal{v, t.precision(), t.scale()});
      }
      case TypeRoot::kChar:
      case TypeRoot::kVarChar: {
        static const char* kPieces[] = {"a", "Z", "0", " ", "é", "日本", "ß", "😀", "\x7f", "-"};
        std::string s;
        size_t n = Bits() % 4 == 0 ? 0 : Bits() % 14;
        for (size_t i = 0; i < n; ++i) s += kPieces[Bits() % 10];
        return Value(s);
      }
      case TypeRoot::kBinary:
      case TypeRoot::kVarBinary: {
        std::string s(Bits() % 20, '\0');
        for (char& c : s) c = static_cast<char>(Bits());
        return Value(s);
      }
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz: {
        // Within the range of int64 nanoseconds, before and after 1970, at the type's precision.
        Timestamp ts;
        ts.millis = static_cast<int64_t>(Bits() % 18000000000000ull) - 9000000000000ll;
        int32_t nanos = static_cast<int32_t>(Bits() % 1000000);
        int p = t.precision();
        int32_t unit = 1;
        for (int i = p; i < 9; ++i) unit *= 10;  // 10^(9-p) nanoseconds
        if (p <= 3) {
          ts.millis -= ts.millis % (unit / 1000000 == 0 ? 1 : unit / 1000000);
          nanos = 0;
        } else {
          nanos -= nanos % unit;
        }
        ts.nanos_of_milli = nanos;
        return Value(ts);
      }
      case TypeRoot::kArray: {
        ValueList items;
        for (uint64_t i = Bits() % 4; i > 0; --i) items.push_back(Random(*t.element()));
        return Value::List(std::move(items));
      }
      case TypeRoot::kRow: {
        ValueList fields;
        for (const DataField& f : t.fields()) fields.push_back(Random(*f.type));
        return Value::List(std::move(fields));
      }
      default:
        return Value();
    }
  }

  std::vector<std::vector<Value>> Rows(const std::vector<DataTypePtr>& types, size_t n,
                                       const std::vector<bool>& pooled, int null_percent) {
    std::vector<std::vector<Value>> pools(types.size());
    for (size_t c = 0; c < types.size(); ++c) {
      if (!pooled[c]) continue;
      size_t size = 1 + Bits() % 7;
      for (size_t i = 0; i < size; ++i) pools[c].push_back(Random(*types[c]));
      if (types[c]->nullable()) pools[c].emplace_back();  // NULL partition values too
    }
    std::vector<std::vector<Value>> rows(n);
    for (auto& row : rows) {
      for (size_t c = 0; c < types.size(); ++c) {
        if (pooled[c]) {
          row.push_back(pools[c][Bits() % pools[c].size()]);
        } else if (types[c]->nullable() && static_cast<int>(Bits() % 100) < null_percent) {
          row.emplace_back();
        } else {
          row.push_back(Random(*types[c]));
        }
      }
    }
    return rows;
  }

  uint64_t Bits() { return rng_(); }

 private:
  template <typename T>
  T Edge() {
    switch (Bits() % 8) {
      case 0:
        return std::numeric_limits<T>::min();
      case 1:
        return std::numeric_limits<T>::max();
      case 2:
        return 0;
      default:
        return static_cast<T>(Bits());
    }
  }

  std::mt19937_64 rng_;
};

std::string Describe(const Groups& g) {
  std::string out;
  for (const auto& [key, rows] : g) {
    out += "(" + std::to_string(key.first.size()) + " bytes, bucket " + std::to_string(key.second) +
           "): " + std::to_string(rows.size()) + " rows\n";
  }
  return out;
}

// Routes `batch` with both algorithms and expects the same groups (or both to fail).
void ExpectSameAsReference(const TableSchema& schema, const arrow::RecordBatch& batch,
                           const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_OK_AND_ASSIGN(RowRouter router, MakeRouter(schema));
  Result<Groups> expected = ReferenceRoute(schema, batch);
  Result<Groups> actual = router.Route(batch);
  ASSERT_EQ(expected.ok(), actual.ok())
      << "reference: " << expected.status().ToString() << "; new: " << actual.status().ToString();
  if (!expected.ok()) return;
  EXPECT_TRUE(*expected == *actual) << "reference:\n"
                                    << Describe(*expected) << "new:\n"
                                    << Describe(*actual);
}

std::vector<DataTypePtr> AllKeyTypes() {
  std::vector<DataTypePtr> types = {DataType::Boolean(),
                                    DataType::TinyInt(),
                                    DataType::SmallInt(),
                                    DataType::Int(),
                                    DataType::BigInt(),
                                    DataType::Float(),
                                    DataType::Double(),
                                    DataType::Decimal(1, 0),
                                    DataType::Decimal(10, 2),
                                    DataType::Decimal(18, 4),
                                    DataType::Decimal(19, 0),
                                    DataType::Decimal(30, 20),
                                    DataType::Decimal(38, 10),
                                    DataType::Char(5),
                                    DataType::VarChar(20),
                                    DataType::String(),
                                    DataType::Binary(4),
                                    DataType::VarBinary(10),
                                    DataType::Bytes(),
                                    DataType::Date(),
                                    DataType::Time(),
                                    DataType::Int(false),
                                    DataType::String(false),
                                    DataType::Decimal(25, 5, false),
                                    DataType::Timestamp(9, false)};
  for (int p = 0; p <= 9; ++p) {
    types.push_back(DataType::Timestamp(p));
    types.push_back(DataType::TimestampLtz(p));
  }
  return types;
}

// Every key type alone as the partition, as the bucket key, and as both; NULLs in the partition.
TEST(RowRouterTest, EveryTypeSameAsReference) {
  Generator gen(20240601);
  for (const DataTypePtr& type : AllKeyTypes()) {
    std::vector<DataTypePtr> types = {type, DataType::Int(), type};
    for (int32_t buckets : {1, 2, 7, 128, 12345, 1000003, INT32_MAX}) {
      auto rows = gen.Rows(types, 300, {true, false, false}, 20);
      ASSERT_OK_AND_ASSIGN(auto batch, MakeBatch(types, rows));
      std::string what = type->ToString() + ", " + std::to_string(buckets) + " buckets";
      ExpectSameAsReference(MakeSchema(types, {"c0"}, {"c2"}, buckets), *batch, what + " p+b");
      ExpectSameAsReference(MakeSchema(types, {}, {"c2"}, buckets), *batch, what + " b");
      ExpectSameAsReference(MakeSchema(types, {"c0"}, {"c0", "c1", "c2"}, buckets), *batch,
                            what + " p+bbb");
    }
    auto rows = gen.Rows(types, 300, {true, false, false}, 20);
    ASSERT_OK_AND_ASSIGN(auto batch, MakeBatch(types, rows));
    ExpectSameAsReference(MakeSchema(types, {"c0"}, {}, -1), *batch,
                          type->ToString() + " bucket-unaware");
  }
}

// Many key columns of mixed types at once, over several chunks, in slices (non-zero offsets).
TEST(RowRouterTest, WideKeysManyRowsAndSlices) {
  Generator gen(7);
  std::vector<DataTypePtr> types = AllKeyTypes();
  std::vector<std::string> names;
  for (size_t i = 0; i < types.size(); ++i) names.push_back("c" + std::to_string(i));
  std::vector<bool> pooled(types.size(), false);
  pooled[15] = pooled[3] = pooled[11] = pooled[30] = true;  // STRING, INT, DECIMAL(30,20), TS
  auto rows = gen.Rows(types, 9000, pooled, 10);
  ASSERT_OK_AND_ASSIGN(auto batch, MakeBatch(types, rows));
  for (int32_t buckets : {3, 1000}) {
    TableSchema all = MakeSchema(types, {"c15", "c3", "c11", "c30"}, names, buckets);
    ExpectSameAsReference(all, *batch, "all columns, " + std::to_string(buckets));
    ExpectSameAsReference(all, *batch->Slice(4321, 4000), "slice");
    ExpectSameAsReference(all, *batch->Slice(8999), "one row");
    ExpectSameAsReference(all, *batch->Slice(0, 0), "no rows");
    TableSchema one = MakeSchema(types, {"c15"}, {"c3"}, buckets);
    ExpectSameAsReference(one, *batch->Slice(17, 5000), "string partition, int key");
  }
  // No partition, one bucket-unaware group.
  ExpectSameAsReference(MakeSchema(types, {}, {}, -1), *batch, "unpartitioned, unaware");
  // A partition per row (all distinct): the sparse grouping path.
  std::vector<DataTypePtr> t2 = {DataType::BigInt(), DataType::String()};
  std::vector<std::vector<Value>> distinct;
  for (int64_t i = 0; i < 20000; ++i) {
    distinct.push_back({Value(i * 7919), Value("k" + std::to_string(i % 311))});
  }
  ASSERT_OK_AND_ASSIGN(auto b2, MakeBatch(t2, distinct));
  ExpectSameAsReference(MakeSchema(t2, {"c0"}, {"c1"}, 100000), *b2, "distinct partitions");
}

// Nested key columns take the row-at-a-time path; the bytes are the same.
TEST(RowRouterTest, NestedKeysSameAsReference) {
  Generator gen(99);
  std::vector<DataTypePtr> types = {DataType::String(), DataType::Array(DataType::Int()),
                                    DataType::Row({DataField{10, "x", DataType::Decimal(20, 3)},
                                                   DataField{11, "y", DataType::String()}})};
  auto rows = gen.Rows(types, 500, {true, false, false}, 10);
  ASSERT_OK_AND_ASSIGN(auto batch, MakeBatch(types, rows));
  ExpectSameAsReference(MakeSchema(types, {"c0"}, {"c1", "c2"}, 16), *batch, "nested bucket key");
  ExpectSameAsReference(MakeSchema(types, {"c0"}, {"c0", "c2"}, 5), *batch, "mixed");
}

// A decimal outside its precision fails, as the reference does; non-canonical arrays are refused.
TEST(RowRouterTest, BadInput) {
  std::vector<DataTypePtr> types = {DataType::Decimal(5, 2), DataType::Int()};
  std::vector<std::vector<Value>> rows = {{Value(Decimal{12345, 5, 2}), Value(int32_t{1})},
                                          {Value(Decimal{123456, 5, 2}), Value(int32_t{2})}};
  ASSERT_OK_AND_ASSIGN(auto batch, MakeBatch(types, rows));
  ExpectSameAsReference(MakeSchema(types, {"c0"}, {"c1"}, 4), *batch, "partition too wide");
  ExpectSameAsReference(MakeSchema(types, {}, {"c0"}, 4), *batch, "key too wide");
  ASSERT_OK_AND_ASSIGN(RowRouter router, MakeRouter(MakeSchema(types, {"c0"}, {}, -1)));
  EXPECT_THAT(router.Route(*batch), IsError(StatusCode::kInvalid, "does not fit"));

  // INT32 data under a BIGINT partition column.
  auto wrong = arrow::RecordBatch::Make(arrow::schema({arrow::field("c0", arrow::int32())}), 1,
                                        {batch->column(1)});
  ASSERT_OK_AND_ASSIGN(RowRouter r2, MakeRouter(MakeSchema({DataType::BigInt()}, {"c0"}, {}, -1)));
  EXPECT_THAT(r2.Route(*wrong), IsError(StatusCode::kInvalid, "canonical"));
}

// ---- Java's golden bucket ids (the files bucket_test.cc checks through the Value encoder) ----

std::vector<std::string> ParseTokens(const std::string& line, std::vector<bool>* is_string) {
  std::vector<std::string> out;
  size_t i = line.find('[');
  if (i == std::string::npos) return out;
  for (++i; i < line.size();) {
    char c = line[i];
    if (c == ' ' || c == ',') {
      ++i;
    } else if (c == ']') {
      break;
    } else if (c == '"') {
      std::string t;
      for (++i; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] == '\\' && i + 1 < line.size()) ++i;
        t += line[i];
      }
      ++i;
      out.push_back(t);
      is_string->push_back(true);
    } else {
      std::string t;
      while (i < line.size() && line[i] != ',' && line[i] != ']' && line[i] != ' ') t += line[i++];
      out.push_back(t);
      is_string->push_back(false);
    }
  }
  return out;
}

// A golden token as the Value of `type` (the encodings bucket_test.cc documents).
Value GoldenValue(const std::string& text, bool is_string, const DataType& type) {
  if (!is_string && text == "null") return Value();
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Value(text == "true");
    case TypeRoot::kTinyInt:
      return Value(static_cast<int8_t>(std::stoi(text)));
    case TypeRoot::kSmallInt:
      return Value(static_cast<int16_t>(std::stoi(text)));
    case TypeRoot::kInt:
    case TypeRoot::kDate:
      return Value(static_cast<int32_t>(std::stol(text)));
    case TypeRoot::kBigInt:
      return Value(static_cast<int64_t>(std::stoll(text)));
    case TypeRoot::kFloat:
      return Value(std::strtof(text.c_str(), nullptr));
    case TypeRoot::kDouble:
      return Value(std::strtod(text.c_str(), nullptr));
    case TypeRoot::kDecimal:
      return Value(*Decimal::FromString(text, type.precision(), type.scale()));
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      Timestamp ts;
      if (is_string) {  // "2004-05-05T12:46:23.081836", UTC wall clock
        std::string s = text.size() == 16 ? text + ":00" : text;
        int64_t secs = DaysFromCivil(std::stoi(s.substr(0, 4)),
                                     static_cast<unsigned>(std::stoi(s.substr(5, 2))),
                                     static_cast<unsigned>(std::stoi(s.substr(8, 2)))) *
                           86400 +
                       std::stoi(s.substr(11, 2)) * 3600 + std::stoi(s.substr(14, 2)) * 60 +
                       std::stoi(s.substr(17, 2));
        int64_t nanos = 0;
        if (s.size() > 19 && s[19] == '.') {
          std::string frac = s.substr(20);
          frac.resize(9, '0');
          nanos = std::stoll(frac);
        }
        ts.millis = secs * 1000 + nanos / 1000000;
        ts.nanos_of_milli = static_cast<int32_t>(nanos % 1000000);
        return Value(ts);
      }
      int64_t nanos = std::stoll(text);  // nanoseconds since the epoch
      ts.millis = nanos / 1000000;
      ts.nanos_of_milli = static_cast<int32_t>(nanos % 1000000);
      if (ts.nanos_of_milli < 0) {
        ts.nanos_of_milli += 1000000;
        ts.millis -= 1;
      }
      return Value(ts);
    }
    default:
      return Value(text);
  }
}

// Routes a golden file's rows (bucket key = every column, 12345 buckets, as Java computed them)
// and checks each row landed in Java's bucket; also against the reference, with a partition.
void RunGolden(const std::string& name, const std::vector<DataTypePtr>& types) {
  SCOPED_TRACE(name);
  std::ifstream in(testing::FixturesDir() + "/paimon-java/" + name);
  ASSERT_TRUE(in.good());
  std::vector<std::vector<Value>> rows;
  std::vector<int32_t> expected;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find('[') == std::string::npos) continue;
    std::vector<bool> is_string;
    std::vector<std::string> tokens = ParseTokens(line, &is_string);
    ASSERT_EQ(tokens.size(), types.size() + 1) << line;
    std::vector<Value> row;
    for (size_t i = 0; i < types.size(); ++i) {
      row.push_back(GoldenValue(tokens[i], is_string[i], *types[i]));
    }
    rows.push_back(std::move(row));
    expected.push_back(std::stoi(tokens.back()));
  }
  ASSERT_EQ(rows.size(), 5000u);
  ASSERT_OK_AND_ASSIGN(auto batch, MakeBatch(types, rows));
  std::vector<std::string> names;
  for (size_t i = 0; i < types.size(); ++i) names.push_back("c" + std::to_string(i));
  TableSchema schema = MakeSchema(types, {}, names, 12345);
  ASSERT_OK_AND_ASSIGN(RowRouter router, MakeRouter(schema));
  ASSERT_OK_AND_ASSIGN(Groups groups, router.Route(*batch));
  std::vector<int32_t> actual(rows.size(), -1);
  for (const auto& [key, indices] : groups) {
    for (int64_t r : indices) actual[static_cast<size_t>(r)] = key.second;
  }
  size_t matched = 0;
  for (size_t r = 0; r < rows.size(); ++r) matched += actual[r] == expected[r];
  EXPECT_EQ(matched, rows.size());
  ExpectSameAsReference(MakeSchema(types, {"c0", "c2"}, names, 12345), *batch, "with partition");
}

std::vector<DataTypePtr> GoldenPrefix() {
  return {DataType::Boolean(), DataType::TinyInt(), DataType::SmallInt(), DataType::Int(),
          DataType::BigInt(),  DataType::Float(),   DataType::Double(),   DataType::Date()};
}

TEST(RowRouterTest, JavaGoldenBucketIds) {
  auto a = GoldenPrefix();
  for (auto t :
       {DataType::Timestamp(9), DataType::Decimal(30, 20), DataType::String(), DataType::Bytes()}) {
    a.push_back(t);
  }
  RunGolden("record_for_bucket_id.data", a);
  auto b = GoldenPrefix();
  for (auto t : {DataType::Timestamp(9), DataType::Decimal(5, 2), DataType::Decimal(30, 2),
                 DataType::String(), DataType::Bytes()}) {
    b.push_back(t);
  }
  RunGolden("record_with_null_for_bucket_id.data", b);
  RunGolden("record_with_timestamp_for_bucket_id.data",
            {DataType::Timestamp(0), DataType::Timestamp(3), DataType::Timestamp(6),
             DataType::Timestamp(9), DataType::TimestampLtz(0), DataType::TimestampLtz(3),
             DataType::TimestampLtz(6), DataType::TimestampLtz(9)});
}

}  // namespace
}  // namespace fjord

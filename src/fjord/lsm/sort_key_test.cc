#include "fjord/lsm/sort_key.h"

#include <arrow/api.h>

#include <algorithm>
#include <random>

#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

std::shared_ptr<arrow::RecordBatch> BatchOf(const std::vector<DataTypePtr>& types,
                                            const std::vector<std::vector<Value>>& rows) {
  arrow::FieldVector fields;
  arrow::ArrayVector columns;
  for (size_t c = 0; c < types.size(); ++c) {
    auto type = ToArrowType(*types[c]).value();
    std::unique_ptr<arrow::ArrayBuilder> b;
    EXPECT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), type, &b).ok());
    for (const auto& r : rows) EXPECT_OK(AppendValueToBuilder(b.get(), r[c], *types[c]));
    columns.push_back(b->Finish().ValueOrDie());
    fields.push_back(arrow::field("c" + std::to_string(c), type));
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), static_cast<int64_t>(rows.size()),
                                  columns);
}

// Java's comparison of two non-NaN values of one column (spec/format.md §5.4), NULL first.
int Reference(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? -1 : 1);
  auto sign = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (a.is<int32_t>()) return sign(a.get<int32_t>(), b.get<int32_t>());
  if (a.is<int64_t>()) return sign(a.get<int64_t>(), b.get<int64_t>());
  if (a.is<double>()) return sign(a.get<double>(), b.get<double>());
  if (a.is<Decimal>()) return sign(a.get<Decimal>().unscaled, b.get<Decimal>().unscaled);
  const std::string& x = a.get<std::string>();
  const std::string& y = b.get<std::string>();
  // Unsigned bytes, shorter prefix first.
  int c = std::memcmp(x.data(), y.data(), std::min(x.size(), y.size()));
  return c != 0 ? (c < 0 ? -1 : 1) : sign(x.size(), y.size());
}

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

int CompareEncoded(std::string_view a, std::string_view b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return Sign(c);
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

TEST(SortKeyTest, MemcmpOrderMatchesJavaComparatorOnEveryOrderedType) {
  std::mt19937_64 rng(7);
  std::vector<DataTypePtr> types = {
      DataType::Int(),    DataType::BigInt(), DataType::Double(),      DataType::Decimal(30, 2),
      DataType::String(), DataType::Bytes(),  DataType::Decimal(10, 3)};
  auto random_value = [&](const DataType& t) -> Value {
    if (rng() % 7 == 0) return Value();
    switch (t.root()) {
      case TypeRoot::kInt:
        return Value(static_cast<int32_t>(rng() % 11) - 5 + (rng() % 3 == 0 ? INT32_MIN / 2 : 0));
      case TypeRoot::kBigInt:
        return Value(static_cast<int64_t>(rng()));
      case TypeRoot::kDouble: {
        double choices[] = {-0.0, 0.0, -1.5, 2.25, -1e300, 1e-300, 3.0};
        return Value(choices[rng() % 7]);
      }
      case TypeRoot::kDecimal: {
        int64_t unscaled = static_cast<int64_t>(rng() % 2001) - 1000;
        if (t.precision() > 18 && rng() % 2) unscaled *= 1000000000000LL;
        return Value(Decimal{unscaled, t.precision(), t.scale()});
      }
      default: {
        std::string s;
        size_t n = rng() % 4;
        for (size_t i = 0; i < n; ++i) {
          unsigned char choices[] = {0x00, 0x01, 'a', 'b', 0x7f, 0x80, 0xc3, 0xff};
          s.push_back(static_cast<char>(choices[rng() % 8]));
        }
        return Value(s);
      }
    }
  };
  for (size_t c = 0; c < types.size(); ++c) {
    for (bool descending : {false, true}) {
      std::vector<std::vector<Value>> rows;
      for (int i = 0; i < 300; ++i) rows.push_back({random_value(*types[c])});
      auto batch = BatchOf({types[c]}, rows);
      ASSERT_OK_AND_ASSIGN(auto encoder, SortKeyEncoder::Make({{0, types[c], descending}}));
      ASSERT_OK_AND_ASSIGN(EncodedRows encoded, encoder.Encode(*batch));
      for (int64_t i = 0; i < encoded.size(); ++i) {
        for (int64_t j = 0; j < encoded.size(); j += 7) {
          int expected =
              Reference(rows[static_cast<size_t>(i)][0], rows[static_cast<size_t>(j)][0]);
          if (descending) expected = -expected;
          ASSERT_EQ(CompareEncoded(encoded[i], encoded[j]), expected)
              << types[c]->ToString() << " rows " << i << ", " << j;
        }
      }
    }
  }
}

TEST(SortKeyTest, SeveralColumnsCompareLexicographically) {
  std::vector<DataTypePtr> types = {DataType::String(false), DataType::Int(false)};
  std::vector<std::vector<Value>> rows = {{Value(std::string("a")), Value(int32_t{2})},
                                          {Value(std::string("a")), Value(int32_t{-1})},
                                          {Value(std::string("")), Value(int32_t{9})},
                                          {Value(std::string("a\0", 2)), Value(int32_t{0})}};
  auto batch = BatchOf(types, rows);
  ASSERT_OK_AND_ASSIGN(auto encoder, SortKeyEncoder::Make({{0, types[0]}, {1, types[1]}}));
  ASSERT_OK_AND_ASSIGN(EncodedRows e, encoder.Encode(*batch));
  // "" < "a",-1 < "a",2 < "a\0",0
  EXPECT_LT(CompareEncoded(e[2], e[1]), 0);
  EXPECT_LT(CompareEncoded(e[1], e[0]), 0);
  EXPECT_LT(CompareEncoded(e[0], e[3]), 0);
}

TEST(SortKeyTest, RefusesUnorderedTypesAndNullsInNotNullColumns) {
  EXPECT_THAT(SortKeyEncoder::Make({{0, DataType::Array(DataType::Int())}}),
              HasStatusCode(StatusCode::kNotImplemented));
  auto batch = BatchOf({DataType::Int()}, {{Value()}});
  ASSERT_OK_AND_ASSIGN(auto encoder, SortKeyEncoder::Make({{0, DataType::Int(false)}}));
  EXPECT_THAT(encoder.Encode(*batch), IsError(StatusCode::kInvalid, "NOT NULL"));
}

}  // namespace
}  // namespace fjord

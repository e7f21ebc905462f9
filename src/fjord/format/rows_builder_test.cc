// RowsBuilder writes the common types into plain memory (no Arrow builder); these tests hold its
// columns to what Arrow's own builders make of the same values (AppendValueToBuilder): every
// storage, NULLs first, late (after the columns grew) or never, the typed setters (strings from
// padded text too) and whole rows of Values, with and without ReserveMore; rows abandoned half
// filled.
#include "fjord/format/rows_builder.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <random>

#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"

namespace fjord {
namespace {

std::vector<DataField> Fields() {
  return {
      {0, "t", DataType::TinyInt()},
      {1, "s", DataType::SmallInt()},
      {2, "i", DataType::Int()},
      {3, "l", DataType::BigInt()},
      {4, "f", DataType::Float()},
      {5, "d", DataType::Double()},
      {6, "dec", DataType::Decimal(38, 4)},
      {7, "str", DataType::String()},
      {8, "c", DataType::Char(4)},
      {9, "dt", DataType::Date()},
      {10, "ts", DataType::Timestamp(6)},
      {11, "ltz", DataType::TimestampLtz(3)},
      {12, "b", DataType::Boolean()},
      {13, "bin", DataType::Bytes()},
  };
}

// A value of column c for row r; NULL where `null_from` (per column) says so.
Value Make(size_t c, int64_t r, std::mt19937_64& rng) {
  const int64_t x = static_cast<int64_t>(rng() >> 1) * (r % 2 == 0 ? 1 : -1);
  switch (c) {
    case 0:
      return static_cast<int8_t>(x);
    case 1:
      return static_cast<int16_t>(x);
    case 2:
      return static_cast<int32_t>(x);
    case 3:
      return x;
    case 4:
      return static_cast<float>(x) / 7.0f;
    case 5:
      return static_cast<double>(x) / 3.0;
    case 6: {
      // Unscaled values of both signs beyond 64 bits.
      Int128 unscaled = static_cast<Int128>(x) * 1000003;
      return Decimal{unscaled, 38, 4};
    }
    case 7:
      return std::string(static_cast<size_t>(rng() % 40), static_cast<char>('a' + r % 26));
    case 8:
      return std::string(static_cast<size_t>(rng() % 5), 'z');
    case 9:
      return static_cast<int32_t>(x % 100000);
    case 10:
    case 11:
      return Timestamp{x % 4000000000000, static_cast<int32_t>(rng() % 1000000)};
    case 12:
      return r % 3 == 0;
    default:
      return std::string(static_cast<size_t>(r % 7), '\x01');
  }
}

// The same values through Arrow's builders.
std::shared_ptr<arrow::Table> Expected(const std::vector<DataField>& fields,
                                       const std::vector<std::vector<Value>>& rows) {
  arrow::FieldVector afs;
  arrow::ArrayVector arrays;
  for (size_t c = 0; c < fields.size(); ++c) {
    auto af = ToArrowField(fields[c]);
    EXPECT_TRUE(af.ok());
    afs.push_back(*af);
    std::unique_ptr<arrow::ArrayBuilder> b;
    EXPECT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), (*af)->type(), &b).ok());
    for (const auto& row : rows)
      EXPECT_TRUE(AppendValueToBuilder(b.get(), row[c], *fields[c].type).ok());
    arrays.push_back(*b->Finish());
  }
  return arrow::Table::Make(arrow::schema(afs), arrays, static_cast<int64_t>(rows.size()));
}

void ExpectSame(const InputRows& got, const std::shared_ptr<arrow::Table>& want) {
  ASSERT_TRUE(got.rows->ValidateFull().ok()) << got.rows->ValidateFull().ToString();
  ASSERT_EQ(got.rows->num_rows(), want->num_rows());
  for (int c = 0; c < want->num_columns(); ++c) {
    EXPECT_TRUE(got.rows->column(c)->Equals(*want->column(c)))
        << want->field(c)->name() << "\n"
        << got.rows->column(c)->ToString().substr(0, 2000) << "\nwant\n"
        << want->column(c)->ToString().substr(0, 2000);
    EXPECT_EQ(got.rows->column(c)->null_count(), want->column(c)->null_count());
  }
}

// Rows of values, column c NULL at the rows where null_at(c, r) holds.
template <typename NullAt>
std::vector<std::vector<Value>> Rows(int64_t n, NullAt null_at) {
  std::mt19937_64 rng(7);
  std::vector<std::vector<Value>> rows;
  const size_t columns = Fields().size();
  for (int64_t r = 0; r < n; ++r) {
    std::vector<Value> row;
    for (size_t c = 0; c < columns; ++c) {
      Value v = Make(c, r, rng);
      row.push_back(null_at(c, r) ? Value() : v);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

TEST(RowsBuilderTest, WholeRowsMatchArrowsBuilders) {
  const auto fields = Fields();
  // Never NULL; NULL from the first row; first NULL after the columns grew (1024 rows at
  // first); every third row; the last row only.
  const int64_t n = 5000;
  const std::vector<std::function<bool(size_t, int64_t)>> patterns = {
      [](size_t, int64_t) { return false; },
      [](size_t c, int64_t r) { return r == 0 && c % 2 == 0; },
      [](size_t c, int64_t r) { return r >= 3000 + static_cast<int64_t>(c); },
      [](size_t c, int64_t r) { return (r + static_cast<int64_t>(c)) % 3 == 0; },
      [n](size_t, int64_t r) { return r == n - 1; },
  };
  for (size_t p = 0; p < patterns.size(); ++p) {
    for (bool reserve : {false, true}) {
      SCOPED_TRACE("pattern " + std::to_string(p) + (reserve ? " reserved" : ""));
      auto rows = Rows(n, patterns[p]);
      RowsBuilder b;
      ASSERT_TRUE(b.Init(fields).ok());
      for (int64_t r = 0; r < n; ++r) {
        if (reserve && r == 100) {
          ASSERT_TRUE(b.ReserveMore(n - r).ok());
        }
        ASSERT_TRUE(b.Append(rows[static_cast<size_t>(r)], static_cast<int8_t>(r % 4)).ok());
      }
      ASSERT_EQ(b.rows(), n);
      auto got = b.Finish();
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectSame(*got, Expected(fields, rows));
      ASSERT_EQ(got->row_kinds.size(), static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) EXPECT_EQ(got->row_kinds[static_cast<size_t>(r)], r % 4);
    }
  }
}

TEST(RowsBuilderTest, TypedSettersMatchValues) {
  const auto fields = Fields();
  auto rows =
      Rows(3000, [](size_t c, int64_t r) { return (r * 7 + static_cast<int64_t>(c)) % 5 == 0; });
  RowsBuilder b;
  ASSERT_TRUE(b.Init(fields).ok());
  using S = RowsBuilder::Storage;
  for (const auto& row : rows) {
    for (size_t c = 0; c < fields.size(); ++c) {
      const Value& v = row[c];
      if (v.is_null()) {
        b.SetNull(c);
        continue;
      }
      switch (b.storage(c)) {
        case S::kInt8:
        case S::kInt16:
        case S::kInt32:
        case S::kInt64:
          if (v.is<Timestamp>()) {
            b.SetInteger(c, TimestampToUnits(v.get<Timestamp>(), UnitsPerSecond(*b.arrow_type(c))));
          } else {
            b.SetInteger(c, v.AsInt64());
          }
          break;
        case S::kFloat:
          b.SetFloat(c, v.get<float>());
          break;
        case S::kDouble:
          b.SetDouble(c, v.get<double>());
          break;
        case S::kDecimal:
          b.SetDecimal(c, v.get<Decimal>().unscaled);
          break;
        case S::kString: {
          // Every other string from a padded copy (32 readable bytes from its start).
          const std::string& text = v.get<std::string>();
          if (c % 2 == 0) {
            ASSERT_TRUE(b.SetString(c, text).ok());
          } else {
            const std::string padded = text + std::string(32, '#');
            ASSERT_TRUE(b.SetPaddedString(c, std::string_view(padded).substr(0, text.size())).ok());
          }
          break;
        }
        case S::kBuilder:
          ASSERT_TRUE(b.AppendValue(c, v).ok());
          break;
      }
    }
    ASSERT_TRUE(b.EndRow(0).ok());
  }
  // Each storage is what its type says.
  EXPECT_EQ(b.storage(0), S::kInt8);
  EXPECT_EQ(b.storage(6), S::kDecimal);
  EXPECT_EQ(b.storage(8), S::kString);
  EXPECT_EQ(b.storage(9), S::kInt32);
  EXPECT_EQ(b.storage(11), S::kInt64);
  EXPECT_EQ(b.storage(12), S::kBuilder);
  auto got = b.Finish();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got, Expected(fields, rows));
}

TEST(RowsBuilderTest, NoRowsAndAMissingBuilderValue) {
  const auto fields = Fields();
  RowsBuilder empty;
  ASSERT_TRUE(empty.Init(fields).ok());
  auto none = empty.Finish();
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->rows->num_rows(), 0);
  EXPECT_TRUE(none->rows->ValidateFull().ok());
  EXPECT_EQ(none->rows->num_columns(), static_cast<int>(fields.size()));

  // A row that skipped a builder column is reported, not finished short.
  RowsBuilder b;
  ASSERT_TRUE(b.Init(fields).ok());
  std::mt19937_64 rng(1);
  for (size_t c = 0; c + 1 < fields.size(); ++c)
    ASSERT_TRUE(b.AppendValue(c, Make(c, 0, rng)).ok());
  ASSERT_TRUE(b.EndRow(0).ok());
  auto short_row = b.Finish();
  ASSERT_FALSE(short_row.ok());
  EXPECT_NE(short_row.status().message().find("bin"), std::string::npos)
      << short_row.status().ToString();
}

// A row filled in part and abandoned (as the JSON-lines fast path does with a line it leaves to
// the reference) leaves no trace: not its strings' bytes (some long enough to grow the text),
// not its NULLs (some in columns that never get a real NULL), not its values.
TEST(RowsBuilderTest, AbandonedRowsLeaveNoTrace) {
  const auto fields = Fields();
  // Columns 0-6 get real NULLs every fifth row; the others never do.
  auto rows = Rows(3000, [](size_t c, int64_t r) { return c < 7 && r % 5 == 0; });
  RowsBuilder b;
  ASSERT_TRUE(b.Init(fields).ok());
  std::mt19937_64 rng(11);
  using S = RowsBuilder::Storage;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int attempt = 0; attempt < static_cast<int>(r % 3); ++attempt) {
      // A partial row of other values in the plain columns, stopping anywhere.
      const size_t stop = rng() % fields.size();
      for (size_t c = 0; c < stop; ++c) {
        if (b.storage(c) == S::kBuilder) continue;
        if (rng() % 4 == 0) {
          b.SetNull(c);
          continue;
        }
        if (b.storage(c) == S::kString) {
          ASSERT_TRUE(b.SetString(c, std::string(rng() % 3 == 0 ? 5000 : 9, 'q')).ok());
        } else if (b.storage(c) == S::kDecimal) {
          b.SetDecimal(c, static_cast<Int128>(rng()));
        } else if (b.storage(c) == S::kFloat) {
          b.SetFloat(c, 1.5f);
        } else if (b.storage(c) == S::kDouble) {
          b.SetDouble(c, -2.5);
        } else {
          b.SetInteger(c, static_cast<int64_t>(rng() % 100));
        }
      }
      b.AbandonRow();
    }
    ASSERT_TRUE(b.Append(rows[r], 0).ok());
  }
  auto got = b.Finish();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got, Expected(fields, rows));
  for (int c = 7; c < got->rows->num_columns(); ++c) {
    EXPECT_EQ(got->rows->column(c)->null_count(), 0) << fields[static_cast<size_t>(c)].name;
  }
}

}  // namespace
}  // namespace fjord

#include "fjord/lsm/merge_function.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fjord/lsm/aggregators.h"
#include "fjord/lsm/merge_engine.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using Options = std::map<std::string, std::string>;
using OptInt = std::optional<int32_t>;

// ---------------------------------------------------------------------------------------------
// Helpers

Value I(int32_t v) { return Value(v); }
Value L(int64_t v) { return Value(v); }
Value S(const char* v) { return Value(std::string(v)); }
Value Dec(int64_t unscaled, int32_t precision, int32_t scale) {
  return Value(Decimal{unscaled, precision, scale});
}
const Value kNull;

std::vector<DataField> Fields(const std::vector<std::pair<std::string, DataTypePtr>>& cols) {
  std::vector<DataField> out;
  int32_t id = 0;
  for (const auto& [name, type] : cols) out.push_back(DataField{id++, name, type, {}, {}});
  return out;
}

// Columns f0..f<n-1>, all INT (nullable), key f0.
std::vector<DataField> IntFields(int n) {
  std::vector<std::pair<std::string, DataTypePtr>> cols;
  for (int i = 0; i < n; ++i) cols.emplace_back("f" + std::to_string(i), DataType::Int());
  return Fields(cols);
}

std::vector<Value> Ints(std::initializer_list<OptInt> values) {
  std::vector<Value> out;
  for (const OptInt& v : values) out.push_back(v ? Value(*v) : Value());
  return out;
}

// Feeds records to a merge function with increasing sequence numbers, as a key's records in
// merge order.
class Merger {
 public:
  Merger(std::vector<DataField> fields, std::vector<std::string> keys, Options options) {
    context_.fields = std::move(fields);
    context_.primary_keys = std::move(keys);
    context_.options = std::move(options);
  }

  Status Create() {
    auto created = CreateMergeFunction(context_);
    if (!created.ok()) return created.status();
    fn_ = std::move(created).value();
    fn_->Reset();
    return Status::OK();
  }

  Status Add(RowKind kind, std::vector<Value> row) {
    MergeRecord r;
    r.kind = kind;
    r.sequence_number = ++sequence_;
    r.row = std::move(row);
    return fn_->Add(r);
  }
  Status Add(std::vector<Value> row) { return Add(RowKind::kInsert, std::move(row)); }

  std::optional<MergeRecord> Result() {
    auto r = fn_->GetResult();
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return std::nullopt;
    return *r;
  }
  std::vector<Value> Row() {
    std::optional<MergeRecord> r = Result();
    EXPECT_TRUE(r.has_value());
    return r ? r->row : std::vector<Value>{};
  }
  RowKind Kind() {
    std::optional<MergeRecord> r = Result();
    EXPECT_TRUE(r.has_value());
    return r ? r->kind : RowKind::kInsert;
  }

  void Reset() { fn_->Reset(); }
  MergeFunction& fn() { return *fn_; }
  int64_t sequence() const { return sequence_; }

 private:
  MergeContext context_;
  std::unique_ptr<MergeFunction> fn_;
  int64_t sequence_ = 0;
};

Status CreateStatus(std::vector<DataField> fields, std::vector<std::string> keys, Options options) {
  Merger m(std::move(fields), std::move(keys), std::move(options));
  return m.Create();
}

// ---------------------------------------------------------------------------------------------
// Row kinds

TEST(MergeRowKindTest, ShortStringsRoundTrip) {
  for (RowKind kind :
       {RowKind::kInsert, RowKind::kUpdateBefore, RowKind::kUpdateAfter, RowKind::kDelete}) {
    ASSERT_OK_AND_ASSIGN(RowKind parsed, ParseRowKind(RowKindShortString(kind)));
    EXPECT_EQ(parsed, kind);
  }
  EXPECT_EQ(RowKindShortString(RowKind::kInsert), "+I");
  EXPECT_EQ(RowKindShortString(RowKind::kUpdateBefore), "-U");
  EXPECT_EQ(RowKindShortString(RowKind::kUpdateAfter), "+U");
  EXPECT_EQ(RowKindShortString(RowKind::kDelete), "-D");
  ASSERT_OK_AND_ASSIGN(RowKind del, ParseRowKind("delete"));
  EXPECT_EQ(del, RowKind::kDelete);
  EXPECT_THAT(ParseRowKind("+X"), IsError(StatusCode::kInvalid, "+X"));
  EXPECT_TRUE(IsRetract(RowKind::kDelete));
  EXPECT_TRUE(IsRetract(RowKind::kUpdateBefore));
  EXPECT_FALSE(IsRetract(RowKind::kUpdateAfter));
}

// ---------------------------------------------------------------------------------------------
// Engine selection and options

TEST(MergeFunctionTest, UnknownEngineIsInvalid) {
  EXPECT_THAT(CreateStatus(IntFields(2), {"f0"}, {{"merge-engine", "upsert"}}),
              IsError(StatusCode::kInvalid, "upsert"));
}

TEST(MergeFunctionTest, EngineNameIsCaseInsensitive) {
  Merger m(IntFields(3), {"f0"}, {{"merge-engine", "Partial-Update"}});
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, std::nullopt})));
  ASSERT_OK(m.Add(Ints({1, std::nullopt, 2})));
  EXPECT_EQ(m.Row(), Ints({1, 1, 2}));
}

TEST(MergeFunctionTest, BadBooleanOptionNamesTheOption) {
  EXPECT_THAT(CreateStatus(IntFields(2), {"f0"}, {{"ignore-delete", "yes"}}),
              IsError(StatusCode::kInvalid, "ignore-delete"));
}

// ---------------------------------------------------------------------------------------------
// deduplicate

TEST(MergeDeduplicateTest, LastRecordWinsWithItsKindAndSequence) {
  Merger m(IntFields(3), {"f0"}, {});
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1})));
  ASSERT_OK(m.Add(RowKind::kUpdateAfter, Ints({1, 2, std::nullopt})));
  std::optional<MergeRecord> r = m.Result();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->kind, RowKind::kUpdateAfter);
  EXPECT_EQ(r->sequence_number, 2);
  EXPECT_EQ(r->row, Ints({1, 2, std::nullopt}));  // NULLs overwrite: the whole row is replaced
}

TEST(MergeDeduplicateTest, TrailingDeleteWins) {
  Merger m(IntFields(2), {"f0"}, {{"merge-engine", "deduplicate"}});
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1})));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1})));
  EXPECT_EQ(m.Kind(), RowKind::kDelete);
  ASSERT_OK(m.Add(Ints({1, 3})));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
  EXPECT_EQ(m.Row(), Ints({1, 3}));
}

TEST(MergeDeduplicateTest, IgnoreDeleteSkipsRetracts) {
  Merger m(IntFields(2), {"f0"}, {{"ignore-delete", "true"}});
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1})));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1})));
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, Ints({1, 1})));
  std::optional<MergeRecord> r = m.Result();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->kind, RowKind::kInsert);
  EXPECT_EQ(r->sequence_number, 1);

  m.Reset();
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1})));
  EXPECT_FALSE(m.Result().has_value());
}

TEST(MergeDeduplicateTest, IgnoreDeleteAliases) {
  for (const char* alias :
       {"deduplicate.ignore-delete", "first-row.ignore-delete", "partial-update.ignore-delete"}) {
    Merger m(IntFields(2), {"f0"}, {{alias, "TRUE"}});
    ASSERT_OK(m.Create());
    ASSERT_OK(m.Add(Ints({1, 1})));
    ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1})));
    EXPECT_EQ(m.Kind(), RowKind::kInsert) << alias;
  }
  // The main key, when set, decides over its deprecated aliases.
  Merger m(IntFields(2), {"f0"},
           {{"ignore-delete", "false"}, {"deduplicate.ignore-delete", "true"}});
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1})));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1})));
  EXPECT_EQ(m.Kind(), RowKind::kDelete);
}

TEST(MergeDeduplicateTest, ResetClearsTheKey) {
  Merger m(IntFields(2), {"f0"}, {});
  ASSERT_OK(m.Create());
  EXPECT_FALSE(m.Result().has_value());
  ASSERT_OK(m.Add(Ints({1, 1})));
  m.Reset();
  EXPECT_FALSE(m.Result().has_value());
}

// ---------------------------------------------------------------------------------------------
// first-row

TEST(MergeFirstRowTest, FirstInsertWins) {
  Merger m(IntFields(2), {"f0"}, {{"merge-engine", "first-row"}});
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1})));
  ASSERT_OK(m.Add(RowKind::kUpdateAfter, Ints({1, 2})));
  std::optional<MergeRecord> r = m.Result();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->row, Ints({1, 1}));
  EXPECT_EQ(r->sequence_number, 1);
  EXPECT_EQ(r->kind, RowKind::kInsert);
}

TEST(MergeFirstRowTest, RetractIsAnErrorNamingIgnoreDelete) {
  Merger m(IntFields(2), {"f0"}, {{"merge-engine", "first-row"}});
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1})));
  EXPECT_THAT(m.Add(RowKind::kDelete, Ints({1, 1})),
              IsError(StatusCode::kInvalid, "ignore-delete"));
  EXPECT_THAT(m.Add(RowKind::kUpdateBefore, Ints({1, 1})), IsError(StatusCode::kInvalid, "-U"));
}

TEST(MergeFirstRowTest, IgnoreDeleteSkipsRetracts) {
  Merger m(IntFields(2), {"f0"},
           {{"merge-engine", "first-row"}, {"first-row.ignore-delete", "true"}});
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 9})));
  EXPECT_FALSE(m.Result().has_value());
  ASSERT_OK(m.Add(Ints({1, 2})));
  ASSERT_OK(m.Add(Ints({1, 3})));
  EXPECT_EQ(m.Row(), Ints({1, 2}));
}

// ---------------------------------------------------------------------------------------------
// partial-update without sequence groups

Options PartialUpdate(Options extra = {}) {
  extra["merge-engine"] = "partial-update";
  return extra;
}

TEST(MergePartialUpdateTest, NonNullFieldsOverwrite) {
  Merger m(IntFields(7), {"f0"}, PartialUpdate());
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1, 1, 1, 1, 1})));
  ASSERT_OK(m.Add(Ints({1, 2, 2, 2, 2, 2, std::nullopt})));
  std::optional<MergeRecord> r = m.Result();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->row, Ints({1, 2, 2, 2, 2, 2, 1}));
  EXPECT_EQ(r->kind, RowKind::kInsert);
  EXPECT_EQ(r->sequence_number, 2);
}

TEST(MergePartialUpdateTest, UpdateAfterResultIsInsert) {
  Merger m(IntFields(3), {"f0"}, PartialUpdate());
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(RowKind::kUpdateAfter, Ints({1, 1, std::nullopt})));
  ASSERT_OK(m.Add(RowKind::kUpdateAfter, Ints({1, std::nullopt, 2})));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
  EXPECT_EQ(m.Row(), Ints({1, 1, 2}));
}

TEST(MergePartialUpdateTest, NullIntoNotNullColumnIsAnError) {
  auto fields =
      Fields({{"k", DataType::Int(false)}, {"a", DataType::Int(false)}, {"b", DataType::Int()}});
  Merger m(fields, {"k"}, PartialUpdate());
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1})));
  EXPECT_THAT(m.Add(Ints({1, std::nullopt, 2})), IsError(StatusCode::kInvalid, "'a'"));
}

TEST(MergePartialUpdateTest, RetractIsAnErrorListingTheRemedies) {
  Merger m(IntFields(3), {"f0"}, PartialUpdate());
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1})));
  Status st = m.Add(RowKind::kDelete, Ints({1, 1, 1}));
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_THAT(st.message(), ::testing::HasSubstr("'ignore-delete'"));
  EXPECT_THAT(st.message(), ::testing::HasSubstr("'partial-update.remove-record-on-delete'"));
  EXPECT_THAT(st.message(), ::testing::HasSubstr("sequence-group"));
  EXPECT_THAT(st.message(),
              ::testing::HasSubstr("'partial-update.remove-record-on-sequence-group'"));
  EXPECT_THAT(m.Add(RowKind::kUpdateBefore, Ints({1, 1, 1})), IsError(StatusCode::kInvalid, "-U"));
}

TEST(MergePartialUpdateTest, IgnoreDeleteSkipsRetracts) {
  Merger m(IntFields(3), {"f0"}, PartialUpdate({{"ignore-delete", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1})));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 5, 5})));
  ASSERT_OK(m.Add(Ints({1, std::nullopt, 2})));
  std::optional<MergeRecord> r = m.Result();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->row, Ints({1, 1, 2}));
  EXPECT_EQ(r->kind, RowKind::kInsert);
  EXPECT_EQ(r->sequence_number, 3);
}

TEST(MergePartialUpdateTest, IgnoredLeadingRetractStillSeedsTheRow) {
  // Java initialises the row from the first record even when it is an ignored retract.
  Merger m(IntFields(3), {"f0"}, PartialUpdate({{"partial-update.ignore-delete", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 5, 6})));
  // Only retracts: a DELETE result (dropped by readers).
  EXPECT_EQ(m.Kind(), RowKind::kDelete);
  ASSERT_OK(m.Add(Ints({1, std::nullopt, 7})));
  EXPECT_EQ(m.Row(), Ints({1, 5, 7}));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
}

TEST(MergePartialUpdateTest, RemoveRecordOnDelete) {
  Merger m(IntFields(4), {"f0"},
           PartialUpdate({{"partial-update.remove-record-on-delete", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 3, 5, 7})));
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, Ints({1, 3, 5, 7})));  // -U is ignored
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
  EXPECT_EQ(m.Row(), Ints({1, 3, 5, 7}));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 2, 2, std::nullopt})));
  std::optional<MergeRecord> r = m.Result();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->kind, RowKind::kDelete);
  EXPECT_EQ(r->sequence_number, 3);
  EXPECT_EQ(r->row, Ints({1, 2, 2, std::nullopt}));
  // A later insert of the same merge starts from the delete row's values (as Java does).
  ASSERT_OK(m.Add(Ints({1, std::nullopt, 9, std::nullopt})));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
  EXPECT_EQ(m.Row(), Ints({1, 2, 9, std::nullopt}));
}

TEST(MergePartialUpdateTest, RemoveRecordOnDeleteChecksNotNull) {
  auto fields =
      Fields({{"k", DataType::Int(false)}, {"a", DataType::Int(false)}, {"b", DataType::Int()}});
  Merger m(fields, {"k"}, PartialUpdate({{"partial-update.remove-record-on-delete", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 3, 5})));
  EXPECT_THAT(m.Add(RowKind::kDelete, Ints({1, std::nullopt, 5})),
              IsError(StatusCode::kInvalid, "'a'"));
}

TEST(MergePartialUpdateTest, ConflictingOptions) {
  EXPECT_THAT(CreateStatus(IntFields(3), {"f0"},
                           PartialUpdate({{"partial-update.remove-record-on-delete", "true"},
                                          {"ignore-delete", "true"}})),
              IsError(StatusCode::kInvalid, "conflict"));
  EXPECT_THAT(CreateStatus(IntFields(3), {"f0"},
                           PartialUpdate({{"partial-update.remove-record-on-delete", "true"},
                                          {"fields.f2.sequence-group", "f1"}})),
              IsError(StatusCode::kInvalid, "conflict"));
  EXPECT_THAT(CreateStatus(IntFields(3), {"f0"},
                           PartialUpdate({{"partial-update.remove-record-on-sequence-group", "f2"},
                                          {"fields.f2.sequence-group", "f1"},
                                          {"ignore-delete", "true"}})),
              IsError(StatusCode::kInvalid, "conflict"));
  EXPECT_THAT(CreateStatus(IntFields(3), {"f0"},
                           PartialUpdate({{"partial-update.remove-record-on-sequence-group", "f1"},
                                          {"fields.f2.sequence-group", "f1"}})),
              IsError(StatusCode::kInvalid, "'f1'"));
}

// ---------------------------------------------------------------------------------------------
// partial-update with sequence groups

TEST(MergePartialUpdateTest, SequenceGroups) {
  Merger m(IntFields(7), {"f0"},
           PartialUpdate(
               {{"fields.f3.sequence-group", "f1,f2"}, {"fields.f6.sequence-group", "f4,f5"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1, 1, 1, 1, 1})));
  // Group f6 has a NULL sequence: skipped.
  ASSERT_OK(m.Add(Ints({1, 2, 2, 2, 2, 2, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 2, 2, 1, 1, 1}));
  // Group f3 is older: ignored; group f6 is newer.
  ASSERT_OK(m.Add(Ints({1, 3, 3, 1, 3, 3, 3})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 2, 2, 3, 3, 3}));

  // Retracts null the group's columns when their sequence wins.
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1, 1, 3, 1, 1, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, 3, 3, 3, 3}));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1, 1, 3, 1, 1, 4})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, 3, std::nullopt, std::nullopt, 4}));
  ASSERT_OK(m.Add(Ints({1, 4, 4, 4, 5, 5, 5})));
  EXPECT_EQ(m.Row(), Ints({1, 4, 4, 4, 5, 5, 5}));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1, 1, 6, 1, 1, 6})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, 6, std::nullopt, std::nullopt, 6}));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
}

TEST(MergePartialUpdateTest, WinningGroupWritesNulls) {
  Merger m(IntFields(4), {"f0"}, PartialUpdate({{"fields.f1.sequence-group", "f2"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 10, 100})));
  ASSERT_OK(m.Add(Ints({1, 2, std::nullopt, std::nullopt})));
  // f2 is in the winning group: NULL overwrites; f3 is in no group: NULL does not.
  EXPECT_EQ(m.Row(), Ints({1, 2, std::nullopt, 100}));
  // An equal sequence also wins.
  ASSERT_OK(m.Add(Ints({1, 2, 20, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 20, 100}));
}

TEST(MergePartialUpdateTest, SequenceGroupRemoveRecordOnSequenceGroup) {
  Merger m(IntFields(7), {"f0"},
           PartialUpdate({{"fields.f3.sequence-group", "f1,f2"},
                          {"fields.f6.sequence-group", "f4,f5"},
                          {"partial-update.remove-record-on-sequence-group", "f6"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1, 1, 1, 1, 1})));
  ASSERT_OK(m.Add(Ints({1, 2, 2, 2, 2, 2, std::nullopt})));
  ASSERT_OK(m.Add(Ints({1, 3, 3, 1, 3, 3, 3})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 2, 2, 3, 3, 3}));

  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1, 1, 3, 1, 1, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, 3, 3, 3, 3}));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
  // A winning -D in group f6 deletes the whole row.
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1, 1, 3, 1, 1, 4})));
  EXPECT_EQ(m.Row(), Ints({1, 1, 1, 3, 1, 1, 4}));
  EXPECT_EQ(m.Kind(), RowKind::kDelete);
  ASSERT_OK(m.Add(Ints({1, 4, 4, 4, 5, 5, 5})));
  EXPECT_EQ(m.Row(), Ints({1, 4, 4, 4, 5, 5, 5}));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1, 1, 6, 1, 1, 6})));
  EXPECT_EQ(m.Row(), Ints({1, 1, 1, 6, 1, 1, 6}));
  EXPECT_EQ(m.Kind(), RowKind::kDelete);
}

TEST(MergePartialUpdateTest, MultiFieldSequenceGroups) {
  Merger m(IntFields(9), {"f0"},
           PartialUpdate({{"fields.f3,f4.sequence-group", "f1,f2"},
                          {"fields.f7,f8.sequence-group", "f5,f6"}}));
  ASSERT_OK(m.Create());
  // All-NULL sequence fields skip the group.
  ASSERT_OK(m.Add(Ints({1, std::nullopt, std::nullopt, std::nullopt, std::nullopt, 1, 1, 1, 3})));
  ASSERT_OK(m.Add(Ints({1, 2, 2, std::nullopt, std::nullopt, 2, 2, 1, 3})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, std::nullopt, std::nullopt, 2, 2, 1, 3}));
  m.Reset();

  ASSERT_OK(m.Add(Ints({1, 1, 1, 1, 1, 1, 1, 1, 3})));
  // (2,2) > (1,1) wins; (1,NULL) < (1,3) loses: a NULL second field compares smallest.
  ASSERT_OK(m.Add(Ints({1, 2, 2, 2, 2, 2, 1, 1, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 2, 2, 2, 1, 1, 1, 3}));
  // (1,3) < (2,2) loses; (3,2) > (1,3) wins: fields compare in order.
  ASSERT_OK(m.Add(Ints({1, 1, 3, 1, 3, 3, 3, 3, 2})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 2, 2, 2, 3, 3, 3, 2}));

  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1, 1, 3, 3, 1, 1, std::nullopt, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, 3, 3, 3, 3, 3, 2}));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1, 1, 3, 1, 1, 1, 4, 4})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, 3, 3, std::nullopt, std::nullopt, 4, 4}));
  ASSERT_OK(m.Add(Ints({1, 4, 4, 4, 4, 5, 5, 5, 5})));
  EXPECT_EQ(m.Row(), Ints({1, 4, 4, 4, 4, 5, 5, 5, 5}));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 1, 1, 6, 1, 1, 1, 6, 1})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, 6, 1, std::nullopt, std::nullopt, 6, 1}));
}

TEST(MergePartialUpdateTest, SequenceGroupWithDefaultLastNonNullValue) {
  Merger m(IntFields(7), {"f0"},
           PartialUpdate({{"fields.f3.sequence-group", "f1,f2"},
                          {"fields.f6.sequence-group", "f4,f5"},
                          {"fields.default-aggregate-function", "last_non_null_value"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1, 1, 1, 1, 1})));
  ASSERT_OK(m.Add(Ints({1, 2, 2, 2, 2, 2, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 2, 2, 1, 1, 1}));
  ASSERT_OK(m.Add(Ints({1, 3, 3, 1, 3, 3, 3})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 2, 2, 3, 3, 3}));
  ASSERT_OK(m.Add(Ints({1, 4, std::nullopt, 4, 5, std::nullopt, 5})));
  EXPECT_EQ(m.Row(), Ints({1, 4, 2, 4, 5, 3, 5}));
}

TEST(MergePartialUpdateTest, FirstValueInSequenceGroup) {
  Merger m(IntFields(4), {"f0"},
           PartialUpdate({{"fields.f1.sequence-group", "f2,f3"},
                          {"fields.f2.aggregate-function", "first_value"},
                          {"fields.f3.aggregate-function", "last_value"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1, 1})));
  ASSERT_OK(m.Add(Ints({1, 2, 2, 2})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 1, 2}));
  // An older record still aggregates, with the arguments reversed.
  ASSERT_OK(m.Add(Ints({1, 0, 3, 3})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 3, 2}));
}

TEST(MergePartialUpdateTest, AggregationInSequenceGroups) {
  Merger m(IntFields(8), {"f0"},
           PartialUpdate({{"fields.f1.sequence-group", "f2,f3,f4"},
                          {"fields.f7.sequence-group", "f6"},
                          {"fields.f0.aggregate-function", "listagg"},  // key: ignored
                          {"fields.f2.aggregate-function", "sum"},
                          {"fields.f4.aggregate-function", "last_value"},
                          {"fields.f6.aggregate-function", "last_non_null_value"},
                          {"fields.f4.ignore-retract", "true"},
                          {"fields.f6.ignore-retract", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1, 1, 1, 1, 1, 1})));
  ASSERT_OK(m.Add(Ints({1, 2, 1, 2, 2, 2, 2, 0})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 2, 2, 2, 2, 1, 1}));
  // Neither group advances; sum still adds.
  ASSERT_OK(m.Add(Ints({1, 1, 1, 1, 1, 1, 2, 0})));
  EXPECT_EQ(m.Row(), Ints({1, 2, 3, 2, 2, 1, 1, 1}));
  ASSERT_OK(m.Add(Ints({1, 1, -1, 1, 1, 2, 2, 0})));
  ASSERT_OK(
      m.Add(Ints({1, 3, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, 2})));
  EXPECT_EQ(m.Row(), Ints({1, 3, 2, std::nullopt, std::nullopt, 2, 1, 2}));
  ASSERT_OK(m.Add(Ints({1, 3, 1, 1, 1, 1, 1, 3})));
  EXPECT_EQ(m.Row(), Ints({1, 3, 3, 1, 1, 1, 1, 3}));
  // Retracts: sum subtracts, a plain column becomes NULL, ignore-retract keeps.
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, Ints({1, 3, 2, 1, 1, 1, 1, 3})));
  EXPECT_EQ(m.Row(), Ints({1, 3, 1, std::nullopt, 1, 1, 1, 3}));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 3, 2, 1, 1, 1, 1, 3})));
  EXPECT_EQ(m.Row(), Ints({1, 3, -1, std::nullopt, 1, 1, 1, 3}));
  // A retract with an older sequence still retracts from the aggregate.
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 2, 2, 1, 1, 1, 1, 3})));
  EXPECT_EQ(m.Row(), Ints({1, 3, -3, std::nullopt, 1, 1, 1, 3}));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
}

TEST(MergePartialUpdateTest, RetractWithNullGroupSequenceIsSkipped) {
  Merger m(IntFields(9), {"f0"},
           PartialUpdate({{"fields.f1,f2.sequence-group", "f3,f4,f5"},
                          {"fields.f7,f8.sequence-group", "f6"},
                          {"fields.f3.aggregate-function", "sum"},
                          {"fields.f6.aggregate-function", "last_non_null_value"},
                          {"fields.f6.ignore-retract", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, std::nullopt, std::nullopt, 1, 1, 1, 1, 1, 1})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                           1, 1, 1}));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, std::nullopt, std::nullopt, 1, 1, 1, 0, 1, 1})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                           1, 1, 1}));
}

TEST(MergePartialUpdateTest, LeadingRetractInSequenceGroup) {
  // The first record is a retract: the row is seeded from it and the result stays DELETE until
  // an insert arrives.
  Merger m(IntFields(3), {"f0"}, PartialUpdate({{"fields.f1.sequence-group", "f2"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 5, 5})));
  EXPECT_EQ(m.Row(), Ints({1, 5, std::nullopt}));
  EXPECT_EQ(m.Kind(), RowKind::kDelete);
  ASSERT_OK(m.Add(Ints({1, 6, 6})));
  EXPECT_EQ(m.Row(), Ints({1, 6, 6}));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
}

TEST(MergePartialUpdateTest, SequenceGroupErrors) {
  EXPECT_THAT(
      CreateStatus(IntFields(7), {"f0"}, PartialUpdate({{"fields.f3.sequence-group", "f1,f2,f7"}})),
      IsError(StatusCode::kInvalid, "can not be found in table schema"));
  EXPECT_THAT(
      CreateStatus(IntFields(7), {"f0"}, PartialUpdate({{"fields.f2,f9.sequence-group", "f1"}})),
      IsError(StatusCode::kInvalid, "'f9'"));
  EXPECT_THAT(CreateStatus(IntFields(5), {"f0"},
                           PartialUpdate({{"fields.f3.sequence-group", "f1,f2"},
                                          {"fields.f4.sequence-group", "f1,f2"}})),
              IsError(StatusCode::kInvalid, "defined repeatedly"));
}

TEST(MergePartialUpdateTest, AggregateFunctionNeedsSequenceGroup) {
  auto fields = Fields({{"pk", DataType::Int()},
                        {"f0", DataType::String()},
                        {"g0", DataType::Int()},
                        {"f1", DataType::String()},
                        {"g1", DataType::Int()}});
  EXPECT_THAT(CreateStatus(fields, {"pk"},
                           PartialUpdate({{"fields.f0.aggregate-function", "listagg"},
                                          {"fields.f1.aggregate-function", "listagg"}})),
              IsError(StatusCode::kInvalid, "'f0'"));
  EXPECT_THAT(CreateStatus(fields, {"pk"},
                           PartialUpdate({{"fields.f0.aggregate-function", "listagg"},
                                          {"fields.f1.aggregate-function", "listagg"},
                                          {"fields.g0.sequence-group", "f0"}})),
              IsError(StatusCode::kInvalid, "'f1'"));
  EXPECT_OK(CreateStatus(fields, {"pk"},
                         PartialUpdate({{"fields.f0.aggregate-function", "listagg"},
                                        {"fields.f1.aggregate-function", "listagg"},
                                        {"fields.g0.sequence-group", "f0"},
                                        {"fields.g1.sequence-group", "f1"}})));
  // The default function applies to every value column, so it needs groups too...
  EXPECT_THAT(
      CreateStatus(fields, {"pk"}, PartialUpdate({{"fields.default-aggregate-function", "max"}})),
      IsError(StatusCode::kInvalid, "sequence group"));
  // ...except last_non_null_value.
  EXPECT_OK(CreateStatus(fields, {"pk"},
                         PartialUpdate({{"fields.f0.aggregate-function", "last_non_null_value"}})));
}

TEST(MergePartialUpdateTest, LastNonNullValueWithoutGroupBehavesAsPlainUpdate) {
  Merger m(IntFields(3), {"f0"},
           PartialUpdate({{"fields.default-aggregate-function", "last_non_null_value"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1})));
  ASSERT_OK(m.Add(Ints({1, std::nullopt, 2})));
  EXPECT_EQ(m.Row(), Ints({1, 1, 2}));
}

// ---------------------------------------------------------------------------------------------
// aggregation engine

Options Aggregation(Options extra = {}) {
  extra["merge-engine"] = "aggregation";
  return extra;
}

TEST(MergeAggregationTest, DefaultAndPerFieldFunctions) {
  auto fields = Fields({{"k", DataType::Int()},
                        {"a", DataType::Int()},
                        {"b", DataType::Int()},
                        {"c", DataType::Int()},
                        {"d", DataType::Int()}});
  Merger m(fields, {"k"},
           Aggregation({{"fields.default-aggregate-function", "first_non_null_value"},
                        {"fields.b.aggregate-function", "sum"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, std::nullopt, 1, 1, 1})));
  ASSERT_OK(m.Add(Ints({1, 2, std::nullopt, 2, 2})));
  ASSERT_OK(m.Add(Ints({1, 3, 3, std::nullopt, 3})));
  ASSERT_OK(m.Add(Ints({1, 4, 4, 4, std::nullopt})));
  ASSERT_OK(m.Add(RowKind::kUpdateAfter, Ints({1, 5, 5, 5, 5})));
  std::optional<MergeRecord> r = m.Result();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->row, Ints({1, 2, 13, 1, 1}));
  EXPECT_EQ(r->kind, RowKind::kInsert);
  EXPECT_EQ(r->sequence_number, 5);
}

TEST(MergeAggregationTest, DefaultIsLastNonNullValue) {
  Merger m(IntFields(3), {"f0"}, Aggregation());
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1})));
  ASSERT_OK(m.Add(Ints({1, std::nullopt, 2})));
  EXPECT_EQ(m.Row(), Ints({1, 1, 2}));
  // Retract with a non-NULL value clears it; a NULL value keeps it.
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, Ints({1, 1, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, 2}));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
}

TEST(MergeAggregationTest, KeyAndSequenceFieldColumns) {
  auto fields = Fields({{"k", DataType::Int()}, {"v", DataType::Int()}, {"ts", DataType::Int()}});
  Merger m(fields, {"k"},
           Aggregation({{"fields.default-aggregate-function", "sum"},
                        {"fields.k.aggregate-function", "sum"},
                        {"sequence.field", " ts "}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 10})));
  ASSERT_OK(m.Add(Ints({1, 2, std::nullopt})));
  // k is kept (not summed); ts takes the last value even when NULL.
  EXPECT_EQ(m.Row(), Ints({1, 3, std::nullopt}));
}

TEST(MergeAggregationTest, SumRetractAndOverflow) {
  auto fields = Fields({{"k", DataType::Int()},
                        {"i", DataType::Int()},
                        {"b", DataType::BigInt()},
                        {"t", DataType::TinyInt()},
                        {"d", DataType::Double()}});
  Merger m(fields, {"k"}, Aggregation({{"fields.default-aggregate-function", "sum"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), I(2147483647), L(5), Value(int8_t{127}), Value(1.5)}));
  ASSERT_OK(m.Add({I(1), I(1), L(-7), Value(int8_t{1}), Value(2.25)}));
  // Integer sums wrap around like Java.
  EXPECT_EQ(m.Row(), (std::vector<Value>{I(1), I(-2147483647 - 1), L(-2), Value(int8_t{-128}),
                                         Value(3.75)}));
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, {I(1), I(1), kNull, Value(int8_t{1}), Value(0.75)}));
  EXPECT_EQ(m.Row(),
            (std::vector<Value>{I(1), I(2147483647), L(-2), Value(int8_t{127}), Value(3.0)}));
}

TEST(MergeAggregationTest, SumRetractFromNullNegates) {
  Merger m(IntFields(2), {"f0"}, Aggregation({{"fields.f1.aggregate-function", "sum"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, std::nullopt})));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 5})));
  EXPECT_EQ(m.Row(), Ints({1, -5}));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, -5}));
}

TEST(MergeAggregationTest, DecimalSumKeepsPrecisionAndScale) {
  auto fields = Fields({{"k", DataType::Int()}, {"d", DataType::Decimal(10, 2)}});
  Merger m(fields, {"k"}, Aggregation({{"fields.d.aggregate-function", "sum"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), Dec(1234, 10, 2)}));
  ASSERT_OK(m.Add({I(1), Dec(-34, 10, 2)}));
  ASSERT_OK(m.Add({I(1), kNull}));
  std::vector<Value> row = m.Row();
  ASSERT_TRUE(row[1].is<Decimal>());
  EXPECT_EQ(row[1].get<Decimal>().ToString(), "12.00");
  EXPECT_EQ(row[1].get<Decimal>().precision, 10);
  EXPECT_EQ(row[1].get<Decimal>().scale, 2);
  ASSERT_OK(m.Add(RowKind::kDelete, {I(1), Dec(100, 10, 2)}));
  EXPECT_EQ(m.Row()[1].get<Decimal>().ToString(), "11.00");
}

TEST(MergeAggregationTest, CompactDecimalSumIsNotPrecisionChecked) {
  // Java adds decimals of precision <= 18 as longs without checking the declared precision.
  auto fields = Fields({{"k", DataType::Int()}, {"d", DataType::Decimal(5, 2)}});
  Merger m(fields, {"k"}, Aggregation({{"fields.d.aggregate-function", "sum"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), Dec(99999, 5, 2)}));
  ASSERT_OK(m.Add({I(1), Dec(99999, 5, 2)}));
  std::vector<Value> row = m.Row();
  ASSERT_TRUE(row[1].is<Decimal>());
  EXPECT_EQ(row[1].get<Decimal>().ToString(), "1999.98");
  EXPECT_FALSE(row[1].get<Decimal>().FitsPrecision());
}

TEST(MergeAggregationTest, WideDecimalSumOverflowIsNull) {
  auto fields = Fields({{"k", DataType::Int()}, {"d", DataType::Decimal(20, 0)}});
  Merger m(fields, {"k"}, Aggregation({{"fields.d.aggregate-function", "sum"}}));
  ASSERT_OK(m.Create());
  Int128 nines = 1;
  for (int i = 0; i < 20; ++i) nines *= 10;
  nines -= 1;  // 20 nines
  ASSERT_OK(m.Add({I(1), Value(Decimal{nines, 20, 0})}));
  ASSERT_OK(m.Add({I(1), Value(Decimal{1, 20, 0})}));
  EXPECT_TRUE(m.Row()[1].is_null());

  // Near the 128-bit limit the sum must not wrap around.
  auto wide = Fields({{"k", DataType::Int()}, {"d", DataType::Decimal(38, 0)}});
  Merger w(wide, {"k"}, Aggregation({{"fields.d.aggregate-function", "sum"}}));
  ASSERT_OK(w.Create());
  Int128 max38 = 1;
  for (int i = 0; i < 38; ++i) max38 *= 10;
  max38 -= 1;
  ASSERT_OK(w.Add({I(1), Value(Decimal{max38, 38, 0})}));
  ASSERT_OK(w.Add({I(1), Value(Decimal{max38, 38, 0})}));
  EXPECT_TRUE(w.Row()[1].is_null());
}

TEST(MergeAggregationTest, DecimalWithWrongScaleIsAnError) {
  auto fields = Fields({{"k", DataType::Int()}, {"d", DataType::Decimal(10, 2)}});
  Merger m(fields, {"k"}, Aggregation({{"fields.d.aggregate-function", "sum"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), Dec(1, 10, 2)}));
  EXPECT_THAT(m.Add({I(1), Dec(1, 10, 3)}), IsError(StatusCode::kInvalid, "scale"));
}

TEST(MergeAggregationTest, ProductAndRetractDivides) {
  auto fields = Fields({{"k", DataType::Int()},
                        {"i", DataType::Int()},
                        {"f", DataType::Float()},
                        {"s", DataType::SmallInt()}});
  Merger m(fields, {"k"}, Aggregation({{"fields.default-aggregate-function", "product"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), I(6), Value(1.5f), Value(int16_t{300})}));
  ASSERT_OK(m.Add({I(1), I(7), Value(2.0f), Value(int16_t{300})}));
  // 90000 wraps in SMALLINT like Java's (short) cast.
  EXPECT_EQ(m.Row(),
            (std::vector<Value>{I(1), I(42), Value(3.0f), Value(static_cast<int16_t>(24464))}));
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, {I(1), I(5), kNull, Value(int16_t{1})}));
  EXPECT_EQ(m.Row(),
            (std::vector<Value>{I(1), I(8), Value(3.0f), Value(static_cast<int16_t>(24464))}));
  EXPECT_THAT(m.Add(RowKind::kUpdateBefore, {I(1), I(0), kNull, kNull}),
              IsError(StatusCode::kInvalid, "division by zero"));
}

TEST(MergeAggregationTest, DecimalProductRoundsHalfUp) {
  auto fields = Fields({{"k", DataType::Int()}, {"d", DataType::Decimal(10, 2)}});
  auto product = [&](int64_t a, int64_t b) -> std::string {
    Merger m(fields, {"k"}, Aggregation({{"fields.d.aggregate-function", "product"}}));
    EXPECT_OK(m.Create());
    EXPECT_OK(m.Add({I(1), Dec(a, 10, 2)}));
    EXPECT_OK(m.Add({I(1), Dec(b, 10, 2)}));
    Value v = m.Row()[1];
    return v.is_null() ? "NULL" : v.get<Decimal>().ToString();
  };
  EXPECT_EQ(product(125, 125), "1.56");         // 1.5625
  EXPECT_EQ(product(105, 105), "1.10");         // 1.1025
  EXPECT_EQ(product(5, 10), "0.01");            // 0.005 rounds half up
  EXPECT_EQ(product(-5, 10), "-0.01");          // away from zero
  EXPECT_EQ(product(-125, 125), "-1.56");       // -1.5625
  EXPECT_EQ(product(9999999999, 200), "NULL");  // exceeds DECIMAL(10, 2)
}

TEST(MergeAggregationTest, WideDecimalProduct) {
  auto fields = Fields({{"k", DataType::Int()}, {"d", DataType::Decimal(38, 18)}});
  Merger m(fields, {"k"}, Aggregation({{"fields.d.aggregate-function", "product"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK_AND_ASSIGN(Decimal hundred, Decimal::FromString("100", 38, 18));
  ASSERT_OK(m.Add({I(1), Value(hundred)}));
  ASSERT_OK(m.Add({I(1), Value(hundred)}));
  EXPECT_EQ(m.Row()[1].get<Decimal>().ToString(), "10000.000000000000000000");
  ASSERT_OK_AND_ASSIGN(Decimal eighth, Decimal::FromString("0.125", 38, 18));
  ASSERT_OK(m.Add(RowKind::kDelete, {I(1), Value(eighth)}));
  EXPECT_EQ(m.Row()[1].get<Decimal>().ToString(), "80000.000000000000000000");
}

TEST(MergeAggregationTest, DecimalProductRetract) {
  auto fields = Fields({{"k", DataType::Int()}, {"d", DataType::Decimal(10, 2)}});
  Merger m(fields, {"k"}, Aggregation({{"fields.d.aggregate-function", "product"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), Dec(100, 10, 2)}));
  ASSERT_OK(m.Add({I(1), Dec(100, 10, 2)}));
  ASSERT_OK(m.Add(RowKind::kDelete, {I(1), Dec(800, 10, 2)}));
  EXPECT_EQ(m.Row()[1].get<Decimal>().ToString(), "0.13");  // 0.125, half up
  // Java's BigDecimal.divide fails on a non-terminating quotient.
  EXPECT_THAT(m.Add(RowKind::kDelete, {I(1), Dec(300, 10, 2)}),
              IsError(StatusCode::kInvalid, "non-terminating"));
  EXPECT_THAT(m.Add(RowKind::kDelete, {I(1), Dec(0, 10, 2)}),
              IsError(StatusCode::kInvalid, "division by zero"));
}

TEST(MergeAggregationTest, SumAndProductNeedNumericColumns) {
  auto fields = Fields({{"k", DataType::Int()}, {"s", DataType::String()}});
  EXPECT_THAT(CreateStatus(fields, {"k"}, Aggregation({{"fields.s.aggregate-function", "sum"}})),
              IsError(StatusCode::kInvalid, "numeric"));
  EXPECT_THAT(
      CreateStatus(fields, {"k"}, Aggregation({{"fields.s.aggregate-function", "product"}})),
      IsError(StatusCode::kInvalid, "numeric"));
}

TEST(MergeAggregationTest, MaxAndMin) {
  auto fields = Fields({{"k", DataType::Int()},
                        {"mx", DataType::Int()},
                        {"mn", DataType::Int()},
                        {"smx", DataType::String()},
                        {"ts", DataType::Timestamp(3)}});
  Merger m(fields, {"k"},
           Aggregation({{"fields.mx.aggregate-function", "max"},
                        {"fields.mn.aggregate-function", "min"},
                        {"fields.smx.aggregate-function", "max"},
                        {"fields.ts.aggregate-function", "min"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), I(3), I(3), S("b"), Value(Timestamp{100, 0})}));
  ASSERT_OK(m.Add({I(1), I(5), I(5), S("a"), Value(Timestamp{50, 0})}));
  ASSERT_OK(m.Add({I(1), kNull, I(-1), S("ba"), kNull}));
  EXPECT_EQ(m.Row(), (std::vector<Value>{I(1), I(5), I(-1), S("ba"), Value(Timestamp{50, 0})}));
  EXPECT_THAT(m.Add(RowKind::kDelete, {I(1), I(5), I(5), S("a"), kNull}),
              IsError(StatusCode::kInvalid, "fields.mx.ignore-retract"));
}

TEST(MergeAggregationTest, MaxOverIncomparableTypeFailsWhenValuesMeet) {
  auto fields = Fields({{"k", DataType::Int()}, {"b", DataType::Boolean()}});
  Merger m(fields, {"k"}, Aggregation({{"fields.b.aggregate-function", "max"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), kNull}));
  ASSERT_OK(m.Add({I(1), Value(true)}));
  EXPECT_THAT(m.Add({I(1), Value(false)}), IsError(StatusCode::kInvalid, "compared"));
}

TEST(MergeAggregationTest, IgnoreRetract) {
  Merger m(IntFields(3), {"f0"},
           Aggregation({{"fields.f1.aggregate-function", "max"},
                        {"fields.f1.ignore-retract", "true"},
                        {"fields.f2.aggregate-function", "sum"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 4, 4})));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 4, 1})));
  EXPECT_EQ(m.Row(), Ints({1, 4, 3}));
}

TEST(MergeAggregationTest, LastValueFunctions) {
  Merger m(IntFields(3), {"f0"},
           Aggregation({{"fields.f1.aggregate-function", "last_value"},
                        {"fields.f2.aggregate-function", "last_non_null_value"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 1, 1})));
  ASSERT_OK(m.Add(Ints({1, std::nullopt, std::nullopt})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, 1}));
  ASSERT_OK(m.Add(Ints({1, 2, 2})));
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, Ints({1, 7, 7})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, std::nullopt}));
}

TEST(MergeAggregationTest, FirstValueFunctionsResetPerKey) {
  Merger m(IntFields(4), {"f0"},
           Aggregation({{"fields.f1.aggregate-function", "first_value"},
                        {"fields.f2.aggregate-function", "first_non_null_value"},
                        {"fields.f3.aggregate-function", "first_not_null_value"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, std::nullopt, std::nullopt, std::nullopt})));
  ASSERT_OK(m.Add(Ints({1, 2, 2, 2})));
  ASSERT_OK(m.Add(Ints({1, 3, 3, 3})));
  EXPECT_EQ(m.Row(), Ints({1, std::nullopt, 2, 2}));
  EXPECT_THAT(m.Add(RowKind::kDelete, Ints({1, 3, 3, 3})),
              IsError(StatusCode::kInvalid, "first_value"));
  m.Reset();
  ASSERT_OK(m.Add(Ints({2, 5, 5, 5})));
  ASSERT_OK(m.Add(Ints({2, 6, 6, 6})));
  EXPECT_EQ(m.Row(), Ints({2, 5, 5, 5}));
}

TEST(MergeAggregationTest, ListAgg) {
  auto fields = Fields({{"k", DataType::Int()},
                        {"a", DataType::String()},
                        {"b", DataType::String()},
                        {"c", DataType::String()}});
  Merger m(fields, {"k"},
           Aggregation({{"fields.a.aggregate-function", "listagg"},
                        {"fields.b.aggregate-function", "listagg"},
                        {"fields.b.list-agg-delimiter", "-"},
                        {"fields.c.aggregate-function", "listagg"},
                        {"fields.c.distinct", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), S("1"), S("1"), S("user1")}));
  ASSERT_OK(m.Add({I(1), S(""), S("2"), S("user2")}));
  ASSERT_OK(m.Add({I(1), kNull, S("3"), S("user1,user3,,user2")}));
  ASSERT_OK(m.Add({I(1), S("4"), S("4"), S("")}));
  EXPECT_EQ(m.Row(), (std::vector<Value>{I(1), S("1,4"), S("1-2-3-4"), S("user1,user2,user3")}));
  EXPECT_THAT(m.Add(RowKind::kDelete, {I(1), S("1"), kNull, kNull}),
              IsError(StatusCode::kInvalid, "listagg"));
}

TEST(MergeAggregationTest, ListAggDistinctWithCustomDelimiter) {
  auto fields = Fields({{"k", DataType::Int()}, {"a", DataType::String()}});
  auto run = [&](const char* delimiter, std::vector<const char*> inputs) -> std::string {
    Merger m(fields, {"k"},
             Aggregation({{"fields.a.aggregate-function", "listagg"},
                          {"fields.a.distinct", "true"},
                          {"fields.a.list-agg-delimiter", delimiter}}));
    EXPECT_OK(m.Create());
    for (const char* in : inputs) EXPECT_OK(m.Add({I(1), S(in)}));
    return m.Row()[1].get<std::string>();
  };
  EXPECT_EQ(run(";", {"k1=v1;k2=v2", "k1=v1;k3=v3", ""}), "k1=v1;k2=v2;k3=v3");
  EXPECT_EQ(run(" ", {"k1=v1 k2=v2", " k1=v1  k3=v3", " "}), "k1=v1 k2=v2 k3=v3");
  EXPECT_EQ(run(",", {"abc,def,asd", "ab,xy"}), "abc,def,asd,ab,xy");
  EXPECT_EQ(run(",", {"", "user2", "user1,user3"}), "user2,user1,user3");
}

TEST(MergeAggregationTest, ListAggNeedsUnboundedString) {
  auto fields = Fields({{"k", DataType::Int()}, {"a", DataType::VarChar(100)}});
  EXPECT_THAT(
      CreateStatus(fields, {"k"}, Aggregation({{"fields.a.aggregate-function", "listagg"}})),
      IsError(StatusCode::kInvalid, "STRING"));
}

TEST(MergeAggregationTest, BoolAndOr) {
  auto fields =
      Fields({{"k", DataType::Int()}, {"a", DataType::Boolean()}, {"o", DataType::Boolean()}});
  Merger m(fields, {"k"},
           Aggregation({{"fields.a.aggregate-function", "bool_and"},
                        {"fields.o.aggregate-function", "bool_or"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), Value(true), Value(false)}));
  ASSERT_OK(m.Add({I(1), kNull, kNull}));
  EXPECT_EQ(m.Row(), (std::vector<Value>{I(1), Value(true), Value(false)}));
  ASSERT_OK(m.Add({I(1), Value(false), Value(true)}));
  EXPECT_EQ(m.Row(), (std::vector<Value>{I(1), Value(false), Value(true)}));
  EXPECT_THAT(CreateStatus(IntFields(2), {"f0"},
                           Aggregation({{"fields.f1.aggregate-function", "bool_or"}})),
              IsError(StatusCode::kInvalid, "BOOLEAN"));
}

Value IntList(std::initializer_list<OptInt> values) { return Value::List(Ints(values)); }

TEST(MergeAggregationTest, Collect) {
  auto fields = Fields({{"k", DataType::Int()},
                        {"all", DataType::Array(DataType::Int())},
                        {"set", DataType::Array(DataType::Int())}});
  Merger m(fields, {"k"},
           Aggregation({{"fields.all.aggregate-function", "collect"},
                        {"fields.set.aggregate-function", "collect"},
                        {"fields.set.distinct", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), kNull, IntList({1, 1, 2})}));
  ASSERT_OK(m.Add({I(1), IntList({1, 2}), kNull}));
  ASSERT_OK(m.Add({I(1), IntList({2, 3}), IntList({3, 2, std::nullopt})}));
  EXPECT_EQ(m.Row(),
            (std::vector<Value>{I(1), IntList({1, 2, 2, 3}), IntList({1, 2, 3, std::nullopt})}));
  // Retract removes one matching element per retracted element.
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, {I(1), IntList({2, 5}), IntList({1, std::nullopt})}));
  EXPECT_EQ(m.Row(), (std::vector<Value>{I(1), IntList({1, 2, 3}), IntList({2, 3})}));
  ASSERT_OK(m.Add(RowKind::kDelete, {I(1), IntList({}), kNull}));
  EXPECT_EQ(m.Row(), (std::vector<Value>{I(1), IntList({1, 2, 3}), IntList({2, 3})}));
}

TEST(MergeAggregationTest, CollectDistinctRows) {
  auto row_type = DataType::Row({DataField{10, "a", DataType::Int(), {}, {}},
                                 DataField{11, "b", DataType::String(), {}, {}}});
  auto fields = Fields({{"k", DataType::Int()}, {"rows", DataType::Array(row_type)}});
  Merger m(fields, {"k"},
           Aggregation(
               {{"fields.rows.aggregate-function", "collect"}, {"fields.rows.distinct", "true"}}));
  ASSERT_OK(m.Create());
  Value r1 = Value::List({I(1), S("x")});
  Value r2 = Value::List({I(2), S("y")});
  ASSERT_OK(m.Add({I(1), Value::List({r1})}));
  ASSERT_OK(m.Add({I(1), Value::List({r2, r1, r2})}));
  EXPECT_EQ(m.Row()[1], Value::List({r1, r2}));
}

Value IntMap(std::vector<std::pair<int32_t, const char*>> entries) {
  ValueMap map;
  for (const auto& [k, v] : entries) map.emplace_back(I(k), v ? S(v) : kNull);
  return Value::Map(std::move(map));
}

TEST(MergeAggregationTest, MergeMap) {
  auto fields =
      Fields({{"k", DataType::Int()}, {"m", DataType::Map(DataType::Int(), DataType::String())}});
  Merger m(fields, {"k"}, Aggregation({{"fields.m.aggregate-function", "merge_map"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), IntMap({{1, "a"}, {2, "b"}})}));
  ASSERT_OK(m.Add({I(1), kNull}));
  ASSERT_OK(m.Add({I(1), IntMap({{2, "B"}, {3, "c"}})}));
  EXPECT_EQ(m.Row()[1], IntMap({{1, "a"}, {2, "B"}, {3, "c"}}));
  ASSERT_OK(m.Add(RowKind::kDelete, {I(1), IntMap({{1, "zzz"}, {9, "q"}})}));
  EXPECT_EQ(m.Row()[1], IntMap({{2, "B"}, {3, "c"}}));
  EXPECT_THAT(CreateStatus(IntFields(2), {"f0"},
                           Aggregation({{"fields.f1.aggregate-function", "merge_map"}})),
              IsError(StatusCode::kInvalid, "MAP"));
}

TEST(MergeAggregationTest, MergeMapWithKeyTime) {
  auto value_type = DataType::Row({DataField{10, "actual_value", DataType::String(), {}, {}},
                                   DataField{11, "dbsync_ts", DataType::String(), {}, {}}});
  auto fields =
      Fields({{"k", DataType::Int()}, {"m", DataType::Map(DataType::String(), value_type)}});
  auto entry = [](const char* key, const char* value, const char* ts) {
    return std::pair<Value, Value>(S(key),
                                   Value::List({value ? S(value) : kNull, ts ? S(ts) : kNull}));
  };
  Merger m(fields, {"k"}, Aggregation({{"fields.m.aggregate-function", "merge_map_with_keytime"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), Value::Map({entry("key1", "A", "100"), entry("key2", "B", "100")})}));
  ASSERT_OK(m.Add({I(1), Value::Map({entry("key1", "A1", "200"), entry("key3", "C", "200")})}));
  ASSERT_OK(m.Add({I(1), Value::Map({entry("key2", "B2", "050"), entry("key3", "C2", nullptr)})}));
  EXPECT_EQ(m.Row()[1], Value::Map({entry("key1", "A1", "200"), entry("key2", "B", "100"),
                                    entry("key3", "C", "200")}));
  // A NULL value removes the key.
  ASSERT_OK(m.Add({I(1), Value::Map({{S("key1"), kNull}})}));
  EXPECT_EQ(m.Row()[1], Value::Map({entry("key2", "B", "100"), entry("key3", "C", "200")}));

  // ts-field picks the time field by name.
  Merger n(fields, {"k"},
           Aggregation({{"fields.m.aggregate-function", "merge_map_with_keytime"},
                        {"fields.m.ts-field", "actual_value"}}));
  ASSERT_OK(n.Create());
  ASSERT_OK(n.Add({I(1), Value::Map({entry("key1", "5", "9")})}));
  ASSERT_OK(n.Add({I(1), Value::Map({entry("key1", "6", "1")})}));
  EXPECT_EQ(n.Row()[1], Value::Map({entry("key1", "6", "1")}));
  EXPECT_THAT(CreateStatus(fields, {"k"},
                           Aggregation({{"fields.m.aggregate-function", "merge_map_with_keytime"},
                                        {"fields.m.ts-field", "nope"}})),
              IsError(StatusCode::kInvalid, "nope"));
}

std::shared_ptr<const DataType> NestedRowType() {
  return DataType::Row({DataField{10, "k0", DataType::Int(), {}, {}},
                        DataField{11, "k1", DataType::String(), {}, {}},
                        DataField{12, "v", DataType::Int(), {}, {}}});
}

Value NRow(int32_t k0, const char* k1, OptInt v) {
  return Value::List({I(k0), S(k1), v ? I(*v) : kNull});
}

TEST(MergeAggregationTest, NestedUpdateAppendsWithCountLimit) {
  auto fields = Fields({{"k", DataType::Int()}, {"n", DataType::Array(NestedRowType())}});
  Merger m(fields, {"k"},
           Aggregation(
               {{"fields.n.aggregate-function", "nested_update"}, {"fields.n.count-limit", "3"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), Value::List({NRow(0, "a", 1), kNull})}));
  ASSERT_OK(m.Add({I(1), Value::List({NRow(0, "a", 1), NRow(1, "b", 2), NRow(2, "c", 3)})}));
  // The accumulator had 2 entries (one NULL): one more row fits; the NULL is dropped.
  EXPECT_EQ(m.Row()[1], Value::List({NRow(0, "a", 1), NRow(0, "a", 1)}));
  ASSERT_OK(m.Add({I(1), Value::List({NRow(1, "b", 2), NRow(2, "c", 3)})}));
  EXPECT_EQ(m.Row()[1], Value::List({NRow(0, "a", 1), NRow(0, "a", 1), NRow(1, "b", 2)}));
  ASSERT_OK(m.Add({I(1), Value::List({NRow(2, "c", 3)})}));
  EXPECT_EQ(m.Row()[1], Value::List({NRow(0, "a", 1), NRow(0, "a", 1), NRow(1, "b", 2)}));
  // Without a key, retract removes every equal row.
  ASSERT_OK(m.Add(RowKind::kDelete, {I(1), Value::List({NRow(0, "a", 1)})}));
  EXPECT_EQ(m.Row()[1], Value::List({NRow(1, "b", 2)}));
}

TEST(MergeAggregationTest, NestedUpdateWithKey) {
  auto fields = Fields({{"k", DataType::Int()}, {"n", DataType::Array(NestedRowType())}});
  Merger m(fields, {"k"},
           Aggregation({{"fields.n.aggregate-function", "nested_update"},
                        {"fields.n.nested-key", "k0, k1"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), Value::List({NRow(0, "a", 1), NRow(1, "b", 1)})}));
  ASSERT_OK(m.Add({I(1), Value::List({NRow(0, "a", 2), NRow(0, "b", 3)})}));
  EXPECT_EQ(m.Row()[1], Value::List({NRow(0, "a", 2), NRow(1, "b", 1), NRow(0, "b", 3)}));
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, {I(1), Value::List({NRow(1, "b", 99)})}));
  EXPECT_EQ(m.Row()[1], Value::List({NRow(0, "a", 2), NRow(0, "b", 3)}));
  EXPECT_THAT(CreateStatus(fields, {"k"},
                           Aggregation({{"fields.n.aggregate-function", "nested_update"},
                                        {"fields.n.nested-key", "zz"}})),
              IsError(StatusCode::kInvalid, "zz"));
  EXPECT_THAT(CreateStatus(IntFields(2), {"f0"},
                           Aggregation({{"fields.f1.aggregate-function", "nested_update"}})),
              IsError(StatusCode::kInvalid, "ARRAY<ROW>"));
}

TEST(MergeAggregationTest, NestedPartialUpdate) {
  auto fields = Fields({{"k", DataType::Int()}, {"n", DataType::Array(NestedRowType())}});
  EXPECT_THAT(CreateStatus(fields, {"k"},
                           Aggregation({{"fields.n.aggregate-function", "nested_partial_update"}})),
              IsError(StatusCode::kInvalid, "nested-key"));
  Merger m(fields, {"k"},
           Aggregation({{"fields.n.aggregate-function", "nested_partial_update"},
                        {"fields.n.nested-key", "k0"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add({I(1), Value::List({NRow(0, "a", 0)})}));
  ASSERT_OK(m.Add({I(1), Value::List({Value::List({I(0), kNull, I(7)}), NRow(1, "c", 2)})}));
  EXPECT_EQ(m.Row()[1], Value::List({NRow(0, "a", 7), NRow(1, "c", 2)}));
}

TEST(MergeAggregationTest, SketchesAndBitmapsAreNotImplemented) {
  auto fields = Fields({{"k", DataType::Int()}, {"b", DataType::Bytes()}});
  for (const char* fn : {"hll_sketch", "theta_sketch", "rbm32", "rbm64"}) {
    EXPECT_THAT(CreateStatus(fields, {"k"}, Aggregation({{"fields.b.aggregate-function", fn}})),
                IsError(StatusCode::kNotImplemented, fn));
  }
}

TEST(MergeAggregationTest, UnknownFunctionIsInvalid) {
  EXPECT_THAT(
      CreateStatus(IntFields(2), {"f0"}, Aggregation({{"fields.f1.aggregate-function", "count"}})),
      IsError(StatusCode::kInvalid, "'count'"));
  EXPECT_THAT(CreateStatus(IntFields(2), {"f0"},
                           Aggregation({{"fields.default-aggregate-function", "SUM"}})),
              IsError(StatusCode::kInvalid, "'SUM'"));
}

TEST(MergeAggregationTest, RemoveRecordOnDelete) {
  Merger m(IntFields(3), {"f0"},
           Aggregation({{"fields.default-aggregate-function", "sum"},
                        {"aggregation.remove-record-on-delete", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 0, 5})));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 2, std::nullopt})));
  std::optional<MergeRecord> r = m.Result();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->kind, RowKind::kDelete);
  EXPECT_EQ(r->row, Ints({1, 2, std::nullopt}));
  EXPECT_EQ(r->sequence_number, 2);
  // -U still retracts normally.
  m.Reset();
  ASSERT_OK(m.Add(Ints({1, 4, 4})));
  ASSERT_OK(m.Add(RowKind::kUpdateBefore, Ints({1, 1, 1})));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
  EXPECT_EQ(m.Row(), Ints({1, 3, 3}));
  // Java aggregates a later insert of the same merge onto the delete row's values.
  m.Reset();
  ASSERT_OK(m.Add(Ints({1, 10, 10})));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 10, 10})));
  ASSERT_OK(m.Add(Ints({1, 3, 3})));
  EXPECT_EQ(m.Kind(), RowKind::kInsert);
  EXPECT_EQ(m.Row(), Ints({1, 13, 13}));
}

TEST(MergeAggregationTest, RemoveRecordOnDeleteConflictsWithIgnoreRetract) {
  EXPECT_THAT(CreateStatus(IntFields(3), {"f0"},
                           Aggregation({{"aggregation.remove-record-on-delete", "true"},
                                        {"fields.f1.ignore-retract", "true"}})),
              IsError(StatusCode::kInvalid, "fields.f1.ignore-retract"));
}

TEST(MergeAggregationTest, IgnoreDeleteIsNotConsultedByTheFunction) {
  // Java's aggregate function ignores `ignore-delete` (writers drop retracts before they reach
  // files); retracts that do reach it are aggregated.
  Merger m(IntFields(2), {"f0"},
           Aggregation({{"fields.f1.aggregate-function", "sum"}, {"ignore-delete", "true"}}));
  ASSERT_OK(m.Create());
  ASSERT_OK(m.Add(Ints({1, 5})));
  ASSERT_OK(m.Add(RowKind::kDelete, Ints({1, 2})));
  EXPECT_EQ(m.Row(), Ints({1, 3}));
}

TEST(MergeAggregationTest, RecordWidthMismatchIsInvalid) {
  Merger m(IntFields(3), {"f0"}, Aggregation());
  ASSERT_OK(m.Create());
  EXPECT_THAT(m.Add(Ints({1, 2})), IsError(StatusCode::kInvalid, "columns"));
}

}  // namespace
}  // namespace fjord

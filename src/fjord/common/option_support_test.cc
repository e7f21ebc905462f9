#include <set>
#include <string>
#include <vector>

#include "fjord/options.h"
#include "fjord/testing/test_util.h"
#include "fjord/warning.h"

namespace fjord {
namespace {

const OptionDef& Def(std::string_view key) {
  const OptionDef* d = FindOptionDef(key);
  EXPECT_NE(d, nullptr) << key;
  return *d;
}

TEST(OptionSupportTest, EveryRegistryOptionHasExactlyOneDecision) {
  std::vector<std::string> decided;
#define FJORD_SUPPORT(key, support, values, refused_for, note) decided.emplace_back(key);
#include "fjord/common/option_support.inc"
#undef FJORD_SUPPORT
  std::set<std::string> unique(decided.begin(), decided.end());
  EXPECT_EQ(unique.size(), decided.size()) << "an option is decided twice";
  std::set<std::string> registry;
  for (const OptionDef& d : AllOptionDefs()) registry.emplace(d.key);
  EXPECT_EQ(unique, registry);
  for (const OptionDef& d : AllOptionDefs()) {
    if (d.support != OptionSupport::kRefused) {
      EXPECT_TRUE(d.honoured_values.empty()) << d.key;
      EXPECT_EQ(d.refused_for, 0u) << d.key;
    } else {
      EXPECT_FALSE(d.support_note.empty()) << d.key << ": a refusal says why";
      // The default of a refused option with honoured values is one of them: an unset option
      // never blocks anything.
      if (d.default_value && !d.honoured_values.empty()) {
        EXPECT_TRUE(OptionValueHonoured(d, *d.default_value)) << d.key;
      }
    }
  }
}

TEST(OptionSupportTest, ValuesAreHonouredOrRefused) {
  EXPECT_TRUE(OptionValueHonoured(Def("changelog-producer"), "none"));
  EXPECT_TRUE(OptionValueHonoured(Def("changelog-producer"), " NONE "));
  EXPECT_TRUE(OptionValueHonoured(Def("changelog-producer"), "input"));
  EXPECT_TRUE(OptionValueHonoured(Def("changelog-producer"), "full-compaction"));
  EXPECT_TRUE(OptionValueHonoured(Def("changelog-producer"), "lookup"));
  EXPECT_TRUE(OptionValueHonoured(Def("bucket"), "-1"));
  EXPECT_TRUE(OptionValueHonoured(Def("bucket"), "16"));
  EXPECT_FALSE(OptionValueHonoured(Def("bucket"), "-2"));
  EXPECT_TRUE(OptionValueHonoured(Def("file.suffix.include.compression"), "false"));
  EXPECT_FALSE(OptionValueHonoured(Def("file.suffix.include.compression"), "true"));
  EXPECT_TRUE(OptionValueHonoured(Def("file.format"), "orc"));
  EXPECT_FALSE(OptionValueHonoured(Def("file.format"), "csv"));
  // Any value of a refused option without honoured values is refused.
  EXPECT_FALSE(OptionValueHonoured(Def("commit.user-prefix"), "app"));
  EXPECT_TRUE(OptionValueHonoured(Def("merge-engine"), "aggregation"));
  // An empty list configures nothing.
  EXPECT_TRUE(OptionValueHonoured(Def("commit.callbacks"), ""));
  EXPECT_FALSE(OptionValueHonoured(Def("commit.callbacks"), "com.example.Callback"));
  EXPECT_TRUE(OptionValueHonoured(Def("write-buffer-spill.max-disk-size"), "1 gb"));

  EXPECT_EQ(Def("merge-engine").support, OptionSupport::kHonoured);
  EXPECT_EQ(Def("sort-engine").support, OptionSupport::kPerformance);
  EXPECT_EQ(OptionSupportText(Def("changelog-producer")), "honoured");
  EXPECT_EQ(OptionSupportText(Def("file.format")), "honoured for parquet, orc, avro only");
  EXPECT_EQ(OptionSupportText(Def("bucket")), "honoured for -1, N > 0 only");
  EXPECT_EQ(OptionSupportText(Def("commit.user-prefix")), "not honoured");
  EXPECT_EQ(OptionSupportText(Def("snapshot.time-retained")), "honoured");
}

TEST(OptionSupportTest, CreateRefusesEveryUnhonouredValueNamingIt) {
  Status st = CheckOptionsHonoured(
      {{"bucket", "-2"}, {"file.format", "parquet"}, {"commit.user-prefix", "app"}},
      OptionUse::kCreate);
  EXPECT_THAT(st, IsError(StatusCode::kNotImplemented,
                          "option 'bucket' = '-2' is not honoured by Fjord yet"));
  EXPECT_THAT(st, IsError(StatusCode::kNotImplemented, "-2 (postpone bucket) is not written yet"));
  EXPECT_THAT(st, IsError(StatusCode::kNotImplemented,
                          "option 'commit.user-prefix' = 'app' is not honoured by Fjord yet: "
                          "commit users are not prefixed"));
  EXPECT_EQ(st.message().find("'file.format'"), std::string::npos) << st.ToString();
  EXPECT_OK(CheckOptionsHonoured({{"changelog-producer", "none"}, {"no.such.key", "x"}},
                                 OptionUse::kCreate));
  // Options of operations Fjord does not have are refused at create only.
  EXPECT_THAT(CheckOptionsHonoured({{"add-column-before-partition", "true"}}, OptionUse::kCreate),
              IsError(StatusCode::kNotImplemented, "added columns always go at the end"));
  EXPECT_OK(CheckOptionsHonoured({{"add-column-before-partition", "true"}}, OptionUse::kWrite));
  EXPECT_OK(CheckOptionsHonoured({{"add-column-before-partition", "true"}}, OptionUse::kRead));
}

TEST(OptionSupportTest, WritesAndReadsRefuseOnlyWhatConcernsThem) {
  // Postponed buckets: read, not written.
  EXPECT_THAT(CheckOptionsHonoured({{"bucket", "-2"}}, OptionUse::kWrite),
              IsError(StatusCode::kNotImplemented, "'bucket' = '-2'"));
  EXPECT_OK(CheckOptionsHonoured({{"bucket", "-2"}}, OptionUse::kRead));
  // Commit users are a commit's business.
  EXPECT_THAT(CheckOptionsHonoured({{"commit.user-prefix", "app"}}, OptionUse::kWrite),
              IsError(StatusCode::kNotImplemented, "commit.user-prefix"));
  EXPECT_OK(CheckOptionsHonoured({{"commit.user-prefix", "app"}}, OptionUse::kRead));
  // A scan option set on the table changes what a read returns, not what a write does.
  EXPECT_THAT(CheckOptionsHonoured({{"scan.ignore-corrupt-files", "true"}}, OptionUse::kRead),
              IsError(StatusCode::kNotImplemented, "'scan.ignore-corrupt-files' = 'true'"));
  EXPECT_OK(CheckOptionsHonoured({{"scan.ignore-corrupt-files", "true"}}, OptionUse::kWrite));
}

TEST(OptionSupportTest, WarningsForPerformanceOptionsAndUnknownKeys) {
  std::vector<std::string> w = OptionWarnings(
      {{"sort-engine", "min-heap"}, {"snapshot.num-retain.max", "5"}, {"merge-engine", "x"}},
      OptionUse::kCreate);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0],
            "unknown option 'snapshot.num-retain.max' (kept, but Fjord does not use it); did you "
            "mean 'snapshot.num-retained.max'?");
  EXPECT_EQ(w[1],
            "option 'sort-engine' = 'min-heap' is ignored by Fjord (it changes only "
            "performance)");
  // Unknown keys are the creator's business; a write of an existing table warns only about
  // performance options.
  w = OptionWarnings({{"sort-engine", "min-heap"}, {"flink.thing", "1"}}, OptionUse::kWrite);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("sort-engine"), std::string::npos);
  EXPECT_TRUE(OptionWarnings({{"sort-engine", "min-heap"}}, OptionUse::kRead).empty());
  // Format options: those the writers read are honoured, the others performance-only.
  w = OptionWarnings({{"parquet.block.size", "1 mb"}, {"orc.bloom.filter.columns", "a"}},
                     OptionUse::kCreate);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("file format option 'orc.bloom.filter.columns'"), std::string::npos);
  // No suggestion when nothing is close.
  w = OptionWarnings({{"completely-different", "1"}}, OptionUse::kCreate);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].find("did you mean"), std::string::npos) << w[0];
}

TEST(OptionSupportTest, SuggestsTheNearestKey) {
  EXPECT_EQ(SuggestOptionKey("snapshot.num-retain.max"), "snapshot.num-retained.max");
  EXPECT_EQ(SuggestOptionKey("bukcet"), "bucket");
  EXPECT_EQ(SuggestOptionKey("changelog-producers"), "changelog-producer");
  EXPECT_EQ(SuggestOptionKey("fields.price.agregate-function"), "fields.price.aggregate-function");
  EXPECT_EQ(SuggestOptionKey("zzzzzzzzzzzzzzzzzz"), std::nullopt);
  EXPECT_EQ(SuggestOptionKey("bucket"), std::nullopt);  // known keys need no suggestion
}

TEST(OptionSupportTest, WarningsGoToTheSinkOnce) {
  std::vector<std::string> seen;
  WarningSink old = SetWarningSink([&](const std::string& text) { seen.push_back(text); });
  EXPECT_OK(CheckOptions({{"page-size", "128 kb"}}, OptionUse::kWrite));
  EXPECT_OK(CheckOptions({{"page-size", "128 kb"}}, OptionUse::kWrite));
  EXPECT_THAT(CheckOptions({{"page-size", "128 kb"}, {"bucket", "-2"}}, OptionUse::kWrite),
              IsError(StatusCode::kNotImplemented, "bucket"));
  SetWarningSink(old);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0],
            "option 'page-size' = '128 kb' is ignored by Fjord (it changes only performance)");
}

}  // namespace
}  // namespace fjord

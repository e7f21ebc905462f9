#include "fjord/options.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

TEST(OptionsTest, RegistryIsSortedAndUnique) {
  const auto& defs = AllOptionDefs();
  ASSERT_FALSE(defs.empty());
  for (size_t i = 1; i < defs.size(); ++i) EXPECT_LT(defs[i - 1].key, defs[i].key);
  for (const OptionDef& d : defs) {
    EXPECT_FALSE(d.description.empty()) << d.key;
    if (d.default_value) {
      EXPECT_OK(ValidateOptionValue(d.key, *d.default_value));
    }
    if (d.type == OptionType::kEnum) {
      EXPECT_FALSE(d.enum_values.empty()) << d.key;
    }
  }
}

TEST(OptionsTest, KnownDefaults) {
  Options o;
  EXPECT_EQ(o.Get("bucket"), "-1");
  EXPECT_EQ(o.Get("file.format"), "parquet");
  EXPECT_EQ(o.Get("manifest.format"), "avro");
  EXPECT_EQ(o.Get("merge-engine"), "deduplicate");
  ASSERT_OK_AND_ASSIGN(auto buf, o.GetMemorySize("write-buffer-size"));
  EXPECT_EQ(*buf, 256LL << 20);
  EXPECT_EQ(o.Get("no-such-option"), std::nullopt);
  EXPECT_EQ(o.LayerOf("bucket"), OptionLayer::kDefault);
}

TEST(OptionsTest, LayersOverrideInOrder) {
  Options o = Options::Layered(
      {{"table-default.bucket", "4"}, {"table-default.file.format", "orc"}, {"warehouse", "/w"}},
      {{"bucket", "8"}}, {{"bucket", "16"}});
  EXPECT_EQ(o.Get("bucket"), "16");
  EXPECT_EQ(o.LayerOf("bucket"), OptionLayer::kDynamic);
  EXPECT_EQ(o.Get("file.format"), "orc");
  EXPECT_EQ(o.LayerOf("file.format"), OptionLayer::kCatalog);
  EXPECT_EQ(o.Get("warehouse"), std::nullopt);  // only table-default.* keys are table options
  o.Remove(OptionLayer::kDynamic, "bucket");
  EXPECT_EQ(o.Get("bucket"), "8");
  EXPECT_EQ(o.LayerOf("bucket"), OptionLayer::kTable);

  auto persisted = o.PersistedAtCreate();
  EXPECT_EQ(persisted["bucket"], "8");
  EXPECT_EQ(persisted["file.format"], "orc");

  bool saw_bucket = false;
  for (const auto& e : o.Explain()) {
    if (e.key == "bucket") {
      saw_bucket = true;
      EXPECT_EQ(e.value, "8");
      EXPECT_EQ(e.layer, OptionLayer::kTable);
      ASSERT_EQ(e.overridden.size(), 2u);
      EXPECT_EQ(e.overridden[0].first, OptionLayer::kDefault);
      EXPECT_EQ(e.overridden[0].second, "-1");
      EXPECT_EQ(e.overridden[1].first, OptionLayer::kCatalog);
      EXPECT_EQ(e.overridden[1].second, "4");
    }
  }
  EXPECT_TRUE(saw_bucket);
}

TEST(OptionsTest, MemorySizes) {
  EXPECT_EQ(*ParseMemorySize("64 mb"), 64LL << 20);
  EXPECT_EQ(*ParseMemorySize("64mb"), 64LL << 20);
  EXPECT_EQ(*ParseMemorySize("1 GB"), 1LL << 30);
  EXPECT_EQ(*ParseMemorySize("64 kb"), 64LL << 10);
  EXPECT_EQ(*ParseMemorySize("100"), 100);
  EXPECT_EQ(*ParseMemorySize("3 bytes"), 3);
  EXPECT_THAT(ParseMemorySize("64 zb"), IsError(StatusCode::kInvalid, "unknown unit 'zb'"));
  EXPECT_THAT(ParseMemorySize("mb"), IsError(StatusCode::kInvalid, "no leading number"));
  EXPECT_THAT(ParseMemorySize("99999999999 tb"), IsError(StatusCode::kInvalid, "too large"));
}

TEST(OptionsTest, Durations) {
  EXPECT_EQ(*ParseDurationMillis("10 s"), 10000);
  EXPECT_EQ(*ParseDurationMillis("10ms"), 10);
  EXPECT_EQ(*ParseDurationMillis("1 h"), 3600000);
  EXPECT_EQ(*ParseDurationMillis("2 min"), 120000);
  EXPECT_EQ(*ParseDurationMillis("1 d"), 86400000);
  EXPECT_EQ(*ParseDurationMillis("250"), 250);
  EXPECT_THAT(ParseDurationMillis("5 fortnights"), IsError(StatusCode::kInvalid, "unknown unit"));
}

TEST(OptionsTest, TypedGettersAndValidation) {
  Options o = Options::FromTable({{"bucket", "four"}, {"write-buffer-size", "lots"}});
  EXPECT_THAT(o.GetInt("bucket"), IsError(StatusCode::kInvalid, "option 'bucket'"));
  EXPECT_THAT(o.GetMemorySize("write-buffer-size"),
              IsError(StatusCode::kInvalid, "option 'write-buffer-size'"));
  EXPECT_THAT(ValidateOptionValue("file.format", "csvx"),
              IsError(StatusCode::kInvalid, "not one of"));
  EXPECT_OK(ValidateOptionValue("file.format", "ORC"));
  EXPECT_THAT(ValidateOptionValue("bucket", "1.5"),
              IsError(StatusCode::kInvalid, "not a valid int"));
  EXPECT_OK(ValidateOptionValue("some.unknown.key", "anything"));
}

TEST(OptionsTest, PatternKeys) {
  const OptionDef* d = FindOptionDef("fields.price.aggregate-function");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->key, "fields.#.aggregate-function");
  EXPECT_EQ(FindOptionDef("fields..aggregate-function"), nullptr);
}

}  // namespace
}  // namespace fjord

#include "fjord/meta/core_options.h"

#include <filesystem>

#include "fjord/file_io.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

TEST(CoreOptionsTest, DefaultsComeFromTheRegistry) {
  ASSERT_OK_AND_ASSIGN(CoreOptions o, CoreOptions::FromMap({}));
  // Every typed default agrees with the registry's text default.
  Options registry;
  EXPECT_EQ(std::to_string(o.bucket()), *registry.Get("bucket"));
  EXPECT_EQ(o.partition_default_name(), *registry.Get("partition.default-name"));
  EXPECT_EQ(o.manifest_format(), *registry.Get("manifest.format"));
  EXPECT_EQ(o.file_compression(), *registry.Get("file.compression"));
  EXPECT_EQ(o.data_file_prefix(), *registry.Get("data-file.prefix"));
  EXPECT_EQ(o.spill_compression(), *registry.Get("spill-compression"));
  EXPECT_EQ(o.write_buffer_size(), *registry.GetMemorySize("write-buffer-size").value());
  EXPECT_EQ(o.commit_min_retry_wait_millis(),
            *registry.GetDurationMillis("commit.min-retry-wait").value());
  // And the values Java documents.
  EXPECT_EQ(o.bucket(), -1);
  ASSERT_OK_AND_ASSIGN(FileFormat format, o.file_format());
  EXPECT_EQ(format, FileFormat::kParquet);
  EXPECT_EQ(o.merge_engine(), MergeEngine::kDeduplicate);
  EXPECT_EQ(o.changelog_producer(), ChangelogProducer::kNone);
  EXPECT_FALSE(o.deletion_vectors_enabled());
  EXPECT_FALSE(o.ignore_delete());
  EXPECT_FALSE(o.write_only());
  EXPECT_TRUE(o.metadata_stats_dense_store());
  EXPECT_EQ(o.write_buffer_size(), int64_t{256} << 20);
  EXPECT_EQ(o.num_sorted_run_compaction_trigger(), 5);
  EXPECT_EQ(o.commit_max_retries(), 10);
  EXPECT_EQ(o.commit_max_retry_wait_millis(), 10000);
  EXPECT_FALSE(o.commit_timeout_millis().has_value());
  EXPECT_FALSE(o.full_compaction_delta_commits().has_value());
  EXPECT_TRUE(o.sequence_fields().empty());
  EXPECT_TRUE(o.bucket_key().empty());
  EXPECT_FALSE(o.rowkind_field().has_value());
}

TEST(CoreOptionsTest, DerivedDefaults) {
  ASSERT_OK_AND_ASSIGN(CoreOptions d, CoreOptions::FromMap({}));
  EXPECT_EQ(d.target_file_size(/*has_primary_key=*/true), int64_t{128} << 20);
  EXPECT_EQ(d.target_file_size(/*has_primary_key=*/false), int64_t{256} << 20);
  EXPECT_EQ(d.num_sorted_run_stop_trigger(), 8);  // trigger + 3
  EXPECT_EQ(d.num_levels(), 6);                   // trigger + 1
  ASSERT_OK_AND_ASSIGN(CoreOptions o,
                       CoreOptions::FromMap({{"num-sorted-run.compaction-trigger", "3"},
                                             {"target-file-size", "1 mb"}}));
  EXPECT_EQ(o.num_sorted_run_stop_trigger(), 6);
  EXPECT_EQ(o.num_levels(), 4);
  EXPECT_EQ(o.target_file_size(true), int64_t{1} << 20);
  EXPECT_EQ(o.target_file_size(false), int64_t{1} << 20);
  ASSERT_OK_AND_ASSIGN(CoreOptions set, CoreOptions::FromMap({{"num-levels", "9"}}));
  EXPECT_EQ(set.num_levels(), 9);
}

TEST(CoreOptionsTest, TypedValues) {
  ASSERT_OK_AND_ASSIGN(CoreOptions o,
                       CoreOptions::FromMap({{"bucket", " 4 "},
                                             {"bucket-key", "a, b"},
                                             {"merge-engine", "Partial-Update"},
                                             {"sequence.field", "ts, seq"},
                                             {"sequence.field.sort-order", "descending"},
                                             {"file.format", "ORC"},
                                             {"manifest.format", "Orc"},
                                             {"write-buffer-size", "64 mb"},
                                             {"commit.timeout", "2 min"},
                                             {"changelog-producer", "full-compaction"},
                                             {"full-compaction.delta-commits", "3"},
                                             {"deletion-vectors.enabled", "TRUE"},
                                             {"rowkind.field", "op"}}));
  EXPECT_EQ(o.bucket(), 4);
  EXPECT_EQ(o.bucket_key(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.merge_engine(), MergeEngine::kPartialUpdate);
  EXPECT_EQ(MergeEngineName(o.merge_engine()), "partial-update");
  EXPECT_EQ(o.sequence_fields(), (std::vector<std::string>{"ts", "seq"}));
  EXPECT_TRUE(o.sequence_field_descending());
  ASSERT_OK_AND_ASSIGN(FileFormat format, o.file_format());
  EXPECT_EQ(format, FileFormat::kOrc);
  EXPECT_EQ(o.manifest_format(), "orc");
  EXPECT_EQ(o.write_buffer_size(), int64_t{64} << 20);
  EXPECT_EQ(o.commit_timeout_millis(), 120000);
  EXPECT_EQ(o.changelog_producer(), ChangelogProducer::kFullCompaction);
  EXPECT_EQ(o.full_compaction_delta_commits(), 3);
  EXPECT_TRUE(o.deletion_vectors_enabled());
  EXPECT_EQ(o.rowkind_field(), "op");
  // The raw options stay available for per-column and file-format keys.
  ASSERT_OK_AND_ASSIGN(CoreOptions f, CoreOptions::FromMap({{"fields.v.aggregate-function", "sum"},
                                                            {"orc.stripe.size", "1 kb"}}));
  EXPECT_EQ(f.options().Get("fields.v.aggregate-function"), "sum");
  EXPECT_EQ(f.options().Get("orc.stripe.size"), "1 kb");
}

TEST(CoreOptionsTest, OldKeysAreFallbacks) {
  // ignore-delete: the first deprecated key that is set, unless ignore-delete itself is.
  ASSERT_OK_AND_ASSIGN(CoreOptions a, CoreOptions::FromMap({{"first-row.ignore-delete", "true"}}));
  EXPECT_TRUE(a.ignore_delete());
  ASSERT_OK_AND_ASSIGN(
      CoreOptions b,
      CoreOptions::FromMap({{"ignore-delete", "false"}, {"partial-update.ignore-delete", "true"}}));
  EXPECT_FALSE(b.ignore_delete());
  // write-only: write.compaction-skip when write-only is not set.
  ASSERT_OK_AND_ASSIGN(CoreOptions c, CoreOptions::FromMap({{"write.compaction-skip", "true"}}));
  EXPECT_TRUE(c.write_only());
  ASSERT_OK_AND_ASSIGN(CoreOptions d, CoreOptions::FromMap({{"write-only", "false"},
                                                            {"write.compaction-skip", "true"}}));
  EXPECT_FALSE(d.write_only());
  // lookup-wait: changelog-producer.lookup-wait when lookup-wait is not set.
  ASSERT_OK_AND_ASSIGN(CoreOptions e,
                       CoreOptions::FromMap({{"changelog-producer.lookup-wait", "false"}}));
  EXPECT_FALSE(e.lookup_wait());
  ASSERT_OK_AND_ASSIGN(CoreOptions f, CoreOptions::FromMap({}));
  EXPECT_TRUE(f.lookup_wait());
}

TEST(CoreOptionsTest, DynamicOptionsWin) {
  Options layered = Options::Layered({{"table-default.bucket", "2"}}, {{"bucket", "3"}},
                                     {{"bucket", "5"}, {"write-only", "true"}});
  ASSERT_OK_AND_ASSIGN(CoreOptions o, CoreOptions::FromOptions(layered));
  EXPECT_EQ(o.bucket(), 5);
  EXPECT_TRUE(o.write_only());
  EXPECT_EQ(o.options().LayerOf("bucket"), OptionLayer::kDynamic);
}

TEST(CoreOptionsTest, BadValuesNameTheOptionAndTheValue) {
  EXPECT_THAT(CoreOptions::FromMap({{"bucket", "abc"}}),
              IsError(StatusCode::kInvalid, "option 'bucket': 'abc'"));
  EXPECT_THAT(CoreOptions::FromMap({{"bucket", "99999999999"}}),
              IsError(StatusCode::kInvalid, "option 'bucket': '99999999999' is out of range"));
  EXPECT_THAT(CoreOptions::FromMap({{"deletion-vectors.enabled", "maybe"}}),
              IsError(StatusCode::kInvalid, "option 'deletion-vectors.enabled'"));
  EXPECT_THAT(CoreOptions::FromMap({{"deletion-vectors.enabled", "maybe"}}),
              IsError(StatusCode::kInvalid, "'maybe'"));
  EXPECT_THAT(CoreOptions::FromMap({{"write-buffer-size", "12 parsecs"}}),
              IsError(StatusCode::kInvalid, "option 'write-buffer-size'"));
  EXPECT_THAT(CoreOptions::FromMap({{"write-buffer-size", "12 parsecs"}}),
              IsError(StatusCode::kInvalid, "'12 parsecs'"));
  EXPECT_THAT(CoreOptions::FromMap({{"commit.timeout", "soon"}}),
              IsError(StatusCode::kInvalid, "option 'commit.timeout'"));
  EXPECT_THAT(CoreOptions::FromMap({{"merge-engine", "newest"}}),
              IsError(StatusCode::kInvalid, "option 'merge-engine': 'newest' is not one of"));
  EXPECT_THAT(CoreOptions::FromMap({{"first-row.ignore-delete", "yes"}}),
              IsError(StatusCode::kInvalid, "option 'first-row.ignore-delete'"));
  // A deprecated key that is overridden is not read.
  EXPECT_OK(CoreOptions::FromMap({{"ignore-delete", "true"}, {"first-row.ignore-delete", "yes"}})
                .status());
  // Options Fjord does not read are not parsed here.
  EXPECT_OK(CoreOptions::FromMap({{"snapshot.time-retained", "whenever"}}).status());
}

TEST(CoreOptionsTest, FormatsFjordDoesNotWrite) {
  ASSERT_OK_AND_ASSIGN(CoreOptions o, CoreOptions::FromMap({{"file.format", "lance"}}));
  EXPECT_THAT(o.file_format(), IsError(StatusCode::kNotImplemented, "lance"));
}

TEST(CoreOptionsTest, OldSchemaVersionsKeepTheirDefaults) {
  TableSchema s;
  s.version = 1;
  ASSERT_OK_AND_ASSIGN(CoreOptions o, CoreOptions::Make(s));
  EXPECT_EQ(o.bucket(), 1);
  ASSERT_OK_AND_ASSIGN(FileFormat format, o.file_format());
  EXPECT_EQ(format, FileFormat::kOrc);
}

// Every schema Java wrote into the fixtures parses.
TEST(CoreOptionsTest, EveryFixtureSchemaParses) {
  int schemas = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testing::FixturesDir())) {
    if (!e.is_regular_file() || e.path().parent_path().filename() != "schema" ||
        e.path().filename().string().rfind("schema-", 0) != 0) {
      continue;
    }
    ASSERT_OK_AND_ASSIGN(std::string text, FileIO::Local()->ReadFile(e.path().string()));
    ASSERT_OK_AND_ASSIGN(TableSchema schema, TableSchema::FromJson(text, e.path().string()));
    Status st = CoreOptions::Make(schema).status();
    EXPECT_TRUE(st.ok()) << e.path() << ": " << st.ToString();
    ++schemas;
  }
  EXPECT_GE(schemas, 25);
}

}  // namespace
}  // namespace fjord

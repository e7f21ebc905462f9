#include "fjord/meta/snapshot.h"

#include <filesystem>

#include "fjord/file_io.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

std::vector<std::string> FixtureTables() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testing::FixturesDir())) {
    if (e.is_directory() && e.path().filename() == "schema") {
      out.push_back(e.path().parent_path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool SameSnapshot(const Snapshot& a, const Snapshot& b) { return a.ToJson() == b.ToJson(); }

TEST(SnapshotTest, EveryFixtureSnapshotAndTagParsesAndReprints) {
  int snapshots = 0, tags = 0;
  for (const std::string& table : FixtureTables()) {
    SnapshotManager sm(FileIO::Local(), table);
    ASSERT_OK_AND_ASSIGN(std::vector<int64_t> ids, sm.ListIds());
    for (int64_t id : ids) {
      ASSERT_OK_AND_ASSIGN(Snapshot s, sm.Load(id));
      EXPECT_EQ(s.id, id);
      ASSERT_OK_AND_ASSIGN(Snapshot again, Snapshot::FromJson(s.ToJson(), "reprinted"));
      EXPECT_TRUE(SameSnapshot(s, again)) << table << " " << id;
      ++snapshots;
    }
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> tag_names, sm.ListTags());
    for (const std::string& t : tag_names) {
      ASSERT_OK_AND_ASSIGN(Snapshot s, sm.LoadTag(t));
      EXPECT_GT(s.id, 0);
      ++tags;
    }
    ASSERT_OK_AND_ASSIGN(TableSchema schema, sm.LatestSchema());
    EXPECT_FALSE(schema.fields.empty());
  }
  EXPECT_GE(snapshots, 50);
  EXPECT_GE(tags, 1);
}

TEST(SnapshotTest, JavaOrderWithoutNulls) {
  Snapshot s;
  s.id = 7;
  s.schema_id = 1;
  s.base_manifest_list = "manifest-list-a-0";
  s.base_manifest_list_size = 100;
  s.delta_manifest_list = "manifest-list-a-1";
  s.delta_manifest_list_size = 90;
  s.commit_user = "u";
  s.commit_identifier = Snapshot::kBatchCommitIdentifier;
  s.commit_kind = CommitKind::kCompact;
  s.time_millis = 1700000000000;
  s.log_offsets = std::map<int32_t, int64_t>{};
  s.total_record_count = 10;
  s.delta_record_count = 0;
  s.next_row_id = 0;
  EXPECT_EQ(s.ToJson(),
            "{\n  \"version\" : 3,\n  \"id\" : 7,\n  \"schemaId\" : 1,\n"
            "  \"baseManifestList\" : \"manifest-list-a-0\",\n  \"baseManifestListSize\" : 100,\n"
            "  \"deltaManifestList\" : \"manifest-list-a-1\",\n  \"deltaManifestListSize\" : 90,\n"
            "  \"commitUser\" : \"u\",\n  \"commitIdentifier\" : 9223372036854775807,\n"
            "  \"commitKind\" : \"COMPACT\",\n  \"timeMillis\" : 1700000000000,\n"
            "  \"logOffsets\" : { },\n  \"totalRecordCount\" : 10,\n  \"deltaRecordCount\" : 0,\n"
            "  \"nextRowId\" : 0\n}");
}

TEST(SnapshotTest, BadSnapshotsNameFileAndField) {
  std::string good = R"({"version":3,"id":1,"schemaId":0,"baseManifestList":"a",
    "deltaManifestList":"b","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND",
    "timeMillis":5,"someFutureKey":{"x":1}})";
  ASSERT_OK_AND_ASSIGN(Snapshot s, Snapshot::FromJson(good, "snapshot-1"));
  EXPECT_EQ(s.commit_kind, CommitKind::kAppend);
  std::string wrong_type = good;
  wrong_type.replace(wrong_type.find("\"schemaId\":0"), 12, "\"schemaId\":\"0\"");
  EXPECT_THAT(Snapshot::FromJson(wrong_type, "t/snapshot/snapshot-1"),
              IsError(StatusCode::kCorruption,
                      "t/snapshot/snapshot-1: field 'schemaId' must be an integer"));
  std::string bad_kind = good;
  bad_kind.replace(bad_kind.find("APPEND"), 6, "MERGE");
  EXPECT_THAT(Snapshot::FromJson(bad_kind, "snapshot-1"),
              IsError(StatusCode::kCorruption, "field 'commitKind'"));
  EXPECT_THAT(Snapshot::FromJson(R"({"version":3,"id":1})", "snapshot-1"),
              IsError(StatusCode::kCorruption, "field 'schemaId' is missing"));
}

TEST(SnapshotManagerTest, HintsAndListing) {
  TempDir dir;
  auto io = FileIO::Local();
  SnapshotManager sm(io, dir.path());
  ASSERT_OK_AND_ASSIGN(auto none, sm.LatestId());
  EXPECT_FALSE(none.has_value());
  for (int64_t id = 1; id <= 5; ++id) {
    Snapshot s;
    s.id = id;
    s.base_manifest_list = "b";
    s.delta_manifest_list = "d";
    s.commit_user = "u";
    s.time_millis = id * 1000;
    ASSERT_OK(io->CreateIfAbsent(sm.paths().SnapshotFile(id), s.ToJson()));
  }
  // A stale LATEST hint: the real latest is found by listing.
  ASSERT_OK(io->Overwrite(sm.paths().LatestHint(), "3"));
  EXPECT_EQ(*sm.LatestId(), std::optional<int64_t>(5));
  ASSERT_OK(io->Overwrite(sm.paths().LatestHint(), "5"));
  EXPECT_EQ(*sm.LatestId(), std::optional<int64_t>(5));
  // A garbage hint is ignored.
  ASSERT_OK(io->Overwrite(sm.paths().LatestHint(), "x"));
  EXPECT_EQ(*sm.LatestId(), std::optional<int64_t>(5));
  // EARLIEST pointing at an expired snapshot falls back to listing.
  ASSERT_OK(io->Overwrite(sm.paths().EarliestHint(), "1"));
  ASSERT_OK(io->Delete(sm.paths().SnapshotFile(1)));
  EXPECT_EQ(*sm.EarliestId(), std::optional<int64_t>(2));
  // Time travel: latest with time <= t.
  ASSERT_OK_AND_ASSIGN(auto at, sm.LatestAtOrBefore(3500));
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->id, 3);
  ASSERT_OK_AND_ASSIGN(auto before_all, sm.LatestAtOrBefore(10));
  EXPECT_FALSE(before_all.has_value());
  EXPECT_THAT(sm.Load(99), IsError(StatusCode::kNotFound, "snapshot 99 does not exist"));
  EXPECT_THAT(sm.LoadTag("nope"), IsError(StatusCode::kNotFound, "tag 'nope'"));
  EXPECT_THAT(sm.LatestSchema(), IsError(StatusCode::kNotFound, "not a Paimon table"));
}

}  // namespace
}  // namespace fjord

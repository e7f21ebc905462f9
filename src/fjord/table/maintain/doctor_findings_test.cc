// `fjord doctor`'s pure parts: what expiration keeps and why (doctor_retention.h), and each
// finding at and just below its threshold (doctor_findings.h), on made-up reports.
#include <gtest/gtest.h>

#include "fjord/table/maintain/doctor_findings.h"
#include "fjord/table/maintain/doctor_retention.h"

namespace fjord {
namespace {

constexpr int64_t kHour = 3600 * 1000;

RetentionInput Snapshots(int64_t first, int64_t last, int64_t time_step) {
  RetentionInput in;
  for (int64_t id = first; id <= last; ++id) in.snapshots.emplace_back(id, id * time_step);
  in.retain_min = 1;
  in.retain_max = 1000;
  in.time_retained_millis = kHour;
  in.expire_limit = 50;
  return in;
}

TEST(DoctorRetention, TimeRetainedAndMinimum) {
  RetentionInput in = Snapshots(1, 10, kHour);  // snapshot i committed at i hours
  // At 10 h, time-retained 1 h keeps 9 and 10.
  EXPECT_EQ(ExpirationEnd(in, 10 * kHour), 9);
  EXPECT_EQ(KeptBy(in, 10 * kHour, 8), "");
  EXPECT_EQ(KeptBy(in, 10 * kHour, 9), "time-retained");
  EXPECT_EQ(KeptBy(in, 10 * kHour, 10), "retain-min");
  in.retain_min = 3;
  EXPECT_EQ(ExpirationEnd(in, 10 * kHour), 8);
  EXPECT_EQ(KeptBy(in, 10 * kHour, 8), "retain-min");
  // Later, only retain-min keeps them.
  EXPECT_EQ(ExpirationEnd(in, 100 * kHour), 8);
}

TEST(DoctorRetention, RetainMaxOverridesTime) {
  RetentionInput in = Snapshots(1, 10, 1);  // all within the hour
  EXPECT_EQ(ExpirationEnd(in, 100), 1);     // nothing expires: all younger than 1 h
  in.retain_max = 4;
  EXPECT_EQ(ExpirationEnd(in, 100), 7);
  EXPECT_EQ(KeptBy(in, 100, 6), "");
  EXPECT_EQ(KeptBy(in, 100, 7), "time-retained");
}

TEST(DoctorRetention, ConsumerAndLimit) {
  RetentionInput in = Snapshots(1, 10, 1);
  in.retain_max = 2;
  in.consumer = std::make_pair(std::string("reader"), int64_t{3});
  EXPECT_EQ(ExpirationEnd(in, 100), 3);
  EXPECT_EQ(ExpirationEnd(in, 100, /*with_consumer=*/false), 9);
  EXPECT_EQ(KeptBy(in, 100, 2), "");
  EXPECT_EQ(KeptBy(in, 100, 3), "consumer:reader");
  EXPECT_EQ(KeptBy(in, 100, 10), "retain-min");
  in.consumer.reset();
  in.expire_limit = 5;
  EXPECT_EQ(ExpirationEnd(in, 100), 6);
  EXPECT_EQ(KeptBy(in, 100, 6), "expire-limit");
  // A consumer ahead of everything does not hold anything back.
  in.consumer = std::make_pair(std::string("ahead"), int64_t{50});
  EXPECT_EQ(ExpirationEnd(in, 100), 6);
  // Nothing to expire: the end is the earliest.
  RetentionInput one = Snapshots(7, 7, 1);
  EXPECT_EQ(ExpirationEnd(one, 100 * kHour), 7);
}

DoctorReport BaseReport() {
  DoctorReport r;
  r.table_path = "/t";
  r.now_millis = 1000 * kHour;
  DoctorSettings& s = r.settings;
  s.primary_key = true;
  s.bucket = 4;
  s.target_file_size = 128 << 20;
  s.small_file_size = s.target_file_size / 10 * 7;
  s.compaction_min_file_num = 5;
  s.compaction_trigger = 5;
  s.stop_trigger = 8;
  s.retain_min = 10;
  s.retain_max = 1000;
  s.time_retained_millis = kHour;
  s.expire_limit = 50;
  s.orphan_age_millis = 24 * kHour;
  return r;
}

DoctorBucket Bucket(int32_t bucket, int64_t rows, int64_t bytes) {
  DoctorBucket b;
  b.bucket = bucket;
  b.rows = rows;
  b.bytes = bytes;
  b.files = 1;
  return b;
}

std::vector<std::string> Codes(const DoctorReport& r) {
  std::vector<std::string> out;
  for (const DoctorFinding& f : r.findings) out.push_back(f.code);
  return out;
}

TEST(DoctorFindings, HealthyReportHasNone) {
  DoctorReport r = BaseReport();
  for (int b = 0; b < 4; ++b) r.buckets.push_back(Bucket(b, 1000, 1 << 20));
  AddDoctorFindings({}, &r);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
}

TEST(DoctorFindings, SmallFilesAtCompactionMinFileNum) {
  DoctorReport r = BaseReport();
  r.settings.primary_key = false;
  r.settings.write_only = true;
  DoctorBucket b = Bucket(1, 1000, 4000);
  b.partition = "dt=1";
  b.files = 6;
  b.small_files = 4;  // below compaction.min.file-num
  b.small_bytes = 4000;
  r.buckets.push_back(b);
  AddDoctorFindings({}, &r);
  EXPECT_TRUE(r.findings.empty());
  r.buckets[0].small_files = 5;
  AddDoctorFindings({}, &r);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"small-files"});
  const DoctorFinding& f = r.findings[0];
  EXPECT_EQ(f.partition, "dt=1");
  EXPECT_EQ(f.bucket, 1);
  EXPECT_EQ(f.numbers.at("small_files"), 5);
  EXPECT_EQ(f.numbers.at("target_file_size"), 128 << 20);
  EXPECT_EQ(f.fix.rfind("fjord compact /t --partition dt=1", 0), 0u) << f.fix;
  EXPECT_NE(f.fix.find("write-only"), std::string::npos) << f.fix;
}

TEST(DoctorFindings, SmallFilesOfPrimaryKeysBeyondOnePerLevel) {
  DoctorReport r = BaseReport();
  DoctorBucket b = Bucket(0, 10, 10);
  // Four level-0 files and one small file in each of levels 3, 4, 5: sorted runs, not a backlog.
  b.file_levels = {0, 0, 0, 0, 3, 4, 5};
  b.file_sizes = {10, 10, 10, 10, 10, 10, 10};
  b.files = 7;
  b.small_files = 7;
  r.buckets.push_back(b);
  AddDoctorFindings({}, &r);
  EXPECT_TRUE(r.findings.empty());
  // Level 5 made of 5 small files (and one large): 4 beyond one per level.
  r.buckets[0].file_levels = {5, 5, 5, 5, 5, 5};
  r.buckets[0].file_sizes = {10, 10, 10, 10, 10, int64_t{200} << 20};
  AddDoctorFindings({}, &r);
  EXPECT_TRUE(r.findings.empty());
  r.buckets[0].file_levels.push_back(5);
  r.buckets[0].file_sizes.push_back(10);
  AddDoctorFindings({}, &r);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"small-files"});
  EXPECT_EQ(r.findings[0].numbers.at("small_files"), 5);
  EXPECT_EQ(r.findings[0].fix, "fjord compact /t --full");
}

TEST(DoctorFindings, SortedRunsAboveTriggerAndAtStop) {
  DoctorReport r = BaseReport();
  DoctorBucket b = Bucket(0, 10, 10);
  b.sorted_runs = 5;  // at the trigger: compaction has not started yet
  r.buckets.push_back(b);
  AddDoctorFindings({}, &r);
  EXPECT_TRUE(r.findings.empty());
  r.buckets[0].sorted_runs = 6;
  AddDoctorFindings({}, &r);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"sorted-runs"});
  EXPECT_EQ(r.findings[0].severity, DoctorSeverity::kWarning);
  r.findings.clear();
  r.buckets[0].sorted_runs = 8;
  AddDoctorFindings({}, &r);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"sorted-runs"});
  EXPECT_EQ(r.findings[0].severity, DoctorSeverity::kError);
  EXPECT_NE(r.findings[0].message.find("stall"), std::string::npos);
  // Append tables have no sorted runs.
  r.findings.clear();
  r.settings.primary_key = false;
  AddDoctorFindings({}, &r);
  EXPECT_TRUE(r.findings.empty());
}

TEST(DoctorFindings, SkewAgainstTheMedian) {
  DoctorReport r = BaseReport();
  r.buckets = {Bucket(0, 100, 1000), Bucket(1, 100, 1000), Bucket(2, 110, 1100),
               Bucket(3, 199, 1990)};
  AddDoctorFindings({}, &r);
  EXPECT_TRUE(r.findings.empty());  // 199 < 2 x 105
  r.buckets[3] = Bucket(3, 400, 4000);
  AddDoctorFindings({}, &r);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"skewed-bucket"});
  EXPECT_EQ(r.findings[0].bucket, 3);
  EXPECT_EQ(r.findings[0].numbers.at("median_rows"), 105);
  // Too few rows per bucket: noise, not skew.
  r.findings.clear();
  r.buckets = {Bucket(0, 1, 10), Bucket(1, 1, 10), Bucket(2, 1, 10), Bucket(3, 390, 3900)};
  AddDoctorFindings({}, &r);
  EXPECT_TRUE(r.findings.empty());
  // Dynamic buckets are not compared.
  r.buckets = {Bucket(0, 100, 1000), Bucket(1, 100, 1000), Bucket(2, 1000, 10000)};
  r.settings.bucket = -1;
  AddDoctorFindings({}, &r);
  EXPECT_TRUE(r.findings.empty());
  // Even rows, uneven bytes: uncompacted files.
  r.settings.bucket = 3;
  r.buckets = {Bucket(0, 100, 1000), Bucket(1, 100, 1000), Bucket(2, 100, 5000)};
  AddDoctorFindings({}, &r);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"skewed-bucket"});
  EXPECT_NE(r.findings[0].fix.find("fjord compact"), std::string::npos);
}

TEST(DoctorFindings, Expiration) {
  DoctorReport r = BaseReport();
  r.settings.write_only = true;
  for (int i = 1; i <= 20; ++i) r.snapshots.push_back(DoctorSnapshot{i, i, "APPEND"});
  r.latest_snapshot = 20;
  r.earliest_snapshot = 1;
  r.consumers.push_back(DoctorConsumer{"reader", 2, 0});
  ExpirationFacts x;
  x.missed_snapshots = 10;
  x.missed_bytes = 12345;
  x.consumer_pins.push_back({"reader", 3, 77});
  x.consumer_pins.push_back({"idle", 0, 0});  // holds back nothing: no finding
  AddDoctorFindings(x, &r);
  ASSERT_EQ(Codes(r),
            (std::vector<std::string>{"expiration-not-running", "consumer-pins-snapshots"}));
  EXPECT_EQ(r.findings[0].numbers.at("missed_bytes"), 12345);
  EXPECT_NE(r.findings[0].message.find("write-only=true"), std::string::npos);
  EXPECT_EQ(r.findings[0].fix.rfind("fjord expire /t", 0), 0u);
  EXPECT_EQ(r.findings[1].consumer, "reader");
  EXPECT_EQ(r.findings[1].numbers.at("next_snapshot"), 2);
  EXPECT_EQ(r.findings[1].numbers.at("pinned_bytes"), 77);
  EXPECT_EQ(r.findings[1].numbers.at("snapshots_behind"), 19);
  EXPECT_NE(r.findings[1].fix.find("fjord consumer reset /t reader"), std::string::npos);
}

TEST(DoctorFindings, TagsKeepingBytes) {
  DoctorReport r = BaseReport();
  DoctorSnapshot latest{5, 5, "APPEND"};
  latest.bytes = 1000;
  r.snapshots.push_back(latest);
  r.tags.push_back(DoctorTag{"live", 5, 5, true, 1000, 0});
  r.tags.push_back(DoctorTag{"small", 1, 1, false, 300, 200});
  r.tags.push_back(DoctorTag{"big", 2, 2, false, 3000, 2000});
  r.tags.push_back(DoctorTag{"shared", 3, 3, false, 3000, 0});
  AddDoctorFindings({}, &r);
  ASSERT_EQ(Codes(r), (std::vector<std::string>{"tag-only-bytes", "tag-only-bytes"}));
  EXPECT_EQ(r.findings[0].tag, "big");  // warning: more than the latest snapshot reads
  EXPECT_EQ(r.findings[0].severity, DoctorSeverity::kWarning);
  EXPECT_EQ(r.findings[1].tag, "small");
  EXPECT_EQ(r.findings[1].severity, DoctorSeverity::kInfo);
  EXPECT_EQ(r.findings[1].fix.rfind("fjord tag delete /t small", 0), 0u);
}

TEST(DoctorFindings, OrphansAndStaleConsumers) {
  DoctorReport r = BaseReport();
  r.orphan_files = 3;
  r.orphan_bytes = 30;
  AddDoctorFindings({}, &r);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"orphan-files"});
  EXPECT_EQ(r.findings[0].severity, DoctorSeverity::kInfo);  // young: maybe a commit in flight
  r.findings.clear();
  r.old_orphan_files = 1;
  r.old_orphan_bytes = 10;
  AddDoctorFindings({}, &r);
  EXPECT_EQ(r.findings[0].severity, DoctorSeverity::kWarning);
  EXPECT_EQ(r.findings[0].fix.rfind("fjord orphans /t", 0), 0u);

  r = BaseReport();
  r.earliest_snapshot = 4;
  r.latest_snapshot = 9;
  r.consumers = {DoctorConsumer{"ahead", 11, r.now_millis},
                 DoctorConsumer{"next", 10, r.now_millis}, DoctorConsumer{"gone", 3, r.now_millis},
                 DoctorConsumer{"idle", 5, 0}};
  AddDoctorFindings({}, &r);
  ASSERT_EQ(Codes(r), (std::vector<std::string>{"stale-consumer", "stale-consumer"}));
  EXPECT_EQ(r.findings[0].consumer, "ahead");
  EXPECT_NE(r.findings[0].fix.find("--next-snapshot 9"), std::string::npos);
  EXPECT_EQ(r.findings[1].consumer, "gone");
  r.findings.clear();
  r.settings.consumer_expiration_millis = kHour;
  AddDoctorFindings({}, &r);
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(r.findings[2].consumer, "idle");
  EXPECT_EQ(r.findings[2].numbers.at("expiration_millis"), kHour);
}

}  // namespace
}  // namespace fjord

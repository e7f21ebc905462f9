// `fjord doctor --json` and the text report.

#include <sstream>

#include "cli_util.h"
#include "doctor_report.h"

namespace fjord::cli {

nlohmann::json DoctorReportJson(const DoctorReport& r) {
  using nlohmann::json;
  json out;
  out["table"] = r.table_path;
  out["now_millis"] = r.now_millis;
  const DoctorSettings& s = r.settings;
  out["settings"] = {{"primary_key", s.primary_key},
                     {"bucket", s.bucket},
                     {"target_file_size", s.target_file_size},
                     {"small_file_size", s.small_file_size},
                     {"compaction_min_file_num", s.compaction_min_file_num},
                     {"compaction_trigger", s.compaction_trigger},
                     {"stop_trigger", s.stop_trigger},
                     {"write_only", s.write_only},
                     {"retain_min", s.retain_min},
                     {"retain_max", s.retain_max},
                     {"time_retained_millis", s.time_retained_millis},
                     {"expire_limit", s.expire_limit},
                     {"consumer_changelog_only", s.consumer_changelog_only},
                     {"consumer_expiration_millis",
                      s.consumer_expiration_millis ? json(*s.consumer_expiration_millis) : json()},
                     {"orphan_age_millis", s.orphan_age_millis}};
  out["earliest_snapshot"] = r.earliest_snapshot ? json(*r.earliest_snapshot) : json();
  out["latest_snapshot"] = r.latest_snapshot ? json(*r.latest_snapshot) : json();
  json findings = json::array();
  for (const DoctorFinding& f : r.findings) {
    json j = {{"code", f.code},
              {"severity", DoctorSeverityName(f.severity)},
              {"numbers", f.numbers},
              {"message", f.message},
              {"fix", f.fix}};
    if (f.partition) j["partition"] = *f.partition;
    if (f.bucket) j["bucket"] = *f.bucket;
    if (f.consumer) j["consumer"] = *f.consumer;
    if (f.tag) j["tag"] = *f.tag;
    findings.push_back(std::move(j));
  }
  out["findings"] = std::move(findings);
  json buckets = json::array();
  for (const DoctorBucket& b : r.buckets) {
    buckets.push_back({{"partition", b.partition},
                       {"bucket", b.bucket},
                       {"files", b.files},
                       {"rows", b.rows},
                       {"bytes", b.bytes},
                       {"small_files", b.small_files},
                       {"small_bytes", b.small_bytes},
                       {"level0_files", b.level0_files},
                       {"sorted_runs", b.sorted_runs},
                       {"file_sizes", b.file_sizes},
                       {"file_levels", b.file_levels}});
  }
  out["buckets"] = std::move(buckets);
  json snapshots = json::array();
  for (const DoctorSnapshot& x : r.snapshots) {
    snapshots.push_back({{"id", x.id},
                         {"time_millis", x.time_millis},
                         {"kind", x.kind},
                         {"files", x.files},
                         {"bytes", x.bytes},
                         {"own_bytes", x.own_bytes},
                         {"tags", x.tags},
                         {"kept_by", x.kept_by}});
  }
  out["snapshots"] = std::move(snapshots);
  json tags = json::array();
  for (const DoctorTag& t : r.tags) {
    tags.push_back({{"name", t.name},
                    {"snapshot_id", t.snapshot_id},
                    {"time_millis", t.time_millis},
                    {"snapshot_present", t.snapshot_present},
                    {"bytes", t.bytes},
                    {"own_bytes", t.own_bytes}});
  }
  out["tags"] = std::move(tags);
  json consumers = json::array();
  for (const DoctorConsumer& c : r.consumers) {
    consumers.push_back(
        {{"id", c.id}, {"next_snapshot", c.next_snapshot}, {"modified_millis", c.modified_millis}});
  }
  out["consumers"] = std::move(consumers);
  out["expiration"] = {{"expirable_snapshots", r.expirable_snapshots},
                       {"expirable_bytes", r.expirable_bytes},
                       {"tag_only_bytes", r.tag_only_bytes}};
  out["orphans"] = {{"files", r.orphan_files},
                    {"bytes", r.orphan_bytes},
                    {"old_files", r.old_orphan_files},
                    {"old_bytes", r.old_orphan_bytes}};
  out["notes"] = r.notes;
  return out;
}

std::string DoctorReportText(const DoctorReport& r) {
  std::ostringstream out;
  out << "table " << r.table_path << "\n";
  if (r.latest_snapshot) {
    out << "snapshots " << r.snapshots.size() << " (" << *r.earliest_snapshot << ".."
        << *r.latest_snapshot << "), tags " << r.tags.size() << ", consumers " << r.consumers.size()
        << ", buckets " << r.buckets.size() << "\n";
  } else {
    out << "no snapshot\n";
  }
  if (r.findings.empty()) {
    out << "no findings\n";
  } else {
    out << r.findings.size() << " finding(s)\n";
  }
  for (const DoctorFinding& f : r.findings) {
    out << "\n" << DoctorSeverityName(f.severity) << " " << f.code;
    if (f.partition || f.bucket) {
      out << " [" << PartitionColumn(f.partition.value_or("")) << " bucket " << f.bucket.value_or(0)
          << "]";
    }
    if (f.consumer) out << " [consumer " << *f.consumer << "]";
    if (f.tag) out << " [tag " << *f.tag << "]";
    out << "\n  " << f.message << "\n  fix: " << f.fix << "\n";
  }
  for (const std::string& n : r.notes) out << "\nnote: " << n << "\n";
  return out.str();
}

}  // namespace fjord::cli

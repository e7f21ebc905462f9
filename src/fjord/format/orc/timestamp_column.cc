// ORC column decoder for TIMESTAMP and TIMESTAMP_INSTANT (column_reader.h).
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <array>
#include <string_view>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/orc/column_common.h"

namespace fjord::orc {

namespace {

// 2015-01-01 00:00:00 UTC, the base of the DATA stream's seconds.
constexpr int64_t kOrcEpoch = 1420070400;
constexpr int64_t kNanosPerSecond = 1000000000;

bool IsUtc(std::string_view tz) {
  static constexpr std::string_view kNames[] = {
      "",          "UTC",       "GMT",           "Z",         "UCT",       "Zulu",
      "Universal", "Greenwich", "GMT0",          "Etc/UTC",   "Etc/GMT",   "Etc/UCT",
      "Etc/Zulu",  "Etc/GMT0",  "Etc/Universal", "Etc/GMT+0", "Etc/GMT-0", "Etc/Greenwich"};
  for (std::string_view name : kNames) {
    if (tz == name) return true;
  }
  return false;
}

// Arrow's local_timestamp over `instants` (seconds since 1970, UTC) in time zone `tz`: the wall
// clock of each instant there, as seconds since 1970 read as UTC.
Result<std::vector<int64_t>> WallClock(const Column& c, const std::string& tz,
                                       const std::vector<int64_t>& instants) {
  EnsureArrowCompute();
  arrow::TimestampBuilder builder(arrow::timestamp(arrow::TimeUnit::SECOND, tz),
                                  arrow::default_memory_pool());
  FJORD_ARROW_RETURN_NOT_OK(builder.AppendValues(instants));
  FJORD_ARROW_ASSIGN_OR_RAISE(auto array, builder.Finish());
  auto local = arrow::compute::LocalTimestamp(array);
  if (!local.ok()) {
    return Status::NotImplemented(c.Where(), ": writer time zone '", tz,
                                  "': ", local.status().message());
  }
  std::shared_ptr<arrow::Array> wall_array = local->make_array();
  const auto& wall = static_cast<const arrow::TimestampArray&>(*wall_array);
  return std::vector<int64_t>(wall.raw_values(), wall.raw_values() + wall.length());
}

// The DATA seconds as the writer's wall clock (TIMESTAMP) or the instant (TIMESTAMP_INSTANT),
// both as seconds since 1970 read as UTC. ORC's writers count from 2015-01-01 00:00:00 in their
// time zone, whose UTC instant is kOrcEpoch less the zone's offset at kOrcEpoch.
Status ToSeconds(const Column& c, std::vector<int64_t>* seconds) {
  const std::string& tz = c.ctx().stripe->writer_timezone;
  if (c.orc().kind == OrcTypeKind::kTimestampInstant || IsUtc(tz)) {
    for (int64_t& s : *seconds) s += kOrcEpoch;
    return Status::OK();
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> base, WallClock(c, tz, {kOrcEpoch}));
  int64_t epoch = kOrcEpoch - (base[0] - kOrcEpoch);
  for (int64_t& s : *seconds) s += epoch;
  FJORD_ASSIGN_OR_RAISE(*seconds, WallClock(c, tz, *seconds));
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<arrow::ArrayData>> ReadTimestamp(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type) {
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> seconds,
                        c.ReadInts(StreamKind::kData, true, v.non_null));
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> nanos,
                        c.ReadInts(StreamKind::kSecondary, false, v.non_null));
  if (v.non_null > 0) FJORD_RETURN_NOT_OK(ToSeconds(c, &seconds));
  int64_t per_second = 1;
  switch (static_cast<const arrow::TimestampType&>(*arrow_type).unit()) {
    case arrow::TimeUnit::MILLI:
      per_second = 1000;
      break;
    case arrow::TimeUnit::MICRO:
      per_second = 1000000;
      break;
    case arrow::TimeUnit::NANO:
      per_second = kNanosPerSecond;
      break;
    default:
      break;
  }
  static constexpr std::array<int64_t, 8> kScale = {1,      100,     1000,     10000,
                                                    100000, 1000000, 10000000, 100000000};
  FJORD_ASSIGN_OR_RAISE(auto values, ZeroedBuffer(v.length * 8));
  auto* out = reinterpret_cast<int64_t*>(values->mutable_data());
  int64_t j = 0;
  for (int64_t i = 0; i < v.length; ++i) {
    if (!v.IsValid(i)) continue;
    int64_t raw = nanos[static_cast<size_t>(j)];
    int64_t s = seconds[static_cast<size_t>(j++)];
    // Trailing decimal zeros removed: the low 3 bits hold their count less one (0: none). The
    // shift is arithmetic: Arrow's writer stores negative nanoseconds for pre-1970 values with a
    // fraction (and whole seconds rounded toward zero), which ORC's C++ reader, and so Arrow's,
    // reads back this way.
    int64_t n = raw >> 3;
    int64_t scale = kScale[static_cast<size_t>(raw & 7)];
    if (n >= kNanosPerSecond / scale || n <= -kNanosPerSecond / scale) {
      return c.Corrupt("SECONDARY stream: nanoseconds ", n, " x ", scale, " out of range");
    }
    int64_t ns = n * scale;
    // Java's writer stores the seconds of pre-1970 values with a fraction one too high.
    if (s < 0 && ns > 999999) --s;
    int64_t per_unit = kNanosPerSecond / per_second;
    int64_t units = ns / per_unit - (ns % per_unit < 0 ? 1 : 0);  // floored
    int64_t value = 0;
    if (__builtin_mul_overflow(s, per_second, &value) ||
        __builtin_add_overflow(value, units, &value)) {
      return Status::Invalid(c.Where(), ": timestamp of ", s, " seconds out of range for ",
                             arrow_type->ToString());
    }
    out[i] = value;
  }
  FJORD_ASSIGN_OR_RAISE(auto bitmap, v.Bitmap());
  return arrow::ArrayData::Make(arrow_type, v.length, {bitmap, values}, v.null_count());
}

}  // namespace fjord::orc

// Casts to DATE, TIME and TIMESTAMP (WITH LOCAL TIME ZONE) as Java Paimon's executors compute
// them: StringToDateCastRule, StringToTimeCastRule, StringToTimestampCastRule,
// TimestampToDateCastRule, TimestampToTimeCastRule, TimestampToTimestampCastRule (precision cut
// by DateTimeUtils.truncate), DateToTimestampCastRule, TimeToTimestampCastRule and
// NumericPrimitiveToTimestamp. The zone of the LOCAL TIME ZONE conversions is UTC.
#include <string>

#include "fjord/common/calendar.h"
#include "fjord/format/evolution_cast_internal.h"

namespace fjord::evolution {

namespace {

constexpr int64_t kMillisPerDay = 86400000;

int64_t Pow10(int n) {
  int64_t p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

// DateTimeUtils.truncate(ts, precision): unchanged when the nanosecond-of-second has at most
// `precision` digits (no leading zeros counted); else precisions up to 3 zero the last digits of
// the epoch milliseconds (towards zero, so a time before 1970 moves later) and drop the
// nanoseconds, larger ones zero the last digits of the nanoseconds of the millisecond.
JavaTimestamp Truncate(JavaTimestamp ts, int32_t precision) {
  int64_t nano_of_second = FloorMod(ts.millis, 1000) * 1000000 + ts.nanos_of_milli;
  if (std::to_string(nano_of_second).size() <= static_cast<size_t>(precision)) return ts;
  if (precision <= 3) {
    int64_t unit = Pow10(3 - precision);
    return JavaTimestamp{ts.millis / unit * unit, 0};
  }
  int64_t unit = Pow10(9 - precision);
  return JavaTimestamp{ts.millis, static_cast<int32_t>(ts.nanos_of_milli / unit * unit)};
}

}  // namespace

Result<Value> ToDate(const Value& v, const DataType& from) {
  switch (from.root()) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: {
      FJORD_ASSIGN_OR_RAISE(int32_t days, ParseJavaDate(std::get<std::string>(v)));
      return Value(Days{days});
    }
    case TypeRoot::kTimestamp:  // (int) (millis / MILLIS_PER_DAY): towards zero
      return Value(Days{static_cast<int32_t>(std::get<JavaTimestamp>(v).millis / kMillisPerDay)});
    case TypeRoot::kTimestampLtz:  // the local date of the instant
      return Value(
          Days{static_cast<int32_t>(FloorDiv(std::get<JavaTimestamp>(v).millis, kMillisPerDay))});
    default:
      return Status::NotImplemented("no cast to DATE");
  }
}

Result<Value> ToTime(const Value& v, const DataType& from) {
  switch (from.root()) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: {
      FJORD_ASSIGN_OR_RAISE(int32_t millis, ParseJavaTime(std::get<std::string>(v)));
      return Value(MillisOfDay{millis});
    }
    case TypeRoot::kTimestamp:  // (int) (millis % MILLIS_PER_DAY): negative before 1970
      return Value(
          MillisOfDay{static_cast<int32_t>(std::get<JavaTimestamp>(v).millis % kMillisPerDay)});
    case TypeRoot::kTimestampLtz:  // the local time of the instant
      return Value(MillisOfDay{
          static_cast<int32_t>(FloorMod(std::get<JavaTimestamp>(v).millis, kMillisPerDay))});
    default:
      return Status::NotImplemented("no cast to TIME");
  }
}

Result<Value> ToTimestamp(const Value& v, const DataType& from, const DataType& to) {
  switch (from.root()) {
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: {
      // Epoch seconds: value * 1000 in long arithmetic (wrapping).
      uint64_t millis = static_cast<uint64_t>(std::get<int64_t>(v)) * 1000u;
      return Value(JavaTimestamp{static_cast<int64_t>(millis), 0});
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: {
      FJORD_ASSIGN_OR_RAISE(JavaTimestamp ts,
                            ParseJavaTimestamp(std::get<std::string>(v), to.precision(),
                                               to.root() == TypeRoot::kTimestamp));
      return Value(ts);
    }
    case TypeRoot::kDate:
      return Value(JavaTimestamp{int64_t{std::get<Days>(v).value} * kMillisPerDay, 0});
    case TypeRoot::kTime:
      return Value(JavaTimestamp{int64_t{std::get<MillisOfDay>(v).value}, 0});
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      const auto& ts = std::get<JavaTimestamp>(v);
      if (from.precision() <= to.precision()) return Value(ts);
      return Value(Truncate(ts, to.precision()));
    }
    default:
      return Status::NotImplemented("no cast to ", to.ToString());
  }
}

}  // namespace fjord::evolution

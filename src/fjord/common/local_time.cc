#include "fjord/common/local_time.h"

#include <chrono>
#include <ctime>

#include "fjord/common/calendar.h"

namespace fjord {

int64_t LocalMillisToEpochMillis(int64_t local) {
  int64_t seconds = FloorDiv(local, 1000);
  int64_t millis = local - seconds * 1000;
  time_t t = static_cast<time_t>(seconds);
  struct tm fields {};
  gmtime_r(&t, &fields);
  fields.tm_isdst = -1;
  time_t epoch = mktime(&fields);
  return static_cast<int64_t>(epoch) * 1000 + millis;
}

int64_t EpochMillisToLocalMillis(int64_t epoch_millis) {
  int64_t seconds = FloorDiv(epoch_millis, 1000);
  int64_t millis = epoch_millis - seconds * 1000;
  time_t t = static_cast<time_t>(seconds);
  struct tm fields {};
  localtime_r(&t, &fields);
  return static_cast<int64_t>(timegm(&fields)) * 1000 + millis;
}

int64_t NowLocalMillis() {
  return EpochMillisToLocalMillis(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
}

}  // namespace fjord

#include "fjord/common/local_time.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace fjord {
namespace {

// Runs the test body in the time zone `tz`, restoring the previous one.
class ZoneGuard {
 public:
  explicit ZoneGuard(const char* tz) {
    if (const char* old = std::getenv("TZ")) old_ = old;
    setenv("TZ", tz, 1);
    tzset();
  }
  ~ZoneGuard() {
    if (old_) {
      setenv("TZ", old_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  std::optional<std::string> old_;
};

constexpr int64_t kHour = 3600 * 1000;

TEST(LocalTimeTest, ZoneOffsetsBothWays) {
  {
    ZoneGuard zone("UTC");
    EXPECT_EQ(EpochMillisToLocalMillis(1234567), 1234567);
    EXPECT_EQ(LocalMillisToEpochMillis(1234567), 1234567);
  }
  {
    ZoneGuard zone("Europe/Berlin");
    // 2024-01-15T12:00:00Z is 13:00 in Berlin (winter), 2024-07-15T12:00:00Z is 14:00 (summer).
    int64_t winter = 1705320000000, summer = 1721044800000;
    EXPECT_EQ(EpochMillisToLocalMillis(winter), winter + kHour);
    EXPECT_EQ(EpochMillisToLocalMillis(summer), summer + 2 * kHour);
    EXPECT_EQ(LocalMillisToEpochMillis(winter + kHour), winter);
    EXPECT_EQ(LocalMillisToEpochMillis(summer + 2 * kHour + 5), summer + 5);
    // Before the epoch, with milliseconds.
    EXPECT_EQ(EpochMillisToLocalMillis(-1), kHour - 1);
    EXPECT_EQ(LocalMillisToEpochMillis(kHour - 1), -1);
  }
  {
    ZoneGuard zone("America/New_York");
    int64_t now = NowLocalMillis();
    int64_t epoch_now = LocalMillisToEpochMillis(now);
    // Local New York time is 4 or 5 hours behind; converting back gives about now.
    EXPECT_LT(std::llabs(EpochMillisToLocalMillis(epoch_now) - now), 1000);
    EXPECT_TRUE(epoch_now - now == 4 * kHour || epoch_now - now == 5 * kHour) << epoch_now - now;
  }
}

}  // namespace
}  // namespace fjord

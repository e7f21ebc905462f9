// TimestampToUnits against the exact reading: floor(total nanoseconds * units per second / 1e9),
// computed in 128 bits, for every Arrow unit and timestamps before, at and after 1970 (the usual
// units are computed by constants, the others by the general form).
#include "fjord/format/arrow_values.h"

#include <gtest/gtest.h>

#include <random>

namespace fjord {
namespace {

int64_t Exact(const Timestamp& ts, int64_t per_second) {
  const Int128 nanos = static_cast<Int128>(ts.millis) * 1000000 + ts.nanos_of_milli;
  const Int128 scaled = nanos * per_second;
  Int128 q = scaled / 1000000000;
  if (scaled % 1000000000 != 0 && scaled < 0) --q;  // floor
  return static_cast<int64_t>(q);
}

TEST(ArrowValuesTest, TimestampToUnitsIsTheFloorOfTheExactValue) {
  std::mt19937_64 rng(34);
  std::vector<Timestamp> samples = {{0, 0},      {0, 999999}, {-1, 0},       {-1, 999999},
                                    {1, 1},      {-1000, 1},  {999, 999999}, {-86400000, 500},
                                    {1000, 999}, {-999, 1000}};
  for (int i = 0; i < 2000; ++i) {
    samples.push_back({static_cast<int64_t>(rng() % 8000000000000) - 4000000000000,
                       static_cast<int32_t>(rng() % 1000000)});
  }
  for (int64_t per_second : {int64_t{1}, int64_t{1000}, int64_t{1000000}, int64_t{1000000000}}) {
    for (const Timestamp& ts : samples) {
      ASSERT_EQ(TimestampToUnits(ts, per_second), Exact(ts, per_second))
          << ts.millis << " ms + " << ts.nanos_of_milli << " ns at " << per_second << "/s";
    }
  }
}

}  // namespace
}  // namespace fjord

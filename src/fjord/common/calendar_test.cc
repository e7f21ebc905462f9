#include "fjord/common/calendar.h"

#include <chrono>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

TEST(CalendarTest, KnownDates) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(2024, 2, 29), 19782);
  EXPECT_EQ(DaysFromCivil(1, 1, 1), -719162);
  EXPECT_EQ(DaysFromCivil(9999, 12, 31), 2932896);
  EXPECT_EQ(DaysFromCivil(0, 3, 1), -719468);  // the algorithms' origin
  static_assert(DaysFromCivil(1970, 1, 2) == 1);
}

TEST(CalendarTest, CivilFromDaysInvertsDaysFromCivil) {
  CivilDate d = CivilFromDays(-1);
  EXPECT_EQ(d.year, 1969);
  EXPECT_EQ(d.month, 12u);
  EXPECT_EQ(d.day, 31u);
  d = CivilFromDays(19782);
  EXPECT_EQ(d.year, 2024);
  EXPECT_EQ(d.month, 2u);
  EXPECT_EQ(d.day, 29u);
  d = CivilFromDays(DaysFromCivil(-44, 3, 15));
  EXPECT_EQ(d.year, -44);
  EXPECT_EQ(d.month, 3u);
  EXPECT_EQ(d.day, 15u);
}

// Every day of years -1000 .. 3000 against the C++ standard library's calendar.
TEST(CalendarTest, AgreesWithStdChrono) {
  using namespace std::chrono;
  const int64_t first = DaysFromCivil(-1000, 1, 1);
  const int64_t last = DaysFromCivil(3000, 12, 31);
  for (int64_t z = first; z <= last; ++z) {
    year_month_day ymd{sys_days{days{z}}};
    CivilDate d = CivilFromDays(z);
    ASSERT_EQ(d.year, static_cast<int>(ymd.year())) << z;
    ASSERT_EQ(d.month, static_cast<unsigned>(ymd.month())) << z;
    ASSERT_EQ(d.day, static_cast<unsigned>(ymd.day())) << z;
    ASSERT_EQ(DaysFromCivil(d.year, d.month, d.day), z);
  }
}

TEST(CalendarTest, DaysInMonthAndLeapYears) {
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(2023));
  EXPECT_TRUE(IsLeapYear(-4));
  EXPECT_EQ(DaysInMonth(2024, 2), 29u);
  EXPECT_EQ(DaysInMonth(2100, 2), 28u);
  EXPECT_EQ(DaysInMonth(2023, 4), 30u);
  EXPECT_EQ(DaysInMonth(2023, 12), 31u);
}

TEST(CalendarTest, FloorDivisionRoundsDown) {
  EXPECT_EQ(FloorDiv(7, 2), 3);
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorDiv(-1, 1000), -1);
  EXPECT_EQ(FloorDiv(-1000, 1000), -1);
  EXPECT_EQ(FloorDiv(0, 86400), 0);
  EXPECT_EQ(FloorMod(-1, 1000), 999);
  EXPECT_EQ(FloorMod(-86400, 86400), 0);
  EXPECT_EQ(FloorMod(86401, 86400), 1);
}

}  // namespace
}  // namespace fjord

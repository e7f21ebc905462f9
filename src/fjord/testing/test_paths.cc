// The checkout's paths for the tests (declared in test_util.h), in one unit of their own.
#include <string>

namespace fjord::testing {

std::string FixturesDir();
std::string FixturesDir() { return FJORD_FIXTURES_DIR; }

}  // namespace fjord::testing

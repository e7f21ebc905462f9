// Tests that need a component of the machine (a server's binaries: testing/postgres_server.h)
// skip without it when run by hand, but fail under FJORD_REQUIRE_SERVICES=1, which `make test`
// (and so CI) sets: a component that is missing there must not pass for one that was tested.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace fjord::testing {

inline bool ComponentsRequired() {
  const char* v = std::getenv("FJORD_REQUIRE_SERVICES");
  return v != nullptr && std::string(v) == "1";
}

}  // namespace fjord::testing

// `why`: why the component is unusable here, "" when it is usable. In a test body or SetUp.
#define FJORD_REQUIRE_COMPONENT(why)                                                      \
  do {                                                                                    \
    const std::string fjord_missing_ = (why);                                             \
    if (!fjord_missing_.empty()) {                                                        \
      if (::fjord::testing::ComponentsRequired()) {                                       \
        FAIL() << fjord_missing_                                                          \
               << " (FJORD_REQUIRE_SERVICES=1: make test needs it; scripts/bootstrap.sh " \
                  "installs it)";                                                         \
      }                                                                                   \
      GTEST_SKIP() << fjord_missing_;                                                     \
    }                                                                                     \
  } while (false)

// Test helpers: assertions on Status/Result and temporary directories.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "fjord/result.h"

#define ASSERT_OK(expr)                                       \
  do {                                                        \
    ::fjord::Status _st = (expr);                             \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st.ToString(); \
  } while (false)

#define EXPECT_OK(expr)                                       \
  do {                                                        \
    ::fjord::Status _st = (expr);                             \
    EXPECT_TRUE(_st.ok()) << #expr << ": " << _st.ToString(); \
  } while (false)

#define FJORD_TEST_ASSIGN_IMPL(tmp, lhs, rexpr)                       \
  auto tmp = (rexpr);                                                 \
  ASSERT_TRUE(tmp.ok()) << #rexpr << ": " << tmp.status().ToString(); \
  lhs = std::move(tmp).value()

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  FJORD_TEST_ASSIGN_IMPL(FJORD_CONCAT(_fjord_test_result_, __LINE__), lhs, rexpr)

// The status of a Status or a Result, for matchers.
inline ::fjord::Status StatusOf(const ::fjord::Status& s) { return s; }
template <typename T>
::fjord::Status StatusOf(const ::fjord::Result<T>& r) {
  return r.status();
}

MATCHER_P(HasStatusCode, code, "") { return StatusOf(arg).code() == code; }
MATCHER_P2(IsError, code, substring, "") {
  ::fjord::Status st = StatusOf(arg);
  *result_listener << "status is " << st.ToString();
  return st.code() == code && st.message().find(substring) != std::string::npos;
}

namespace fjord::testing {

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline TempDir::TempDir() {
  std::string templ = (std::filesystem::temp_directory_path() / "fjord-test-XXXXXX").string();
  char* made = ::mkdtemp(templ.data());
  path_ = made ? made : templ;
}

inline TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

// The repository's tests/fixtures (test_paths.cc: one unit holds the checkout's path, so that
// every other test unit compiles the same in any checkout and hits the compiler cache).
std::string FixturesDir();

}  // namespace fjord::testing

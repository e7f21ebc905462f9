#include "fjord/warning.h"

#include <iostream>
#include <mutex>
#include <set>
#include <utility>

namespace fjord {

namespace {

struct WarningState {
  std::mutex mu;
  WarningSink sink = [](const std::string& text) {
    std::cerr << "fjord: warning: " << text << "\n";
  };
  std::set<std::string> given;
};

WarningState& State() {
  static WarningState* state = new WarningState();  // never destroyed: warnings at exit
  return *state;
}

}  // namespace

WarningSink SetWarningSink(WarningSink sink) {
  WarningState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  return std::exchange(s.sink, std::move(sink));
}

void WarnOnce(const std::string& text) {
  WarningState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.given.insert(text).second) return;
  if (s.sink) s.sink(text);
}

}  // namespace fjord

// Status: the outcome of an operation that returns no value. Fjord reports every error through
// Status or Result<T> (result.h); no exception crosses the API.
//
// A Status is either OK (no allocation, one null pointer) or an error with a code and a message.
// Messages name the thing that failed: the file, and the field or option where known.
// Status is a value type; copies are independent. Not thread-safe to mutate concurrently.
#pragma once

#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace fjord {

enum class StatusCode : unsigned char {
  kOk = 0,
  kInvalid,         // bad argument, bad option, bad input given by the caller
  kNotFound,        // a file, table, snapshot, tag, option... that does not exist
  kAlreadyExists,   // create-if-absent lost, or a name already taken
  kIOError,         // the storage failed
  kCorruption,      // a file exists but its contents are not what the format says
  kNotImplemented,  // a valid input that Fjord does not support yet
  kConflict,        // a commit conflicts with a concurrent one
  kCancelled,       // stopped on request
  kInternal,        // a broken invariant inside Fjord: a bug
};

std::string_view StatusCodeName(StatusCode code);

class Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status OK() { return Status(); }

  template <typename... Args>
  static Status Invalid(Args&&... args) {
    return Make(StatusCode::kInvalid, std::forward<Args>(args)...);
  }
  template <typename... Args>
  static Status NotFound(Args&&... args) {
    return Make(StatusCode::kNotFound, std::forward<Args>(args)...);
  }
  template <typename... Args>
  static Status AlreadyExists(Args&&... args) {
    return Make(StatusCode::kAlreadyExists, std::forward<Args>(args)...);
  }
  template <typename... Args>
  static Status IOError(Args&&... args) {
    return Make(StatusCode::kIOError, std::forward<Args>(args)...);
  }
  template <typename... Args>
  static Status Corruption(Args&&... args) {
    return Make(StatusCode::kCorruption, std::forward<Args>(args)...);
  }
  template <typename... Args>
  static Status NotImplemented(Args&&... args) {
    return Make(StatusCode::kNotImplemented, std::forward<Args>(args)...);
  }
  template <typename... Args>
  static Status Conflict(Args&&... args) {
    return Make(StatusCode::kConflict, std::forward<Args>(args)...);
  }
  template <typename... Args>
  static Status Cancelled(Args&&... args) {
    return Make(StatusCode::kCancelled, std::forward<Args>(args)...);
  }
  template <typename... Args>
  static Status Internal(Args&&... args) {
    return Make(StatusCode::kInternal, std::forward<Args>(args)...);
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return ok() ? StatusCode::kOk : state_->code; }
  // The message without the code; empty for OK.
  const std::string& message() const;
  // "Code: message", or "OK".
  std::string ToString() const;

  bool IsInvalid() const { return code() == StatusCode::kInvalid; }
  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code() == StatusCode::kAlreadyExists; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsCorruption() const { return code() == StatusCode::kCorruption; }
  bool IsConflict() const { return code() == StatusCode::kConflict; }

  // Returns this error with "context: " put in front of the message (OK stays OK). Used to add
  // the file or field name as an error travels up.
  template <typename... Args>
  Status WithContext(Args&&... args) const {
    if (ok()) return *this;
    std::ostringstream out;
    (out << ... << std::forward<Args>(args));
    out << ": " << state_->message;
    return Status(state_->code, out.str());
  }

 private:
  struct State {
    StatusCode code;
    std::string message;
  };

  template <typename... Args>
  static Status Make(StatusCode code, Args&&... args) {
    std::ostringstream out;
    (out << ... << std::forward<Args>(args));
    return Status(code, out.str());
  }

  std::unique_ptr<State> state_;
};

inline bool operator==(const Status& a, const Status& b) {
  return a.code() == b.code() && a.message() == b.message();
}

}  // namespace fjord

// Returns early from the enclosing function when `expr` (a Status) is an error.
#define FJORD_RETURN_NOT_OK(expr)                  \
  do {                                             \
    ::fjord::Status _fjord_status = (expr);        \
    if (!_fjord_status.ok()) return _fjord_status; \
  } while (false)

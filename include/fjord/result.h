// Result<T>: a value of T or an error Status. Construct from a T (success) or from a non-OK Status
// (failure); constructing from an OK Status is a bug and becomes an Internal error.
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

#include "fjord/status.h"

namespace fjord {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<T, Status>, "use Status for operations without a value");

 public:
  Result(const T& value) : data_(value) {}                        // NOLINT: implicit by design
  Result(T&& value) : data_(std::move(value)) {}                  // NOLINT
  Result(const Status& status) : data_(status) { CheckError(); }  // NOLINT
  Result(Status&& status) : data_(std::move(status)) { CheckError(); }  // NOLINT
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U&&, T> &&
                                                    !std::is_same_v<std::decay_t<U>, T> &&
                                                    !std::is_same_v<std::decay_t<U>, Status>>>
  Result(U&& value) : data_(T(std::forward<U>(value))) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(data_); }
  // The error, or OK when a value is held.
  Status status() const { return ok() ? Status::OK() : std::get<Status>(data_); }

  // Precondition: ok().
  const T& value() const& { return std::get<T>(data_); }
  T& value() & { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  T ValueOr(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  void CheckError() {
    if (std::get<Status>(data_).ok()) {
      data_ = Status::Internal("Result constructed from an OK status without a value");
    }
  }

  std::variant<T, Status> data_;
};

}  // namespace fjord

#define FJORD_CONCAT_IMPL(a, b) a##b
#define FJORD_CONCAT(a, b) FJORD_CONCAT_IMPL(a, b)

#define FJORD_ASSIGN_OR_RAISE_IMPL(result_name, lhs, rexpr) \
  auto&& result_name = (rexpr);                             \
  if (!result_name.ok()) return result_name.status();       \
  lhs = std::move(result_name).value()

// `lhs = value of rexpr`, or return its error from the enclosing function.
#define FJORD_ASSIGN_OR_RAISE(lhs, rexpr) \
  FJORD_ASSIGN_OR_RAISE_IMPL(FJORD_CONCAT(_fjord_result_, __LINE__), lhs, rexpr)

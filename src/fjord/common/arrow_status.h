// Bridges Arrow's Status/Result into Fjord's at the boundary where Arrow is called. Private:
// include only from .cc files that already use Arrow.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include "fjord/result.h"

namespace fjord {

Status FromArrow(const arrow::Status& status);

}  // namespace fjord

#define FJORD_ARROW_RETURN_NOT_OK(expr)                                            \
  do {                                                                             \
    ::arrow::Status _fjord_arrow_status = (expr);                                  \
    if (!_fjord_arrow_status.ok()) return ::fjord::FromArrow(_fjord_arrow_status); \
  } while (false)

#define FJORD_ARROW_ASSIGN_OR_RAISE_IMPL(result_name, lhs, rexpr)         \
  auto&& result_name = (rexpr);                                           \
  if (!result_name.ok()) return ::fjord::FromArrow(result_name.status()); \
  lhs = std::move(result_name).ValueUnsafe()

#define FJORD_ARROW_ASSIGN_OR_RAISE(lhs, rexpr) \
  FJORD_ARROW_ASSIGN_OR_RAISE_IMPL(FJORD_CONCAT(_fjord_arrow_result_, __LINE__), lhs, rexpr)

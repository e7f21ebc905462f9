#include "fjord/lsm/merge_function.h"

#include <string>

#include "fjord/common/strings.h"

namespace fjord {

std::string_view RowKindShortString(RowKind kind) {
  switch (kind) {
    case RowKind::kInsert:
      return "+I";
    case RowKind::kUpdateBefore:
      return "-U";
    case RowKind::kUpdateAfter:
      return "+U";
    case RowKind::kDelete:
      return "-D";
  }
  return "?";
}

Result<RowKind> ParseRowKind(std::string_view text) {
  if (text == "+I") return RowKind::kInsert;
  if (text == "-U") return RowKind::kUpdateBefore;
  if (text == "+U") return RowKind::kUpdateAfter;
  if (text == "-D") return RowKind::kDelete;
  std::string upper = Upper(text);
  if (upper == "INSERT") return RowKind::kInsert;
  if (upper == "UPDATE_BEFORE") return RowKind::kUpdateBefore;
  if (upper == "UPDATE_AFTER") return RowKind::kUpdateAfter;
  if (upper == "DELETE") return RowKind::kDelete;
  return Status::Invalid("unknown row kind '", text, "': expected +I, -U, +U or -D");
}

}  // namespace fjord

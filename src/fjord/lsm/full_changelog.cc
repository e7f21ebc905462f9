#include "fjord/lsm/full_changelog.h"

#include <algorithm>

namespace fjord {

FullChangelogOptions FullChangelogOptions::FromOptions(const TableSchema& schema,
                                                       const CoreOptions& options) {
  FullChangelogOptions out;
  out.row_deduplicate = options.changelog_row_deduplicate();
  const std::vector<std::string>& ignore = options.changelog_row_deduplicate_ignore_fields();
  for (size_t f = 0; f < schema.fields.size(); ++f) {
    if (std::find(ignore.begin(), ignore.end(), schema.fields[f].name) == ignore.end()) {
      out.compared_fields.push_back(static_cast<int>(f));
    }
  }
  return out;
}

FullChangelogEmit DecideFullChangelog(bool has_before, size_t records,
                                      std::optional<RowKind> after) {
  bool after_add = after && !IsRetract(*after);
  if (records <= 1 || !has_before) {
    // A lone max-level record is unchanged; anything else new is an insert when it adds.
    if (records <= 1 && has_before) return FullChangelogEmit::kNothing;
    return after_add ? FullChangelogEmit::kInsertAfter : FullChangelogEmit::kNothing;
  }
  return after_add ? FullChangelogEmit::kUpdate : FullChangelogEmit::kDeleteBefore;
}

bool RowsEqualOn(const std::vector<Value>& a, const std::vector<Value>& b,
                 const std::vector<int>& fields) {
  for (int f : fields) {
    auto i = static_cast<size_t>(f);
    if (i >= a.size() || i >= b.size()) return false;
    const Value& x = a[i];
    const Value& y = b[i];
    // Java compares top-level FLOAT/DOUBLE as primitives (NaN != NaN, -0.0 == 0.0); Value's own
    // equality is Float.equals's (nested values, as Java's equals on them).
    if (x.is<double>() && y.is<double>()) {
      if (!(x.get<double>() == y.get<double>())) return false;
    } else if (x.is<float>() && y.is<float>()) {
      if (!(x.get<float>() == y.get<float>())) return false;
    } else if (!(x == y)) {
      return false;
    }
  }
  return true;
}

}  // namespace fjord

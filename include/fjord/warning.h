// Warnings: things Fjord tells its user without failing, one line each (e.g. a table option that
// only changes performance and that Fjord ignores, or an option key it does not know). By default
// they go to stderr as "fjord: warning: <text>"; a program may send them elsewhere.
//
// Thread safety: every function may be called from any thread.
#pragma once

#include <functional>
#include <string>

namespace fjord {

// Receives each warning's text (one line, no newline). Called under a lock: keep it short.
using WarningSink = std::function<void(const std::string& text)>;

// Replaces the sink; an empty function silences warnings. Returns the previous sink.
WarningSink SetWarningSink(WarningSink sink);

// Hands `text` to the sink unless the same text was warned before in this process (so a warning
// about a table's option appears once, not at every write).
void WarnOnce(const std::string& text);

}  // namespace fjord

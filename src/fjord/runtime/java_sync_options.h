// Java Paimon's CDC action arguments (kafka_sync_table / _database, mysql_sync_table / _database,
// postgres_sync_table; release 1.4.2's CdcActionCommonUtils and action factories) and what a
// Fjord job file says instead (docs/cdc.md, "Java's sync options"): a job file that uses Java's
// name of an option is refused naming Fjord's key, or why Fjord does not support it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fjord::runtime {

struct JavaSyncOption {
  const char* java;   // Java's argument, without the "--"
  const char* fjord;  // the job file's key that does what it does; nullptr: not supported
  const char* why;    // not supported: why
};

const std::vector<JavaSyncOption>& JavaSyncOptions();

// For a key of a job file's `source` or `sink` that Fjord does not know: when it is the name of
// a Java sync option (as Java writes it, or with dashes for underscores), what to say: "`x` is
// Java's --x; Fjord's key is sink.y" or "...; Fjord does not support it: why". nullopt otherwise.
std::optional<std::string> JavaSyncOptionMessage(const std::string& key);

}  // namespace fjord::runtime

// Consumers of a table's streaming reads (docs/reading.md "Consumers"): the `consumer-id` files
// under `consumer/`, as Java's `reset_consumer` and `clear_consumers` procedures manage them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/result.h"
#include "fjord/status.h"

namespace fjord {

class Table;

struct ConsumerEntry {
  std::string id;
  int64_t next_snapshot = 0;  // the snapshot a reader with this id continues at
};

// Every consumer, sorted by id.
Result<std::vector<ConsumerEntry>> ListConsumers(const Table& table);

// Java's reset_consumer: with `next_snapshot`, the consumer continues at that snapshot, which
// must exist (Invalid naming it otherwise, nothing written); without, the consumer is deleted.
Status ResetConsumer(const Table& table, const std::string& id,
                     std::optional<int64_t> next_snapshot);

// Java's clear_consumers: deletes every consumer whose whole id matches `including` (blank: all)
// and not `excluding` (blank: none); regular expressions as Java's for the usual syntax. Returns
// the ids deleted, sorted; Invalid for a pattern that does not compile.
Result<std::vector<std::string>> ClearConsumers(const Table& table, const std::string& including,
                                                const std::string& excluding = {});

}  // namespace fjord

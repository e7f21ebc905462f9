// Local date-times without a zone, as Java's LocalDateTime stored in milliseconds (e.g. a data
// file's creation time, Java's `Timestamp.fromLocalDateTime(LocalDateTime.now())`), and their
// conversion to and from epoch milliseconds in the process's time zone (the JVM's default zone
// in Java).
#pragma once

#include <cstdint>

namespace fjord {

// Epoch millis of a local date-time given as millis from 1970-01-01T00:00 local.
int64_t LocalMillisToEpochMillis(int64_t local_millis);
// The local date-time, as millis from 1970-01-01T00:00 local, of an instant.
int64_t EpochMillisToLocalMillis(int64_t epoch_millis);
// The local date-time now (Java's LocalDateTime.now()), in millis.
int64_t NowLocalMillis();

}  // namespace fjord

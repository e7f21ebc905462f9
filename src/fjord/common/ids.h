// Random identifiers for file names and commit users.
#pragma once

#include <string>

namespace fjord {

// A random (version 4) UUID in the canonical 8-4-4-4-12 lowercase form. Thread-safe.
std::string RandomUuid();

}  // namespace fjord

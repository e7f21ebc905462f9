// The top-level members of a JSON object found without building it (docs/cdc.md): Debezium's
// JSON converter repeats the whole Connect schema in every message, usually several times the
// size of the payload, so debezium-json splits the envelope first, parses each distinct schema
// text once, and parses only the payload of each message.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace fjord::cdc {

// The (name, value text) of each top-level member of the object `text`, in order; nullopt when
// `text` is not one well-formed enough object to split this way (not an object, a key with
// escapes, unbalanced brackets, trailing text): the caller then parses it whole and reports
// what is wrong. Strings and nested values are skipped, not checked.
std::optional<std::vector<std::pair<std::string_view, std::string_view>>> TopLevelMembers(
    std::string_view text);

}  // namespace fjord::cdc

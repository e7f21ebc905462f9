# simdjson, built from the amalgamated source that scripts/bootstrap.sh unpacks into
# .deps/simdjson (pinned in scripts/deps.lock), as the static target fjord_simdjson.
#
# The pyarrow wheel's libarrow and libparquet carry a simdjson of their own and export its
# symbols. Fjord's copy is therefore compiled under another namespace (`simdjson` is defined as
# `fjord_simdjson` for it and for every file that includes it) with hidden visibility, so that
# neither copy can bind to the other's functions at load time.

set(FJORD_SIMDJSON_DIR "${CMAKE_SOURCE_DIR}/.deps/simdjson"
    CACHE PATH "directory holding simdjson.h and simdjson.cpp")
if(NOT EXISTS "${FJORD_SIMDJSON_DIR}/simdjson.cpp")
  message(FATAL_ERROR "simdjson not found in ${FJORD_SIMDJSON_DIR}; run scripts/bootstrap.sh")
endif()

add_library(fjord_simdjson STATIC "${FJORD_SIMDJSON_DIR}/simdjson.cpp")
set_target_properties(fjord_simdjson PROPERTIES POSITION_INDEPENDENT_CODE ON
                                                CXX_VISIBILITY_PRESET hidden)
target_compile_definitions(fjord_simdjson PUBLIC simdjson=fjord_simdjson
                                                 simdjson_fast_float=fjord_simdjson_fast_float)
target_include_directories(fjord_simdjson SYSTEM PUBLIC "${FJORD_SIMDJSON_DIR}")

# Helpers that give every Fjord target the same flags.

# Strict warnings for our own code only; Arrow's headers are SYSTEM includes.
# GCC 12 reports false maybe-uninitialized warnings inside std::variant of Arrow types.
set(FJORD_WARNINGS -Wall -Wextra -Wpedantic -Werror -Wno-missing-field-initializers
    -Wno-maybe-uninitialized)

# fjord_layer(NAME SOURCES... DEPS ...): one static library per DESIGN.md layer. A layer links only
# the layers above it, so an upward dependency fails to link.
function(fjord_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPS" ${ARGN})
  add_library(fjord_${name} STATIC ${L_SOURCES})
  target_include_directories(fjord_${name} PUBLIC ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src)
  target_compile_options(fjord_${name} PRIVATE ${FJORD_WARNINGS})
  target_link_libraries(fjord_${name} PUBLIC ${L_DEPS})
endfunction()

# fjord_test(NAME SOURCES... DEPS ...): a GoogleTest binary whose cases ctest lists one by one.
function(fjord_test name)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_compile_options(${name} PRIVATE ${FJORD_WARNINGS})
  # The checkout's paths reach the tests through fjord_test_paths only (one unit), so the test
  # units compile alike in every checkout and a fresh clone hits the compiler cache.
  if(NOT TARGET fjord_test_paths)
    add_library(fjord_test_paths STATIC ${CMAKE_SOURCE_DIR}/src/fjord/testing/test_paths.cc)
    target_compile_definitions(fjord_test_paths PRIVATE
      FJORD_FIXTURES_DIR="${CMAKE_SOURCE_DIR}/tests/fixtures")
  endif()
  target_link_libraries(${name} PRIVATE ${T_DEPS} fjord_test_paths GTest::gmock_main)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES ENVIRONMENT "ARROW_DEFAULT_MEMORY_POOL=system")
endfunction()

# The C++ quickstart (examples/quickstart) built out of tree against the installed package:
# install the build into a fresh prefix, configure the example with find_package(Fjord) from
# there, build it, run it, and check what it prints (the upserted row read back merged).
# -DBUILD=<fjord build dir> -DSOURCE=<repository>; everything else happens in a fresh folder under
# the temp directory, removed at the end.
if(DEFINED ENV{TMPDIR})
  set(tmp $ENV{TMPDIR})
else()
  set(tmp /tmp)
endif()
string(RANDOM LENGTH 12 suffix)
set(WORK ${tmp}/fjord-quickstart-${suffix})
file(MAKE_DIRECTORY ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
foreach(f include/fjord/fjord.h include/fjord/table.h lib/cmake/Fjord/FjordConfig.cmake)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# The example sees only the installed package: no source tree, no build tree on its paths.
run(${CMAKE_COMMAND} -S ${SOURCE}/examples/quickstart -B ${WORK}/build -G Ninja
    -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/quickstart ${WORK}/warehouse)
message(STATUS "quickstart printed:\n${out}")
set(expected [=[committed snapshot 2
{"id":1,"name":"ada","score":9.5}
{"id":2,"name":"bob","score":9.75}
{"id":3,"name":"cy","score":8.25}
3 rows
]=])
# Rows come bucket by bucket; compare them sorted.
string(REPLACE "\n" ";" got_lines "${out}")
string(REPLACE "\n" ";" want_lines "${expected}")
list(SORT got_lines)
list(SORT want_lines)
if(NOT got_lines STREQUAL want_lines)
  message(FATAL_ERROR "quickstart printed:\n${out}\nexpected (in any order):\n${expected}")
endif()
# A second run against the same warehouse fails cleanly: the table exists.
execute_process(COMMAND ${WORK}/build/quickstart ${WORK}/warehouse RESULT_VARIABLE rc
                ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0 OR NOT err MATCHES "exists")
  message(FATAL_ERROR "a second run should fail with 'already exists', got ${rc}: ${err}")
endif()
file(REMOVE_RECURSE ${WORK})

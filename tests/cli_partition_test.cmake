# One form for partition values (issue 13): `--partition day=2026-11-26` selects the same
# partitions in `write --overwrite`, `compact`, `stats`, `files` and `cat`, the legacy day number
# (Java's partition.legacy-name paths) too; an invalid value is refused as such by every command
# before anything is written; every command prints partitions in the form --partition takes.
# Run with -DFJORD=<fjord binary> -DWORK=<scratch dir>.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(wh ${WORK}/wh)
set(t ${wh}/db.db/t)

include(${CMAKE_CURRENT_LIST_DIR}/cli_test_util.cmake)

fjord(db create ${wh} db)
fjord(table create ${wh} db.t --columns "day DATE, region STRING, id INT, v STRING"
      --partition-keys day,region)
file(WRITE ${WORK}/a.jsonl
  "{\"day\": \"2026-11-26\", \"region\": \"eu,west\", \"id\": 1, \"v\": \"a\"}\n"
  "{\"day\": \"2026-11-27\", \"region\": \"us\", \"id\": 2, \"v\": \"b\"}\n"
  "{\"day\": null, \"region\": \"us\", \"id\": 3, \"v\": \"c\"}\n")
file(WRITE ${WORK}/b.jsonl "{\"day\": \"2026-11-26\", \"region\": \"eu,west\", \"id\": 4, \"v\": \"d\"}\n")
fjord(write ${t} --input ${WORK}/a.jsonl)
fjord(write ${t} --input ${WORK}/b.jsonl)

# files: partitions printed as --partition takes them (a comma in a value escaped as %2C).
fjord(files ${t})
expect_in("${out}" "day=2026-11-26,region=eu%2Cwest ")
expect_in("${out}" "day=2026-11-27,region=us ")
expect_in("${out}" "day=__DEFAULT_PARTITION__,region=us ")
foreach(spec "day=2026-11-26" "day=20783" "day=2026-11-26,region=eu%2Cwest")
  fjord(files ${t} --partition ${spec})
  expect_in("${out}" "day=2026-11-26,region=eu%2Cwest ")
  expect_not_in("${out}" "day=2026-11-27")
  expect_not_in("${out}" "__DEFAULT_PARTITION__")
endforeach()
fjord(files ${t} --partition day=__DEFAULT_PARTITION__)
expect_in("${out}" "day=__DEFAULT_PARTITION__,region=us ")
expect_not_in("${out}" "day=2026")

# cat
fjord(cat ${t} --partition region=us --columns id)
expect_in("${out}" "{\"id\":2}")
expect_in("${out}" "{\"id\":3}")
expect_not_in("${out}" "{\"id\":1}")

# stats: the same printer.
fjord(stats ${t} --partition day=2026-11-26)
expect_in("${out}" "day=2026-11-26,region=eu%2Cwest")
expect_not_in("${out}" "day=2026-11-27")
fjord(stats ${t} --json --partition day=20784)
string(JSON n LENGTH "${out}" buckets)
string(JSON p GET "${out}" buckets 0 partition)
if(NOT n EQUAL 1 OR NOT p STREQUAL "day=2026-11-27,region=us")
  message(FATAL_ERROR "stats --partition day=20784:\n${out}")
endif()

# compact: the two files of 2026-11-26 into one; the others untouched.
fjord(compact ${t} --full --partition day=2026-11-26)
expect_in("${out}" "compacted 2 files into 1")
fjord(files ${t} --partition day=2026-11-27)
expect_in("${out}" "day=2026-11-27,region=us ")

# write --overwrite of one partition.
file(WRITE ${WORK}/c.jsonl "{\"day\": \"2026-11-27\", \"region\": \"us\", \"id\": 5, \"v\": \"e\"}\n")
fjord(write ${t} --input ${WORK}/c.jsonl --overwrite --partition day=2026-11-27)
fjord(cat ${t} --columns id)
foreach(id 1 3 4 5)
  expect_in("${out}" "{\"id\":${id}}")
endforeach()
expect_not_in("${out}" "{\"id\":2}")

# Invalid values are refused as such, by every command, and nothing is written.
fjord(snapshots ${t})
set(before "${out}")
file(GLOB_RECURSE files_before ${t}/*)
foreach(cmd "files" "stats" "compact" "cat")
  fjord_fails("'2026-02-30' is not a date" ${cmd} ${t} --partition day=2026-02-30)
endforeach()
fjord_fails("'2026-02-30' is not a date"
            write ${t} --input ${WORK}/c.jsonl --overwrite --partition day=2026-02-30)
fjord_fails("'nope' is not a partition column (partition columns: day, region)"
            files ${t} --partition nope=1)
fjord_fails("'nope' is not a partition column" compact ${t} --partition nope=1)
fjord(snapshots ${t})
if(NOT out STREQUAL before)
  message(FATAL_ERROR "a refused command committed:\n${before}\n---\n${out}")
endif()
file(GLOB_RECURSE files_after ${t}/*)
if(NOT files_before STREQUAL files_after)
  message(FATAL_ERROR "a refused command left files behind")
endif()

# A Java-written table: NULL and "" partition values share Java's __DEFAULT_PARTITION__
# directory; the spec tells them apart as values (NULL is the default name, "" is empty).
if(DEFINED FIXTURES)
  set(java ${FIXTURES}/parquet/append_with_empty_partition.db/append_with_empty_partition)
  fjord(files ${java} --partition f0=__DEFAULT_PARTITION__)
  expect_in("${out}" "\nf0=__DEFAULT_PARTITION__ ")
  expect_not_in("${out}" "\nf0= ")
  fjord(files ${java} --partition f0=)
  expect_in("${out}" "\nf0= ")
  expect_not_in("${out}" "__DEFAULT_PARTITION__")
  fjord(files ${java} --partition f0=2024)
  expect_in("${out}" "\nf0=2024 ")
  expect_not_in("${out}" "f0=2025")
endif()

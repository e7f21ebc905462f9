# `fjord rescale`: a partitioned primary-key table with 2 buckets rescaled to 3, one partition
# then the rest; rows identical, one OVERWRITE snapshot each, writes to a partition still at the
# old count refused; what cannot be rescaled is refused with nothing changed.
# Run with -DFJORD=<fjord binary> -DWORK=<scratch dir>.
cmake_policy(SET CMP0007 NEW)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(wh ${WORK}/wh)
set(t ${wh}/db.db/t)

include(${CMAKE_CURRENT_LIST_DIR}/cli_test_util.cmake)

# The rows of the table, one per line, sorted (the order of `fjord cat` follows the buckets).
function(sorted_rows)
  fjord(cat ${t} --format jsonl)
  string(STRIP "${out}" out)
  string(REPLACE "\n" ";" lines "${out}")
  list(SORT lines)
  set(rows "${lines}" PARENT_SCOPE)
endfunction()

fjord(db create ${wh} db)
fjord(table create ${wh} db.t --columns "dt STRING NOT NULL, id INT NOT NULL, v BIGINT"
      --primary-key dt,id --partition-keys dt -o bucket=2)
set(rows "")
foreach(i RANGE 0 59)
  string(APPEND rows "{\"dt\": \"d1\", \"id\": ${i}, \"v\": ${i}}\n{\"dt\": \"d2\", \"id\": ${i}, \"v\": 1}\n")
endforeach()
file(WRITE ${WORK}/rows.jsonl "${rows}")
fjord(write ${t} --input ${WORK}/rows.jsonl)
sorted_rows()
set(before "${rows}")
list(LENGTH before n)
if(NOT n EQUAL 120)
  message(FATAL_ERROR "expected 120 rows, got:\n${before}")
endif()

fjord_fails("must be greater than 0" rescale ${t} --buckets 0)
fjord_fails("does not have any data files" rescale ${t} --buckets 3 --partition dt=nope)
fjord(schema ${t})
expect_in("${out}" "\"bucket\" : \"2\"")

fjord(rescale ${t} --buckets 3 --partition dt=d1)
expect_in("${out}" "bucket: 2 -> 3")
expect_in("${out}" "rewrote partition dt=d1")
expect_in("${out}" "as OVERWRITE snapshot 2")
sorted_rows()
if(NOT rows STREQUAL before)
  message(FATAL_ERROR "rows changed by the rescale:\n${before}\n--- after ---\n${rows}")
endif()
fjord(files ${t} --partition dt=d1)
string(REGEX MATCH "dt=d1 +2 " bucket2 "${out}")  # bucket 2 exists now
if(NOT bucket2)
  message(FATAL_ERROR "expected files in bucket 2 of dt=d1:\n${out}")
endif()
fjord(files ${t} --partition dt=d2)
string(REGEX MATCH "dt=d2 +2 " bucket2 "${out}")
if(bucket2)
  message(FATAL_ERROR "dt=d2 was not rescaled, yet has bucket 2:\n${out}")
endif()
fjord(snapshots ${t})
expect_in("${out}" "OVERWRITE")

# dt=d2 still has 2 buckets: a writer with 3 is refused where Java refuses it.
file(WRITE ${WORK}/d2.jsonl "{\"dt\": \"d2\", \"id\": 1, \"v\": 5}\n{\"dt\": \"d2\", \"id\": 2, \"v\": 5}\n{\"dt\": \"d2\", \"id\": 3, \"v\": 5}\n")
fjord_fails("but the previous bucket num is 2" write ${t} --input ${WORK}/d2.jsonl)

fjord(rescale ${t} --buckets 3)
expect_in("${out}" "bucket: already 3")
expect_in("${out}" "rewrote partition dt=d1")
expect_in("${out}" "rewrote partition dt=d2")
sorted_rows()
if(NOT rows STREQUAL before)
  message(FATAL_ERROR "rows changed by the second rescale:\n${rows}")
endif()
fjord(write ${t} --input ${WORK}/d2.jsonl)

# A dynamic-bucket table cannot be rescaled (Java: "Cannot change bucket when it is -1").
fjord(table create ${wh} db.dyn --columns "id INT NOT NULL, v BIGINT" --primary-key id)
set(dyn ${wh}/db.db/dyn)
file(WRITE ${WORK}/dyn.jsonl "{\"id\": 1, \"v\": 1}\n")
fjord(write ${dyn} --input ${WORK}/dyn.jsonl)
fjord_fails("Cannot change bucket when it is -1" rescale ${dyn} --buckets 2)

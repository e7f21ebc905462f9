# `fjord stats`: a primary-key table written in 4 commits with full-compaction.delta-commits = 2
# (full compactions at commit ids 2 and 4), then `fjord stats --json` and the text form.
# Run with -DFJORD=<fjord binary> -DWORK=<scratch dir>.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(wh ${WORK}/wh)
set(t ${wh}/db.db/t)

include(${CMAKE_CURRENT_LIST_DIR}/cli_test_util.cmake)

fjord(db create ${wh} db)
fjord(table create ${wh} db.t --columns "id INT NOT NULL, v BIGINT" --primary-key id
      -o bucket=1 -o full-compaction.delta-commits=2 -o num-sorted-run.compaction-trigger=10)
foreach(i 1 2 3 4)
  file(WRITE ${WORK}/rows${i}.jsonl "{\"id\": ${i}, \"v\": ${i}}\n{\"id\": 0, \"v\": ${i}}\n")
  fjord(write ${t} --input ${WORK}/rows${i}.jsonl --commit-user u --commit-id ${i})
endforeach()

fjord(stats ${t} --json)
string(JSON buckets LENGTH "${out}" buckets)
if(NOT buckets EQUAL 1)
  message(FATAL_ERROR "expected 1 bucket:\n${out}")
endif()
# Commits 1..4 make APPEND snapshots 1, 2, 4, 5 and COMPACT snapshots 3 and 6.
foreach(check "snapshot=6" "compactSnapshots=2" "snapshotsRead=6")
  string(REPLACE "=" ";" kv ${check})
  list(GET kv 0 key)
  list(GET kv 1 want)
  string(JSON got GET "${out}" ${key})
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${key} = ${got}, expected ${want}:\n${out}")
  endif()
endforeach()
# After the second full compaction: one file at level 10 (num-levels = trigger + 1) holding ids 0..4; two compactions, both
# full; the second took the first one's file and the two level-0 files of commits 3 and 4.
foreach(check "files=1" "rows=5" "level0FileCount=0" "sortedRuns=1" "backlogBytes=0"
              "compactionCompletedCount=2" "fullCompactionCount=2" "compactionInputFiles=5"
              "compactionOutputFiles=2")
  string(REPLACE "=" ";" kv ${check})
  list(GET kv 0 key)
  list(GET kv 1 want)
  string(JSON got GET "${out}" buckets 0 ${key})
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "buckets[0].${key} = ${got}, expected ${want}:\n${out}")
  endif()
endforeach()
string(JSON top GET "${out}" buckets 0 filesPerLevel 10)
if(NOT top EQUAL 1)
  message(FATAL_ERROR "expected one file at level 10:\n${out}")
endif()
# The output of the last compaction is the live file: totalFileSize is part of the output bytes.
string(JSON total GET "${out}" buckets 0 totalFileSize)
string(JSON bytes_out GET "${out}" buckets 0 compactionOutputSize)
if(total LESS_EQUAL 0 OR bytes_out LESS total)
  message(FATAL_ERROR "totalFileSize ${total}, compactionOutputSize ${bytes_out}:\n${out}")
endif()

fjord(stats ${t})
foreach(expected "primary-key table, snapshot 6" "2 COMPACT" "L10:1")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "fjord stats output lacks '${expected}':\n${out}")
  endif()
endforeach()

# A missing table is a clear error.
execute_process(COMMAND ${FJORD} stats ${WORK}/nope RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "fjord: ")
  message(FATAL_ERROR "fjord stats on a missing table: rc ${rc}, ${err}")
endif()
file(REMOVE_RECURSE ${WORK})

# No option silently ignored, from the command line (issue 13): `fjord options` says what Fjord
# does with each option; `table create` / `table alter` refuse an option Fjord does not honour,
# naming it; performance-only options and unknown keys give a one-line warning on stderr.
# Run with -DFJORD=<fjord binary> -DWORK=<scratch dir>.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(wh ${WORK}/wh)

include(${CMAKE_CURRENT_LIST_DIR}/cli_test_util.cmake)

fjord(options)
expect_in("${out}" "changelog-producer (enum, default none)")
expect_in("${out}" "Fjord: honoured for -1, N > 0 only; other values refuse writes: -2 (postpone bucket) is not written yet")
expect_in("${out}" "Fjord: not honoured, refuses writes: commit users are not prefixed")
expect_in("${out}" "sort-engine (enum, default loser-tree")
expect_in("${out}" "Fjord: performance only")

fjord(db create ${wh} db)
fjord_fails("option 'bucket' = '-2' is not honoured by Fjord yet"
            table create ${wh} db.t --columns "id INT NOT NULL, v STRING" --primary-key id
            -o bucket=-2)
fjord_fails("option 'commit.force-create-snapshot' = 'true' is not honoured by Fjord yet"
            table create ${wh} db.t --columns "id INT NOT NULL, v STRING" --primary-key id
            -c table-default.commit.force-create-snapshot=true)
if(EXISTS ${wh}/db.db/t/schema)
  message(FATAL_ERROR "a refused create left a schema behind")
endif()

fjord(table create ${wh} db.t --columns "id INT NOT NULL, v STRING" --primary-key id
      -o bucket=1 -o sort-engine=min-heap -o snapshot.num-retain.max=5)
expect_in("${err}" "fjord: warning: option 'sort-engine' = 'min-heap' is ignored by Fjord (it changes only performance)\n")
expect_in("${err}" "fjord: warning: unknown option 'snapshot.num-retain.max' (kept, but Fjord does not use it); did you mean 'snapshot.num-retained.max'?\n")

fjord_fails("option 'commit.user-prefix' = 'x' is not honoured by Fjord yet"
            table alter ${wh} db.t --set "commit.user-prefix=x")
fjord(table alter ${wh} db.t --set commit.max-retries=3)

# A write of the table warns once about the performance option (not about the unknown key).
file(WRITE ${WORK}/rows.jsonl "{\"id\": 1, \"v\": \"a\"}\n")
fjord(write ${wh}/db.db/t --input ${WORK}/rows.jsonl)
expect_in("${err}" "fjord: warning: option 'sort-engine' = 'min-heap' is ignored by Fjord")
string(FIND "${err}" "snapshot.num-retain.max" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "a write warned about the unknown key:\n${err}")
endif()

# `table options --explain` says what Fjord does with each option set.
fjord(table options ${wh}/db.db/t --explain)
expect_in("${out}" "sort-engine = min-heap    [table; overrides default loser-tree; ignored by Fjord (performance only)]")
expect_in("${out}" "snapshot.num-retain.max = 5    [table; not a known option]")

# `fjord version` names Fjord, the Arrow it runs on, its memory pool with jemalloc's settings
# (one arena per CPU unless the user set JE_ARROW_MALLOC_CONF), and the compiled features.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=JE_ARROW_MALLOC_CONF
                        --unset=ARROW_DEFAULT_MEMORY_POOL ${FJORD} version
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fjord version exited with ${rc}")
endif()
foreach(expected "fjord 0\\.[0-9]+\\.[0-9]+" "arrow 26\\.0\\.1 \\(built against 26\\.0\\.1\\)"
                 "memory pool jemalloc \\(JE_ARROW_MALLOC_CONF=percpu_arena:percpu\\)"
                 "features .*parquet.*orc.*s3")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "fjord version output lacks '${expected}':\n${out}")
  endif()
endforeach()
# The user's own jemalloc settings stand.
execute_process(COMMAND ${CMAKE_COMMAND} -E env JE_ARROW_MALLOC_CONF=dirty_decay_ms:2000
                        --unset=ARROW_DEFAULT_MEMORY_POOL ${FJORD} version
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "memory pool jemalloc \\(JE_ARROW_MALLOC_CONF=dirty_decay_ms:2000\\)\n")
  message(FATAL_ERROR "fjord version with the user's JE_ARROW_MALLOC_CONF (rc ${rc}):\n${out}")
endif()

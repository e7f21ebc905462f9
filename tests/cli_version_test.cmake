# `fjord version` names Fjord, the Arrow it runs on, and the compiled features.
execute_process(COMMAND ${FJORD} version OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fjord version exited with ${rc}")
endif()
foreach(expected "fjord 0\\.[0-9]+\\.[0-9]+" "arrow 26\\.0\\.1 \\(built against 26\\.0\\.1\\)"
                 "memory pool jemalloc" "features .*parquet.*orc.*s3")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "fjord version output lacks '${expected}':\n${out}")
  endif()
endforeach()

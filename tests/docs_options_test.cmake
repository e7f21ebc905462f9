# docs/options.md must be what `fjord options --markdown` prints (regenerate with `make docs`).
execute_process(COMMAND ${FJORD} options --markdown OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fjord options exited with ${rc}")
endif()
file(READ ${DOC} doc)
if(NOT doc STREQUAL out)
  message(FATAL_ERROR "docs/options.md is stale: run `make docs`")
endif()

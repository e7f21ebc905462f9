# What the CLI tests (cli_*_test.cmake) share; include() it after setting FJORD.

# Runs fjord, which must succeed; sets `out` and `err` in the caller.
function(fjord)
  execute_process(COMMAND ${FJORD} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fjord ${ARGN} exited with ${rc}:\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# Runs fjord, which must fail with `expected` in its error output.
function(fjord_fails expected)
  execute_process(COMMAND ${FJORD} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(FATAL_ERROR "fjord ${ARGN} succeeded, expected a failure:\n${out}")
  endif()
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "fjord ${ARGN}: the error lacks '${expected}':\n${err}")
  endif()
endfunction()

function(expect_in text expected)
  string(FIND "${text}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${expected}' in:\n${text}")
  endif()
endfunction()

function(expect_not_in text unexpected)
  string(FIND "${text}" "${unexpected}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "did not expect '${unexpected}' in:\n${text}")
  endif()
endfunction()

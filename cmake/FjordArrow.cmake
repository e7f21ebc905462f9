# Imported targets for the Arrow C++ libraries shipped in the pinned pyarrow wheel.
# The wheel has headers and versioned shared objects but no CMake package, so we describe each
# library ourselves: Arrow::arrow, Arrow::compute, Arrow::acero, Arrow::dataset, Arrow::s3 and
# Arrow::parquet (the ORC adapter lives inside libarrow).

set(FJORD_ARROW_DIR "${CMAKE_SOURCE_DIR}/.deps/pyarrow/pyarrow"
    CACHE PATH "pyarrow package directory holding include/ and libarrow.so.*")

if(NOT EXISTS "${FJORD_ARROW_DIR}/include/arrow/api.h")
  message(FATAL_ERROR "Arrow C++ not found in ${FJORD_ARROW_DIR}; run scripts/bootstrap.sh")
endif()

file(GLOB _fjord_libarrow "${FJORD_ARROW_DIR}/libarrow.so.[0-9]*")
list(LENGTH _fjord_libarrow _n)
if(NOT _n EQUAL 1)
  message(FATAL_ERROR "expected exactly one libarrow.so.<N> in ${FJORD_ARROW_DIR}: ${_fjord_libarrow}")
endif()
string(REGEX REPLACE ".*libarrow\\.so\\.([0-9]+)$" "\\1" FJORD_ARROW_SO_VERSION "${_fjord_libarrow}")

file(STRINGS "${FJORD_ARROW_DIR}/include/arrow/util/config.h" _v
     REGEX "#define ARROW_VERSION_STRING")
string(REGEX REPLACE ".*\"(.*)\".*" "\\1" FJORD_ARROW_VERSION "${_v}")
message(STATUS "Arrow C++ ${FJORD_ARROW_VERSION} (so ${FJORD_ARROW_SO_VERSION}) from ${FJORD_ARROW_DIR}")

function(_fjord_arrow_lib target file)
  add_library(${target} SHARED IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION "${FJORD_ARROW_DIR}/${file}.so.${FJORD_ARROW_SO_VERSION}"
    IMPORTED_NO_SONAME FALSE)
  target_include_directories(${target} SYSTEM INTERFACE "${FJORD_ARROW_DIR}/include")
  if(ARGN)
    target_link_libraries(${target} INTERFACE ${ARGN})
  endif()
endfunction()

_fjord_arrow_lib(Arrow::arrow libarrow)
_fjord_arrow_lib(Arrow::compute libarrow_compute Arrow::arrow)
_fjord_arrow_lib(Arrow::acero libarrow_acero Arrow::compute)
_fjord_arrow_lib(Arrow::dataset libarrow_dataset Arrow::acero Arrow::parquet)
_fjord_arrow_lib(Arrow::parquet libparquet Arrow::arrow)
_fjord_arrow_lib(Arrow::s3 libarrow_s3 Arrow::arrow)

# Every binary finds the wheel's libraries through RUNPATH; nothing goes on LD_LIBRARY_PATH.
set(CMAKE_BUILD_RPATH "${FJORD_ARROW_DIR}")
set(CMAKE_INSTALL_RPATH "${FJORD_ARROW_DIR}")

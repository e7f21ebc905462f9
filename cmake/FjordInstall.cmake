# `cmake --install`: include/fjord/*.h, libfjord.so and a CMake package (lib/cmake/Fjord) whose
# imported target Fjord::fjord brings the public headers and the Arrow C++ it was built with
# (Arrow::arrow, from the same pinned pyarrow directory the build used; FjordArrowImport.cmake).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/fjord DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(TARGETS fjord_shared EXPORT FjordTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT FjordTargets NAMESPACE Fjord:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Fjord)

configure_file(${CMAKE_SOURCE_DIR}/cmake/FjordArrowImport.cmake.in
               ${CMAKE_BINARY_DIR}/FjordArrowImport.cmake @ONLY)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/FjordConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/FjordConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Fjord)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/FjordConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/FjordConfig.cmake ${CMAKE_BINARY_DIR}/FjordConfigVersion.cmake
              ${CMAKE_BINARY_DIR}/FjordArrowImport.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Fjord)

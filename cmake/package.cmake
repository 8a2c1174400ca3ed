# package.cmake - what `cmake --install` puts in place besides the programs
# (those are installed by pascal_program()):
#   lib/libpascal.a                          the model library (static: it is
#                                            small, dependency-free, and 0.x
#                                            promises no ABI)
#   include/pascal/*.h                       its public headers + version.h
#   lib/pkgconfig/pascal.pc                  for pkg-config users
#   lib/cmake/pascal/                        for find_package(pascal) -> pascal::pascal
#   share/doc/pascal/README.md, docs/*.md    the manuals the systemd units name
#   share/man/man1/*.1                       pascald(1), pascal(1), pascal-agent(1) (man/)
include(CMakePackageConfigHelpers)

install(TARGETS pascal EXPORT pascalTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/pascal
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PASCAL_GENERATED_INCLUDE}/pascal/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pascal)

configure_file(${PROJECT_SOURCE_DIR}/cmake/pascal.pc.in
               ${PROJECT_BINARY_DIR}/generated/pascal.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/generated/pascal.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(PASCAL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pascal)
install(EXPORT pascalTargets NAMESPACE pascal:: DESTINATION ${PASCAL_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pascalConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/generated/pascalConfig.cmake
                              INSTALL_DESTINATION ${PASCAL_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/generated/pascalConfigVersion.cmake
                                 VERSION ${PASCAL_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/generated/pascalConfig.cmake
              ${PROJECT_BINARY_DIR}/generated/pascalConfigVersion.cmake
        DESTINATION ${PASCAL_CMAKE_DIR})

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        FILES_MATCHING PATTERN "*.1")

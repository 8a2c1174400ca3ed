# version.cmake - the one place where PASCAL's version is defined.
#   PASCAL_VERSION         the release number, project(VERSION) in CMakeLists.txt
#   PASCAL_VERSION_STRING  that number plus the source revision from
#                          `git describe --always --dirty` when the tree is a git
#                          checkout, e.g. "0.1.0+g8d186e8" (read at configure time)
# Both reach C through the generated header pascal/version.h (installed with
# the public headers) and pascal_version() in libpascal.
set(PASCAL_VERSION ${PROJECT_VERSION})
set(PASCAL_VERSION_STRING ${PROJECT_VERSION})
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=8
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE PASCAL_GIT_DESCRIBE OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE PASCAL_GIT_RESULT ERROR_QUIET)
  if(PASCAL_GIT_RESULT EQUAL 0 AND PASCAL_GIT_DESCRIBE)
    string(REPLACE "-" "." PASCAL_GIT_DESCRIBE "${PASCAL_GIT_DESCRIBE}")
    set(PASCAL_VERSION_STRING "${PROJECT_VERSION}+g${PASCAL_GIT_DESCRIBE}")
  endif()
endif()
set(PASCAL_GENERATED_INCLUDE ${PROJECT_BINARY_DIR}/generated/include)
configure_file(${PROJECT_SOURCE_DIR}/cmake/version.h.in
               ${PASCAL_GENERATED_INCLUDE}/pascal/version.h @ONLY)

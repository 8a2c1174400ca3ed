/*
 * version.c - the version libpascal was built with (pascal/version.h,
 * generated from the CMake project version by cmake/version.cmake).
 */
#include "pascal/version.h"

const char *pascal_version(void)
{
  return PASCAL_VERSION_STRING;
}

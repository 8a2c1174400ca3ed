/* error.c - the status names and the error record of pascal/error.h. */
#include "pascal/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *pascal_status_name(pascal_status status)
{
  switch (status) {
  case PASCAL_OK: return "ok";
  case PASCAL_EINVAL: return "invalid";
  case PASCAL_ERANGE: return "range";
  case PASCAL_ENOMEM: return "nomem";
  case PASCAL_ENOTFOUND: return "not_found";
  case PASCAL_EREFUSED: return "refused";
  case PASCAL_EFORMAT: return "format";
  case PASCAL_EMISSING: return "missing";
  }
  return "unknown";
}

pascal_status pascal_error_set(pascal_error *err, pascal_status status, const char *field,
                               const char *fmt, ...)
{
  if (!err)
    return status;
  err->status = status;
  snprintf(err->field, sizeof err->field, "%s", field ? field : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return status;
}

void pascal_error_clear(pascal_error *err)
{
  if (!err)
    return;
  memset(err, 0, sizeof *err);
  err->status = PASCAL_OK;
}

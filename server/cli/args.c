/*
 * args.c - option parsing and validation for every `pascal` subcommand
 * (args.h). Numbers are parsed strictly: integers are decimal digits only and
 * must fit their range; doubles are decimal, finite and fully consumed. Every
 * failure names the option and returns PASCAL_EINVAL.
 */
#include "args.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_LIST_MAX 10000000u /* entries in one list option */

static pascal_status parse_u64(const char *text, const char *opt, uint64_t lo, uint64_t hi,
                               uint64_t *out, pascal_error *err)
{
  if (!*text)
    return pascal_error_set(err, PASCAL_EINVAL, opt, "%s: empty value, expected an integer", opt);
  for (const char *p = text; *p; p++)
    if (*p < '0' || *p > '9')
      return pascal_error_set(err, PASCAL_EINVAL, opt, "%s: '%.40s' is not a non-negative integer",
                              opt, text);
  errno = 0;
  unsigned long long v = strtoull(text, NULL, 10);
  if (errno == ERANGE || v > hi || v < lo)
    return pascal_error_set(err, PASCAL_EINVAL, opt,
                            "%s: %.40s is out of range (%" PRIu64 "..%" PRIu64 ")", opt, text, lo,
                            hi);
  *out = v;
  return PASCAL_OK;
}

static pascal_status parse_double(const char *text, const char *opt, double *out, pascal_error *err)
{
  /* Decimal notation only: strtod would also take "nan", "inf" and hex. */
  int digits = 0, other = 0;
  for (const char *p = text; *p; p++) {
    if (*p >= '0' && *p <= '9')
      digits = 1;
    else if (!strchr("+-.eE", *p))
      other = 1;
  }
  if (!digits || other)
    return pascal_error_set(err, PASCAL_EINVAL, opt, "%s: '%.40s' is not a number", opt, text);
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (*end || end == text)
    return pascal_error_set(err, PASCAL_EINVAL, opt, "%s: '%.40s' is not a number", opt, text);
  if (errno == ERANGE || !isfinite(v))
    return pascal_error_set(err, PASCAL_EINVAL, opt, "%s: %.40s is out of range", opt, text);
  *out = v;
  return PASCAL_OK;
}

static pascal_status parse_list(const char *text, const char *opt, uint64_t lo, uint64_t hi,
                                cli_u64_list *out, pascal_error *err)
{
  size_t n = 1;
  for (const char *p = text; *p; p++)
    n += *p == ',';
  if (n > CLI_LIST_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, opt, "%s: more than %u values", opt, CLI_LIST_MAX);
  uint64_t *v = malloc(n * sizeof *v);
  char *copy = strdup(text);
  pascal_status st = PASCAL_OK;
  if (!v || !copy) {
    st = pascal_error_set(err, PASCAL_ENOMEM, opt, "%s: out of memory", opt);
    goto fail;
  }
  char *item = copy;
  for (size_t i = 0; i < n; i++) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    char name[PASCAL_ERROR_FIELD_MAX + 24];
    snprintf(name, sizeof name, "%s[%zu]", opt, i);
    if ((st = parse_u64(item, name, lo, hi, &v[i], err)))
      goto fail;
    item = comma ? comma + 1 : item;
  }
  free(copy);
  free(out->v);
  out->v = v;
  out->n = n;
  return PASCAL_OK;
fail:
  free(copy);
  free(v);
  return st;
}

static pascal_status store_value(cli_arg *a, const char *opt, const char *value, pascal_error *err)
{
  uint64_t u;
  pascal_status st;
  switch (a->kind) {
  case CLI_ARG_U64:
    if ((st = parse_u64(value, opt, a->lo, a->hi, &u, err)))
      return st;
    *(uint64_t *)a->dest = u;
    return PASCAL_OK;
  case CLI_ARG_U32:
    if ((st = parse_u64(value, opt, a->lo, a->hi > UINT32_MAX ? UINT32_MAX : a->hi, &u, err)))
      return st;
    *(uint32_t *)a->dest = (uint32_t)u;
    return PASCAL_OK;
  case CLI_ARG_DOUBLE: return parse_double(value, opt, (double *)a->dest, err);
  case CLI_ARG_STRING: *(const char **)a->dest = value; return PASCAL_OK;
  case CLI_ARG_U64_LIST: return parse_list(value, opt, a->lo, a->hi, (cli_u64_list *)a->dest, err);
  case CLI_ARG_FLAG: break;
  }
  *(int *)a->dest = 1;
  return PASCAL_OK;
}

/* The table entry `token` names ("--N", "--N=8", "-o"), or NULL. *inline_value
 * points after '=' when the value is attached. */
static cli_arg *find_arg(cli_arg *args, size_t n_args, const char *token, const char **inline_value)
{
  *inline_value = NULL;
  if (token[1] != '-') {
    for (size_t i = 0; i < n_args; i++)
      if (args[i].shorthand && token[1] == args[i].shorthand && !token[2])
        return &args[i];
    return NULL;
  }
  const char *name = token + 2;
  size_t len = strcspn(name, "=");
  for (size_t i = 0; i < n_args; i++) {
    if (strlen(args[i].name) == len && strncmp(args[i].name, name, len) == 0) {
      if (name[len] == '=')
        *inline_value = name + len + 1;
      return &args[i];
    }
  }
  return NULL;
}

pascal_status cli_args_parse(int argc, char **argv, cli_arg *args, size_t n_args,
                             const char **positional, size_t min_positional, size_t max_positional,
                             size_t *n_positional, pascal_error *err)
{
  size_t n_pos = 0;
  for (int i = 0; i < argc; i++) {
    const char *tok = argv[i];
    if (tok[0] != '-' || !tok[1]) {
      if (n_pos >= max_positional)
        return pascal_error_set(err, PASCAL_EINVAL, tok, "unexpected argument '%.60s'", tok);
      positional[n_pos++] = tok;
      continue;
    }
    const char *value = NULL;
    cli_arg *a = find_arg(args, n_args, tok, &value);
    char opt[PASCAL_ERROR_FIELD_MAX];
    if (!a)
      return pascal_error_set(err, PASCAL_EINVAL, tok, "unknown option '%.60s'", tok);
    snprintf(opt, sizeof opt, "--%s", a->name);
    if (a->seen)
      return pascal_error_set(err, PASCAL_EINVAL, opt, "%s given twice", opt);
    a->seen = 1;
    if (a->kind == CLI_ARG_FLAG) {
      if (value)
        return pascal_error_set(err, PASCAL_EINVAL, opt, "%s takes no value", opt);
    } else if (!value) {
      if (i + 1 >= argc)
        return pascal_error_set(err, PASCAL_EINVAL, opt, "%s needs a value", opt);
      value = argv[++i];
    }
    pascal_status st = store_value(a, opt, value, err);
    if (st)
      return st;
  }
  for (size_t i = 0; i < n_args; i++) {
    if (args[i].required && !args[i].seen) {
      char opt[PASCAL_ERROR_FIELD_MAX];
      snprintf(opt, sizeof opt, "--%s", args[i].name);
      return pascal_error_set(err, PASCAL_EINVAL, opt, "missing required option");
    }
  }
  if (n_pos < min_positional)
    return pascal_error_set(err, PASCAL_EINVAL, "arguments", "expected %zu argument(s), got %zu",
                            min_positional, n_pos);
  *n_positional = n_pos;
  return PASCAL_OK;
}

void cli_args_release(cli_arg *args, size_t n_args)
{
  for (size_t i = 0; i < n_args; i++) {
    if (args[i].kind == CLI_ARG_U64_LIST && args[i].dest) {
      cli_u64_list *l = args[i].dest;
      free(l->v);
      l->v = NULL;
      l->n = 0;
    }
  }
}

int cli_args_seen(const cli_arg *args, size_t n_args, const char *name)
{
  for (size_t i = 0; i < n_args; i++)
    if (strcmp(args[i].name, name) == 0)
      return args[i].seen;
  return 0;
}

int cli_args_wants_help(int argc, char **argv)
{
  for (int i = 0; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
      return 1;
  return 0;
}

/* The value's placeholder when the table gives none. */
static const char *default_meta(const cli_arg *a)
{
  switch (a->kind) {
  case CLI_ARG_U64:
  case CLI_ARG_U32: return "N";
  case CLI_ARG_DOUBLE: return "X";
  case CLI_ARG_STRING: return "TEXT";
  case CLI_ARG_U64_LIST: return "N,N,...";
  case CLI_ARG_FLAG: break;
  }
  return "";
}

void cli_args_help(FILE *out, const cli_arg *args, size_t n_args)
{
  for (size_t i = 0; i < n_args; i++) {
    const cli_arg *a = &args[i];
    const char *meta = a->meta ? a->meta : default_meta(a);
    char head[96];
    int w = a->shorthand ? snprintf(head, sizeof head, "-%c, --%s%s%s", a->shorthand, a->name,
                                    *meta ? " " : "", meta)
                         : snprintf(head, sizeof head, "--%s%s%s", a->name, *meta ? " " : "", meta);
    fprintf(out, "  %-*s  %s", w > 22 ? w : 22, head, a->help ? a->help : "");
    uint64_t top = a->kind == CLI_ARG_U32 ? UINT32_MAX : UINT64_MAX;
    int ranged = a->kind == CLI_ARG_U32 || a->kind == CLI_ARG_U64 || a->kind == CLI_ARG_U64_LIST;
    if (ranged && a->hi && a->hi < top)
      fprintf(out, " [%" PRIu64 "..%" PRIu64 "]", a->lo, a->hi);
    else if (ranged && a->lo > 0)
      fprintf(out, " (>= %" PRIu64 ")", a->lo);
    fprintf(out, "%s\n", a->required ? " (required)" : "");
  }
}

/*
 * output.c - result printing and error reporting for the `pascal` CLI
 * (output.h).
 */
#include "output.h"

#include <stdlib.h>
#include <string.h>

#include "pascal_codec.h"

static void render_scalar(FILE *out, const json_t *v)
{
  switch (json_typeof(v)) {
  case JSON_STRING: fputs(json_string_value(v), out); break;
  case JSON_INTEGER: fprintf(out, "%lld", (long long)json_integer_value(v)); break;
  case JSON_REAL: fprintf(out, "%.10g", json_real_value(v)); break;
  case JSON_TRUE: fputs("true", out); break;
  case JSON_FALSE: fputs("false", out); break;
  default: fputs("-", out); break; /* null: not applicable */
  }
}

static int is_scalar_array(const json_t *v)
{
  size_t i;
  json_t *x;
  json_array_foreach(v, i, x) if (json_is_object(x) || json_is_array(x)) return 0;
  return 1;
}

static void render_value(FILE *out, const json_t *v, int indent);
/* Readable rendering of a JSON document: "key: value" lines, nested objects
 * indented, scalar arrays on one line, reals with 10 significant digits. */
static void render(FILE *out, const json_t *doc, int indent);

static void render_array(FILE *out, const json_t *v, int indent)
{
  size_t i;
  json_t *x;
  if (is_scalar_array(v)) {
    fputc(' ', out);
    json_array_foreach(v, i, x)
    {
      if (i)
        fputs(", ", out);
      render_scalar(out, x);
    }
    fputc('\n', out);
    return;
  }
  fputc('\n', out);
  json_array_foreach(v, i, x)
  {
    fprintf(out, "%*s- [%zu]", indent, "", i);
    render_value(out, x, indent + 4);
  }
}

static void render_value(FILE *out, const json_t *v, int indent)
{
  if (json_is_object(v)) {
    fputc('\n', out);
    render(out, v, indent);
  } else if (json_is_array(v)) {
    render_array(out, v, indent);
  } else {
    fputc(' ', out);
    render_scalar(out, v);
    fputc('\n', out);
  }
}

static void render(FILE *out, const json_t *doc, int indent)
{
  const char *key;
  json_t *v;
  if (!json_is_object(doc)) {
    render_value(out, doc, indent);
    return;
  }
  json_object_foreach((json_t *)doc, key, v)
  {
    fprintf(out, "%*s%s:", indent, "", key);
    render_value(out, v, indent + 2);
  }
}

int cli_print(json_t *doc, int json)
{
  int rc = CLI_EXIT_OK;
  if (json) {
    char *text = pascal_codec_dump(doc, 1);
    if (!text || printf("%s\n", text) < 0)
      rc = CLI_EXIT_FAILURE;
    free(text);
  } else {
    render(stdout, doc, 0);
  }
  json_decref(doc);
  if (fflush(stdout) != 0)
    rc = CLI_EXIT_FAILURE;
  return rc;
}

/* "lambda_hit[2]" -> "--lambda-hit[2]" when "lambda-hit" is an option. */
static void option_name(char *buf, size_t size, const char *field, const cli_arg *args,
                        size_t n_args)
{
  char base[PASCAL_ERROR_FIELD_MAX];
  size_t len = strcspn(field, "[.");
  if (len >= sizeof base)
    len = sizeof base - 1;
  memcpy(base, field, len);
  base[len] = '\0';
  for (char *c = base; *c; c++)
    if (*c == '_')
      *c = '-';
  for (size_t i = 0; i < n_args; i++)
    if (strcmp(args[i].name, base) == 0) {
      snprintf(buf, size, "--%s%s", base, field + len);
      return;
    }
  snprintf(buf, size, "%s", field);
}

int cli_arg_error(const char *cmd, const cli_arg *args, size_t n_args, const pascal_error *err)
{
  if (err->status != PASCAL_EINVAL && err->status != PASCAL_ERANGE)
    return cli_input_error(cmd, "error", err);
  char opt[PASCAL_ERROR_FIELD_MAX + 8];
  if (strncmp(err->field, "--", 2) == 0 || err->field[0] == '-' || !err->field[0])
    snprintf(opt, sizeof opt, "%s", err->field[0] ? err->field : "arguments");
  else
    option_name(opt, sizeof opt, err->field, args, n_args);
  /* The parser's messages already start with the option; don't repeat it. */
  if (strncmp(err->message, opt, strlen(opt)) == 0)
    fprintf(stderr, "pascal %s: %s\n", cmd, err->message);
  else
    fprintf(stderr, "pascal %s: %s: %s\n", cmd, opt, err->message);
  return CLI_EXIT_USAGE;
}

int cli_input_error(const char *cmd, const char *what, const pascal_error *err)
{
  if (err->field[0])
    fprintf(stderr, "pascal %s: %s: %s: %s\n", cmd, what, err->field, err->message);
  else
    fprintf(stderr, "pascal %s: %s: %s\n", cmd, what, err->message);
  return err->status == PASCAL_EREFUSED ? CLI_EXIT_REFUSED : CLI_EXIT_FAILURE;
}

int cli_parse(const char *cmd, int argc, char **argv, cli_arg *args, size_t n_args,
              const char **positional, size_t min_positional, size_t max_positional,
              size_t *n_positional)
{
  if (cli_args_wants_help(argc, argv)) {
    printf("options:\n");
    cli_args_help(stdout, args, n_args);
    return CLI_HELP_SHOWN;
  }
  pascal_error err;
  pascal_error_clear(&err);
  size_t dummy;
  if (cli_args_parse(argc, argv, args, n_args, positional, min_positional, max_positional,
                     n_positional ? n_positional : &dummy, &err))
    return cli_arg_error(cmd, args, n_args, &err);
  return CLI_EXIT_OK;
}

int cli_finish(const char *cmd, const cli_arg *args, size_t n_args, pascal_status st, json_t *doc,
               int json, const pascal_error *err)
{
  if (st)
    return cli_arg_error(cmd, args, n_args, err);
  return cli_print(doc, json);
}

int cli_emit(const char *cmd, json_t *doc, const char *path)
{
  if (!path)
    return cli_print(doc, 1);
  pascal_error err = {0};
  pascal_status st = pascal_codec_write_file(doc, path, &err);
  json_decref(doc);
  return st ? cli_input_error(cmd, path, &err) : CLI_EXIT_OK;
}

/*
 * methods.c - the table of evaluation methods (pascal/evaluate.h,
 * PASCAL_METHODS): each method's name, report key, table title, plot label
 * and column of the paper's comparison table (section 5.4), and the lookup
 * of a column's method.
 */
#include "pascal/evaluate.h"

#include <stddef.h>

static const pascal_method_info methods[] = {
#define PC_METHOD_ROW(id, name, key, title, label, column, k)                                      \
  [PASCAL_METHOD_##id] = {name, key, title, label, column},
    PASCAL_METHODS(PC_METHOD_ROW)
#undef PC_METHOD_ROW
};
_Static_assert(sizeof methods / sizeof *methods == PASCAL_METHOD_COUNT,
               "every pascal_method has its row");

/* method_at[c]: the method of column c (each column is one row's). */
static const pascal_method method_at[] = {
#define PC_METHOD_COLUMN(id, name, key, title, label, column, k) [column] = PASCAL_METHOD_##id,
    PASCAL_METHODS(PC_METHOD_COLUMN)
#undef PC_METHOD_COLUMN
};
_Static_assert(sizeof method_at / sizeof *method_at == PASCAL_METHOD_COUNT,
               "the columns are 0 .. PASCAL_METHOD_COUNT - 1");

const pascal_method_info *pascal_method_info_of(pascal_method method)
{
  return (unsigned)method < PASCAL_METHOD_COUNT ? &methods[method] : NULL;
}

pascal_method pascal_method_at_column(unsigned column)
{
  return column < PASCAL_METHOD_COUNT ? method_at[column] : PASCAL_METHOD_COUNT;
}

const char *pascal_method_name(pascal_method method)
{
  const pascal_method_info *m = pascal_method_info_of(method);
  return m ? m->name : "unknown";
}

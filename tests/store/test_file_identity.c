/*
 * test_file_identity.c - pascal_store_file_check and the write transactions
 * (issue 37, finding 1): once the path no longer names the file the store
 * holds open (unlinked, or another file renamed over it), every write is
 * refused with IO naming the reason, nothing is written anywhere, and reads
 * go on from the open file. Verified to fail before the check: the second
 * device registration returned OK into the unlinked file.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"

static pascal_store_status add_device(fixture *f, const char *name, pascal_error *err)
{
  pascal_store_device d = fixture_device();
  snprintf(d.name, sizeof d.name, "%s", name);
  int created = 0;
  return pascal_store_device_create(f->s, &d, 1, &created, err);
}

static void remove_files(const fixture *f)
{
  char p[320];
  unlink(f->path);
  snprintf(p, sizeof p, "%s-wal", f->path);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", f->path);
  unlink(p);
}

static void test_unlinked(void)
{
  fixture f;
  fixture_open(&f);
  pascal_error err;
  CHECK_INT(pascal_store_file_check(f.s, &err), PASCAL_STORE_OK);
  CHECK_INT(add_device(&f, "before", &err), PASCAL_STORE_OK);
  remove_files(&f);
  CHECK_INT(pascal_store_file_check(f.s, &err), PASCAL_STORE_IO);
  CHECK(strstr(err.message, "is gone") != NULL);
  CHECK_INT(add_device(&f, "after", &err), PASCAL_STORE_IO);
  CHECK(strcmp(err.field, "db") == 0);
  pascal_store_device d;
  CHECK_INT(pascal_store_device_get(f.s, "before", &d, &err), PASCAL_STORE_OK);
  CHECK(access(f.path, F_OK) != 0); /* the refused write created nothing */
  fixture_done(&f);
}

static void test_replaced(void)
{
  fixture f;
  fixture_open(&f);
  pascal_error err;
  char other[320];
  snprintf(other, sizeof other, "%s.restored", f.path);
  pascal_store *o = NULL;
  CHECK_INT(pascal_store_open(other, &o, &err), PASCAL_STORE_OK);
  pascal_store_close(o);
  CHECK_INT(rename(other, f.path), 0);
  CHECK_INT(add_device(&f, "after", &err), PASCAL_STORE_IO);
  CHECK(strstr(err.message, "was replaced") != NULL);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM devices"), 0); /* the new file */
  fixture_done(&f);
}

int main(void)
{
  test_unlinked();
  test_replaced();
  return check_summary();
}

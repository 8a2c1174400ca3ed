/*
 * test_token_table.c - pascald's table of the tokens that authenticated a
 * read (server/pascald/tokens.c) over a real store: a token is found only
 * after it was learnt, entries stay sorted whatever the order they are
 * learnt in (every one found, no other), a revalidation keeps exactly the
 * entries the store still lists as active with their current name, drops
 * revoked ones, and keeps learnt tokens learnt again; with the revalidation
 * thread running, a revocation drops the entry within the interval.
 * Verified to fail: with the revoked check removed from pd_tokens_revalidate
 * the revoked token stays found; with lower_bound's `<` turned into `<=`
 * lookups of learnt tokens fail.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "fixture.h"
#include "tokens.h"

static void hash_of(unsigned i, char out[PASCAL_STORE_HASH_MAX])
{
  snprintf(out, PASCAL_STORE_HASH_MAX, "%064x", 0x9e3779b9u * (i + 1)); /* unsorted order */
}

static pascal_store_token make(fixture *f, unsigned i)
{
  pascal_store_token t;
  char name[32];
  snprintf(name, sizeof name, "t%u", i);
  hash_of(i, t.hash);
  CHECK_INT(pascal_store_token_create(f->s, name,
                                      i % 2 ? PASCAL_STORE_ROLE_ADMIN : PASCAL_STORE_ROLE_AGENT,
                                      t.hash, 100, &t.id, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(pascal_store_token_find(f->s, t.hash, &t, NULL), PASCAL_STORE_OK);
  return t;
}

int main(void)
{
  fixture f;
  fixture_open(&f);
  pd_tokens *tab = NULL;
  CHECK_INT(pd_tokens_new(f.s, &tab), 0);
  enum { N = 40 };
  pascal_store_token tok[N], got;
  for (unsigned i = 0; i < N; i++)
    tok[i] = make(&f, i);
  CHECK(!pd_tokens_find(tab, tok[0].hash, &got)); /* not learnt yet */
  for (unsigned i = 0; i < N; i += 2)
    pd_tokens_learn(tab, &tok[i]);
  pd_tokens_learn(tab, &tok[4]); /* twice: one entry */
  for (unsigned i = 0; i < N; i++) {
    int found = pd_tokens_find(tab, tok[i].hash, &got);
    CHECK_INT(found, i % 2 == 0);
    if (found)
      CHECK(got.id == tok[i].id && strcmp(got.name, tok[i].name) == 0 && got.role == tok[i].role);
  }
  char other[PASCAL_STORE_HASH_MAX];
  hash_of(N + 7, other);
  CHECK(!pd_tokens_find(tab, other, &got));

  /* revalidation: revoked ones go, the rest stay */
  CHECK_INT(pascal_store_token_revoke(f.s, tok[2].id, 200, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_token_revoke(f.s, tok[3].id, 200, NULL), PASCAL_STORE_OK); /* not learnt */
  CHECK_INT(pd_tokens_revalidate(tab), 0);
  for (unsigned i = 0; i < N; i++)
    CHECK_INT(pd_tokens_find(tab, tok[i].hash, &got), i % 2 == 0 && i != 2);
  pd_tokens_learn(tab, &tok[5]);
  CHECK_INT(pd_tokens_revalidate(tab), 0);
  CHECK(pd_tokens_find(tab, tok[5].hash, &got) && got.role == PASCAL_STORE_ROLE_ADMIN);

  /* the thread: a revocation is seen within its interval */
  CHECK_INT(pd_tokens_start(tab, 50), 0);
  CHECK_INT(pascal_store_token_revoke(f.s, tok[6].id, 300, NULL), PASCAL_STORE_OK);
  int gone = 0;
  for (int ms = 0; ms < 5000 && !gone; ms += 10) {
    nanosleep(&(struct timespec){0, 10000000L}, NULL);
    gone = !pd_tokens_find(tab, tok[6].hash, &got);
  }
  CHECK(gone);
  CHECK(pd_tokens_find(tab, tok[8].hash, &got)); /* the others stay */
  pd_tokens_free(tab);
  fixture_done(&f);
  return check_summary();
}

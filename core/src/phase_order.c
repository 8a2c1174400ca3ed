/* phase_order.c - workers grouped by phase and the predecessor/successor of
 * each request in the cyclic trace (see phase_order.h; paper §3.1, §3.4). */
#include "phase_order.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sort_u64.h"

void pc_phase_order_free(pascal_phase_order *po)
{
  free(po->mem);
  memset(po, 0, sizeof *po);
}

pascal_status pc_phase_order_init(pascal_phase_order *po, uint64_t n, const uint64_t *phases,
                                  size_t m, pascal_error *err)
{
  memset(po, 0, sizeof *po);
  po->n = n;
  po->m = m;
  /* one block: the uint64_t arrays (the sort's keys and their scratch, 2m;
   * group_phase, m), then the size_t ones (the sort's value scratch, m;
   * by_phase, rank, group_of, m each; group_start, m + 1) */
  size_t per = 3 * sizeof(uint64_t) + 5 * sizeof(size_t);
  if (m > (SIZE_MAX - sizeof(size_t)) / per)
    goto fail;
  po->mem = malloc(m * per + sizeof(size_t));
  if (!po->mem)
    goto fail;
  uint64_t *keys = po->mem;
  po->group_phase = keys + 2 * m;
  size_t *val_scratch = (size_t *)(po->group_phase + m);
  po->by_phase = val_scratch + m;
  po->rank = po->by_phase + m;
  po->group_of = po->rank + m;
  po->group_start = po->group_of + m;
  memcpy(keys, phases, m * sizeof *keys);
  for (size_t w = 0; w < m; w++)
    po->by_phase[w] = w;
  /* stable: equal phases keep ascending worker index */
  pc_sort_u64_pairs(keys, po->by_phase, m, keys + m, val_scratch);
  size_t d = 0;
  for (size_t i = 0; i < m; i++) {
    /* groups ascend by phase in [0, n), members by worker index */
    assert(keys[i] < n &&
           (i == 0 || keys[i - 1] < keys[i] || po->by_phase[i - 1] < po->by_phase[i]));
    if (i == 0 || keys[i] != keys[i - 1]) {
      po->group_start[d] = i;
      po->group_phase[d] = keys[i];
      d++;
    }
    po->rank[po->by_phase[i]] = i;
    po->group_of[po->by_phase[i]] = d - 1;
  }
  po->group_start[d] = m;
  po->d = d;
  return PASCAL_OK;
fail:
  pc_phase_order_free(po);
  return pascal_error_set(err, PASCAL_ENOMEM, "M", "cannot allocate the phase order of %zu workers",
                          m);
}

/* Rounds from group `from`'s phase forward to group `to`'s phase, in (0, N]. */
static uint64_t group_lag(const pascal_phase_order *po, size_t from, size_t to)
{
  if (po->d == 1)
    return po->n;
  uint64_t a = po->group_phase[from], b = po->group_phase[to];
  return b > a ? b - a : b + po->n - a;
}

pascal_phase_link pc_phase_order_prev(const pascal_phase_order *po, size_t w)
{
  size_t g = po->group_of[w], r = po->rank[w];
  pascal_phase_link link;
  if (r > po->group_start[g]) { /* an earlier member requested it this round */
    link.worker = po->by_phase[r - 1];
    link.lag = 0;
  } else { /* the next phase passed this block lag rounds ago; its last member */
    size_t ng = (g + 1) % po->d;
    link.worker = po->by_phase[po->group_start[ng + 1] - 1];
    link.lag = group_lag(po, g, ng);
  }
  return link;
}

pascal_phase_link pc_phase_order_next(const pascal_phase_order *po, size_t w)
{
  size_t g = po->group_of[w], r = po->rank[w];
  pascal_phase_link link;
  if (r + 1 < po->group_start[g + 1]) { /* a later member, same round */
    link.worker = po->by_phase[r + 1];
    link.lag = 0;
  } else { /* the previous phase reaches this block lag rounds later */
    size_t pg = (g + po->d - 1) % po->d;
    link.worker = po->by_phase[po->group_start[pg]];
    link.lag = group_lag(po, pg, g);
  }
  return link;
}

/*
 * phase_order.h - internal: workers grouped by phase, for the per-worker
 * quantities of paper §3.3-3.4 (reuse distance, reuse time tau_w) and the
 * Belady simulator's next-use times. Workers are sorted by (phase, index);
 * a group is one distinct phase, its members in ascending worker index.
 *
 * In the trace of Eq. trace the request preceding worker w's request to the
 * same block is by the previous member of w's group (same round, lag 0) or,
 * for the group's first member, by the last member of the next group,
 * lag rounds earlier (lag = the gap to the next distinct phase, N when D = 1).
 * The request following it is symmetric (next member, or the first member of
 * the previous group).
 */
#ifndef PASCAL_PHASE_ORDER_H
#define PASCAL_PHASE_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

typedef struct pascal_phase_order {
  uint64_t n;
  size_t m;
  size_t d;
  size_t *by_phase;      /* m worker indices sorted by (phase, index)          */
  size_t *rank;          /* worker -> its position in by_phase                 */
  size_t *group_of;      /* worker -> its group                                */
  size_t *group_start;   /* d + 1 entries: group g is by_phase[start[g]..start[g+1]) */
  uint64_t *group_phase; /* d entries, ascending                             */
  void *mem;             /* the one allocation holding the arrays above      */
} pascal_phase_order;

/* The immediately preceding (or following) request to the same block:
 * by worker `worker`, `lag` rounds earlier (later), lag 0 meaning the same
 * round. */
typedef struct pascal_phase_link {
  size_t worker;
  uint64_t lag;
} pascal_phase_link;

/* Build the order (inputs already validated). Allocates O(m) once;
 * PASCAL_ENOMEM on failure. Release with pc_phase_order_free. */
pascal_status pc_phase_order_init(pascal_phase_order *po, uint64_t n, const uint64_t *phases,
                                  size_t m, pascal_error *err);
void pc_phase_order_free(pascal_phase_order *po);

/* Predecessor and successor of worker w's request (see above). */
pascal_phase_link pc_phase_order_prev(const pascal_phase_order *po, size_t w);
pascal_phase_link pc_phase_order_next(const pascal_phase_order *po, size_t w);

#endif

/*
 * backoff.h - the retry schedule of pascal-agent: capped exponential backoff
 * with "equal jitter", and the small PRNG that draws the jitter. Pure
 * functions, unit-tested in tests/agent/test_agent_backoff.c.
 */
#ifndef PASCAL_AGENT_BACKOFF_H
#define PASCAL_AGENT_BACKOFF_H

#include <stdint.h>

/* Delay before retry number `attempt` (0 = first retry), in seconds:
 *   raw = min(cap, base * 2^attempt),  delay = raw * (1 + u) / 2,
 * with u in [0, 1] the jitter draw (values outside are clamped). So the delay
 * lies in [raw/2, raw]: never above the cap, never zero, and agents that lost
 * the server at the same moment spread their retries over half the window. */
double agent_backoff_delay(unsigned attempt, double base_s, double cap_s, double u);

/* xorshift64* step: advances `state` (must be non-zero) and returns a
 * uniform draw in [0, 1). */
double agent_rng_uniform(uint64_t *state);

#endif

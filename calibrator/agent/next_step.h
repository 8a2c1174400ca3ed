/*
 * next_step.h - what the agent says once every run of its device is
 * measured: that the calibration is ready, and the exact call that freezes
 * it (an admin's POST /v1/calibrations/ID/freeze, as a curl command line to
 * copy), one per collecting calibration whose jobs are all done. Pure: the
 * caller passes the answer of GET /v1/calibrations?device=NAME (NULL when
 * it could not be read); unit-tested in tests/agent/test_agent_next_step.c.
 */
#ifndef PASCAL_AGENT_NEXT_STEP_H
#define PASCAL_AGENT_NEXT_STEP_H

#include <jansson.h>
#include <stddef.h>

/* The lines (each ending in '\n') into buf. `done` jobs of the device are
 * all done; `server` is the base URL the agent uses. Returns the number of
 * calibrations named (0: the lines say how to find their ids). */
size_t agent_next_step_text(const json_t *calibrations, const char *server, const char *device,
                            long done, char *buf, size_t buflen);

#endif

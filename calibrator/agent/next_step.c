/* next_step.c - the lines that name the freeze call (next_step.h). */
#include "next_step.h"

#include <stdio.h>
#include <string.h>

/* A collecting calibration whose jobs are all done: its id, else 0. */
static long long ready_id(const json_t *c)
{
  const json_t *prog = json_object_get(c, "progress");
  const char *state = json_string_value(json_object_get(c, "state"));
  json_int_t id = json_integer_value(json_object_get(c, "id"));
  json_int_t d = json_integer_value(json_object_get(prog, "done"));
  json_int_t t = json_integer_value(json_object_get(prog, "total"));
  if (!state || strcmp(state, "collecting") != 0 || id <= 0 || t <= 0 || d != t)
    return 0;
  return (long long)id;
}

size_t agent_next_step_text(const json_t *calibrations, const char *server, const char *device,
                            long done, char *buf, size_t buflen)
{
  const json_t *list = json_object_get(calibrations, "calibrations");
  size_t named = 0, len = 0;
  buf[0] = '\0';
#define ADD(...)                                                                                   \
  do {                                                                                             \
    int w_ = snprintf(buf + len, len < buflen ? buflen - len : 0, __VA_ARGS__);                    \
    if (w_ > 0)                                                                                    \
      len = len + (size_t)w_ < buflen ? len + (size_t)w_ : buflen;                                 \
  } while (0)
  ADD("all %ld runs of device '%s' are measured: the calibration is ready to freeze.\n", done,
      device);
  for (size_t i = 0; i < json_array_size(list); i++) {
    long long id = ready_id(json_array_get(list, i));
    if (!id)
      continue;
    ADD("%s freeze calibration %lld (an admin token; the answer holds its validation):\n",
        named ? "and" : "next step:", id);
    ADD("  curl -X POST -H \"Authorization: Bearer $ADMIN_TOKEN\" %s/v1/calibrations/%lld/freeze\n",
        server, id);
    named++;
  }
  if (!named) {
    ADD("next step: freeze each of its collecting calibrations (an admin token):\n");
    ADD("  curl -X POST -H \"Authorization: Bearer $ADMIN_TOKEN\" %s/v1/calibrations/ID/freeze\n",
        server);
    ADD("  (the ids: curl '%s/v1/calibrations?device=%s')\n", server, device);
  }
#undef ADD
  return named;
}

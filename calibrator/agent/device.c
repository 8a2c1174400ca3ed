/* device.c - register or check the device at pascald (device.h). */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "pascal_codec.h"

json_t *agent_device_body(const pascal_backend_device *dev, const char *name)
{
  json_t *body =
      json_pack("{s:s, s:s, s:I, s:I, s:I}", "name", name, "arch", dev->arch, "sm_count",
                (json_int_t)dev->sm_count, "capacity_blocks", (json_int_t)dev->capacity_blocks,
                "block_bytes", (json_int_t)dev->block_bytes);
  /* the CUDA identity, where the backend knows it */
  char cc[16];
  snprintf(cc, sizeof cc, "%u.%u", dev->cc_major, dev->cc_minor);
  if (body && dev->cuda_name[0])
    json_object_set_new(body, "cuda_name", json_string(dev->cuda_name));
  if (body && dev->cc_major)
    json_object_set_new(body, "compute_capability", json_string(cc));
  if (body && dev->l2_bytes)
    json_object_set_new(body, "l2_bytes", json_integer((json_int_t)dev->l2_bytes));
  /* the measured peaks, where the backend knows them */
  if (body && dev->has_peaks)
    json_object_set_new(body, "peaks",
                        json_pack("{s:f, s:f, s:f, s:f, s:f}", "dram_bytes_per_s",
                                  dev->peaks.dram_bytes_per_s, "l2_bytes_per_s",
                                  dev->peaks.l2_bytes_per_s, "tensor_flops",
                                  dev->peaks.tensor_flops, "sm_clock_hz", dev->peaks.sm_clock_hz,
                                  "launch_s", dev->peaks.launch_s));
  /* the capacity scan, where the backend ran it */
  json_t *probe = NULL;
  if (body && dev->has_capacity_probe &&
      pascal_codec_capacity_probe_encode(&dev->capacity_probe, &probe, NULL) == PASCAL_OK)
    json_object_set_new(body, "capacity_probe", probe);
  return body;
}

int agent_device_compare(json_t *server, const json_t *want, char *msg, size_t msglen)
{
  json_t *inner = json_object_get(server, "device");
  json_t *have = json_is_object(inner) ? inner : server;
  /* the first four must match; the CUDA identity, peaks and capacity probe
     only where both know them */
  static const char *const fields[] = {"arch",        "sm_count",  "capacity_blocks",
                                       "block_bytes", "cuda_name", "compute_capability",
                                       "l2_bytes",    "peaks",     "capacity_probe"};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    json_t *a = json_object_get(have, fields[i]);
    json_t *b = json_object_get(want, fields[i]);
    if (i >= 4 && (!a || json_is_null(a) || !b))
      continue;
    if (!a || !json_equal(a, b)) {
      char *sa = a ? json_dumps(a, JSON_ENCODE_ANY) : NULL;
      char *sb = json_dumps(b, JSON_ENCODE_ANY);
      snprintf(msg, msglen, "%s: server has %s, backend has %s", fields[i], sa ? sa : "nothing",
               sb ? sb : "?");
      free(sa);
      free(sb);
      return -1;
    }
  }
  return 0;
}

/* Agent token: the device must exist with the backend's constants. */
static int check_registered(agent_client *c, json_t *want)
{
  const char *name = c->ctx->args->device;
  char path[128];
  snprintf(path, sizeof path, "/v1/devices/%s", name);
  agent_reply r;
  agent_client_call(c, "device lookup", "GET", path, NULL, 1, &r);
  int rc = AGENT_EXIT_OK;
  char why[256];
  if (r.status != 200) {
    rc = agent_client_fatal(c, "device lookup", &r, 1);
  } else if (agent_device_compare(r.body, want, why, sizeof why) != 0) {
    agent_ui_log(&c->ctx->ui,
                 "device '%s' is registered with other constants than this backend "
                 "measures (%s); use another --device name",
                 name, why);
    rc = AGENT_EXIT_DEVICE;
  } else {
    agent_ui_log(&c->ctx->ui, "device '%s' is registered at %s", name, c->ctx->args->server);
  }
  agent_reply_free(&r);
  return rc;
}

void agent_device_known_capacity(agent_client *c, uint32_t *out)
{
  char path[128];
  snprintf(path, sizeof path, "/v1/devices/%s", c->ctx->args->device);
  agent_reply r;
  agent_client_call(c, "device lookup", "GET", path, NULL, 1, &r);
  json_t *inner = r.status == 200 ? json_object_get(r.body, "device") : NULL;
  json_t *cap = json_object_get(json_is_object(inner) ? inner : r.body, "capacity_blocks");
  json_int_t v = r.status == 200 && json_is_integer(cap) ? json_integer_value(cap) : 0;
  *out = v > 0 && v <= (json_int_t)UINT32_MAX ? (uint32_t)v : 0;
  agent_reply_free(&r);
}

int agent_device_ensure(agent_client *c, const pascal_backend_device *dev)
{
  json_t *body = agent_device_body(dev, c->ctx->args->device);
  if (!body) {
    agent_ui_log(&c->ctx->ui, "out of memory");
    return AGENT_EXIT_FAILURE;
  }
  agent_reply r;
  agent_client_call(c, "device registration", "POST", "/v1/devices", body, 1, &r);
  int rc = AGENT_EXIT_OK;
  if (r.status == 201 || r.status == 200) {
    agent_ui_log(&c->ctx->ui, "device '%s' %s (arch %s, %u SMs, C = %u blocks of %u bytes)",
                 c->ctx->args->device, r.status == 201 ? "registered" : "already registered",
                 dev->arch, dev->sm_count, dev->capacity_blocks, dev->block_bytes);
  } else if (r.status == 403) {
    rc = check_registered(c, body); /* agent token: may not register, may use */
  } else {
    rc = agent_client_fatal(c, "device registration", &r, 1);
  }
  agent_reply_free(&r);
  json_decref(body);
  return rc;
}

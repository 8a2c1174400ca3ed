/* device.c - register or check the device at pascald (device.h); every
 * device body is written and read by the codec (pascal_codec_jobs.h). */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "pascal_codec.h"

void agent_device_of(const pascal_backend_device *dev, const char *name, pascal_codec_device *out)
{
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", name);
  snprintf(out->arch, sizeof out->arch, "%s", dev->arch);
  out->sm_count = dev->sm_count;
  out->capacity_blocks = dev->capacity_blocks;
  out->block_bytes = dev->block_bytes;
  /* the CUDA identity, the measured peaks and the capacity scan, where the
     backend knows them */
  snprintf(out->cuda_name, sizeof out->cuda_name, "%s", dev->cuda_name);
  out->cc_major = dev->cc_major;
  out->cc_minor = dev->cc_minor;
  out->l2_bytes = dev->l2_bytes;
  out->has_peaks = dev->has_peaks;
  out->peaks = dev->peaks;
  out->has_capacity_probe = dev->has_capacity_probe;
  out->capacity_probe = dev->capacity_probe;
}

json_t *agent_device_body(const pascal_backend_device *dev, const char *name)
{
  pascal_codec_device d;
  json_t *body = NULL;
  agent_device_of(dev, name, &d);
  return pascal_codec_device_encode(&d, &body, NULL) == PASCAL_OK ? body : NULL;
}

static int same_probe(const pascal_capacity_probe *a, const pascal_capacity_probe *b)
{
  if (a->waves != b->waves || a->n != b->n)
    return 0;
  for (size_t i = 0; i < a->n; i++)
    if (a->size_blocks[i] != b->size_blocks[i] || a->fill_ratio[i] != b->fill_ratio[i])
      return 0;
  return 1;
}

static int same_peaks(const pascal_peaks *a, const pascal_peaks *b)
{
  return a->dram_bytes_per_s == b->dram_bytes_per_s && a->l2_bytes_per_s == b->l2_bytes_per_s &&
         a->tensor_flops == b->tensor_flops && a->sm_clock_hz == b->sm_clock_hz &&
         a->launch_s == b->launch_s;
}

/* The first constant the server and the backend disagree on. */
typedef struct device_diff {
  const char *field; /* NULL while they agree */
  char have[64], want[64];
} device_diff;

static void differs(device_diff *d, const char *field, const char *have, const char *want)
{
  if (d->field || strcmp(have, want) == 0)
    return;
  d->field = field;
  snprintf(d->have, sizeof d->have, "%s", have);
  snprintf(d->want, sizeof d->want, "%s", want);
}

static void differs_u64(device_diff *d, const char *field, uint64_t have, uint64_t want)
{
  char a[24], b[24];
  snprintf(a, sizeof a, "%llu", (unsigned long long)have);
  snprintf(b, sizeof b, "%llu", (unsigned long long)want);
  differs(d, field, a, b);
}

int agent_device_compare(const json_t *server, const pascal_codec_device *want, char *msg,
                         size_t msglen)
{
  pascal_codec_device have;
  pascal_error err = {0};
  if (pascal_codec_device_decode(server, &have, &err)) {
    snprintf(msg, msglen, "the server's device cannot be read: %s", err.message);
    return -1;
  }
  /* the first four must match; the CUDA identity, peaks and capacity probe
     only where both know them */
  device_diff d = {0};
  differs(&d, "arch", have.arch, want->arch);
  differs_u64(&d, "sm_count", have.sm_count, want->sm_count);
  differs_u64(&d, "capacity_blocks", have.capacity_blocks, want->capacity_blocks);
  differs_u64(&d, "block_bytes", have.block_bytes, want->block_bytes);
  if (have.cuda_name[0] && want->cuda_name[0])
    differs(&d, "cuda_name", have.cuda_name, want->cuda_name);
  if (have.cc_major && want->cc_major) {
    char a[24], b[24];
    snprintf(a, sizeof a, "%u.%u", have.cc_major, have.cc_minor);
    snprintf(b, sizeof b, "%u.%u", want->cc_major, want->cc_minor);
    differs(&d, "compute_capability", a, b);
  }
  if (have.l2_bytes && want->l2_bytes)
    differs_u64(&d, "l2_bytes", have.l2_bytes, want->l2_bytes);
  if (have.has_peaks && want->has_peaks && !same_peaks(&have.peaks, &want->peaks))
    differs(&d, "peaks", "other peaks", "its own");
  if (have.has_capacity_probe && want->has_capacity_probe &&
      !same_probe(&have.capacity_probe, &want->capacity_probe))
    differs(&d, "capacity_probe", "another capacity scan", "its own");
  if (!d.field)
    return 0;
  snprintf(msg, msglen, "%s: server has %s, backend has %s", d.field, d.have, d.want);
  return -1;
}

/* Agent token: the device must exist with the backend's constants. */
static int check_registered(agent_client *c, const pascal_codec_device *want)
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
  pascal_codec_device d;
  *out = r.status == 200 && pascal_codec_device_decode(r.body, &d, NULL) == PASCAL_OK
             ? d.capacity_blocks
             : 0;
  agent_reply_free(&r);
}

int agent_device_ensure(agent_client *c, const pascal_backend_device *dev)
{
  pascal_codec_device want;
  agent_device_of(dev, c->ctx->args->device, &want);
  json_t *body = NULL;
  if (pascal_codec_device_encode(&want, &body, NULL) != PASCAL_OK) {
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
    rc = check_registered(c, &want); /* agent token: may not register, may use */
  } else {
    rc = agent_client_fatal(c, "device registration", &r, 1);
  }
  agent_reply_free(&r);
  json_decref(body);
  return rc;
}

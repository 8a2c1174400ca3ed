/*
 * device.h - makes sure pascald knows the agent's device before any claim:
 * with an admin token the device is registered (POST /v1/devices: 201 new,
 * 200 identical); with an agent token (403 on POST) it is looked up
 * (GET /v1/devices/NAME) and its constants compared with the backend's.
 */
#ifndef PASCAL_AGENT_DEVICE_H
#define PASCAL_AGENT_DEVICE_H

#include "client.h"
#include "pascal_codec_jobs.h"

/* The effective capacity C pascald has stored for the agent's device, so that
 * a backend that measures C does not measure it again on every start:
 * *out = capacity_blocks when the device is registered, 0 when it is not
 * (404) or the lookup failed (agent_device_ensure then reports why). */
void agent_device_known_capacity(agent_client *c, uint32_t *out);

/* AGENT_EXIT_OK, or the exit code (device unknown/conflicting, auth,
 * unreachable, protocol) after logging why. */
int agent_device_ensure(agent_client *c, const pascal_backend_device *dev);

/* The backend's device `dev` as the codec writes it, under the name `name`. */
void agent_device_of(const pascal_backend_device *dev, const char *name, pascal_codec_device *out);
/* Its registration body (new reference; NULL when it cannot be written). */
json_t *agent_device_body(const pascal_backend_device *dev, const char *name);

/* 0 when the server's device reply ({"device":{...}} or {...}, read by the
 * codec) has the same constants as `want` (arch, sm_count,
 * capacity_blocks, block_bytes, and cuda_name, compute_capability,
 * l2_bytes, peaks and the capacity probe where both sides know them); -1
 * with the first differing field, or why the reply cannot be read, in
 * `msg` otherwise. */
int agent_device_compare(const json_t *server, const pascal_codec_device *want, char *msg,
                         size_t msglen);

#endif

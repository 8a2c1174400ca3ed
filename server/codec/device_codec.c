/*
 * device_codec.c - a device as pascal-agent registers it and as pascald
 * answers for it (pascal_codec_jobs.h; docs/http-api.md "Devices"), and the
 * compute capability's "MAJOR.MINOR" form. The agent (and a replica reading
 * its primary) reads device replies only through this decoder.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "json_util.h"
#include "pascal_codec.h"
#include "pascal_codec_jobs.h"

int pascal_codec_cc_parse(const char *s, uint32_t *major, uint32_t *minor)
{
  unsigned long v[2] = {0, 0};
  for (int part = 0; part < 2; part++) {
    if (!isdigit((unsigned char)*s))
      return -1;
    size_t digits = 0;
    while (isdigit((unsigned char)*s)) {
      if (++digits > 2)
        return -1;
      v[part] = v[part] * 10 + (unsigned long)(*s++ - '0');
    }
    if (part == 0 && *s++ != '.')
      return -1;
  }
  if (*s || v[0] < 1)
    return -1;
  *major = (uint32_t)v[0];
  *minor = (uint32_t)v[1];
  return 0;
}

pascal_status pascal_codec_device_encode(const pascal_codec_device *dev, json_t **out,
                                         pascal_error *err)
{
  json_t *o = json_object(), *v = NULL;
  char cc[24];
  snprintf(cc, sizeof cc, "%u.%u", dev->cc_major, dev->cc_minor);
  pascal_status st;
  if ((st = codec_set(o, "name", json_string(dev->name), err)) ||
      (st = codec_set(o, "arch", json_string(dev->arch), err)) ||
      (st = codec_set(o, "sm_count", codec_uint(dev->sm_count), err)) ||
      (st = codec_set(o, "capacity_blocks", codec_uint(dev->capacity_blocks), err)) ||
      (st = codec_set(o, "block_bytes", codec_uint(dev->block_bytes), err)) ||
      (dev->cuda_name[0] && (st = codec_set(o, "cuda_name", json_string(dev->cuda_name), err))) ||
      (dev->cc_major && (st = codec_set(o, "compute_capability", json_string(cc), err))) ||
      (dev->l2_bytes && (st = codec_set(o, "l2_bytes", codec_uint(dev->l2_bytes), err))) ||
      (dev->has_peaks &&
       ((st = codec_peaks_encode(&dev->peaks, &v, err)) || (st = codec_set(o, "peaks", v, err)))) ||
      (dev->has_capacity_probe &&
       ((st = pascal_codec_capacity_probe_encode(&dev->capacity_probe, &v, err)) ||
        (st = codec_set(o, "capacity_probe", v, err))))) {
    json_decref(o);
    return st;
  }
  *out = o;
  return PASCAL_OK;
}

/* A string member of 1..size-1 bytes into dst; null or absent leaves ""
 * unless required. */
static pascal_status get_text(const json_t *o, const char *key, int required, char *dst,
                              size_t size, pascal_error *err)
{
  const char *s = NULL;
  pascal_status st =
      json_is_null(json_object_get(o, key))
          ? (required ? pascal_error_set(err, PASCAL_EMISSING, key, "%s is null", key) : PASCAL_OK)
          : codec_get_string(o, "", key, required, &s, err);
  if (st || !s)
    return st;
  if (!*s || strlen(s) >= size)
    return pascal_error_set(err, PASCAL_EINVAL, key, "%s must have 1..%zu characters", key,
                            size - 1);
  memcpy(dst, s, strlen(s) + 1);
  return PASCAL_OK;
}

pascal_status pascal_codec_device_decode(const json_t *reply, pascal_codec_device *out,
                                         pascal_error *err)
{
  const json_t *o = json_object_get(reply, "device");
  if (!json_is_object(o))
    o = reply;
  if (!json_is_object(o))
    return pascal_error_set(err, PASCAL_EFORMAT, "device", "a device must be an object");
  pascal_codec_device d;
  memset(&d, 0, sizeof d);
  uint64_t sm = 0, cap = 0, bb = 0;
  char cc[8] = "";
  pascal_status st;
  if ((st = get_text(o, "name", 1, d.name, sizeof d.name, err)) ||
      (st = get_text(o, "arch", 1, d.arch, sizeof d.arch, err)) ||
      (st = codec_get_uint(o, "", "sm_count", 1, 1, UINT32_MAX, &sm, NULL, err)) ||
      (st = codec_get_uint(o, "", "capacity_blocks", 1, 1, UINT32_MAX, &cap, NULL, err)) ||
      (st = codec_get_uint(o, "", "block_bytes", 1, 1, UINT32_MAX, &bb, NULL, err)) ||
      (st = get_text(o, "cuda_name", 0, d.cuda_name, sizeof d.cuda_name, err)) ||
      (st = get_text(o, "compute_capability", 0, cc, sizeof cc, err)))
    return st;
  if (cc[0] && pascal_codec_cc_parse(cc, &d.cc_major, &d.cc_minor))
    return pascal_error_set(err, PASCAL_EINVAL, "compute_capability",
                            "compute_capability must be MAJOR.MINOR such as 9.0");
  const json_t *v = json_object_get(o, "l2_bytes");
  if (v && !json_is_null(v) &&
      (st = codec_get_uint(o, "", "l2_bytes", 1, 1, INT64_MAX, &d.l2_bytes, NULL, err)))
    return st;
  v = json_object_get(o, "peaks");
  if (v && !json_is_null(v) && !json_is_object(v))
    return pascal_error_set(err, PASCAL_EFORMAT, "peaks", "peaks must be an object");
  if (v && !json_is_null(v) && (st = codec_peaks_decode(v, "peaks", &d.peaks, err)))
    return st;
  d.has_peaks = v && !json_is_null(v);
  v = json_object_get(o, "capacity_probe");
  if (v && !json_is_null(v) &&
      (st = pascal_codec_capacity_probe_decode(v, "capacity_probe", &d.capacity_probe, err)))
    return st;
  d.has_capacity_probe = v && !json_is_null(v);
  d.sm_count = (uint32_t)sm;
  d.capacity_blocks = (uint32_t)cap;
  d.block_bytes = (uint32_t)bb;
  *out = d;
  return PASCAL_OK;
}

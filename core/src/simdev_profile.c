/*
 * simdev_profile.c - the sim device profile: built-in GB10-like defaults,
 * field validation and the strict `key = value` text parser (paper §5.1
 * constants: 48 SMs, C = 1280 blocks of 16 KiB; timing shaped like the
 * paper's GB10 depth sweep, §3.6; docs/sim-device.md explains each key).
 *
 * One table lists every key with its type, offset and domain; the parser,
 * the validator and the defaults all go through it, so a key cannot be
 * parsed without also being validated.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdev_internal.h"

typedef enum key_type {
  KEY_STR_NAME,
  KEY_STR_ARCH,
  KEY_STR_TEXT,
  KEY_CC,
  KEY_U32,
  KEY_U64,
  KEY_F64,
  KEY_PRIMING
} key_type;

typedef struct key_spec {
  const char *key;
  key_type type;
  size_t offset;
  double lo, hi; /* numbers: lo <= v and v <= hi (v < hi if hi_open) */
  int hi_open;
  const char *help; /* domain, for messages */
} key_spec;

#define F(field) offsetof(pascal_simdev_profile, field)
#define BIG      1e18
static const key_spec KEYS[] = {
    {"name", KEY_STR_NAME, F(name), 0, 0, 0, "1-63 chars of [A-Za-z0-9._-]"},
    {"arch", KEY_STR_ARCH, F(arch), 0, 0, 0, "1-31 chars of [A-Za-z0-9._-]"},
    {"sm_count", KEY_U32, F(sm_count), 1, 4096, 0, "an integer in [1, 4096]"},
    {"capacity_blocks", KEY_U32, F(capacity_blocks), 1, 1u << 30, 0, "an integer in [1, 2^30]"},
    {"block_bytes", KEY_U32, F(block_bytes), 1, 1u << 30, 0, "an integer in [1, 2^30]"},
    {"l2_bytes", KEY_U64, F(l2_bytes), 1, 1e15, 0, "an integer in [1, 1e15]"},
    {"smem_per_sm", KEY_U64, F(smem_per_sm), 0, 1e15, 0, "an integer in [0, 1e15]"},
    {"cuda_name", KEY_STR_TEXT, F(cuda_name), 0, 0, 0, "1-63 printable ASCII characters (no '#')"},
    {"compute_capability", KEY_CC, F(cc_major), 0, 0, 0, "MAJOR.MINOR, 1..99 . 0..99"},
    {"seed", KEY_U64, F(seed), 0, 1.8446744073709552e19, 0, "an unsigned 64-bit integer"},
    {"priming", KEY_PRIMING, F(priming_extra), 0, 1, 0, "d-1 or d"},
    {"l2_ways", KEY_U32, F(l2_ways), 0, 65536, 0, "an integer in [0, 65536]"},
    {"l2_sets", KEY_U32, F(l2_sets), 0, 1u << 30, 0, "an integer in [0, 2^30]"},
    {"l2_partitions", KEY_U32, F(l2_partitions), 1, 64, 0, "an integer in [1, 64]"},
    {"l2_far_ns", KEY_F64, F(l2_far_ns), 0, BIG, 0, "a number >= 0"},
    {"l2_gbps", KEY_F64, F(l2_gbps), 0, BIG, 0, "a number >= 0"},
    {"hop_ns", KEY_F64, F(hop_ns), 0, BIG, 0, "a number >= 0"},
    {"sm_read_gbps", KEY_F64, F(sm_read_gbps), 1e-3, BIG, 0, "a number >= 0.001"},
    {"sm_read_spread", KEY_F64, F(sm_read_spread), 0, 0.5, 1, "a number in [0, 0.5)"},
    {"dram_gbps", KEY_F64, F(dram_gbps), 1e-3, BIG, 0, "a number >= 0.001"},
    {"dram_latency_ns", KEY_F64, F(dram_latency_ns), 0, BIG, 0, "a number >= 0"},
    {"consume_ns", KEY_F64, F(consume_ns), 0, BIG, 0, "a number >= 0"},
    {"compute_ns", KEY_F64, F(compute_ns), 0, BIG, 0, "a number >= 0"},
    {"tensor_pipe_ns", KEY_F64, F(tensor_pipe_ns), 0, BIG, 0, "a number >= 0"},
    {"tail0_ns", KEY_F64, F(tail_ns[0]), 0, BIG, 0, "a number >= 0"},
    {"tail1_ns", KEY_F64, F(tail_ns[1]), 0, BIG, 0, "a number >= 0"},
    {"tail2_ns", KEY_F64, F(tail_ns[2]), 0, BIG, 0, "a number >= 0"},
    {"mma_setup_ns", KEY_F64, F(mma_setup_ns), 0, BIG, 0, "a number >= 0"},
    {"sync_issue_ns", KEY_F64, F(sync_issue_ns), 0, BIG, 0, "a number >= 0"},
    {"sync_rounds", KEY_U32, F(sync_rounds), 1, 64, 0, "an integer in [1, 64]"},
    {"tma_issue_ns", KEY_F64, F(tma_issue_ns), 0, BIG, 0, "a number >= 0"},
    {"tma_latency_ns", KEY_F64, F(tma_latency_ns), 0, BIG, 0, "a number >= 0"},
    {"cta_sync_ns", KEY_F64, F(cta_sync_ns), 0, BIG, 0, "a number >= 0"},
    {"exec_shared", KEY_F64, F(exec_shared), 0, 1, 0, "a number in [0, 1]"},
    {"grid_barrier_ns", KEY_F64, F(grid_barrier_ns), 0, BIG, 0, "a number >= 0"},
    {"launch_ns", KEY_F64, F(launch_ns), 0, BIG, 0, "a number >= 0"},
    {"start_jitter_ns", KEY_F64, F(start_jitter_ns), 0, BIG, 0, "a number >= 0"},
    {"service_jitter", KEY_F64, F(service_jitter), 0, 1, 1, "a number in [0, 1)"},
    {"sm_read_run_spread", KEY_F64, F(sm_read_run_spread), 0, 0.5, 1, "a number in [0, 0.5)"},
    {"sm_clock_spread", KEY_F64, F(sm_clock_spread), 0, 0.5, 1, "a number in [0, 0.5)"},
    {"clock_skew", KEY_F64, F(clock_skew), 0, 0.5, 1, "a number in [0, 0.5)"},
    {"clock_skew_groups", KEY_U32, F(clock_skew_groups), 1, 4096, 0, "an integer in [1, 4096]"},
    {"clock_skew_consume", KEY_F64, F(clock_skew_consume), 0, 1, 0, "a number in [0, 1]"},
    {"skew_shared", KEY_U32, F(skew_shared), 0, 1, 0, "0 or 1"},
    {"work_noise", KEY_F64, F(work_noise), 0, 0.5, 0, "a number in [0, 0.5]"},
    {"work_noise_blocks", KEY_F64, F(work_noise_blocks), 1, BIG, 0, "a number >= 1"},
    {"link_stall_prob", KEY_F64, F(link_stall_prob), 0, 1, 0, "a number in [0, 1]"},
    {"link_stall_ns", KEY_F64, F(link_stall_ns), 0, BIG, 0, "a number >= 0"},
    {"dram_tail_prob", KEY_F64, F(dram_tail_prob), 0, 1, 0, "a number in [0, 1]"},
    {"dram_tail_ns", KEY_F64, F(dram_tail_ns), 0, BIG, 0, "a number >= 0"},
    {"dispatch_ns", KEY_F64, F(dispatch_ns), 0, BIG, 0, "a number >= 0"},
    {"peak_dram_bytes_per_s", KEY_F64, F(peaks.dram_bytes_per_s), 0, BIG, 0, "a number >= 0"},
    {"peak_l2_bytes_per_s", KEY_F64, F(peaks.l2_bytes_per_s), 0, BIG, 0, "a number >= 0"},
    {"peak_tensor_flops", KEY_F64, F(peaks.tensor_flops), 0, BIG, 0, "a number >= 0"},
    {"peak_sm_clock_hz", KEY_F64, F(peaks.sm_clock_hz), 0, BIG, 0, "a number >= 0"},
    {"peak_launch_s", KEY_F64, F(peaks.launch_s), 0, BIG, 0, "a number >= 0"},
};
#undef F
#define NKEYS (sizeof KEYS / sizeof KEYS[0])

void pascal_simdev_profile_default(pascal_simdev_profile *out)
{
  /* Keep in step with deploy/profiles/gb10-like.profile (a test checks). */
  memset(out, 0, sizeof *out);
  strcpy(out->name, "gb10-like");
  strcpy(out->arch, "sim");
  out->sm_count = 48;
  out->capacity_blocks = 1280;
  out->block_bytes = 16384;
  out->l2_bytes = 24u << 20;
  out->smem_per_sm = 100u * 1024u;
  strcpy(out->cuda_name, "PASCAL sim GB10-like");
  out->cc_major = 12;
  out->cc_minor = 1;
  out->seed = 1;
  out->priming_extra = 0;
  out->l2_ways = 0; /* one fully associative LRU of capacity_blocks */
  out->l2_sets = 0;
  out->l2_partitions = 1;
  out->l2_far_ns = 0.0;
  out->l2_gbps = 0.0;
  out->hop_ns = 200.0;
  out->sm_read_gbps = 48.0;
  out->sm_read_spread = 0.03;
  out->dram_gbps = 273.0;
  out->dram_latency_ns = 205.0;
  out->consume_ns = 30.0;
  out->compute_ns = 60.0;
  out->tensor_pipe_ns = 3.146;
  out->tail_ns[0] = 0.0;
  out->tail_ns[1] = 40.0;
  out->tail_ns[2] = 110.0;
  out->mma_setup_ns = 0.0;
  out->sync_issue_ns = 20.0;
  out->sync_rounds = 1;
  out->tma_issue_ns = 10.0;
  out->tma_latency_ns = 0.0;
  out->cta_sync_ns = 15.0;
  out->exec_shared = 1.0;
  out->grid_barrier_ns = 1500.0;
  out->launch_ns = 2000.0;
  out->start_jitter_ns = 200.0;
  out->service_jitter = 0.10;
  out->sm_read_run_spread = 0.02;
  out->sm_clock_spread = 0.007;
  out->clock_skew = 0.0;
  out->clock_skew_groups = 1;
  out->clock_skew_consume = 1.0;
  out->skew_shared = 0;
  out->work_noise = 0.05;
  out->work_noise_blocks = 4.0;
  out->link_stall_prob = 0.1;
  out->link_stall_ns = 400.0;
  out->dram_tail_prob = 0.05;
  out->dram_tail_ns = 400.0;
  out->dispatch_ns = 20.0;
  out->peaks.dram_bytes_per_s = 273e9;
  out->peaks.l2_bytes_per_s = 2.304e12;
  out->peaks.tensor_flops = 125e12;
  out->peaks.sm_clock_hz = 1e9;
  out->peaks.launch_s = 2e-6;
}

static int name_ok(const char *s, size_t max)
{
  size_t n = strlen(s);
  if (n == 0 || n >= max)
    return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

/* cuda_name: "" (not stated) or printable ASCII with no blank at either end
 * and no '#' (it would start a comment in the text form). */
static int text_ok(const char *s, size_t max)
{
  size_t n = strlen(s);
  if (n == 0)
    return 1;
  if (n >= max || s[0] == ' ' || s[n - 1] == ' ')
    return 0;
  for (size_t i = 0; i < n; i++)
    if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '#')
      return 0;
  return 1;
}

/* compute_capability: 0.0 (not stated) or 1..99 . 0..99. */
static int cc_ok(const uint32_t *cc)
{
  return cc[0] == 0 ? cc[1] == 0 : cc[0] <= 99 && cc[1] <= 99;
}

/* Parse "MAJOR.MINOR" (1-2 digits each) into cc[0], cc[1]; 0 on failure. */
static int cc_store(uint32_t *cc, const char *v)
{
  uint32_t part[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    int digits = 0;
    while (*v >= '0' && *v <= '9' && digits < 3)
      part[i] = part[i] * 10 + (uint32_t)(*v++ - '0'), digits++;
    if (digits == 0 || digits > 2)
      return 0;
    if (i == 0 && *v++ != '.')
      return 0;
  }
  if (*v || part[0] == 0)
    return 0;
  cc[0] = part[0];
  cc[1] = part[1];
  return 1;
}

/* The value of key `k` in `p` as a double (numbers only). */
static double key_number(const pascal_simdev_profile *p, const key_spec *k)
{
  const char *base = (const char *)p + k->offset;
  switch (k->type) {
  case KEY_U32:
  case KEY_PRIMING: return (double)*(const uint32_t *)(const void *)base;
  case KEY_U64: return (double)*(const uint64_t *)(const void *)base;
  case KEY_F64: return *(const double *)(const void *)base;
  default: return 0.0;
  }
}

static int key_in_domain(const pascal_simdev_profile *p, const key_spec *k)
{
  const char *base = (const char *)p + k->offset;
  if (k->type == KEY_STR_NAME)
    return name_ok(base, PASCAL_SIMDEV_NAME_MAX);
  if (k->type == KEY_STR_ARCH)
    return name_ok(base, PASCAL_SIMDEV_ARCH_MAX);
  if (k->type == KEY_STR_TEXT)
    return text_ok(base, PASCAL_SIMDEV_NAME_MAX);
  if (k->type == KEY_CC)
    return cc_ok((const uint32_t *)(const void *)base);
  double v = key_number(p, k);
  if (!isfinite(v) || v < k->lo)
    return 0;
  return k->hi_open ? v < k->hi : v <= k->hi;
}

int pascal_simdev_profile_has_peaks(const pascal_simdev_profile *p)
{
  return p->peaks.dram_bytes_per_s > 0;
}

/* Peaks: none stated, or all four rates (the launch overhead may be 0). */
static pascal_status peaks_validate(const pascal_simdev_profile *p, pascal_error *err)
{
  const pascal_peaks *k = &p->peaks;
  if (k->dram_bytes_per_s == 0 && k->l2_bytes_per_s == 0 && k->tensor_flops == 0 &&
      k->sm_clock_hz == 0 && k->launch_s == 0)
    return PASCAL_OK;
  pascal_error inner;
  if (pascal_peaks_check(k, &inner) == PASCAL_OK)
    return PASCAL_OK;
  char key[PASCAL_ERROR_FIELD_MAX + 8];
  snprintf(key, sizeof key, "peak_%s", inner.field);
  return pascal_error_set(err, PASCAL_EINVAL, key,
                          "%s must be > 0 when any peak is stated (all four rates or none)", key);
}

/* The L2 array: sets and partitions only with ways; l2_sets = 0 takes the
 * sets from capacity_blocks, which must then divide evenly; at most 2^30
 * lines. */
static pascal_status l2_validate(const pascal_simdev_profile *p, pascal_error *err)
{
  if (p->l2_ways == 0) {
    if (p->l2_sets != 0)
      return pascal_error_set(err, PASCAL_EINVAL, "l2_sets",
                              "l2_sets must be 0 when l2_ways = 0 (fully associative)");
    if (p->l2_partitions != 1)
      return pascal_error_set(err, PASCAL_EINVAL, "l2_partitions",
                              "l2_partitions must be 1 when l2_ways = 0 (fully associative)");
    return PASCAL_OK;
  }
  uint64_t per_set = (uint64_t)p->l2_partitions * p->l2_ways;
  if (p->l2_sets == 0 && p->capacity_blocks % per_set != 0)
    return pascal_error_set(err, PASCAL_EINVAL, "l2_sets",
                            "capacity_blocks (%u) is not a multiple of l2_partitions x l2_ways "
                            "(%llu): give l2_sets, or l2_ways = 0",
                            p->capacity_blocks, (unsigned long long)per_set);
  if (per_set * (p->l2_sets ? p->l2_sets : p->capacity_blocks / per_set) > (1ull << 30))
    return pascal_error_set(err, PASCAL_EINVAL, "l2_sets",
                            "l2_partitions x l2_sets x l2_ways must be at most 2^30 lines");
  if (p->l2_partitions > p->sm_count)
    return pascal_error_set(err, PASCAL_EINVAL, "l2_partitions",
                            "l2_partitions must be at most sm_count (each has SMs next to it)");
  return PASCAL_OK;
}

pascal_status pascal_simdev_profile_validate(const pascal_simdev_profile *p, pascal_error *err)
{
  if (!p)
    return pascal_error_set(err, PASCAL_EINVAL, "profile", "profile is NULL");
  for (size_t i = 0; i < NKEYS; i++)
    if (!key_in_domain(p, &KEYS[i]))
      return pascal_error_set(err, PASCAL_EINVAL, KEYS[i].key, "%s must be %s", KEYS[i].key,
                              KEYS[i].help);
  pascal_status st = l2_validate(p, err);
  if (st != PASCAL_OK)
    return st;
  return peaks_validate(p, err);
}

/* ---- text parser ---- */

#define LINE_MAX_CHARS 512

static int is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

/* Trim [*b, *e) in place. */
static void trim(const char **b, const char **e)
{
  while (*b < *e && is_space(**b))
    (*b)++;
  while (*e > *b && is_space((*e)[-1]))
    (*e)--;
}

static const key_spec *key_find(const char *k, size_t n)
{
  for (size_t i = 0; i < NKEYS; i++)
    if (strlen(KEYS[i].key) == n && memcmp(KEYS[i].key, k, n) == 0)
      return &KEYS[i];
  return NULL;
}

/* Store `value` (NUL-terminated) into key k of p; 0 if it does not parse. */
static int key_store(pascal_simdev_profile *p, const key_spec *k, const char *value)
{
  char *base = (char *)p + k->offset;
  char *end = NULL;
  errno = 0;
  switch (k->type) {
  case KEY_STR_NAME:
  case KEY_STR_ARCH: {
    size_t max = k->type == KEY_STR_NAME ? PASCAL_SIMDEV_NAME_MAX : PASCAL_SIMDEV_ARCH_MAX;
    if (!name_ok(value, max))
      return 0;
    memcpy(base, value, strlen(value) + 1);
    return 1;
  }
  case KEY_STR_TEXT:
    if (!value[0] || !text_ok(value, PASCAL_SIMDEV_NAME_MAX))
      return 0;
    memcpy(base, value, strlen(value) + 1);
    return 1;
  case KEY_CC: return cc_store((uint32_t *)(void *)base, value);
  case KEY_PRIMING:
    if (strcmp(value, "d-1") == 0)
      *(uint32_t *)(void *)base = 0;
    else if (strcmp(value, "d") == 0)
      *(uint32_t *)(void *)base = 1;
    else
      return 0;
    return 1;
  case KEY_U32:
  case KEY_U64: {
    if (value[0] < '0' || value[0] > '9')
      return 0; /* no sign, no spaces */
    unsigned long long v = strtoull(value, &end, 10);
    if (errno || *end != '\0')
      return 0;
    if (k->type == KEY_U32) {
      if (v > UINT32_MAX)
        return 0;
      *(uint32_t *)(void *)base = (uint32_t)v;
    } else {
      *(uint64_t *)(void *)base = (uint64_t)v;
    }
    return 1;
  }
  case KEY_F64: {
    double v = strtod(value, &end);
    if (end == value || *end != '\0' || errno || !isfinite(v))
      return 0;
    *(double *)(void *)base = v;
    return 1;
  }
  }
  return 0;
}

/* Parse one line [b, e) (comment already stripped, trimmed, non-empty). */
static pascal_status parse_line(pascal_simdev_profile *p, const char *b, const char *e,
                                unsigned lineno, unsigned char *seen, pascal_error *err)
{
  const char *eq = memchr(b, '=', (size_t)(e - b));
  char field[32];
  snprintf(field, sizeof field, "line %u", lineno);
  if (!eq)
    return pascal_error_set(err, PASCAL_EFORMAT, field, "line %u: expected `key = value`", lineno);
  const char *kb = b, *ke = eq, *vb = eq + 1, *ve = e;
  trim(&kb, &ke);
  trim(&vb, &ve);
  if (kb == ke)
    return pascal_error_set(err, PASCAL_EFORMAT, field, "line %u: missing key before `=`", lineno);
  const key_spec *k = key_find(kb, (size_t)(ke - kb));
  if (!k) {
    size_t n = (size_t)(ke - kb);
    if (n >= sizeof field)
      n = sizeof field - 1;
    memcpy(field, kb, n);
    field[n] = '\0';
    return pascal_error_set(err, PASCAL_EFORMAT, field, "line %u: unknown key '%s'", lineno, field);
  }
  size_t idx = (size_t)(k - KEYS);
  if (seen[idx])
    return pascal_error_set(err, PASCAL_EFORMAT, k->key, "line %u: duplicate key '%s'", lineno,
                            k->key);
  seen[idx] = 1;
  char value[LINE_MAX_CHARS + 1];
  size_t vn = (size_t)(ve - vb);
  memcpy(value, vb, vn);
  value[vn] = '\0';
  if (vn == 0 || !key_store(p, k, value) || !key_in_domain(p, k))
    return pascal_error_set(err, PASCAL_EFORMAT, k->key, "line %u: %s must be %s, got '%s'", lineno,
                            k->key, k->help, value);
  return PASCAL_OK;
}

pascal_status pascal_simdev_profile_parse(const char *text, size_t len, pascal_simdev_profile *out,
                                          pascal_error *err)
{
  if (!text && len > 0)
    return pascal_error_set(err, PASCAL_EINVAL, "text", "text is NULL");
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "out is NULL");
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  unsigned char seen[NKEYS] = {0};
  unsigned lineno = 0;
  size_t pos = 0;
  while (pos < len) {
    const char *b = text + pos;
    const char *nl = memchr(b, '\n', len - pos);
    const char *e = nl ? nl : text + len;
    pos = (size_t)(e - text) + (nl ? 1 : 0);
    lineno++;
    char field[32];
    snprintf(field, sizeof field, "line %u", lineno);
    if (memchr(b, '\0', (size_t)(e - b)))
      return pascal_error_set(err, PASCAL_EFORMAT, field, "line %u: NUL byte", lineno);
    if (e - b > LINE_MAX_CHARS)
      return pascal_error_set(err, PASCAL_EFORMAT, field, "line %u: longer than %d characters",
                              lineno, LINE_MAX_CHARS);
    const char *hash = memchr(b, '#', (size_t)(e - b));
    if (hash)
      e = hash;
    trim(&b, &e);
    if (b == e)
      continue;
    pascal_status st = parse_line(&p, b, e, lineno, seen, err);
    if (st != PASCAL_OK)
      return st;
  }
  pascal_status st = pascal_simdev_profile_validate(&p, err);
  if (st != PASCAL_OK)
    return st;
  *out = p;
  return PASCAL_OK;
}

#define PROFILE_MAX_BYTES (1u << 20)

pascal_status pascal_simdev_profile_load(const char *path, pascal_simdev_profile *out,
                                         pascal_error *err)
{
  if (!path)
    return pascal_error_set(err, PASCAL_EINVAL, "profile", "profile path is NULL");
  FILE *f = fopen(path, "rb");
  if (!f)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "profile", "cannot open profile %s: %s", path,
                            strerror(errno));
  pascal_status st = PASCAL_OK;
  char *buf = malloc(PROFILE_MAX_BYTES + 1);
  if (!buf) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "profile", "cannot allocate the profile buffer");
    goto fail;
  }
  size_t n = fread(buf, 1, PROFILE_MAX_BYTES + 1, f);
  if (ferror(f)) {
    st = pascal_error_set(err, PASCAL_EFORMAT, "profile", "cannot read profile %s", path);
    goto fail;
  }
  if (n > PROFILE_MAX_BYTES) {
    st = pascal_error_set(err, PASCAL_EFORMAT, "profile", "profile %s is larger than %u bytes",
                          path, PROFILE_MAX_BYTES);
    goto fail;
  }
  st = pascal_simdev_profile_parse(buf, n, out, err);
fail:
  free(buf);
  fclose(f);
  return st;
}

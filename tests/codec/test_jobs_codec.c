/* test_jobs_codec.c - the jobs protocol's JSON (server/codec/jobs_codec.c):
 * every request the agent encodes decodes to the same values on pascald's
 * side and every reply pascald encodes decodes on the agent's; malformed
 * requests are refused naming the field with the status pascald maps to
 * its HTTP codes; the protocol's limits are the plan's and the message
 * limit's (pascal/plan.h), and a message is cut at a UTF-8 boundary. The
 * device the agent registers reads back bit for bit, pascald's device view
 * (nulls for what it does not know) reads as unknowns, bad members are
 * named; the error body of a refusal reads with and without its field. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/utf8.h"
#include "pascal_codec_jobs.h"

static json_t *load(const char *text)
{
  json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
  CHECK(j != NULL);
  return j;
}

#define LEASE "0123456789abcdef0123456789abcdef"

static void test_request_round_trips(void)
{
  pascal_codec_claim claim = {"gb10-lab", "host-1"}, back;
  json_t *doc = NULL;
  CHECK_INT(pascal_codec_claim_encode(&claim, &doc, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_claim_decode(doc, &back, NULL), PASCAL_OK);
  CHECK(strcmp(back.device, "gb10-lab") == 0 && strcmp(back.agent, "host-1") == 0);
  json_decref(doc);

  pascal_codec_lease_request req = {LEASE, 1.25e9, 3.5e6, ""}, got;
  for (int kind = PASCAL_CODEC_HEARTBEAT; kind <= PASCAL_CODEC_FAIL; kind++) {
    snprintf(req.message, sizeof req.message, "%s", kind == PASCAL_CODEC_FAIL ? "boom" : "");
    CHECK_INT(pascal_codec_lease_request_encode(kind, &req, &doc, NULL), PASCAL_OK);
    /* the members written are exactly the ones the daemon allows */
    size_t allowed = 0;
    for (const char *const *k = pascal_codec_jobs_request_keys(kind); *k; k++)
      allowed++;
    CHECK_INT(json_object_size(doc), allowed);
    memset(&got, 0x5a, sizeof got);
    CHECK_INT(pascal_codec_lease_request_decode(kind, doc, &got, NULL), PASCAL_OK);
    CHECK(strcmp(got.lease_token, LEASE) == 0);
    CHECK(got.fill_bytes == (kind == PASCAL_CODEC_RESULT ? 1.25e9 : 0.0));
    CHECK(got.kernel_ns == (kind == PASCAL_CODEC_RESULT ? 3.5e6 : 0.0));
    CHECK(strcmp(got.message, kind == PASCAL_CODEC_FAIL ? "boom" : "") == 0);
    json_decref(doc);
  }
}

/* Decode `body` as a `kind` request and expect `status` naming `field`. */
static void expect_refused(int kind, const char *body, pascal_status status, const char *field)
{
  json_t *doc = load(body);
  pascal_error err;
  pascal_error_clear(&err);
  pascal_codec_lease_request r;
  pascal_codec_claim c;
  pascal_status st = kind == PASCAL_CODEC_CLAIM
                         ? pascal_codec_claim_decode(doc, &c, &err)
                         : pascal_codec_lease_request_decode(kind, doc, &r, &err);
  CHECK_INT(st, status);
  CHECK(strcmp(err.field, field) == 0);
  if (st != status || strcmp(err.field, field) != 0)
    fprintf(stderr, "  %s: got %d %s (%s)\n", body, st, err.field, err.message);
  json_decref(doc);
}

static void test_request_refusals(void)
{
  expect_refused(PASCAL_CODEC_CLAIM, "{\"device\":\"gb10\"}", PASCAL_EMISSING, "agent");
  expect_refused(PASCAL_CODEC_CLAIM, "{\"device\":\"gb10\",\"agent\":5}", PASCAL_EFORMAT, "agent");
  expect_refused(PASCAL_CODEC_CLAIM, "{\"device\":\"gb 10\",\"agent\":\"a\"}", PASCAL_EINVAL,
                 "device");
  expect_refused(PASCAL_CODEC_CLAIM, "{\"device\":\"\",\"agent\":\"a\"}", PASCAL_ERANGE, "device");
  expect_refused(PASCAL_CODEC_HEARTBEAT, "{}", PASCAL_EMISSING, "lease_token");
  expect_refused(PASCAL_CODEC_HEARTBEAT, "{\"lease_token\":null}", PASCAL_EMISSING, "lease_token");
  expect_refused(PASCAL_CODEC_FAIL, "{\"lease_token\":7}", PASCAL_EFORMAT, "lease_token");
  /* 31 hex digits, upper case, 129 digits */
  expect_refused(PASCAL_CODEC_HEARTBEAT, "{\"lease_token\":\"0123456789abcdef0123456789abcde\"}",
                 PASCAL_EINVAL, "lease_token");
  expect_refused(PASCAL_CODEC_HEARTBEAT, "{\"lease_token\":\"0123456789ABCDEF0123456789abcdef\"}",
                 PASCAL_EINVAL, "lease_token");
  char body[300];
  snprintf(body, sizeof body, "{\"lease_token\":\"%s%s%s%s0\"}", LEASE, LEASE, LEASE, LEASE);
  expect_refused(PASCAL_CODEC_HEARTBEAT, body, PASCAL_ERANGE, "lease_token");
  expect_refused(PASCAL_CODEC_RESULT, "{\"lease_token\":\"" LEASE "\"}", PASCAL_EMISSING,
                 "fill_bytes");
  expect_refused(PASCAL_CODEC_RESULT, "{\"lease_token\":\"" LEASE "\",\"fill_bytes\":0}",
                 PASCAL_ERANGE, "fill_bytes");
  expect_refused(PASCAL_CODEC_RESULT, "{\"lease_token\":\"" LEASE "\",\"fill_bytes\":-5}",
                 PASCAL_ERANGE, "fill_bytes");
  expect_refused(PASCAL_CODEC_RESULT,
                 "{\"lease_token\":\"" LEASE "\",\"fill_bytes\":5,\"kernel_ns\":\"x\"}",
                 PASCAL_EFORMAT, "kernel_ns");
  expect_refused(PASCAL_CODEC_RESULT,
                 "{\"lease_token\":\"" LEASE "\",\"fill_bytes\":5,\"kernel_ns\":-1}", PASCAL_ERANGE,
                 "kernel_ns");
  expect_refused(PASCAL_CODEC_FAIL, "{\"lease_token\":\"" LEASE "\",\"message\":\"\"}",
                 PASCAL_ERANGE, "message");
  /* the message limit is PASCAL_PLAN_MAX_MESSAGE bytes: 255 pass, 256 do not */
  char big[400];
  for (int n = 255; n <= 256; n++) {
    int len = snprintf(big, sizeof big, "{\"lease_token\":\"" LEASE "\",\"message\":\"");
    memset(big + len, 'm', (size_t)n);
    snprintf(big + len + n, sizeof big - (size_t)(len + n), "\"}");
    if (n == 256) {
      expect_refused(PASCAL_CODEC_FAIL, big, PASCAL_ERANGE, "message");
    } else {
      json_t *doc = load(big);
      pascal_codec_lease_request r;
      CHECK_INT(pascal_codec_lease_request_decode(PASCAL_CODEC_FAIL, doc, &r, NULL), PASCAL_OK);
      CHECK_INT(strlen(r.message), PASCAL_PLAN_MAX_MESSAGE);
      json_decref(doc);
    }
  }
  /* optional members given as null are absent */
  json_t *doc = load("{\"lease_token\":\"" LEASE "\",\"fill_bytes\":2,\"kernel_ns\":null}");
  pascal_codec_lease_request r;
  CHECK_INT(pascal_codec_lease_request_decode(PASCAL_CODEC_RESULT, doc, &r, NULL), PASCAL_OK);
  CHECK(r.fill_bytes == 2.0 && r.kernel_ns == 0.0);
  json_decref(doc);
}

static void test_reply_round_trips(void)
{
  pascal_codec_job job = {.id = 7,
                          .calibration = 3,
                          .lease_token = LEASE,
                          .lease_expires_at = "2026-11-21T10:00:00Z",
                          .lease_seconds = 60,
                          .attempt = 2,
                          .block_bytes = 16384};
  job.run.workload = PASCAL_PLAN_SCAN;
  job.run.key = (pascal_plan_key){.o = 2, .path = PASCAL_PLAN_TMA, .d = 4, .m = 8};
  job.run.N = 4096;
  job.run.W = 16;
  job.run.repeat = 3;
  pascal_codec_progress progress = {12, 756}, p;
  json_t *doc = NULL;
  CHECK_INT(pascal_codec_claim_reply_encode(&job, &progress, &doc, NULL), PASCAL_OK);
  json_t *j = json_object_get(doc, "job");
  CHECK(json_is_integer(json_object_get(j, "lease_seconds"))); /* 60, not 60.0 */
  CHECK(strcmp(json_string_value(json_object_get(j, "lease_expires_at")), "2026-11-21T10:00:00Z") ==
        0);
  CHECK_INT(json_integer_value(json_object_get(j, "attempt")), 2);
  CHECK_INT(json_integer_value(json_object_get(j, "calibration")), 3);
  pascal_codec_job back;
  int claimed = 0;
  CHECK_INT(pascal_codec_claim_reply_decode(doc, &back, &claimed, &p, NULL), PASCAL_OK);
  CHECK_INT(claimed, 1);
  CHECK_INT(back.id, 7);
  CHECK(strcmp(back.lease_token, LEASE) == 0);
  CHECK(back.lease_seconds == 60.0);
  CHECK_INT(back.block_bytes, 16384);
  CHECK(memcmp(&back.run, &job.run, sizeof job.run) == 0);
  CHECK_INT(p.done, 12);
  CHECK_INT(p.total, 756);
  json_decref(doc);

  /* GEMM, a fractional lease */
  memset(&job.run, 0, sizeof job.run);
  job.run.workload = PASCAL_PLAN_GEMM;
  job.run.shape = (pascal_plan_shape){1024, 512, 2048};
  job.lease_seconds = 2.5;
  CHECK_INT(pascal_codec_claim_reply_encode(&job, &progress, &doc, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_claim_reply_decode(doc, &back, &claimed, &p, NULL), PASCAL_OK);
  CHECK(memcmp(&back.run, &job.run, sizeof job.run) == 0);
  CHECK(back.lease_seconds == 2.5);
  json_decref(doc);

  /* nothing queued */
  CHECK_INT(pascal_codec_claim_reply_encode(NULL, &progress, &doc, NULL), PASCAL_OK);
  CHECK(json_is_null(json_object_get(doc, "job")));
  CHECK_INT(pascal_codec_claim_reply_decode(doc, &back, &claimed, &p, NULL), PASCAL_OK);
  CHECK_INT(claimed, 0);
  json_decref(doc);

  /* result / fail and heartbeat replies */
  CHECK_INT(pascal_codec_outcome_reply_encode(7, "queued", &progress, &doc, NULL), PASCAL_OK);
  CHECK(strcmp(json_string_value(json_object_get(json_object_get(doc, "job"), "state")),
               "queued") == 0);
  CHECK_INT(pascal_codec_progress_decode(doc, &p, NULL), PASCAL_OK);
  CHECK_INT(p.total, 756);
  json_decref(doc);
  CHECK_INT(pascal_codec_heartbeat_reply_encode("2026-11-21T10:01:00Z", 60, &doc, NULL), PASCAL_OK);
  CHECK_INT(json_integer_value(json_object_get(doc, "lease_seconds")), 60);
  json_decref(doc);
}

/* The one UTF-8-safe cut: exhaustive over where a 2-, 3- and 4-byte
 * character stands relative to the limit. */
static void test_utf8_cut(void)
{
  static const char *chars[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
  for (size_t c = 0; c < 3; c++) {
    size_t w = strlen(chars[c]);
    for (size_t pre = 0; pre < 8; pre++) {
      char text[32];
      memset(text, 'a', pre);
      snprintf(text + pre, sizeof text - pre, "%s", chars[c]);
      for (size_t max = 0; max <= pre + w; max++) {
        size_t want = max >= pre + w ? pre + w : (max < pre ? max : pre);
        CHECK_INT(pascal_utf8_prefix(text, max), want);
        char out[32];
        pascal_utf8_copy(out, max + 1, text);
        CHECK_INT(strlen(out), want);
      }
    }
  }
}

/* Member by member (the structs' padding is not part of the value). */
static int same_device(const pascal_codec_device *a, const pascal_codec_device *b)
{
  const pascal_peaks *p = &a->peaks, *q = &b->peaks;
  int same = !strcmp(a->name, b->name) && !strcmp(a->arch, b->arch) && a->sm_count == b->sm_count &&
             a->capacity_blocks == b->capacity_blocks && a->block_bytes == b->block_bytes &&
             !strcmp(a->cuda_name, b->cuda_name) && a->cc_major == b->cc_major &&
             a->cc_minor == b->cc_minor && a->l2_bytes == b->l2_bytes &&
             a->has_peaks == b->has_peaks && p->dram_bytes_per_s == q->dram_bytes_per_s &&
             p->l2_bytes_per_s == q->l2_bytes_per_s && p->tensor_flops == q->tensor_flops &&
             p->sm_clock_hz == q->sm_clock_hz && p->launch_s == q->launch_s &&
             a->has_capacity_probe == b->has_capacity_probe &&
             a->capacity_probe.waves == b->capacity_probe.waves &&
             a->capacity_probe.n == b->capacity_probe.n;
  for (size_t i = 0; same && i < a->capacity_probe.n; i++)
    same = a->capacity_probe.size_blocks[i] == b->capacity_probe.size_blocks[i] &&
           a->capacity_probe.fill_ratio[i] == b->capacity_probe.fill_ratio[i];
  return same;
}

static void test_device_and_errors(void)
{
  pascal_codec_device d = {.name = "h100",
                           .arch = "sm_90",
                           .sm_count = 132,
                           .capacity_blocks = 3062,
                           .block_bytes = 16384,
                           .cuda_name = "NVIDIA H100 80GB HBM3",
                           .cc_major = 9,
                           .cc_minor = 0,
                           .l2_bytes = 52428800,
                           .has_peaks = 1,
                           .peaks = {3.35e12, 1.1e13, 9.89e14, 1.98e9, 4.1e-6},
                           .has_capacity_probe = 1,
                           .capacity_probe = {4, 2, {100, 200}, {1.0 / 3, 2.5}}},
                      back;
  json_t *doc = NULL;
  CHECK_INT(pascal_codec_device_encode(&d, &doc, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_device_decode(doc, &back, NULL), PASCAL_OK);
  CHECK(same_device(&d, &back));
  json_t *wrapped = json_pack("{s:O}", "device", doc);
  memset(&back, 0, sizeof back);
  CHECK_INT(pascal_codec_device_decode(wrapped, &back, NULL), PASCAL_OK);
  CHECK(same_device(&d, &back));
  json_decref(wrapped);
  json_decref(doc);
  /* pascald's view of a device it knows little of */
  doc = load("{\"name\":\"gb10\",\"arch\":\"sim\",\"sm_count\":48,\"capacity_blocks\":1280,"
             "\"block_bytes\":16384,\"created_at\":\"2026-01-01T00:00:00Z\",\"cuda_name\":null,"
             "\"compute_capability\":null,\"l2_bytes\":null,\"peaks\":null,"
             "\"capacity_probe\":null,\"static_experiment\":null}");
  CHECK_INT(pascal_codec_device_decode(doc, &back, NULL), PASCAL_OK);
  CHECK(back.sm_count == 48 && !back.cuda_name[0] && !back.cc_major && !back.l2_bytes &&
        !back.has_peaks && !back.has_capacity_probe);
  pascal_error err;
  json_object_set_new(doc, "compute_capability", json_string("9"));
  CHECK_INT(pascal_codec_device_decode(doc, &back, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "compute_capability") == 0);
  json_object_set_new(doc, "compute_capability", json_null());
  json_object_set_new(doc, "peaks", json_pack("{s:f}", "dram_bytes_per_s", 1e9));
  CHECK_INT(pascal_codec_device_decode(doc, &back, &err), PASCAL_EMISSING);
  CHECK(strcmp(err.field, "peaks.l2_bytes_per_s") == 0);
  json_object_del(doc, "sm_count");
  CHECK_INT(pascal_codec_device_decode(doc, &back, &err), PASCAL_EMISSING);
  CHECK(strcmp(err.field, "sm_count") == 0);
  json_decref(doc);
  uint32_t major = 0, minor = 0;
  CHECK(pascal_codec_cc_parse("12.1", &major, &minor) == 0 && major == 12 && minor == 1);
  CHECK(pascal_codec_cc_parse("0.9", &major, &minor) == -1);
  CHECK(pascal_codec_cc_parse("123.1", &major, &minor) == -1);

  pascal_codec_api_error e;
  doc = load("{\"error\":{\"code\":\"stale_lease\",\"message\":\"the lease expired\","
             "\"field\":\"lease_token\"}}");
  CHECK_INT(pascal_codec_api_error_decode(doc, &e, NULL), PASCAL_OK);
  CHECK(strcmp(e.code, "stale_lease") == 0 && strcmp(e.message, "the lease expired") == 0 &&
        strcmp(e.field, "lease_token") == 0);
  json_decref(doc);
  doc = load("{\"error\":{\"code\":\"internal\",\"message\":\"x\",\"field\":null}}");
  CHECK_INT(pascal_codec_api_error_decode(doc, &e, NULL), PASCAL_OK);
  CHECK(e.field[0] == '\0');
  json_decref(doc);
  doc = load("{\"error\":{\"code\":\"internal\"}}");
  CHECK_INT(pascal_codec_api_error_decode(doc, &e, &err), PASCAL_EMISSING);
  CHECK(strcmp(err.field, "error.message") == 0);
  json_decref(doc);
}

int main(void)
{
  test_device_and_errors();
  test_request_round_trips();
  test_request_refusals();
  test_reply_round_trips();
  test_utf8_cut();
  return check_summary();
}

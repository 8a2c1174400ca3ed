/* test_agent_job.c - the agent's side of the jobs protocol (the shared
 * codec's claim reply, pascal_codec_jobs.h, and calibrator/agent/job.c's
 * bodies and description), the token loader (token.c) and the device
 * comparison (device.c): the example answers of api-spec/openapi.yaml parse to the expected
 * backend jobs; every malformed field is refused by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "device.h"
#include "job.h"
#include "token.h"

static json_t *load(const char *text)
{
  json_error_t e;
  json_t *j = json_loads(text, JSON_DECODE_ANY, &e);
  CHECK(j != NULL);
  return j;
}

static const char SCAN_CLAIM[] =
    "{\"job\":{\"id\":7,\"calibration\":3,\"lease_token\":\"ab12\",\"lease_expires_at\":"
    "\"2026-11-21T10:00:00Z\",\"lease_seconds\":60,\"attempt\":1,\"workload\":\"scan\","
    "\"block_bytes\":16384,\"run\":{\"o\":1,\"path\":\"tma\",\"d\":4,\"m\":8,\"N\":4096,"
    "\"W\":16,\"repeat\":0}},\"progress\":{\"done\":12,\"total\":756}}";

/* Read a claim answer that must hold a job. */
static void read_job(json_t *ans, pascal_codec_job *j)
{
  int claimed = 0;
  pascal_codec_progress p;
  pascal_error err;
  pascal_error_clear(&err);
  CHECK_INT(pascal_codec_claim_reply_decode(ans, j, &claimed, &p, &err), PASCAL_OK);
  if (err.status)
    fprintf(stderr, "  refused: %s: %s\n", err.field, err.message);
  CHECK_INT(claimed, 1);
}

static void test_scan_claim(void)
{
  json_t *ans = load(SCAN_CLAIM);
  pascal_codec_job j;
  read_job(ans, &j);
  CHECK_INT(j.id, 7);
  CHECK(strcmp(j.lease_token, "ab12") == 0);
  CHECK_NEAR(j.lease_seconds, 60, 0);
  CHECK_INT(j.run.workload, PASCAL_PLAN_SCAN);
  CHECK_INT(j.run.key.o, 1);
  CHECK_INT(j.run.key.path, PASCAL_PLAN_TMA);
  CHECK_INT(j.run.key.d, 4);
  CHECK_INT(j.run.key.m, 8);
  CHECK_INT(j.run.N, 4096);
  CHECK_INT(j.run.W, 16);
  CHECK_INT(j.run.repeat, 0);
  CHECK_INT(j.block_bytes, 16384);
  char d[160];
  agent_job_describe(&j, d, sizeof d);
  CHECK(strcmp(d, "job 7 scan o=1 tma d=4 m=8 N=4096 W=16 repeat 0") == 0);
  pascal_codec_progress p = {-1, -1};
  CHECK_INT(pascal_codec_progress_decode(ans, &p, NULL), PASCAL_OK);
  CHECK_INT(p.done, 12);
  CHECK_INT(p.total, 756);

  pascal_backend_result res = {.fill_bytes = 1.2e9, .kernel_ns = 3.4e6};
  json_t *body = agent_job_body(&j, PASCAL_CODEC_RESULT, &res, NULL);
  CHECK(strcmp(json_string_value(json_object_get(body, "lease_token")), "ab12") == 0);
  CHECK_NEAR(json_real_value(json_object_get(body, "fill_bytes")), 1.2e9, 0);
  CHECK_NEAR(json_real_value(json_object_get(body, "kernel_ns")), 3.4e6, 0);
  CHECK_INT(json_object_size(body), 3);
  json_decref(body);
  body = agent_job_body(&j, PASCAL_CODEC_HEARTBEAT, NULL, NULL);
  CHECK(body && json_object_size(body) == 1);
  json_decref(body);
  body = agent_job_body(&j, PASCAL_CODEC_FAIL, NULL, "agent stopping");
  CHECK(strcmp(json_string_value(json_object_get(body, "message")), "agent stopping") == 0);
  json_decref(body);
  body = agent_job_body(&j, PASCAL_CODEC_FAIL, NULL, "bad \xff utf-8");
  CHECK(body == NULL); /* the caller substitutes a printable reason */
  /* a reason longer than pascald accepts is cut to 255 bytes, never inside
   * a UTF-8 sequence: 254 'a' then "\xc3\xa9" (e-acute) straddles byte 255 */
  char longer[400];
  memset(longer, 'a', 254);
  snprintf(longer + 254, sizeof longer - 254, "\xc3\xa9 and more text after the limit");
  body = agent_job_body(&j, PASCAL_CODEC_FAIL, NULL, longer);
  CHECK(body != NULL);
  const char *m = json_string_value(json_object_get(body, "message"));
  CHECK(m && strlen(m) == 254 && strspn(m, "a") == 254);
  json_decref(body);
  longer[253] = '\0'; /* short enough: sent whole */
  body = agent_job_body(&j, PASCAL_CODEC_FAIL, NULL, longer);
  CHECK(body && strlen(json_string_value(json_object_get(body, "message"))) == 253);
  json_decref(body);
  json_decref(ans);
}

static void test_gemm_and_idle(void)
{
  json_t *ans =
      load("{\"job\":{\"id\":9,\"lease_token\":\"x\",\"lease_seconds\":2.5,"
           "\"workload\":\"gemm\",\"block_bytes\":16384,\"run\":{\"Mg\":1024,"
           "\"Ng\":512,\"Kg\":2048,\"repeat\":1}},\"progress\":{\"done\":0,\"total\":120}}");
  pascal_codec_job j;
  read_job(ans, &j);
  CHECK_INT(j.run.workload, PASCAL_PLAN_GEMM);
  CHECK_INT(j.run.shape.Mg, 1024);
  CHECK_INT(j.run.shape.Ng, 512);
  CHECK_INT(j.run.shape.Kg, 2048);
  CHECK_INT(j.run.repeat, 1);
  CHECK_NEAR(j.lease_seconds, 2.5, 0);
  json_decref(ans);

  pascal_codec_progress p;
  int claimed = 1;
  ans = load("{\"job\":null,\"progress\":{\"done\":5,\"total\":5}}");
  CHECK_INT(pascal_codec_claim_reply_decode(ans, &j, &claimed, &p, NULL), PASCAL_OK);
  CHECK_INT(claimed, 0);
  CHECK_INT(p.done, 5);
  json_decref(ans);
  const char *bad_progress[] = {"{}", "{\"progress\":{\"done\":6,\"total\":5}}",
                                "{\"progress\":{\"done\":-1,\"total\":5}}",
                                "{\"progress\":{\"done\":1.0,\"total\":5}}"};
  for (size_t i = 0; i < 4; i++) {
    ans = load(bad_progress[i]);
    CHECK(pascal_codec_progress_decode(ans, &p, NULL) != PASCAL_OK);
    json_decref(ans);
  }
}

/* Replace one member of the example job (json text) and expect a refusal
 * that names `field`. */
static void expect_refused(const char *key, const char *where, const char *value, const char *field,
                           long long want_id)
{
  json_t *ans = load(SCAN_CLAIM);
  json_t *job = json_object_get(ans, "job");
  json_t *target = strcmp(where, "run") == 0 ? json_object_get(job, "run") : job;
  if (value)
    json_object_set_new(target, key, load(value));
  else
    json_object_del(target, key);
  pascal_codec_job j;
  int claimed = 0;
  pascal_codec_progress p;
  pascal_error err;
  pascal_error_clear(&err);
  CHECK(pascal_codec_claim_reply_decode(ans, &j, &claimed, &p, &err) != PASCAL_OK);
  CHECK(strcmp(err.field, field) == 0);
  if (strcmp(err.field, field) != 0)
    fprintf(stderr, "  field was: %s (want %s): %s\n", err.field, field, err.message);
  CHECK_INT(j.id, want_id);
  json_decref(ans);
}

static void test_refusals(void)
{
  expect_refused("id", "job", NULL, "job.id", 0);
  expect_refused("id", "job", "0", "job.id", 0);
  expect_refused("id", "job", "\"7\"", "job.id", 0);
  expect_refused("lease_token", "job", "\"\"", "job.lease_token", 0);
  expect_refused("lease_seconds", "job", "0", "job.lease_seconds", 7);
  expect_refused("block_bytes", "job", "-5", "job.block_bytes", 7);
  expect_refused("workload", "job", "\"fft\"", "job.workload", 7);
  expect_refused("run", "job", "[]", "job.run", 7);
  expect_refused("path", "run", "\"dma\"", "job.run.path", 7);
  expect_refused("d", "run", "0", "job.run.d", 7); /* tma needs d >= 1 */
  expect_refused("o", "run", "0", "job.run.o", 7);
  expect_refused("N", "run", "1e3", "job.run.N", 7); /* reals are not counts */
  expect_refused("W", "run", NULL, "job.run.W", 7);
  expect_refused("m", "run", "-1", "job.run.m", 7);
  expect_refused("repeat", "run", "null", "job.run.repeat", 7);
  /* the plan's limits are the protocol's: m <= PASCAL_PLAN_MAX_COMPUTE */
  expect_refused("m", "run", "1000001", "job.run.m", 7);
  /* sync with a depth is inconsistent */
  expect_refused("path", "run", "\"sync\"", "job.run.d", 7);
}

static void test_tokens(void)
{
  char tok[AGENT_TOKEN_MAX], msg[256];
  char path[] = "/tmp/pascal-agent-token-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("  0123abcd\n", f);
  fclose(f);
  CHECK_INT(agent_token_load(path, "ignored", tok, msg, sizeof msg), 0);
  CHECK(strcmp(tok, "0123abcd") == 0);
  CHECK_INT(agent_token_load(NULL, "fromenv\n", tok, msg, sizeof msg), 0);
  CHECK(strcmp(tok, "fromenv") == 0);
  CHECK_INT(agent_token_load(NULL, NULL, tok, msg, sizeof msg), -1);
  CHECK(strstr(msg, "PASCAL_TOKEN") != NULL);
  CHECK_INT(agent_token_load(NULL, " \n", tok, msg, sizeof msg), -1);
  CHECK(strstr(msg, "empty") != NULL);
  CHECK_INT(agent_token_load(NULL, "two words", tok, msg, sizeof msg), -1);
  CHECK_INT(agent_token_load("/nonexistent/tok", NULL, tok, msg, sizeof msg), -1);
  CHECK(strstr(msg, "/nonexistent/tok") != NULL);
  char big[400];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  CHECK_INT(agent_token_load(NULL, big, tok, msg, sizeof msg), -1);
  CHECK(strstr(msg, "longer") != NULL);
  f = fopen(path, "w");
  fputs(big, f);
  fclose(f);
  CHECK_INT(agent_token_load(path, NULL, tok, msg, sizeof msg), -1);
  CHECK(strstr(msg, "longer") != NULL);
  big[AGENT_TOKEN_MAX - 1] = '\0'; /* the longest token that fits */
  CHECK_INT(agent_token_load(NULL, big, tok, msg, sizeof msg), 0);
  CHECK_INT(strlen(tok), AGENT_TOKEN_MAX - 1);
  unlink(path);
}

/* agent_device_compare of the server's device document `text` with the
 * backend device `dev` named `name`. */
static int compare_text(const char *text, const pascal_backend_device *dev, const char *name,
                        char *msg, size_t msglen)
{
  json_t *got = load(text);
  pascal_codec_device want;
  agent_device_of(dev, name, &want);
  int rc = agent_device_compare(got, &want, msg, msglen);
  json_decref(got);
  return rc;
}

static void test_device_compare(void)
{
  pascal_backend_device dev = {.name = "sim-gb10",
                               .arch = "sim",
                               .sm_count = 48,
                               .capacity_blocks = 1280,
                               .block_bytes = 16384};
  json_t *want = agent_device_body(&dev, "gb10");
  CHECK(strcmp(json_string_value(json_object_get(want, "name")), "gb10") == 0);
  json_decref(want);
  char msg[256];
  CHECK_INT(compare_text("{\"device\":{\"name\":\"gb10\",\"arch\":\"sim\",\"sm_count\":48,"
                         "\"capacity_blocks\":1280,\"block_bytes\":16384,\"created_at\":\"x\"}}",
                         &dev, "gb10", msg, sizeof msg),
            0);
  CHECK_INT(compare_text("{\"name\":\"gb10\",\"arch\":\"sim\",\"sm_count\":48,"
                         "\"capacity_blocks\":1280,\"block_bytes\":16384}",
                         &dev, "gb10", msg, sizeof msg),
            0);
  CHECK_INT(compare_text("{\"name\":\"gb10\",\"arch\":\"sim\",\"sm_count\":48,"
                         "\"capacity_blocks\":2048,\"block_bytes\":16384}",
                         &dev, "gb10", msg, sizeof msg),
            -1);
  CHECK(strstr(msg, "capacity_blocks") != NULL && strstr(msg, "2048") != NULL);
  /* a reply the codec cannot read is a difference, said so */
  CHECK_INT(compare_text("{\"name\":\"gb10\",\"arch\":\"sim\",\"sm_count\":\"48\","
                         "\"capacity_blocks\":1280,\"block_bytes\":16384}",
                         &dev, "gb10", msg, sizeof msg),
            -1);
  CHECK(strstr(msg, "cannot be read") != NULL && strstr(msg, "sm_count") != NULL);

  /* The CUDA identity is sent when known and compared where both know it. */
  pascal_backend_device gpu = dev;
  snprintf(gpu.cuda_name, sizeof gpu.cuda_name, "NVIDIA H100 80GB HBM3");
  gpu.cc_major = 9;
  gpu.cc_minor = 0;
  gpu.l2_bytes = 52428800;
  want = agent_device_body(&gpu, "h100");
  CHECK(strcmp(json_string_value(json_object_get(want, "cuda_name")), "NVIDIA H100 80GB HBM3") ==
        0);
  CHECK(strcmp(json_string_value(json_object_get(want, "compute_capability")), "9.0") == 0);
  CHECK_INT(json_integer_value(json_object_get(want, "l2_bytes")), 52428800);
  CHECK_INT(compare_text("{\"name\":\"h100\",\"arch\":\"sim\",\"sm_count\":48,"
                         "\"capacity_blocks\":1280,\"block_bytes\":16384,\"cuda_name\":null,"
                         "\"compute_capability\":null,\"l2_bytes\":null}",
                         &gpu, "h100", msg, sizeof msg),
            0);
  CHECK_INT(compare_text("{\"name\":\"h100\",\"arch\":\"sim\",\"sm_count\":48,"
                         "\"capacity_blocks\":1280,\"block_bytes\":16384,"
                         "\"cuda_name\":\"NVIDIA H200\",\"compute_capability\":\"9.0\"}",
                         &gpu, "h100", msg, sizeof msg),
            -1);
  CHECK(strstr(msg, "cuda_name") != NULL && strstr(msg, "NVIDIA H200") != NULL);
  CHECK_INT(compare_text("{\"name\":\"h100\",\"arch\":\"sim\",\"sm_count\":48,"
                         "\"capacity_blocks\":1280,\"block_bytes\":16384,"
                         "\"compute_capability\":\"9.1\",\"l2_bytes\":52428800}",
                         &gpu, "h100", msg, sizeof msg),
            -1);
  CHECK(strstr(msg, "compute_capability: server has 9.1, backend has 9.0") != NULL);
  json_decref(want);
  /* a backend that knows nothing of it sends nothing */
  want = agent_device_body(&dev, "gb10");
  CHECK(json_object_get(want, "cuda_name") == NULL && json_object_get(want, "l2_bytes") == NULL);
  CHECK(json_object_get(want, "peaks") == NULL);
  json_decref(want);

  /* Peaks are sent when known and compared where both know them. */
  pascal_backend_device sim = dev;
  sim.has_peaks = 1;
  sim.peaks = (pascal_peaks){273e9, 1.92e12, 6.5536e12, 1e9, 2e-6};
  want = agent_device_body(&sim, "gb10");
  json_t *peaks = json_object_get(want, "peaks");
  CHECK(json_real_value(json_object_get(peaks, "l2_bytes_per_s")) == 1.92e12);
  CHECK(json_real_value(json_object_get(peaks, "launch_s")) == 2e-6);
  json_t *agrees = load("{\"name\":\"gb10\",\"arch\":\"sim\",\"sm_count\":48,"
                        "\"capacity_blocks\":1280,\"block_bytes\":16384,\"peaks\":{"
                        "\"dram_bytes_per_s\":273e9,\"l2_bytes_per_s\":1.92e12,"
                        "\"tensor_flops\":6.5536e12,\"sm_clock_hz\":1e9,\"launch_s\":2e-6}}");
  pascal_codec_device sim_want;
  agent_device_of(&sim, "gb10", &sim_want);
  CHECK_INT(agent_device_compare(agrees, &sim_want, msg, sizeof msg), 0);
  json_object_set_new(json_object_get(agrees, "peaks"), "launch_s", json_real(3e-6));
  CHECK_INT(agent_device_compare(agrees, &sim_want, msg, sizeof msg), -1);
  CHECK(strstr(msg, "peaks") != NULL);
  CHECK_INT(compare_text("{\"name\":\"gb10\",\"arch\":\"sim\",\"sm_count\":48,"
                         "\"capacity_blocks\":1280,\"block_bytes\":16384,\"peaks\":null}",
                         &sim, "gb10", msg, sizeof msg),
            0);
  json_decref(agrees);
  json_decref(want);
}

int main(void)
{
  test_scan_claim();
  test_gemm_and_idle();
  test_refusals();
  test_tokens();
  test_device_compare();
  return check_summary();
}

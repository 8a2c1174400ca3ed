/*
 * fuzz_jobs.c - the job protocol (claim, heartbeat, result, fail) driven by
 * any bytes against the in-process daemon and its real SQLite store. The
 * input is up to 16 lines; in each line
 *   byte 0   the call: 'c' claim, 'h' heartbeat, 'r' result, 'f' fail
 *            (any other byte picks one by its value);
 *   byte 1   the token: 'a' agent, 'A' admin, '-' none, else a made-up one;
 *   the rest the JSON body, where "$L" stands for the lease token of the
 *            last claim and "$J" for its job id; a line starting "#<n> "
 *            after the two bytes sends to job <n> instead of the last one.
 * "$L" lets inputs reach the paths behind a valid lease (results, retries,
 * failures, bounded attempts) that random bytes never would. When the
 * device's jobs run out a new calibration is created. Asserted: no answer
 * is a 5xx, whatever the order of calls.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_daemon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char DEVICE[] =
    "{\"name\":\"fz-dev\",\"arch\":\"sim\",\"sm_count\":4,\"capacity_blocks\":256,"
    "\"block_bytes\":16384}";
static const char CALIBRATION[] =
    "{\"device\":\"fz-dev\",\"plan\":{\"format\":\"pascal-plan/1\",\"workload\":\"scan\","
    "\"sizes\":[512,1024],\"horizons\":[1,4,16],\"repeats\":20,"
    "\"keys\":[{\"o\":1,\"path\":\"tma\",\"d\":2,\"m\":0},{\"o\":1,\"path\":\"sync\",\"d\":0,\"m\":"
    "1}]}}";

static char lease[160] = "00000000000000000000000000000000";
static long long job_id = 1;

static void setup(fz_daemon *d)
{
  static int done;
  if (done)
    return;
  char answer[512];
  unsigned st = fz_http(d, "POST", "/v1/devices", DEVICE, sizeof DEVICE - 1, fz_admin_token(d),
                        answer, sizeof answer);
  fz_require_no_5xx(st, "POST /v1/devices", answer);
  st = fz_http(d, "POST", "/v1/calibrations", CALIBRATION, sizeof CALIBRATION - 1,
               fz_admin_token(d), answer, sizeof answer);
  fz_require_no_5xx(st, "POST /v1/calibrations", answer);
  done = 1;
}

/* Remember the lease of a successful claim; a claim that found nothing
 * queued makes a new calibration for the next inputs. */
static void note_claim(fz_daemon *d, const char *answer)
{
  json_t *a = json_loads(answer, 0, NULL);
  json_t *job = a ? json_object_get(a, "job") : NULL;
  if (json_is_object(job)) {
    const char *t = json_string_value(json_object_get(job, "lease_token"));
    if (t)
      snprintf(lease, sizeof lease, "%s", t);
    job_id = (long long)json_integer_value(json_object_get(job, "id"));
  } else if (json_is_null(job)) {
    char tmp[512];
    unsigned st = fz_http(d, "POST", "/v1/calibrations", CALIBRATION, sizeof CALIBRATION - 1,
                          fz_admin_token(d), tmp, sizeof tmp);
    fz_require_no_5xx(st, "POST /v1/calibrations", tmp);
  }
  json_decref(a);
}

/* body with "$L" and "$J" replaced, into out[outlen]; returns its length. */
static size_t expand(const char *in, size_t n, char *out, size_t outlen)
{
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < outlen; i++) {
    const char *sub = NULL;
    char num[32];
    if (in[i] == '$' && i + 1 < n && in[i + 1] == 'L')
      sub = lease;
    if (in[i] == '$' && i + 1 < n && in[i + 1] == 'J') {
      snprintf(num, sizeof num, "%lld", job_id);
      sub = num;
    }
    if (sub) {
      size_t m = strlen(sub);
      if (k + m >= outlen)
        break;
      memcpy(out + k, sub, m);
      k += m;
      i++;
    } else {
      out[k++] = in[i];
    }
  }
  out[k] = '\0';
  return k;
}

static void one_call(fz_daemon *d, const char *line, size_t n)
{
  static const char *const calls[] = {"claim", "heartbeat", "result", "fail"};
  static char body[8192];
  char target[96], answer[2048];
  if (n < 2)
    return;
  int which = line[0] == 'c'   ? 0
              : line[0] == 'h' ? 1
              : line[0] == 'r' ? 2
              : line[0] == 'f' ? 3
                               : (uint8_t)line[0] % 4;
  const char *token = line[1] == 'a'   ? fz_agent_token(d)
                      : line[1] == 'A' ? fz_admin_token(d)
                      : line[1] == '-'
                          ? NULL
                          : "pasc_0000000000000000000000000000000000000000000000000000000000000000";
  const char *rest = line + 2;
  size_t left = n - 2;
  long long id = job_id;
  if (left > 1 && rest[0] == '#') { /* the input is not NUL-terminated: no strtoll */
    size_t k = 1;
    long long num = 0;
    while (k < left && k < 16 && rest[k] >= '0' && rest[k] <= '9')
      num = num * 10 + (rest[k++] - '0');
    if (k > 1 && k < left && rest[k] == ' ') {
      id = num;
      left -= k + 1;
      rest += k + 1;
    }
  }
  if (which == 0)
    snprintf(target, sizeof target, "/v1/jobs/claim");
  else
    snprintf(target, sizeof target, "/v1/jobs/%lld/%s", id, calls[which]);
  size_t len = expand(rest, left, body, sizeof body);
  unsigned st = fz_http(d, "POST", target, body, len, token, answer, sizeof answer);
  fz_require_no_5xx(st, target, answer);
  if (which == 0 && st == 200)
    note_claim(d, answer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_daemon *d = fz_daemon_get();
  setup(d);
  const char *p = (const char *)data, *end = p + size;
  for (int lines = 0; p < end && lines < 16; lines++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    one_call(d, p, n);
    p += n + (nl ? 1 : 0);
  }
  return 0;
}

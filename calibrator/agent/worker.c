/*
 * worker.c - the job loop (worker.h): claim -> run with heartbeats -> upload
 * or report the failure. The backend runs in a runner thread so that this
 * thread stays free to heartbeat the lease (every lease_seconds / 4) and to
 * notice a second stop signal, on which the job is released (reported as
 * failed with "agent stopping", so the server requeues it).
 */
#include "worker.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "exitcode.h"
#include "job.h"
#include "next_step.h"

typedef struct worker {
  agent_ctx *ctx;
  agent_client client;
  pascal_backend *backend;
  int lease_lost; /* a heartbeat was refused with 409: the job is someone else's */
} worker;

/* The backend call, run in its own thread. Heap-allocated: when the agent
 * abandons a run (second signal) the process exits without joining it. */
typedef struct runner {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int finished;
  const pascal_backend_ops *ops;
  pascal_backend *backend;
  pascal_backend_job job;
  pascal_backend_result result;
  pascal_status status;
  pascal_error err;
} runner;

typedef enum run_outcome { RUN_DONE, RUN_FAILED, RUN_ABANDONED } run_outcome;

static void *runner_main(void *arg)
{
  runner *r = arg;
  pascal_backend_result res = {0};
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st = r->ops->run(r->backend, &r->job, &res, &err);
  pthread_mutex_lock(&r->mu);
  r->result = res;
  r->status = st;
  r->err = err;
  r->finished = 1;
  pthread_cond_signal(&r->cv);
  pthread_mutex_unlock(&r->mu);
  return NULL;
}

static runner *runner_new(const pascal_backend_ops *ops, pascal_backend *b,
                          const pascal_backend_job *job)
{
  runner *r = calloc(1, sizeof *r);
  pthread_condattr_t attr;
  if (!r || pthread_condattr_init(&attr) != 0) {
    free(r);
    return NULL;
  }
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  int ok = pthread_mutex_init(&r->mu, NULL) == 0;
  if (ok && pthread_cond_init(&r->cv, &attr) != 0) {
    pthread_mutex_destroy(&r->mu);
    ok = 0;
  }
  pthread_condattr_destroy(&attr);
  if (!ok) {
    free(r);
    return NULL;
  }
  r->ops = ops;
  r->backend = b;
  r->job = *job;
  return r;
}

static void runner_free(runner *r)
{
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
  free(r);
}

static void job_path(char *buf, size_t n, const pascal_codec_job *job, const char *verb)
{
  snprintf(buf, n, "/v1/jobs/%lld/%s", (long long)job->id, verb);
}

/* One heartbeat, no retries (the next one comes soon). A 409 means the lease
 * is gone: the job was requeued to someone else. */
static void heartbeat(worker *w, const pascal_codec_job *job)
{
  char path[64];
  job_path(path, sizeof path, job, "heartbeat");
  json_t *body = agent_job_body(job, PASCAL_CODEC_HEARTBEAT, NULL, NULL);
  agent_reply r;
  agent_http_call(&w->client.http, "POST", path, body, &r);
  if (r.status == 409) {
    w->lease_lost = 1;
    agent_ui_log(&w->ctx->ui, "job %lld: lease lost (%s); its result will be discarded",
                 (long long)job->id, r.reason);
  } else if (r.status != 200) {
    agent_ui_log(&w->ctx->ui, "job %lld: heartbeat failed (%s%s); will try again",
                 (long long)job->id, r.status ? "" : "server unreachable: ", r.reason);
  }
  agent_reply_free(&r);
  json_decref(body);
}

static void wait_until(runner *r, double until_s)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  double wait = until_s - now;
  if (wait <= 0.0)
    return;
  double whole = floor(wait);
  ts.tv_sec += (time_t)whole;
  ts.tv_nsec += (long)((wait - whole) * 1e9);
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1000000000L;
  }
  pthread_cond_timedwait(&r->cv, &r->mu, &ts);
}

/* Run the job on the backend while heartbeating. RUN_DONE fills `res`;
 * RUN_FAILED puts the reason in `why`; RUN_ABANDONED: second signal, the
 * runner thread is left behind (the process is about to exit). */
static run_outcome execute(worker *w, const pascal_codec_job *job, pascal_backend_result *res,
                           char *why, size_t whylen)
{
  const pascal_backend_job run = {.run = job->run, .block_bytes = job->block_bytes};
  runner *r = runner_new(w->ctx->ops, w->backend, &run);
  pthread_t tid;
  if (!r || pthread_create(&tid, NULL, runner_main, r) != 0) {
    if (r)
      runner_free(r);
    snprintf(why, whylen, "agent could not start a runner thread");
    return RUN_FAILED;
  }
  /* A lease counted in whole seconds may last only lease_seconds - 1: a
   * quarter of the nominal length leaves room for a late or lost beat. */
  const double interval = fmax(job->lease_seconds / 4.0, 0.05);
  double next_beat = agent_now_s() + interval;
  pthread_mutex_lock(&r->mu);
  while (!r->finished) {
    if (agent_stop_level(w->ctx) >= 2) {
      pthread_mutex_unlock(&r->mu);
      pthread_detach(tid);
      return RUN_ABANDONED;
    }
    double now = agent_now_s();
    if (now >= next_beat) {
      pthread_mutex_unlock(&r->mu);
      heartbeat(w, job);
      next_beat = agent_now_s() + interval;
      pthread_mutex_lock(&r->mu);
      continue;
    }
    wait_until(r, fmin(next_beat, now + 0.1));
  }
  pthread_mutex_unlock(&r->mu);
  pthread_join(tid, NULL);
  run_outcome out = RUN_DONE;
  if (r->status != PASCAL_OK) {
    snprintf(why, whylen, "backend %s: %s%s%s", w->ctx->ops->name, r->err.message,
             r->err.field[0] ? " (field " : "", r->err.field[0] ? r->err.field : "");
    if (r->err.field[0])
      strncat(why, ")", whylen - strlen(why) - 1);
    out = RUN_FAILED;
  } else if (!(r->result.fill_bytes > 0.0) || !isfinite(r->result.fill_bytes) ||
             !(r->result.kernel_ns > 0.0) || !isfinite(r->result.kernel_ns)) {
    /* A failed measurement is an error, never a zero (backend.h). */
    snprintf(why, whylen, "backend %s returned fill_bytes=%g kernel_ns=%g (both must be > 0)",
             w->ctx->ops->name, r->result.fill_bytes, r->result.kernel_ns);
    out = RUN_FAILED;
  } else {
    *res = r->result;
  }
  runner_free(r);
  return out;
}

/* POST body to /v1/jobs/ID/verb with retries. 0: accepted (200), 1: refused
 * with 409 (lease lost: logged), 2: a result refused with 422 (the server
 * found the measurement implausible; its reason is in `refusal`, which only
 * a result passes), -1: fatal (recorded). `event` is shown with the
 * progress when accepted. */
static int post_outcome(worker *w, const pascal_codec_job *job, const char *verb, json_t *body,
                        const char *event, char *refusal, size_t refusal_len)
{
  char path[64], what[64];
  job_path(path, sizeof path, job, verb);
  snprintf(what, sizeof what, "job %lld %s", (long long)job->id, verb);
  if (!body) {
    agent_ui_log(&w->ctx->ui, "%s: out of memory", what);
    agent_fatal(w->ctx, AGENT_EXIT_FAILURE);
    return -1;
  }
  agent_reply r;
  agent_client_call(&w->client, what, "POST", path, body, 2, &r);
  json_decref(body);
  int rc = 0;
  pascal_codec_progress p;
  if (r.status == 200) {
    if (pascal_codec_progress_decode(r.body, &p, NULL) == PASCAL_OK)
      agent_ui_progress(&w->ctx->ui, (long)p.done, (long)p.total, event);
    else
      agent_ui_log(&w->ctx->ui, "%s", event);
  } else if (r.status == 409) {
    agent_ui_log(&w->ctx->ui,
                 "%s refused (%s): the job is no longer this agent's (lease lost, "
                 "requeued or done elsewhere)",
                 what, r.reason);
    rc = 1;
  } else if (r.status == 422 && refusal) {
    snprintf(refusal, refusal_len, "the server refused the result (%s)", r.reason);
    rc = 2;
  } else {
    agent_fatal(w->ctx, agent_client_fatal(&w->client, what, &r, 0));
    rc = -1;
  }
  agent_reply_free(&r);
  return rc;
}

static int report_failure(worker *w, const pascal_codec_job *job, const char *why)
{
  char event[512];
  snprintf(event, sizeof event, "job %lld failed: %s (reported)", (long long)job->id, why);
  json_t *body = agent_job_body(job, PASCAL_CODEC_FAIL, NULL, why);
  if (!body) /* a reason that is not valid UTF-8 cannot go into JSON */
    body = agent_job_body(job, PASCAL_CODEC_FAIL, NULL, "backend failed (reason not printable)");
  return post_outcome(w, job, "fail", body, event, NULL, 0);
}

/* Run one claimed job to its end. -1 when the worker must stop, -2 when it
 * also left its runner thread behind (second signal). */
static int handle_job(worker *w, const pascal_codec_job *job)
{
  char desc[160], why[400], event[512];
  agent_job_describe(job, desc, sizeof desc);
  w->lease_lost = 0;
  if (!w->ctx->ui.tty) /* plain log: one line per claim, one per outcome */
    agent_ui_log(&w->ctx->ui, "%s claimed (lease %g s)", desc, job->lease_seconds);
  pascal_backend_result res = {0};
  run_outcome out = execute(w, job, &res, why, sizeof why);
  if (out == RUN_ABANDONED) {
    report_failure(w, job, "agent stopping");
    agent_ui_log(&w->ctx->ui, "%s released (stopping)", desc);
    pthread_mutex_lock(&w->ctx->mu);
    w->ctx->abandoned = 1;
    pthread_mutex_unlock(&w->ctx->mu);
    return -2;
  }
  if (w->lease_lost) {
    agent_ui_log(&w->ctx->ui, "%s finished after its lease was lost; result discarded", desc);
    return 0;
  }
  if (out == RUN_FAILED)
    return report_failure(w, job, why) < 0 ? -1 : 0;
  const pascal_plan_run *run = &job->run;
  double reads = run->workload != PASCAL_PLAN_GEMM /* scan, attention: b W N (+ queries) */
                     ? (double)job->block_bytes * (double)run->W * (double)run->N
                     : 0.0;
  if (reads > 0.0)
    snprintf(event, sizeof event, "%s done: fill_bytes %.6g (K = %.3f), kernel %.3f ms", desc,
             res.fill_bytes, res.fill_bytes / reads, res.kernel_ns * 1e-6);
  else
    snprintf(event, sizeof event, "%s done: fill_bytes %.6g, kernel %.3f ms%s%s", desc,
             res.fill_bytes, res.kernel_ns * 1e-6, res.note[0] ? " (" : "",
             res.note[0] ? res.note : "");
  if (res.note[0])
    strncat(event, ")", sizeof event - strlen(event) - 1);
  int posted = post_outcome(w, job, "result", agent_job_body(job, PASCAL_CODEC_RESULT, &res, NULL),
                            event, why, sizeof why);
  /* A refused measurement is this run's failure, not the agent's: reported,
   * so that the job is tried again (or fails its calibration after its last
   * attempt) instead of staying leased, and the agent goes on. */
  if (posted == 2)
    return report_failure(w, job, why) < 0 ? -1 : 0;
  return posted < 0 ? -1 : 0;
}

/* Every run of the device is measured: say so, and name the freeze call of
 * each calibration that is ready (its id from the server's list). */
static void announce_next_step(worker *w, long done)
{
  agent_ctx *ctx = w->ctx;
  char path[128], text[2048];
  snprintf(path, sizeof path, "/v1/calibrations?device=%s", ctx->args->device);
  agent_reply r;
  agent_client_call(&w->client, "calibrations", "GET", path, NULL, 1, &r);
  agent_next_step_text(r.status == 200 ? r.body : NULL, ctx->args->server, ctx->args->device, done,
                       text, sizeof text);
  agent_reply_free(&r);
  agent_ui_announce(&ctx->ui, text);
}

/* One claim. 1: a job is in `job`; 0: nothing queued (progress updated);
 * -1: stop (fatal recorded, or --until-idle and all done). */
static int claim(worker *w, pascal_codec_job *job, int *idle_logged)
{
  agent_ctx *ctx = w->ctx;
  pascal_codec_claim request;
  json_t *body = NULL;
  snprintf(request.device, sizeof request.device, "%s", ctx->args->device);
  snprintf(request.agent, sizeof request.agent, "%s", ctx->name);
  if (pascal_codec_claim_encode(&request, &body, NULL) != PASCAL_OK) {
    agent_fatal(ctx, AGENT_EXIT_FAILURE);
    return -1;
  }
  agent_reply r;
  agent_client_call(&w->client, "claim", "POST", "/v1/jobs/claim", body, 1, &r);
  json_decref(body);
  int rc = -1, claimed = 0;
  pascal_codec_progress p = {0, 0};
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st = r.status == 200
                         ? pascal_codec_claim_reply_decode(r.body, job, &claimed, &p, &err)
                         : PASCAL_OK;
  long done = (long)p.done, total = (long)p.total;
  if (r.status != 200) {
    agent_fatal(ctx, agent_client_fatal(&w->client, "claim", &r, 1));
  } else if (st != PASCAL_OK && strncmp(err.field, "progress", 8) == 0) {
    agent_ui_log(&ctx->ui, "claim: answer without a valid progress object (%s)", err.message);
    agent_fatal(ctx, AGENT_EXIT_PROTOCOL);
  } else if (st != PASCAL_OK) {
    agent_ui_log(&ctx->ui, "claim: the server sent a job the agent cannot read (%s: %s)", err.field,
                 err.message);
    if (job->id > 0) { /* tell the server, so the job is not stuck until its lease runs out */
      char why[400];
      snprintf(why, sizeof why, "agent cannot read the job: %s: %s", err.field, err.message);
      report_failure(w, job, why);
    }
    agent_fatal(ctx, AGENT_EXIT_PROTOCOL);
  } else if (!claimed) {
    agent_ui_progress(&ctx->ui, done, total, NULL);
    if (agent_ui_first_complete(&ctx->ui))
      announce_next_step(w, done);
    if (ctx->args->until_idle && done == total) {
      agent_ui_log(&ctx->ui, "no job left for device '%s' (%ld/%ld done); exiting (--until-idle)",
                   ctx->args->device, done, total);
    } else {
      if (!*idle_logged && done == total && total > 0)
        agent_ui_log(&ctx->ui,
                     "idle: every run of device '%s' is measured (%ld/%ld); waiting for new "
                     "jobs, polling every %g s (Ctrl-C stops)",
                     ctx->args->device, done, total, ctx->args->poll_s);
      else if (!*idle_logged)
        agent_ui_log(&ctx->ui, "no job queued for device '%s' (%ld/%ld done); polling every %g s",
                     ctx->args->device, done, total, ctx->args->poll_s);
      *idle_logged = 1;
      rc = 0;
    }
  } else {
    *idle_logged = 0;
    rc = 1;
  }
  agent_reply_free(&r);
  return rc;
}

void agent_worker_run(agent_ctx *ctx, unsigned index)
{
  worker w = {.ctx = ctx};
  uint64_t seed = ((uint64_t)getpid() << 20) ^ (uint64_t)time(NULL) ^ ((uint64_t)index << 40);
  if (agent_client_init(&w.client, ctx, seed) != 0) {
    agent_ui_log(&ctx->ui, "worker %u: cannot set up an HTTP client", index);
    agent_fatal(ctx, AGENT_EXIT_FAILURE);
    return;
  }
  pascal_error err;
  pascal_error_clear(&err);
  if (ctx->ops->open(ctx->args->profile, &w.backend, &err) != PASCAL_OK) {
    agent_ui_log(&ctx->ui, "backend %s: %s", ctx->ops->name, err.message);
    agent_fatal(ctx, AGENT_EXIT_BACKEND);
    agent_client_free(&w.client);
    return;
  }
  int idle_logged = 0, abandoned = 0;
  while (agent_stop_level(ctx) == 0) {
    pascal_codec_job job;
    int got = claim(&w, &job, &idle_logged);
    if (got < 0)
      break;
    if (got == 0) {
      agent_sleep(ctx, ctx->args->poll_s, 1);
      continue;
    }
    int rc = handle_job(&w, &job);
    abandoned = rc == -2;
    if (rc < 0)
      break;
  }
  /* An abandoned runner may still be inside the backend: do not close it
   * under its feet; the process exits right after (main.c). */
  if (!abandoned)
    ctx->ops->close(w.backend);
  agent_client_free(&w.client);
}

/*
 * pascal_store.h - pascald's persistent state in SQLite: devices, calibrations
 * (plan, frozen model, LOKO report), measurements, calibration jobs with
 * leases, agents and API tokens (docs/design.md §5 and §7; issue 4 item 1).
 *
 * Conventions
 * - Every operation is one SQLite transaction: it happens completely or not
 *   at all (no half-written rows), and once it returned PASCAL_STORE_OK it
 *   survives kill -9 and power loss (WAL + synchronous=FULL; docs/store.md).
 * - Functions return a pascal_store_status and write results through
 *   out-parameters, which are untouched on failure. The optional
 *   `pascal_error *err` names the offending field ("device.sm_count",
 *   "runs[12].d", "lease_token") and carries a one-line message; its `status`
 *   is the closest pascal_status (see pascal_store_status below).
 * - Time is passed in by the caller as `now` (unix seconds), never read from
 *   the clock, so lease expiry is testable without sleeping.
 * - A pascal_store handle is one SQLite connection with its prepared
 *   statements. Every call locks the handle's own mutex, so one handle may be
 *   shared by the threads of a daemon; several handles (even in several
 *   processes) on one file are also safe (WAL, busy timeout 5 s).
 * - Strings in returned structs are fixed arrays (NUL-terminated); JSON texts
 *   are heap strings owned by the struct and released by the matching *_clear
 *   or *_array_free function.
 * - Names: device names match [A-Za-z0-9._-]{1,63}; agent and token names
 *   are 1..63 printable ASCII bytes (0x21..0x7e, no spaces).
 * - A frozen calibration and its measurements cannot be changed or deleted:
 *   triggers in the schema abort any UPDATE or DELETE on them, whatever the
 *   client (this library, the sqlite3 shell, ...).
 */
#ifndef PASCAL_STORE_H
#define PASCAL_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"
#include "pascal/latency.h"
#include "pascal/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Result of every store call. pascal_status has no "conflict" or "stale", so
 * the store has its own status; pascal_error.status gets the closest core
 * status (in parentheses). HTTP mapping suggested for pascald in brackets. */
typedef enum pascal_store_status {
  PASCAL_STORE_OK = 0,
  PASCAL_STORE_INVALID,   /* bad argument: empty name, d = 0 on TMA, ...
                             (PASCAL_EINVAL) [400]                          */
  PASCAL_STORE_NOT_FOUND, /* no such device, calibration, job, token
                             (PASCAL_ENOTFOUND) [404]                       */
  PASCAL_STORE_CONFLICT,  /* the request contradicts stored state: device
                             re-created with other constants, a different
                             result for a done job, freeze with jobs left,
                             any write to a frozen calibration
                             (PASCAL_EREFUSED) [409 conflict]               */
  PASCAL_STORE_STALE,     /* the lease token is not (any more) the job's
                             current lease (PASCAL_EREFUSED) [409 stale_lease] */
  PASCAL_STORE_NOMEM,     /* allocation failed (PASCAL_ENOMEM) [500]        */
  PASCAL_STORE_IO,        /* SQLite failed: disk full, I/O error, corrupt
                             file, busy beyond the timeout (PASCAL_ERANGE)
                             [500/503]                                      */
  PASCAL_STORE_FORBIDDEN, /* the lease was claimed by another holder (API
                             token) (PASCAL_EREFUSED) [403 forbidden]       */
  PASCAL_STORE_CORRUPT    /* the file is damaged: SQLite reports corruption,
                             or PRAGMA quick_check finds a problem
                             (PASCAL_ERANGE) [503; pascald refuses to start] */
} pascal_store_status;

/* Stable lower-case name: "ok", "invalid", "not_found", "conflict", "stale",
 * "nomem", "io", "forbidden", "corrupt". Never NULL. */
const char *pascal_store_status_name(pascal_store_status status);

#define PASCAL_STORE_NAME_MAX             64    /* device, agent and token names: 1..63 bytes */
#define PASCAL_STORE_ARCH_MAX             32    /* device arch: 1..31 bytes */
#define PASCAL_STORE_PROBE_JSON_MAX       4096  /* a device's capacity_probe JSON, with NUL */
#define PASCAL_STORE_STATIC_JSON_MAX      16384 /* a device's static_experiment JSON, with NUL */
#define PASCAL_STORE_HASH_MAX             65    /* SHA-256 as 64 lower-case hex digits + NUL */
#define PASCAL_STORE_LEASE_MAX            129   /* lease token: 32..128 hex digits + NUL */
#define PASCAL_STORE_MESSAGE_MAX          (PASCAL_PLAN_MAX_MESSAGE + 1) /* a job's last error + NUL */
#define PASCAL_STORE_DEFAULT_MAX_ATTEMPTS 3

typedef struct pascal_store pascal_store; /* opaque: one connection */

/* ---------------------------------------------------------------- open */

/* Open (creating if absent) the database at `path`, creating its parent
 * directory (one level, mode 0700) if missing, and migrate the schema to the
 * newest version: each migration runs in its own transaction and bumps
 * PRAGMA user_version, so a crash mid-migration leaves the previous version.
 * Refuses (PASCAL_STORE_IO) a file whose user_version is newer than this
 * library knows. On success *out owns the handle; release it with
 * pascal_store_close(). */
pascal_store_status pascal_store_open(const char *path, pascal_store **out, pascal_error *err);

/* Open an existing file for reading only (recovery of a damaged file): no
 * directory or file is created, no migration runs (a file that is not at the
 * newest schema version is refused), and every write fails with IO
 * ("attempt to write a readonly database"). */
pascal_store_status pascal_store_open_read_only(const char *path, pascal_store **out,
                                                pascal_error *err);

/* IO (with the reason in err) when the path the store was opened with no
 * longer names the file it holds open: unlinked, or replaced by another
 * file (a rename over it, a restore). Every write transaction checks this
 * first and refuses with IO, since what it wrote could never be read back
 * by the next process to open that path. Reads go on from the open file.
 * Lock-free (one stat), so a health check may call it at any rate. */
pascal_store_status pascal_store_file_check(pascal_store *s, pascal_error *err);

/* The database's own facts (table meta): "instance" is a random id of 32
 * hex digits drawn when the file was made (or first upgraded to schema 8);
 * other keys are the caller's. get: NOT_FOUND for a missing key, the value
 * copied (truncated) into value[size]. set: inserts or replaces; values of
 * at most 255 bytes. */
#define PASCAL_STORE_META_MAX 256
pascal_store_status pascal_store_meta_get(pascal_store *s, const char *key, char *value,
                                          size_t size, pascal_error *err);
pascal_store_status pascal_store_meta_set(pascal_store *s, const char *key, const char *value,
                                          pascal_error *err);

/* Empty a mirror (a read replica's database) for a sync from scratch:
 * every measurement, job, calibration (frozen ones included: their guards
 * are lifted for this one transaction and put back), device and agent is
 * deleted; tokens and meta stay. All or nothing. */
pascal_store_status pascal_store_mirror_reset(pascal_store *s, pascal_error *err);

/* PRAGMA quick_check over the whole file (O(size); no index cross-checks).
 * OK when sound; CORRUPT with the first problem SQLite names in err. */
pascal_store_status pascal_store_quick_check(pascal_store *s, pascal_error *err);

/* Close the connection (finalizes statements, checkpoints the WAL). NULL ok. */
void pascal_store_close(pascal_store *s);

/* The schema version of the open database (PRAGMA user_version). */
pascal_store_status pascal_store_schema_version(pascal_store *s, int *version, pascal_error *err);

/* The newest schema version this build knows (= its number of migrations);
 * every database it opens is migrated to it. */
int pascal_store_schema_latest(void);

/* ------------------------------------------------------------- devices */

typedef struct pascal_store_device {
  char name[PASCAL_STORE_NAME_MAX]; /* [A-Za-z0-9._-]{1,63} */
  char arch[PASCAL_STORE_ARCH_MAX]; /* "sm_90", "sim", ...: printable ASCII */
  uint32_t sm_count;                /* >= 1 */
  uint32_t capacity_blocks;         /* effective L2 capacity C, >= 1 */
  uint32_t block_bytes;             /* >= 1 */
  int64_t created;                  /* unix seconds (ignored on input) */
  /* What CUDA reports for the GPU (cudaDeviceProp); unknown when empty/0. */
  char cuda_name[PASCAL_STORE_NAME_MAX]; /* "NVIDIA H100 80GB HBM3": printable
                                            ASCII, no blank at either end */
  uint32_t cc_major, cc_minor;           /* compute capability 9.0; 0.0 unknown */
  uint64_t l2_bytes;                     /* L2 size in bytes; 0 unknown */
  /* Measured peaks for the latency pipeline (pascal/latency.h); like the CUDA
   * identity, filled in when unknown and a conflict when they differ. */
  int has_peaks; /* 0: unknown */
  pascal_peaks peaks;
  /* What the probe measured besides the constants (pascal/device_data.h), as
   * the canonical JSON objects pascald writes and validates before storing
   * (the store checks only that each is a JSON object); "" unknown. Like the
   * peaks: filled in when unknown, a conflict when they differ. */
  char capacity_probe[PASCAL_STORE_PROBE_JSON_MAX];
  char static_experiment[PASCAL_STORE_STATIC_JSON_MAX];
} pascal_store_device;

/* Register a device. Idempotent: if a device of that name exists with the
 * same arch/sm_count/capacity_blocks/block_bytes, *created = 0 and OK; with
 * different constants, PASCAL_STORE_CONFLICT naming the first differing field.
 * The CUDA identity (cuda_name, compute capability, l2_bytes) conflicts only
 * where both sides know it; what the stored row does not know yet is filled
 * in. A new device gets *created = 1. `created` may be NULL. */
pascal_store_status pascal_store_device_create(pascal_store *s, const pascal_store_device *dev,
                                               int64_t now, int *created, pascal_error *err);

pascal_store_status pascal_store_device_get(pascal_store *s, const char *name,
                                            pascal_store_device *out, pascal_error *err);

/* All devices ordered by name. *out is a malloc'd array of *count entries
 * (NULL when 0), released with free(). */
pascal_store_status pascal_store_device_list(pascal_store *s, pascal_store_device **out,
                                             size_t *count, pascal_error *err);

/* ---------------------------------------------------------------- runs */

typedef enum pascal_store_workload {
  PASCAL_STORE_SCAN = 0,
  PASCAL_STORE_GEMM = 1,
  PASCAL_STORE_ATTENTION = 2 /* its runs are scan runs */
} pascal_store_workload;

/* One run of a plan (a job) or of a measurement. Scan uses o/path_tma/d/m/N/W,
 * GEMM uses Mg/Ng/Kg; the other fields must be 0. Every integer fits in int64.
 * Scan: o >= 1, path_tma 0 (sync, d must be 0) or 1 (TMA, d >= 1), m >= 0,
 * N >= 1, W >= 1. GEMM: Mg, Ng, Kg >= 1. */
typedef struct pascal_store_run {
  uint32_t o;
  int path_tma;
  uint32_t d;
  uint32_t m;
  uint64_t N;
  uint64_t W;
  uint64_t Mg, Ng, Kg;
  uint32_t repeat;
  int heldout; /* 1: a run of the held-out panel (never fitted), else 0 */
  /* GEMM only: the configuration of a configuration run (a bundle's
   * "configurations"; every member set, pascal_plan_config_validate), all
   * zero for a run of the calibration's own kernel and for every scan */
  pascal_gemm_config config;
} pascal_store_run;

/* One measured run. kernel_ns == 0 means "not measured" (stored as NULL). */
typedef struct pascal_store_measurement {
  pascal_store_run run;
  double fill_bytes; /* finite, >= 0 */
  double kernel_ns;  /* finite, >= 0 */
  int64_t job;       /* job id that produced it; 0 for imported ones */
} pascal_store_measurement;

/* -------------------------------------------------------- calibrations */

typedef enum pascal_store_cal_state {
  PASCAL_STORE_COLLECTING = 0,
  PASCAL_STORE_FROZEN = 1,
  PASCAL_STORE_FAILED = 2 /* a job exhausted its attempts */
} pascal_store_cal_state;
#define PASCAL_STORE_CAL_STATES 3

typedef enum pascal_store_job_state {
  PASCAL_STORE_QUEUED = 0,
  PASCAL_STORE_LEASED = 1,
  PASCAL_STORE_DONE = 2,
  PASCAL_STORE_JOB_FAILED = 3
} pascal_store_job_state;
#define PASCAL_STORE_JOB_STATES 4

/* Stable names: "collecting" "frozen" "failed"; "queued" "leased" "done"
 * "failed"; "scan" "gemm". Never NULL. */
const char *pascal_store_cal_state_name(pascal_store_cal_state state);
const char *pascal_store_job_state_name(pascal_store_job_state state);
const char *pascal_store_workload_name(pascal_store_workload workload);

typedef struct pascal_store_calibration {
  int64_t id;
  char device[PASCAL_STORE_NAME_MAX];
  pascal_store_workload workload;
  pascal_store_cal_state state;
  int64_t created;
  int64_t frozen_at;                        /* 0 unless frozen */
  char content_hash[PASCAL_STORE_HASH_MAX]; /* "" unless frozen */
  int64_t jobs[PASCAL_STORE_JOB_STATES];    /* job counts by pascal_store_job_state;
                                               progress = jobs[DONE] / sum */
  int64_t jobs_total;
  int64_t measurements; /* number of measurement rows */
  /* Owned heap strings; NULL where the call says so or when absent. */
  char *plan_json;   /* the plan as created (NULL for an import without one) */
  char *bundle_json; /* the frozen pascal-calibration/1 bundle (frozen only) */
  char *report_json; /* the LOKO report (frozen only) */
} pascal_store_calibration;

/* Free the JSON strings of *c and zero it. NULL ok. */
void pascal_store_calibration_clear(pascal_store_calibration *c);
/* Clear every element and free the array. NULL ok. */
void pascal_store_calibration_array_free(pascal_store_calibration *a, size_t count);

/* Create a collecting calibration for an existing device from an already
 * expanded plan: the calibration row and one queued job per run, in order
 * (job ids increase with the run index), in one transaction. `plan_json` is
 * stored verbatim (not parsed here). max_attempts 0 means
 * PASCAL_STORE_DEFAULT_MAX_ATTEMPTS. nruns >= 1. */
pascal_store_status
pascal_store_calibration_create(pascal_store *s, const char *device, pascal_store_workload workload,
                                const char *plan_json, const pascal_store_run *runs, size_t nruns,
                                uint32_t max_attempts, int64_t now, int64_t *id, pascal_error *err);

/* Create a collecting calibration that extends the frozen calibration
 * `base` (which stays as it is): on base's device and workload, starting
 * with copies of every measurement row of base (job NULL: fitted runs,
 * held-out runs, configuration runs) and one queued job per run of
 * `runs`, in one transaction. NOT_FOUND (field "base") for no such
 * calibration, CONFLICT (field "base") for one that is not frozen; the
 * rest as pascal_store_calibration_create. */
pascal_store_status pascal_store_calibration_extend(pascal_store *s, int64_t base,
                                                    const char *plan_json,
                                                    const pascal_store_run *runs, size_t nruns,
                                                    uint32_t max_attempts, int64_t now, int64_t *id,
                                                    pascal_error *err);

/* One calibration with its progress and all three JSON texts. */
pascal_store_status pascal_store_calibration_get(pascal_store *s, int64_t id,
                                                 pascal_store_calibration *out, pascal_error *err);

/* Calibrations ordered by id, of one device (NULL: all). The JSON fields are
 * NULL (use _get for them). Unknown device: OK with an empty list. Release
 * with pascal_store_calibration_array_free(). */
pascal_store_status pascal_store_calibration_list(pascal_store *s, const char *device,
                                                  pascal_store_calibration **out, size_t *count,
                                                  pascal_error *err);

/* Every frozen calibration ordered by id, with bundle_json and report_json
 * filled (plan_json NULL): what pascald loads into memory at startup. */
pascal_store_status pascal_store_frozen_list(pascal_store *s, pascal_store_calibration **out,
                                             size_t *count, pascal_error *err);

/* Measurements of a calibration ordered by job (run order; imported ones,
 * job 0, first), then insertion. NOT_FOUND for an unknown calibration.
 * *out is malloc'd (NULL when 0), released with free(). */
pascal_store_status pascal_store_measurement_list(pascal_store *s, int64_t calibration,
                                                  pascal_store_measurement **out, size_t *count,
                                                  pascal_error *err);

/* Freeze a collecting calibration whose jobs are all done: store the bundle,
 * the LOKO report and the bundle's content hash (64 hex digits), set
 * frozen_at = now and state frozen. NOT_FOUND for an unknown id; CONFLICT if
 * it is not collecting or a job is not done. Afterwards the triggers make it
 * and its measurements read-only. */
pascal_store_status pascal_store_calibration_freeze(pascal_store *s, int64_t id,
                                                    const char *bundle_json,
                                                    const char *report_json,
                                                    const char *content_hash, int64_t now,
                                                    pascal_error *err);

/* Import a frozen bundle in one transaction: register `device` as
 * pascal_store_device_create() does (CONFLICT on different constants), insert
 * the calibration, its n measurements (job = 0), and freeze it. plan_json may
 * be NULL. If a frozen calibration with the same device and content hash
 * already exists, nothing is written, *id is that calibration and *created = 0
 * (idempotent re-import); otherwise *created = 1. `created` may be NULL. Any
 * failure (a bad measurement at index i: field "measurements[i].N") leaves the
 * database exactly as before, device included. */
pascal_store_status pascal_store_calibration_import(
    pascal_store *s, const pascal_store_device *device, pascal_store_workload workload,
    const char *plan_json, const pascal_store_measurement *ms, size_t n, const char *bundle_json,
    const char *report_json, const char *content_hash, int64_t now, int64_t *id, int *created,
    pascal_error *err);

/* The same, the new calibration taking id `as_id` (> 0; a read replica keeps
 * its primary's ids) instead of the next free one: CONFLICT when another
 * calibration has that id. as_id = 0 is pascal_store_calibration_import(). */
pascal_store_status pascal_store_calibration_import_as(
    pascal_store *s, int64_t as_id, const pascal_store_device *device,
    pascal_store_workload workload, const char *plan_json, const pascal_store_measurement *ms,
    size_t n, const char *bundle_json, const char *report_json, const char *content_hash,
    int64_t now, int64_t *id, int *created, pascal_error *err);

/* -------------------------------------------------------------- jobs */

typedef struct pascal_store_job {
  int64_t id;
  int64_t calibration;
  char device[PASCAL_STORE_NAME_MAX]; /* of the calibration */
  pascal_store_workload workload;
  pascal_store_job_state state;
  pascal_store_run run;
  uint32_t block_bytes;                    /* of the calibration's device */
  char lease_owner[PASCAL_STORE_NAME_MAX]; /* agent name, "" if never leased */
  int64_t lease_holder;                    /* holder (API token id) of the
                                              lease, 0 if never leased */
  int64_t lease_expires;                   /* unix seconds, 0 if never leased */
  uint32_t attempts;                       /* leases handed out so far */
  uint32_t max_attempts;
  char last_error[PASCAL_STORE_MESSAGE_MAX];
  int excluded;          /* 1: an operator dropped this run (state done, no
                            measurement; pascal_store_job_exclude) */
  int64_t lease_started; /* unix seconds the current or last lease began, 0 if never */
  int64_t finished;      /* unix seconds it became done or failed, 0 while it is not */
} pascal_store_job;

/* What a claim, a result or a failure left, read in the transaction that
 * made it: the job's new state and the progress of its device (done and
 * total jobs of the device's collecting calibrations, as
 * pascal_store_device_progress counts them), so that pascald answers each
 * of them with one store call. */
typedef struct pascal_store_job_outcome {
  pascal_store_job_state state;
  int64_t done, total;
} pascal_store_job_outcome;

/* Leases: `lease_token` is the lease secret as the store keeps it, 32..128
 * lower-case hex digits; pascald passes the SHA-256 of the secret it hands
 * out, so that the database never holds a usable one. `holder` (>= 1) is who
 * claimed it (pascald: the API token's id); heartbeat, result and fail from
 * another holder with the right secret are FORBIDDEN.
 *
 * Claim the oldest claimable job for `device` for agent `agent`.
 * In one transaction: first every expired lease (any device, lease_expires
 * <= now) is requeued, or failed if it used its last attempt; then the
 * oldest queued job of the device's collecting calibrations gets
 * state leased, lease token `lease_token` (>= 128 random bits), holder
 * `holder`, owner `agent`, lease_expires = now + lease_seconds (>= 1) and
 * attempts + 1; the agent's last-seen time is set to now. *claimed = 1 and
 * *out is the job; or *claimed = 0 (out untouched) when nothing is queued.
 * *outcome (may be NULL) gets the device's progress after the claim (its
 * state is LEASED, or QUEUED when nothing was claimed).
 * NOT_FOUND if the device is unknown. */
pascal_store_status pascal_store_job_claim(pascal_store *s, const char *device, const char *agent,
                                           const char *lease_token, int64_t holder, int64_t now,
                                           int64_t lease_seconds, pascal_store_job *out,
                                           int *claimed, pascal_store_job_outcome *outcome,
                                           pascal_error *err);

/* Extend a lease to now + lease_seconds. STALE unless the job is leased with
 * this token and its lease has not expired (lease_expires > now); FORBIDDEN
 * when the token is right but `holder` is not the one that claimed it.
 * Updates the owner's last-seen time. NOT_FOUND for an unknown job. */
pascal_store_status pascal_store_job_heartbeat(pascal_store *s, int64_t job,
                                               const char *lease_token, int64_t holder, int64_t now,
                                               int64_t lease_seconds, int64_t *lease_expires,
                                               pascal_error *err);

/* pascal_store_job_heartbeat under a time limit (seconds; 0: none): the
 * lease is never extended past lease_started + time_limit, and a heartbeat
 * at or after that is STALE ("ran past its time limit"), so that a job that
 * never ends goes back to the queue (an attempt spent) when its lease runs
 * out. *lease_expires gets the expiry set. */
pascal_store_status pascal_store_job_heartbeat_limited(pascal_store *s, int64_t job,
                                                       const char *lease_token, int64_t holder,
                                                       int64_t now, int64_t lease_seconds,
                                                       int64_t time_limit, int64_t *lease_expires,
                                                       pascal_error *err);

/* Upload the result of a leased job: if the job is leased with this token and
 * the lease has not expired, insert the measurement (the job's run +
 * fill_bytes, kernel_ns) and mark the job done, in one transaction.
 * If the job is already done under this same token: identical values (bit
 * for bit) -> OK without writing (idempotent retry), different values ->
 * CONFLICT. Any other token or an expired lease -> STALE; the right token
 * from another holder -> FORBIDDEN. fill_bytes and kernel_ns finite and >= 0
 * (kernel_ns 0: not measured). *outcome (may be NULL) gets the DONE state
 * and the progress. */
pascal_store_status pascal_store_job_result(pascal_store *s, int64_t job, const char *lease_token,
                                            int64_t holder, double fill_bytes, double kernel_ns,
                                            int64_t now, pascal_store_job_outcome *outcome,
                                            pascal_error *err);

/* The caller's judgement of a new result for `job` (read in the upload's
 * transaction, after its lease was found live): OK to store it, or a
 * failure status (with err) that the upload returns, storing nothing. It
 * runs under the store's lock, so it must not call the store. */
typedef pascal_store_status (*pascal_store_result_check)(const pascal_store_job *job,
                                                         double fill_bytes, double kernel_ns,
                                                         void *arg, pascal_error *err);

/* pascal_store_job_result, with `check` (may be NULL) judging the values
 * once the lease is known to be live: the lease's errors (STALE,
 * FORBIDDEN) come first, an identical retry of a done job is not judged
 * again. */
pascal_store_status pascal_store_job_result_checked(pascal_store *s, int64_t job,
                                                    const char *lease_token, int64_t holder,
                                                    double fill_bytes, double kernel_ns,
                                                    int64_t now, pascal_store_result_check check,
                                                    void *arg, pascal_store_job_outcome *outcome,
                                                    pascal_error *err);

/* Report a failed attempt (message stored as last_error, truncated to at
 * most PASCAL_PLAN_MAX_MESSAGE bytes at a UTF-8 character boundary by
 * pascal_utf8_copy; NULL or "": "failed"). STALE
 * unless leased with this token and not expired; FORBIDDEN from another
 * holder.
 * The job is requeued, or, when attempts == max_attempts, marked failed and
 * its calibration marked failed too. *outcome (may be NULL) gets the new
 * job state (QUEUED or JOB_FAILED) and the progress. */
pascal_store_status pascal_store_job_fail(pascal_store *s, int64_t job, const char *lease_token,
                                          int64_t holder, const char *message, int64_t now,
                                          pascal_store_job_outcome *outcome, pascal_error *err);

/* Move every live lease's expiry by `delta` seconds: how a caller that saw
 * the wall clock step by `delta` keeps each lease's remaining time (expiry
 * is kept in wall time). *moved (may be NULL) counts the leases. */
pascal_store_status pascal_store_leases_shift(pascal_store *s, int64_t delta, int64_t *moved,
                                              pascal_error *err);

/* Requeue every lease with lease_expires <= now (failing those on their last
 * attempt, with their calibration, as pascal_store_job_fail does).
 * *requeued (may be NULL) counts the jobs requeued or failed. */
pascal_store_status pascal_store_jobs_requeue_expired(pascal_store *s, int64_t now,
                                                      int64_t *requeued, pascal_error *err);

/* An operator's corrections of a collecting calibration's run, so that one
 * bad measurement never forces the whole calibration to be measured again.
 * Both delete the run's measurement (if any) and record `reason` (optional,
 * truncated to the message size) as the job's last error, in one
 * transaction; *out (may be NULL) gets the job as it is then.
 *   requeue  a done (or excluded) job goes back to the queue with all its
 *            attempts: the next claim measures it again.
 *   exclude  a queued, leased or done job becomes done with excluded = 1
 *            and no measurement: the freeze fits without it. A lease held
 *            on it ends (its holder's next call is STALE): this is also how
 *            a running job is cancelled. Excluding an excluded job is OK.
 * NOT_FOUND for an unknown job; CONFLICT naming "state" when the
 * calibration is not collecting or the job is in no state for the action
 * (requeue of a queued or leased job). */
pascal_store_status pascal_store_job_requeue(pascal_store *s, int64_t job, const char *reason,
                                             int64_t now, pascal_store_job *out, pascal_error *err);
pascal_store_status pascal_store_job_exclude(pascal_store *s, int64_t job, const char *reason,
                                             int64_t now, pascal_store_job *out, pascal_error *err);

pascal_store_status pascal_store_job_get(pascal_store *s, int64_t id, pascal_store_job *out,
                                         pascal_error *err);

/* Jobs ordered by id, those of `calibration` (0: of every calibration) in
 * state `state` (a pascal_store_job_state, or -1: any) with an id above
 * `after` (0: from the first), at most `limit` of them (0: all); free() the
 * array (NULL when empty). An unknown calibration lists nothing. Lease
 * tokens are not read into the list. */
pascal_store_status pascal_store_job_list(pascal_store *s, int64_t calibration, int state,
                                          int64_t after, size_t limit, pascal_store_job **out,
                                          size_t *count, pascal_error *err);

/* Progress over the device's collecting calibrations: done and total jobs
 * (0/0 if none). NOT_FOUND if the device is unknown. */
pascal_store_status pascal_store_device_progress(pascal_store *s, const char *device, int64_t *done,
                                                 int64_t *total, pascal_error *err);

/* ------------------------------------------------------------ tokens */

typedef enum pascal_store_role {
  PASCAL_STORE_ROLE_ADMIN = 0,
  PASCAL_STORE_ROLE_AGENT = 1
} pascal_store_role;

/* "admin", "agent". Never NULL. */
const char *pascal_store_role_name(pascal_store_role role);

typedef struct pascal_store_token {
  int64_t id;
  char name[PASCAL_STORE_NAME_MAX];
  pascal_store_role role;
  char hash[PASCAL_STORE_HASH_MAX]; /* SHA-256 of the token, lower-case hex */
  int64_t created;
  int64_t revoked; /* unix seconds, 0 while active */
} pascal_store_token;

/* Store a new token by its hash only (the plain token is never given to the
 * store). `hash` is 64 lower-case hex digits; CONFLICT if that hash exists.
 * Names need not be unique. */
pascal_store_status pascal_store_token_create(pascal_store *s, const char *name,
                                              pascal_store_role role, const char *hash, int64_t now,
                                              int64_t *id, pascal_error *err);

/* Look up an ACTIVE token by its hash (an indexed equality lookup; revoked
 * tokens are NOT_FOUND). The lookup key is a hash of a >= 128-bit secret, so
 * timing of the index search reveals nothing useful; the server should still
 * compare the returned hash with its own in constant time before trusting
 * it (docs/store.md). */
pascal_store_status pascal_store_token_find(pascal_store *s, const char *hash,
                                            pascal_store_token *out, pascal_error *err);

/* All tokens (revoked included) ordered by id; free() the array. */
pascal_store_status pascal_store_token_list(pascal_store *s, pascal_store_token **out,
                                            size_t *count, pascal_error *err);

/* Revoke by id (revoked = now). Revoking a revoked token is OK and keeps the
 * first time. NOT_FOUND for an unknown id. */
pascal_store_status pascal_store_token_revoke(pascal_store *s, int64_t id, int64_t now,
                                              pascal_error *err);

/* ------------------------------------------------------ agents, stats */

typedef struct pascal_store_agent {
  char name[PASCAL_STORE_NAME_MAX];
  int64_t last_seen; /* unix seconds */
} pascal_store_agent;

/* Record that agent `name` was seen at `now` (claim and heartbeat do this
 * themselves). */
pascal_store_status pascal_store_agent_seen(pascal_store *s, const char *name, int64_t now,
                                            pascal_error *err);

/* Admission of a new agent name: agents not seen since now - keep_seconds
 * are forgotten first (they leave the stats and metrics); then `name`
 * (which starts with `prefix`, pascald's "<token name>/") is OK when known,
 * or when fewer than max_per_prefix known names share its prefix;
 * CONFLICT naming "agent" otherwise. Records nothing: the claim does. */
pascal_store_status pascal_store_agent_admit(pascal_store *s, const char *prefix, const char *name,
                                             int64_t now, int64_t keep_seconds,
                                             int64_t max_per_prefix, pascal_error *err);

/* All agents ordered by name; free() the array. */
pascal_store_status pascal_store_agent_list(pascal_store *s, pascal_store_agent **out,
                                            size_t *count, pascal_error *err);

typedef struct pascal_store_counts {
  int64_t calibrations[PASCAL_STORE_CAL_STATES]; /* by pascal_store_cal_state */
  int64_t jobs[PASCAL_STORE_JOB_STATES];         /* by pascal_store_job_state */
} pascal_store_counts;

/* Counts for /v1/stats and /metrics. */
pascal_store_status pascal_store_counts_get(pascal_store *s, pascal_store_counts *out,
                                            pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif

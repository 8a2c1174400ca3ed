/*
 * test_transfer_threads.c - predictions from one const model by several
 * threads at once give exactly the single-threaded answers (the model is
 * immutable and the hot path keeps no state; see pascal/predict.h).
 */
#include <pthread.h>
#include <string.h>

#include "check.h"
#include "pascal/predict.h"
#include "test_synth_model.h"

#define THREADS 4
#define QUERIES 2000

typedef struct job {
  const pascal_model *scan, *gemm;
  double K[QUERIES];
  pascal_status st[QUERIES];
} job;

static void query(const pascal_model *scan, const pascal_model *gemm, int q, double *K,
                  pascal_status *st)
{
  if (q % 4 == 3) {
    pascal_gemm_shape s = {128u * (1 + q % 37), 128u * (1 + q % 23), 64u * (1 + q % 101)};
    pascal_gemm_prediction p;
    *st = pascal_model_predict_gemm(gemm, &s, &p, NULL);
    *K = *st ? -1 : p.K;
    return;
  }
  pascal_scan_key key = {1 + (uint32_t)q % 3, (pascal_path)(q % 2), 0, (uint32_t)q % 19};
  if (key.path == PASCAL_PATH_TMA)
    key.d = 1 + (uint32_t)q % 5;
  pascal_scan_prediction p;
  *st =
      pascal_model_predict_scan(scan, &key, 1500 + 97u * (uint32_t)(q % 50), 1 + q % 90, &p, NULL);
  *K = *st ? -1 : p.K;
}

static void *worker(void *arg)
{
  job *j = arg;
  for (int q = 0; q < QUERIES; q++)
    query(j->scan, j->gemm, q, &j->K[q], &j->st[q]);
  return NULL;
}

int main(void)
{
  static job jobs[THREADS], ref;
  pthread_t tid[THREADS];
  ref.scan = test_synth_model(PASCAL_WORKLOAD_SCAN);
  ref.gemm = test_synth_model(PASCAL_WORKLOAD_GEMM);
  if (!ref.scan || !ref.gemm)
    return check_summary();
  worker(&ref);
  size_t answered = 0, refused = 0;
  for (int q = 0; q < QUERIES; q++) {
    answered += ref.st[q] == PASCAL_OK;
    refused += ref.st[q] == PASCAL_EREFUSED;
  }
  CHECK(answered > QUERIES / 2); /* the mix exercises real predictions */
  CHECK(refused > 0);            /* and refusals (o = 3 is not calibrated) */
  for (int t = 0; t < THREADS; t++) {
    jobs[t].scan = ref.scan;
    jobs[t].gemm = ref.gemm;
    CHECK_INT(pthread_create(&tid[t], NULL, worker, &jobs[t]), 0);
  }
  for (int t = 0; t < THREADS; t++) {
    CHECK_INT(pthread_join(tid[t], NULL), 0);
    CHECK(memcmp(jobs[t].K, ref.K, sizeof ref.K) == 0);
    CHECK(memcmp(jobs[t].st, ref.st, sizeof ref.st) == 0);
  }
  pascal_model_free((pascal_model *)ref.scan);
  pascal_model_free((pascal_model *)ref.gemm);
  return check_summary();
}

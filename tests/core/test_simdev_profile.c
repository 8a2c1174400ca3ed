/*
 * test_simdev_profile.c - the sim device profile: the shipped
 * deploy/profiles/gb10-like.profile equals the built-in default, keys
 * override defaults, and every error path of the strict parser (unknown and
 * duplicate keys, malformed lines, bad numbers, out-of-domain values, bad
 * names, long lines, NUL bytes, missing file) names the key or line.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/simdev.h"

static int profiles_equal(const pascal_simdev_profile *a, const pascal_simdev_profile *b)
{
  return strcmp(a->name, b->name) == 0 && strcmp(a->arch, b->arch) == 0 &&
         strcmp(a->cuda_name, b->cuda_name) == 0 && a->cc_major == b->cc_major &&
         a->cc_minor == b->cc_minor && a->sm_count == b->sm_count &&
         a->capacity_blocks == b->capacity_blocks && a->block_bytes == b->block_bytes &&
         a->l2_bytes == b->l2_bytes && a->seed == b->seed && a->priming_extra == b->priming_extra &&
         a->hop_ns == b->hop_ns && a->sm_read_gbps == b->sm_read_gbps &&
         a->sm_read_spread == b->sm_read_spread && a->dram_gbps == b->dram_gbps &&
         a->dram_latency_ns == b->dram_latency_ns && a->consume_ns == b->consume_ns &&
         a->compute_ns == b->compute_ns && a->tensor_pipe_ns == b->tensor_pipe_ns &&
         a->tail_ns[0] == b->tail_ns[0] && a->tail_ns[1] == b->tail_ns[1] &&
         a->tail_ns[2] == b->tail_ns[2] && a->sync_issue_ns == b->sync_issue_ns &&
         a->tma_issue_ns == b->tma_issue_ns && a->cta_sync_ns == b->cta_sync_ns &&
         a->grid_barrier_ns == b->grid_barrier_ns && a->launch_ns == b->launch_ns &&
         a->start_jitter_ns == b->start_jitter_ns && a->service_jitter == b->service_jitter &&
         a->sm_read_run_spread == b->sm_read_run_spread &&
         a->sm_clock_spread == b->sm_clock_spread && a->work_noise == b->work_noise &&
         a->work_noise_blocks == b->work_noise_blocks && a->link_stall_prob == b->link_stall_prob &&
         a->link_stall_ns == b->link_stall_ns && a->dram_tail_prob == b->dram_tail_prob &&
         a->dram_tail_ns == b->dram_tail_ns && a->dispatch_ns == b->dispatch_ns &&
         a->l2_ways == b->l2_ways && a->l2_sets == b->l2_sets &&
         a->l2_partitions == b->l2_partitions && a->l2_far_ns == b->l2_far_ns &&
         a->l2_gbps == b->l2_gbps && a->mma_setup_ns == b->mma_setup_ns &&
         a->sync_rounds == b->sync_rounds && a->exec_shared == b->exec_shared &&
         a->clock_skew == b->clock_skew && a->clock_skew_groups == b->clock_skew_groups &&
         a->skew_shared == b->skew_shared && a->tma_latency_ns == b->tma_latency_ns &&
         a->clock_skew_consume == b->clock_skew_consume &&
         memcmp(&a->peaks, &b->peaks, sizeof a->peaks) == 0;
}

/* <repo>/deploy/profiles/NAME (this file is <repo>/tests/core/...). */
static int shipped_path(char *path, size_t n, const char *name)
{
  const char *me = __FILE__, *cut = strstr(me, "tests/core/");
  CHECK(cut != NULL);
  if (!cut)
    return 0;
  snprintf(path, n, "%.*sdeploy/profiles/%s", (int)(cut - me), me, name);
  return 1;
}

/* thor-like: the paper's Jetson Thor geometry (20 SMs, C = 2048, n_p = d). */
static void test_thor_profile(void)
{
  char path[4096];
  if (!shipped_path(path, sizeof path, "thor-like.profile"))
    return;
  pascal_simdev_profile p;
  pascal_error err;
  pascal_status st = pascal_simdev_profile_load(path, &p, &err);
  if (st != PASCAL_OK)
    fprintf(stderr, "%s: %s\n", path, err.message);
  CHECK_INT(st, PASCAL_OK);
  CHECK(strcmp(p.name, "thor-like") == 0);
  CHECK_INT(p.sm_count, 20);
  CHECK_INT(p.capacity_blocks, 2048);
  CHECK_INT(p.block_bytes, 16384);
  CHECK_INT(p.priming_extra, 1);
  CHECK(p.l2_bytes == 32u << 20);
  CHECK(strcmp(p.cuda_name, "PASCAL sim Thor-like") == 0);
  CHECK_INT(p.cc_major, 11);
  CHECK_INT(p.cc_minor, 0);
  /* Its own peaks, not the built-in gb10-like ones: they follow its DRAM,
   * its 20 links and one 8192-FLOP matrix instruction per tensor_pipe_ns per
   * SM (the profile states the ns to three digits: 0.1 % of the rate). */
  CHECK(pascal_simdev_profile_has_peaks(&p));
  CHECK(fabs(p.peaks.dram_bytes_per_s - p.dram_gbps * 1e9) < 1e3);
  CHECK(fabs(p.peaks.l2_bytes_per_s - p.sm_count * p.sm_read_gbps * 1e9) < 1e3);
  CHECK(p.tensor_pipe_ns > 0 && p.tensor_pipe_ns < p.compute_ns);
  CHECK(fabs(p.peaks.tensor_flops / (p.sm_count * 8192.0 / (p.tensor_pipe_ns * 1e-9)) - 1) < 1e-3);
  CHECK(fabs(p.peaks.launch_s - p.launch_ns * 1e-9) < 1e-15);
}

static void test_shipped_profile(void)
{
  char path[4096];
  if (!shipped_path(path, sizeof path, "gb10-like.profile"))
    return;
  pascal_simdev_profile got, want;
  pascal_error err;
  pascal_status st = pascal_simdev_profile_load(path, &got, &err);
  if (st != PASCAL_OK)
    fprintf(stderr, "%s: %s\n", path, err.message);
  CHECK_INT(st, PASCAL_OK);
  pascal_simdev_profile_default(&want);
  CHECK(profiles_equal(&got, &want));
  /* every key is written out in the shipped file (docs list them all) */
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f)
    return;
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  static const char *keys[] = {"name",
                               "arch",
                               "sm_count",
                               "capacity_blocks",
                               "block_bytes",
                               "l2_bytes",
                               "cuda_name",
                               "compute_capability",
                               "seed",
                               "priming",
                               "hop_ns",
                               "sm_read_gbps",
                               "sm_read_spread",
                               "dram_gbps",
                               "dram_latency_ns",
                               "consume_ns",
                               "compute_ns",
                               "tensor_pipe_ns",
                               "tail0_ns",
                               "tail1_ns",
                               "tail2_ns",
                               "sync_issue_ns",
                               "tma_issue_ns",
                               "cta_sync_ns",
                               "grid_barrier_ns",
                               "launch_ns",
                               "start_jitter_ns",
                               "service_jitter",
                               "sm_read_run_spread",
                               "sm_clock_spread",
                               "work_noise",
                               "work_noise_blocks",
                               "link_stall_prob",
                               "link_stall_ns",
                               "dram_tail_prob",
                               "dram_tail_ns",
                               "dispatch_ns",
                               "peak_dram_bytes_per_s",
                               "peak_l2_bytes_per_s",
                               "peak_tensor_flops",
                               "peak_sm_clock_hz",
                               "peak_launch_s"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    char needle[64];
    snprintf(needle, sizeof needle, "\n%s = ", keys[i]);
    if (!strstr(text, needle))
      fprintf(stderr, "missing key %s\n", keys[i]);
    CHECK(strstr(text, needle) != NULL);
  }
}

static void test_overrides(void)
{
  const char *text =
      "# comment only\n\n  sm_count = 20 # Thor\r\ncapacity_blocks=2048\n"
      "priming = d\nname = thor-like\nservice_jitter = 0\nseed = 18446744073709551615\n"
      "hop_ns = 1.5e2";
  pascal_simdev_profile p;
  pascal_error err;
  CHECK_INT(pascal_simdev_profile_parse(text, strlen(text), &p, &err), PASCAL_OK);
  CHECK_INT(p.sm_count, 20);
  CHECK_INT(p.capacity_blocks, 2048);
  CHECK_INT(p.priming_extra, 1);
  CHECK(strcmp(p.name, "thor-like") == 0);
  CHECK_NEAR(p.service_jitter, 0.0, 0.0);
  CHECK(p.seed == UINT64_MAX);
  CHECK_NEAR(p.hop_ns, 150.0, 0.0);
  /* the tensor pipe: 0 states none (the GEMM runs at the scan's chain rate) */
  CHECK_INT(pascal_simdev_profile_parse("tensor_pipe_ns = 0\n", 19, &p, &err), PASCAL_OK);
  CHECK_NEAR(p.tensor_pipe_ns, 0.0, 0.0);
  CHECK_INT(pascal_simdev_profile_parse("tensor_pipe_ns = 1.25\n", 22, &p, &err), PASCAL_OK);
  CHECK_NEAR(p.tensor_pipe_ns, 1.25, 0.0);
  /* untouched keys keep the default */
  pascal_simdev_profile d;
  pascal_simdev_profile_default(&d);
  CHECK_NEAR(p.dram_gbps, d.dram_gbps, 0.0);
  /* empty text: the default; length bounds the text (no NUL needed) */
  CHECK_INT(pascal_simdev_profile_parse("", 0, &p, &err), PASCAL_OK);
  CHECK(profiles_equal(&p, &d));
  CHECK_INT(pascal_simdev_profile_parse("sm_count = 7junk", 12, &p, &err), PASCAL_OK);
  CHECK_INT(p.sm_count, 7);
  /* the stated CUDA identity: blanks inside the name, M.m capability */
  const char *id = "cuda_name =  NVIDIA Jetson  Thor \ncompute_capability = 11.0\n";
  CHECK_INT(pascal_simdev_profile_parse(id, strlen(id), &p, &err), PASCAL_OK);
  CHECK(strcmp(p.cuda_name, "NVIDIA Jetson  Thor") == 0);
  CHECK_INT(p.cc_major, 11);
  CHECK_INT(p.cc_minor, 0);
}

/* Parsing `text` fails with `status`, naming `field`, the message holding
 * `in_message`; the output is left untouched. */
static void expect_error(const char *text, pascal_status status, const char *field,
                         const char *in_message)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  p.sm_count = 12345;
  pascal_error err;
  pascal_status st = pascal_simdev_profile_parse(text, strlen(text), &p, &err);
  CHECK_INT(st, status);
  CHECK_INT(p.sm_count, 12345);
  if (strcmp(err.field, field) != 0 || !strstr(err.message, in_message)) {
    fprintf(stderr, "text %s: field '%s' message '%s'\n", text, err.field, err.message);
    CHECK(!"error names the field and line");
  }
}

/* Peaks: the shipped profile states them; all five 0 states none; one rate
 * taken away is an error naming it. */
static void test_peaks(void)
{
  pascal_simdev_profile p;
  pascal_error err;
  pascal_simdev_profile_default(&p);
  CHECK(pascal_simdev_profile_has_peaks(&p));
  CHECK(pascal_peaks_check(&p.peaks, NULL) == PASCAL_OK);
  CHECK(p.peaks.dram_bytes_per_s == 273e9 && p.peaks.launch_s == 2e-6);
  const char *none = "peak_dram_bytes_per_s = 0\npeak_l2_bytes_per_s = 0\npeak_tensor_flops = 0\n"
                     "peak_sm_clock_hz = 0\npeak_launch_s = 0\n";
  CHECK_INT(pascal_simdev_profile_parse(none, strlen(none), &p, &err), PASCAL_OK);
  CHECK(!pascal_simdev_profile_has_peaks(&p));
  const char *no_launch = "peak_launch_s = 0\n";
  CHECK_INT(pascal_simdev_profile_parse(no_launch, strlen(no_launch), &p, &err), PASCAL_OK);
  CHECK(pascal_simdev_profile_has_peaks(&p) && p.peaks.launch_s == 0);
}

static void test_errors(void)
{
  expect_error("peak_tensor_flops = 0\n", PASCAL_EINVAL, "peak_tensor_flops", "all four rates");
  expect_error("peak_dram_bytes_per_s = 0\n", PASCAL_EINVAL, "peak_dram_bytes_per_s", "> 0");
  expect_error("peak_l2_bytes_per_s = -1\n", PASCAL_EFORMAT, "peak_l2_bytes_per_s", "line 1");
  expect_error("compute_capability = 9\n", PASCAL_EFORMAT, "compute_capability", "line 1");
  expect_error("compute_capability = 0.5\n", PASCAL_EFORMAT, "compute_capability", "line 1");
  expect_error("compute_capability = 9.100\n", PASCAL_EFORMAT, "compute_capability", "line 1");
  expect_error("compute_capability = 9.0x\n", PASCAL_EFORMAT, "compute_capability", "line 1");
  expect_error("cuda_name = NVIDIA \xc3\xa9\n", PASCAL_EFORMAT, "cuda_name", "line 1");
  expect_error("cuda_name = 0123456789012345678901234567890123456789012345678901234567890123\n",
               PASCAL_EFORMAT, "cuda_name", "line 1");
  expect_error("sm_count = 48\nwarp_size = 32\n", PASCAL_EFORMAT, "warp_size",
               "line 2: unknown key 'warp_size'");
  expect_error("seed = 1\n\nseed = 2\n", PASCAL_EFORMAT, "seed", "line 3: duplicate key");
  expect_error("# c\nsm_count 48\n", PASCAL_EFORMAT, "line 2", "line 2: expected");
  expect_error(" = 4\n", PASCAL_EFORMAT, "line 1", "missing key");
  expect_error("sm_count =\n", PASCAL_EFORMAT, "sm_count", "line 1");
  expect_error("sm_count = 4x\n", PASCAL_EFORMAT, "sm_count", "got '4x'");
  expect_error("sm_count = -4\n", PASCAL_EFORMAT, "sm_count", "line 1");
  expect_error("sm_count = 0\n", PASCAL_EFORMAT, "sm_count", "[1, 4096]");
  expect_error("sm_count = 99999999999\n", PASCAL_EFORMAT, "sm_count", "line 1");
  expect_error("sm_count = 4.5\n", PASCAL_EFORMAT, "sm_count", "line 1");
  expect_error("seed = 18446744073709551616\n", PASCAL_EFORMAT, "seed", "line 1");
  expect_error("hop_ns = -1\n", PASCAL_EFORMAT, "hop_ns", ">= 0");
  expect_error("tensor_pipe_ns = -0.5\n", PASCAL_EFORMAT, "tensor_pipe_ns", ">= 0");
  expect_error("tensor_pipe_ns = fast\n", PASCAL_EFORMAT, "tensor_pipe_ns", "line 1");
  expect_error("tensor_pipe_ns = inf\n", PASCAL_EFORMAT, "tensor_pipe_ns", "line 1");
  expect_error("hop_ns = nan\n", PASCAL_EFORMAT, "hop_ns", "line 1");
  expect_error("hop_ns = inf\n", PASCAL_EFORMAT, "hop_ns", "line 1");
  expect_error("hop_ns = 1e999\n", PASCAL_EFORMAT, "hop_ns", "line 1");
  expect_error("hop_ns = 3 4\n", PASCAL_EFORMAT, "hop_ns", "line 1");
  expect_error("dram_gbps = 0\n", PASCAL_EFORMAT, "dram_gbps", "line 1");
  expect_error("service_jitter = 1\n", PASCAL_EFORMAT, "service_jitter", "[0, 1)");
  expect_error("sm_read_spread = 0.5\n", PASCAL_EFORMAT, "sm_read_spread", "line 1");
  expect_error("priming = d+1\n", PASCAL_EFORMAT, "priming", "d-1 or d");
  expect_error("sm_read_run_spread = 0.5\n", PASCAL_EFORMAT, "sm_read_run_spread", "[0, 0.5)");
  expect_error("sm_clock_spread = -0.01\n", PASCAL_EFORMAT, "sm_clock_spread", "line 1");
  expect_error("work_noise = 0.6\n", PASCAL_EFORMAT, "work_noise", "[0, 0.5]");
  expect_error("work_noise_blocks = 0.5\n", PASCAL_EFORMAT, "work_noise_blocks", ">= 1");
  expect_error("link_stall_prob = 1.5\n", PASCAL_EFORMAT, "link_stall_prob", "[0, 1]");
  expect_error("dram_tail_ns = -3\n", PASCAL_EFORMAT, "dram_tail_ns", ">= 0");
  expect_error("dispatch_ns = x\n", PASCAL_EFORMAT, "dispatch_ns", "line 1");
  expect_error("name = two words\n", PASCAL_EFORMAT, "name", "line 1");
  expect_error("arch = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", PASCAL_EFORMAT, "arch",
               "line 1");
  char longline[700];
  memset(longline, ' ', sizeof longline);
  memcpy(longline, "# x", 3);
  longline[sizeof longline - 1] = '\0';
  expect_error(longline, PASCAL_EFORMAT, "line 1", "longer than");
  /* NUL inside the given length */
  pascal_simdev_profile p;
  pascal_error err;
  CHECK_INT(pascal_simdev_profile_parse("seed = 1\nx\0y\n", 12, &p, &err), PASCAL_EFORMAT);
  CHECK(strcmp(err.field, "line 2") == 0);
  CHECK_INT(pascal_simdev_profile_parse(NULL, 3, &p, &err), PASCAL_EINVAL);
  CHECK_INT(pascal_simdev_profile_parse("", 0, NULL, &err), PASCAL_EINVAL);
  CHECK_INT(pascal_simdev_profile_load("/nonexistent/dir/x.profile", &p, &err), PASCAL_ENOTFOUND);
  CHECK(strcmp(err.field, "profile") == 0);
  CHECK(strstr(err.message, "/nonexistent/dir/x.profile") != NULL);
  /* validation of a struct built in code */
  pascal_simdev_profile v;
  pascal_simdev_profile_default(&v);
  CHECK_INT(pascal_simdev_profile_validate(&v, &err), PASCAL_OK);
  v.capacity_blocks = 0;
  CHECK_INT(pascal_simdev_profile_validate(&v, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "capacity_blocks") == 0);
  pascal_simdev_profile_default(&v);
  v.name[0] = '\0';
  CHECK_INT(pascal_simdev_profile_validate(&v, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "name") == 0);
  CHECK_INT(pascal_simdev_profile_validate(NULL, &err), PASCAL_EINVAL);
}

int main(void)
{
  test_shipped_profile();
  test_thor_profile();
  test_overrides();
  test_peaks();
  test_errors();
  return check_summary();
}

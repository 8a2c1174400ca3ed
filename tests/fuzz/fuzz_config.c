/*
 * fuzz_config.c - any bytes as a pascald config file (`--config FILE`),
 * resolved by pd_config_load as `pascald serve` does. Asserted: the loader
 * either refuses with a message or accepts values inside the documented
 * ranges (docs/http-api.md, Configuration); nothing crashes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
  fprintf(stderr, "fuzz: config accepted with %s\n", what);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char path[64];
  if (!path[0]) {
    unsetenv("PASCAL_CONFIG"); /* only the file under test */
    snprintf(path, sizeof path, "/tmp/pascal-fuzz-config-%ld", (long)getpid());
  }
  FILE *f = fopen(path, "wb");
  if (!f)
    abort();
  if (size && fwrite(data, 1, size, f) != size)
    abort();
  fclose(f);
  char *argv[] = {"--config", path};
  pd_config cfg;
  char msg[512] = "";
  int rc = pd_config_load(&cfg, 2, argv, msg, sizeof msg);
  unlink(path);
  if (rc != 0) {
    if (rc != -1 || !msg[0])
      fail("a failure without a message");
    return 0;
  }
  if (cfg.lease_seconds < 1 || cfg.lease_seconds > 86400)
    fail("lease_seconds out of range");
  if (cfg.max_attempts < 1 || cfg.max_attempts > 100)
    fail("max_attempts out of range");
  if (cfg.threads < 1 || cfg.threads > 256)
    fail("threads out of range");
  if (cfg.connection_limit < 1 || cfg.request_deadline_s < 1 || cfg.connection_timeout_s < 1)
    fail("a zero connection limit or timeout");
  if (cfg.body_max < 1024 || cfg.listen_port > 65535 || !cfg.db_path[0] || !cfg.listen_host[0])
    fail("an impossible body limit, port, database or host");
  return 0;
}

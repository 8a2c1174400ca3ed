/*
 * replay_main.c - runs a harness's LLVMFuzzerTestOneInput over files and
 * directories given as arguments (each file is one input), for the builds
 * without libFuzzer: gcc, and the ASan/UBSan build of `make test`, which so
 * replays every seed corpus under the sanitizers. A harness failure aborts.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pascal/grow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap && pascal_grow((void **)&buf, &cap, cap ? cap + 1 : 4096, 1))
      abort();
    size_t r = fread(buf + len, 1, cap - len, f);
    if (r == 0)
      break;
    len += r;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
  return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
  int inputs = 0, failed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: no such file or directory %s\n", argv[i]);
      return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
      failed |= run_file(argv[i]);
      inputs++;
      continue;
    }
    struct dirent **names = NULL;
    int n = scandir(argv[i], &names, NULL, by_name);
    for (int k = 0; k < n; k++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
      if (names[k]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        failed |= run_file(path);
        inputs++;
      }
      free(names[k]);
    }
    free(names);
  }
  printf("replayed %d inputs\n", inputs);
  return failed || inputs == 0 ? 1 : 0;
}

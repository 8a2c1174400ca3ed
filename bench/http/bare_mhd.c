/*
 * bare_mhd.c - the ceiling of pascald's HTTP stack: libmicrohttpd with the
 * same daemon flags as pascald (epoll, internal thread pool sized to the
 * cores, pascald's 64 KiB of memory per connection, which libmicrohttpd
 * clears for every request), answering every request with a fixed small
 * JSON body. bench/http/
 * run.sh measures it next to pascald in the same run.
 *
 * usage: bare_mhd [PORT]   (0 or absent: a free port; the first stdout line
 * is "bare_mhd listening on http://127.0.0.1:PORT"). Stops on SIGTERM/SIGINT.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"K\":1.25,\"rho\":0.026,\"fill_bytes\":1073741824.0,\"M\":48}\n";

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *size, void **state)
{
  (void)url;
  (void)method;
  (void)version;
  (void)data;
  struct MHD_Response *r = cls;
  if (*state == NULL) { /* first call: headers only */
    *state = c;
    return MHD_YES;
  }
  if (*size) { /* ignore any body */
    *size = 0;
    return MHD_YES;
  }
  return MHD_queue_response(c, MHD_HTTP_OK, r);
}

int main(int argc, char **argv)
{
  unsigned port = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 0;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  struct MHD_Response *r =
      MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  struct MHD_Daemon *d = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, answer, r,
      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE,
      (unsigned int)(cores > 0 ? cores : 1), MHD_OPTION_CONNECTION_TIMEOUT, 30u,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_END);
  if (!d) {
    fprintf(stderr, "bare_mhd: cannot listen on port %u\n", port);
    return 1;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  printf("bare_mhd listening on http://127.0.0.1:%u\n", info ? info->port : port);
  fflush(stdout);
  int sig;
  sigwait(&sigs, &sig);
  MHD_stop_daemon(d);
  MHD_destroy_response(r);
  return 0;
}

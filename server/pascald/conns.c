/*
 * conns.c - the connection policy that libmicrohttpd 0.9.75 does not provide
 * by itself (see conns.h and docs/http-api.md, "Connections"):
 *   - a total limit at which a new client takes the place of a connection
 *     not being answered, from the address holding the most (the accept
 *     policy callback evicts it), or, when every slot is being answered, is
 *     closed at once instead of left in the kernel backlog;
 *   - a request deadline: MHD's connection timeout is an idle timeout that
 *     every received byte resets, so a client sending one byte a second holds
 *     its slot forever. A sweeper thread shuts down every connection that has
 *     not delivered a whole request (head and body) within request_deadline
 *     seconds of being accepted or of its previous answer. shutdown(2) (not
 *     close) wakes MHD's epoll with end-of-stream, and MHD closes the
 *     connection and releases it through its own path;
 *   - a flag for a NUL byte decoded from %00 in the URL path, which MHD would
 *     otherwise hand to the access handler as a silently shortened string;
 *   - a count of the query parameters, made by the URL decoder (a name and a
 *     value are decoded per parameter): past PD_QUERY_PARAMS_MAX http.c
 *     answers 414, and when libmicrohttpd ran out of connection memory first
 *     (about 1,900 parameters) and cannot answer at all, the next sweep
 *     shuts the connection down instead of leaving it to the deadline.
 * The per-address limit is MHD's own (MHD_OPTION_PER_IP_CONNECTION_LIMIT).
 */
#include "conns.h"

#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "clock.h"
#include "stats.h"

typedef struct pd_sock {
  struct pd_sock *prev, *next; /* the live list, under pd_conns.lock */
  int fd;
  atomic_llong since_ns; /* when the wait for the current request began */
  atomic_int answering;  /* 1 from the answer until the request completes */
  atomic_int doomed;     /* too many query parameters: shut down now */
  int swept;             /* shut down by the sweeper already */
  int nul_in_url;        /* written and read by the connection's MHD thread */
  unsigned decoded;      /* strings URL-decoded in this request (MHD thread) */
  unsigned char ip[16];  /* the client's address (v4 in its first 4 bytes) */
  int family;            /* AF_INET, AF_INET6, or 0 when unknown */
  void *request_room;    /* pd_conns_request_room (MHD thread) */
} pd_sock;

struct pd_conns {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pd_sock *live;
  atomic_uint count;
  unsigned limit;
  int64_t deadline_ns;
  int stop;
  atomic_int closing; /* the daemon stops: every newcomer is closed at once */
  pthread_t sweeper;
  int sweeper_running;
  atomic_ullong refused, expired, evicted;
};

int pd_conns_new(unsigned limit, unsigned deadline_s, pd_conns **out)
{
  pd_conns *c = calloc(1, sizeof *c);
  if (!c)
    return -1;
  pthread_mutex_init(&c->lock, NULL);
  pd_cond_init_monotonic(&c->wake);
  atomic_init(&c->count, 0);
  atomic_init(&c->refused, 0);
  atomic_init(&c->evicted, 0);
  atomic_init(&c->expired, 0);
  atomic_init(&c->closing, 0);
  c->limit = limit;
  c->deadline_ns = (int64_t)deadline_s * 1000000000LL;
  *out = c;
  return 0;
}

void pd_conns_close_door(pd_conns *c)
{
  atomic_store_explicit(&c->closing, 1, memory_order_relaxed);
}

void pd_conns_free(pd_conns *c)
{
  if (!c)
    return;
  pd_conns_stop(c);
  pthread_mutex_destroy(&c->lock);
  pthread_cond_destroy(&c->wake);
  free(c);
}

/* The IP of a socket address into ip[16]; its family, 0 when neither. */
static int address_of(const struct sockaddr *a, unsigned char ip[16])
{
  memset(ip, 0, 16);
  if (a && a->sa_family == AF_INET) {
    memcpy(ip, &((const struct sockaddr_in *)(const void *)a)->sin_addr, 4);
    return AF_INET;
  }
  if (a && a->sa_family == AF_INET6) {
    memcpy(ip, &((const struct sockaddr_in6 *)(const void *)a)->sin6_addr, 16);
    return AF_INET6;
  }
  return 0;
}

static int same_address(const pd_sock *a, const pd_sock *b)
{
  return a->family && a->family == b->family && !memcmp(a->ip, b->ip, sizeof a->ip);
}

/* At the limit, a place for the new client: among the connections not
 * being answered (idle between requests, or still sending one), those of
 * the address that holds the most, and of them the one waiting longest for
 * its request, is shut down (the sweeper's way). A client holding slots
 * with slow or idle requests thus loses them to newcomers, and clients from
 * many addresses cannot hold every slot. Under c->lock; 1 when one went. */
static int evict_one(pd_conns *c, const unsigned char ip[16], int family)
{
  pd_sock *victim = NULL;
  unsigned victim_share = 0;
  pd_sock newcomer = {.family = family};
  memcpy(newcomer.ip, ip, sizeof newcomer.ip);
  for (pd_sock *s = c->live; s; s = s->next) {
    if (s->swept || s->fd < 0 || atomic_load(&s->answering))
      continue;
    unsigned share = 0;
    for (pd_sock *t = c->live; t; t = t->next)
      share += same_address(s, t) || (!s->family && t == s);
    if (same_address(s, &newcomer))
      share++; /* the newcomer's own address counts against it */
    if (!victim || share > victim_share ||
        (share == victim_share && atomic_load(&s->since_ns) < atomic_load(&victim->since_ns))) {
      victim = s;
      victim_share = share;
    }
  }
  if (!victim)
    return 0;
  shutdown(victim->fd, SHUT_RDWR);
  victim->swept = 1;
  return 1;
}

enum MHD_Result pd_conns_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
  pd_conns *c = cls;
  (void)addrlen;
  if (atomic_load_explicit(&c->closing, memory_order_relaxed))
    return MHD_NO;
  if (atomic_load_explicit(&c->count, memory_order_relaxed) < c->limit)
    return MHD_YES;
  unsigned char ip[16];
  int family = address_of(addr, ip);
  pthread_mutex_lock(&c->lock);
  int made_room = evict_one(c, ip, family);
  pthread_mutex_unlock(&c->lock);
  if (made_room) {
    atomic_fetch_add_explicit(&c->evicted, 1, memory_order_relaxed);
    return MHD_YES;
  }
  atomic_fetch_add_explicit(&c->refused, 1, memory_order_relaxed);
  return MHD_NO; /* every slot is answering: MHD closes the socket at once */
}

void pd_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                     enum MHD_ConnectionNotificationCode code)
{
  pd_conns *c = cls;
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    pd_sock *s = calloc(1, sizeof *s);
    const union MHD_ConnectionInfo *fd =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!s)
      return; /* the connection lives on without a deadline */
    s->fd = fd ? fd->connect_fd : -1;
    const union MHD_ConnectionInfo *ca =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    s->family = address_of(ca ? ca->client_addr : NULL, s->ip);
    atomic_init(&s->since_ns, (long long)pd_now_ns());
    atomic_init(&s->answering, 0);
    atomic_init(&s->doomed, 0);
    pthread_mutex_lock(&c->lock);
    s->next = c->live;
    if (c->live)
      c->live->prev = s;
    c->live = s;
    pthread_mutex_unlock(&c->lock);
    atomic_fetch_add_explicit(&c->count, 1, memory_order_relaxed);
    *socket_context = s;
    return;
  }
  pd_sock *s = *socket_context;
  if (!s)
    return;
  /* Unlinked before MHD closes the descriptor: the sweeper, which holds the
   * lock while it calls shutdown(), never sees a closed or reused fd. */
  pthread_mutex_lock(&c->lock);
  if (s->prev)
    s->prev->next = s->next;
  else
    c->live = s->next;
  if (s->next)
    s->next->prev = s->prev;
  pthread_mutex_unlock(&c->lock);
  atomic_fetch_sub_explicit(&c->count, 1, memory_order_relaxed);
  free(s->request_room);
  free(s);
  *socket_context = NULL;
}

static pd_sock *sock_of(struct MHD_Connection *conn)
{
  const union MHD_ConnectionInfo *i =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return i ? i->socket_context : NULL;
}

size_t pd_conns_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
  (void)cls;
  /* Most keys and values hold no '%': their length is the decoded one and
   * they cannot decode to a NUL, found in one pass without the decoder. */
  size_t n = 0;
  while (s[n] != '\0' && s[n] != '%')
    n++;
  int nul = 0;
  if (s[n] == '%') {
    n = MHD_http_unescape(s);
    nul = strlen(s) != n;
  }
  pd_sock *k = sock_of(conn);
  if (!k)
    return n;
  if (nul)
    k->nul_in_url = 1;
  if (++k->decoded > 2 * PD_QUERY_PARAMS_MAX + 1)
    atomic_store(&k->doomed, 1);
  return n;
}

void *pd_conns_request_start(struct MHD_Connection *conn, size_t size, int *nul_in_url,
                             int *too_many_params)
{
  pd_sock *s = sock_of(conn);
  if (!s) {
    *nul_in_url = -1;
    *too_many_params = 0;
    return NULL;
  }
  *nul_in_url = s->nul_in_url;
  *too_many_params = atomic_load(&s->doomed);
  if (!s->request_room)
    s->request_room = malloc(size);
  return s->request_room;
}

void pd_conns_answering(struct MHD_Connection *conn)
{
  pd_sock *s = sock_of(conn);
  if (s)
    atomic_store(&s->answering, 1);
}

void pd_conns_request_done(struct MHD_Connection *conn)
{
  pd_sock *s = sock_of(conn);
  if (!s)
    return;
  s->nul_in_url = 0;
  s->decoded = 0;
  atomic_store(&s->since_ns, (long long)pd_now_ns());
  atomic_store(&s->answering, 0);
}

/* Every quarter of the deadline (at most 250 ms): shut down the connections
 * whose request is overdue, or doomed and not being answered. */
static void *sweep(void *arg)
{
  pd_conns *c = arg;
  int64_t period = c->deadline_ns / 4;
  if (period > 250000000LL)
    period = 250000000LL;
  pthread_mutex_lock(&c->lock);
  while (!c->stop) {
    struct timespec ts;
    pd_deadline_after_ms(&ts, (uint64_t)(period / 1000000));
    pthread_cond_timedwait(&c->wake, &c->lock, &ts);
    long long now = (long long)pd_now_ns();
    for (pd_sock *s = c->live; s && !c->stop; s = s->next) {
      if (s->swept || s->fd < 0)
        continue;
      if (atomic_load(&s->answering) ||
          (!atomic_load(&s->doomed) && now - atomic_load(&s->since_ns) <= c->deadline_ns))
        continue;
      shutdown(s->fd, SHUT_RDWR);
      s->swept = 1;
      atomic_fetch_add_explicit(&c->expired, 1, memory_order_relaxed);
    }
  }
  pthread_mutex_unlock(&c->lock);
  return NULL;
}

int pd_conns_start(pd_conns *c)
{
  c->stop = 0;
  if (pthread_create(&c->sweeper, NULL, sweep, c))
    return -1;
  c->sweeper_running = 1;
  return 0;
}

void pd_conns_stop(pd_conns *c)
{
  if (!c->sweeper_running)
    return;
  pthread_mutex_lock(&c->lock);
  c->stop = 1;
  pthread_cond_signal(&c->wake);
  pthread_mutex_unlock(&c->lock);
  pthread_join(c->sweeper, NULL);
  c->sweeper_running = 0;
}

void pd_conns_counts(pd_conns *c, unsigned *open, uint64_t *refused, uint64_t *expired,
                     uint64_t *evicted)
{
  *open = atomic_load(&c->count);
  *refused = atomic_load(&c->refused);
  *expired = atomic_load(&c->expired);
  *evicted = atomic_load(&c->evicted);
}

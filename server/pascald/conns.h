/*
 * conns.h - pascald's connection policy on top of libmicrohttpd: a total
 * connection limit at which a newcomer evicts the longest-waiting idle or
 * slow connection of the address holding the most (or, when every slot is
 * being answered, is closed at once), a deadline for each whole
 * request (head and body) enforced by a sweeper thread, the NUL-in-URL flag
 * set by the URL decoder, which also closes requests with too many query
 * parameters. The pd_conns_* callbacks are registered with
 * MHD by http.c; docs/http-api.md ("Connections") states the policy.
 */
#ifndef PASCALD_CONNS_H
#define PASCALD_CONNS_H

#include <microhttpd.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct pd_conns pd_conns;

/* Query parameters a request may carry (no route takes more than a dozen);
 * more get 414, or a closed connection when libmicrohttpd cannot answer.
 * libmicrohttpd keeps the parameters in the connection's memory
 * (cfg.connection_memory, 64 KiB: room for about 900), so the limit stays
 * well below what fits. */
#define PD_QUERY_PARAMS_MAX 512

/* At most `limit` connections; each request due within deadline_s seconds. */
int pd_conns_new(unsigned limit, unsigned deadline_s, pd_conns **out);
void pd_conns_free(pd_conns *c); /* stops the sweeper first */
int pd_conns_start(pd_conns *c); /* start the sweeper thread */
void pd_conns_stop(pd_conns *c); /* stop and join it (idempotent) */
/* From now on the accept policy closes every new connection at once (the
 * daemon is stopping). Used instead of MHD_quiesce_daemon, which can abort
 * an epoll thread-pool daemon in libmicrohttpd 0.9.75 (see http.c). */
void pd_conns_close_door(pd_conns *c);

/* MHD_OPTION_... callbacks; cls is the pd_conns. */
enum MHD_Result pd_conns_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);
void pd_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                     enum MHD_ConnectionNotificationCode code);
size_t pd_conns_unescape(void *cls, struct MHD_Connection *conn, char *s);

/* Per request, from the access handler's thread. */
/* A request's start, from the connection's record found once: returns room
 * of `size` bytes (the same size on every call) that lives as long as the
 * connection, for the state of its one request at a time: allocated on
 * first use, freed (as plain memory: nothing it holds is released) when
 * the connection closes; NULL when the connection has no record or the
 * allocation failed (the caller then allocates its own). *nul_in_url: 1
 * when %00 was decoded in the URL, 0 when not, -1 when not known (no
 * record); *too_many_params: 1 when more than PD_QUERY_PARAMS_MAX were
 * decoded. */
void *pd_conns_request_start(struct MHD_Connection *conn, size_t size, int *nul_in_url,
                             int *too_many_params);
void pd_conns_answering(struct MHD_Connection *conn);    /* request in: deadline met */
void pd_conns_request_done(struct MHD_Connection *conn); /* next request's clock starts */

/* Open connections, refused (limit reached, every slot answering), expired
 * (deadline, or too many query parameters) and evicted (a slot given to a
 * newcomer at the limit) so far. */
void pd_conns_counts(pd_conns *c, unsigned *open, uint64_t *refused, uint64_t *expired,
                     uint64_t *evicted);

#endif

/*
 * reqhead.h - checks on a request head before any of its body is read:
 * message framing (RFC 9112 section 6) and NUL bytes. libmicrohttpd 0.9.75
 * takes the first of two Content-Length headers, lets Transfer-Encoding
 * override Content-Length and waits for a body it cannot delimit under other
 * transfer codings; a proxy in front may frame the same bytes differently.
 * pascald refuses every such request with a 400 and closes the connection,
 * and so an HTTP/1.1 request without exactly one Host header.
 */
#ifndef PASCALD_REQHEAD_H
#define PASCALD_REQHEAD_H

#include "pascald.h"

/* Headers the request's handling reads, found in the same walk: the first
 * of each name (as MHD_lookup_connection_value finds it), NULL when absent.
 * They live as long as the request. */
typedef struct pd_head {
  const char *content_length;
  const char *authorization;
} pd_head;

/* 0 when the head is acceptable, with *head filled; -1 with a 400 (414 for too many query
 * parameters) in rep, after which the connection must be closed.
 * version: the request's HTTP version (an HTTP/1.1 request needs exactly
 * one Host header, RFC 9112 section 3.2); nul_in_url: the URL decoder met
 * %00 (1), did not (0) or cannot tell (-1: the arguments are checked);
 * too_many_params: it decoded more than PD_QUERY_PARAMS_MAX parameters
 * (conns.h). */
int pd_reqhead_check(struct MHD_Connection *conn, const char *version, int nul_in_url,
                     int too_many_params, pd_head *head, pd_reply *rep);

#endif

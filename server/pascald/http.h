/*
 * http.h - the libmicrohttpd front: daemon start/stop and the access handler
 * that turns a connection's request into a pd_request, runs the route and
 * sends the pd_reply.
 */
#ifndef PASCALD_HTTP_H
#define PASCALD_HTTP_H

#include "ctx.h"

/* Start MHD on cfg.listen_*; ctx->bound_port receives the real port. */
int pd_http_start(pd_ctx *ctx, char *msg, size_t msglen);
/* Stop accepting, wait (bounded) for in-flight requests, stop MHD. */
void pd_http_stop(pd_ctx *ctx);

#endif

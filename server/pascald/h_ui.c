/*
 * h_ui.c - the dashboard (docs/dashboard.md): GET / answers index.html and
 * GET /ui/{file} its stylesheet and script, all embedded in the binary
 * (ui_assets.h). The page reads the API from the same origin, so its
 * Content-Security-Policy allows this origin only: no inline script or
 * style, no other host, no framing.
 */
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "reply.h"
#include "ui_assets.h"

#define UI_CSP                                                                                     \
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src "          \
  "'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

static const struct {
  const char *suffix, *type;
} types[] = {{".html", "text/html; charset=utf-8"},
             {".css", "text/css; charset=utf-8"},
             {".js", "text/javascript; charset=utf-8"}};

static void serve(const char *name, pd_reply *rep)
{
  for (size_t i = 0; i < pd_ui_asset_count; i++) {
    const pd_ui_asset *a = &pd_ui_assets[i];
    if (strcmp(a->name, name) != 0)
      continue;
    const char *type = NULL;
    size_t nl = strlen(name);
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
      size_t sl = strlen(types[t].suffix);
      if (nl > sl && !strcmp(name + nl - sl, types[t].suffix))
        type = types[t].type;
    }
    char *copy = type ? malloc(a->len + 1) : NULL;
    if (!copy)
      break;
    memcpy(copy, a->data, a->len + 1);
    pd_reply_text(rep, 200, copy, a->len, type);
    rep->csp = UI_CSP;
    return;
  }
  pd_reply_error(rep, 404, "not_found", "file", "no dashboard file '%.64s'", name);
}

void pd_h_ui_index(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  (void)ctx;
  (void)req;
  serve("index.html", rep);
}

void pd_h_ui_file(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  (void)ctx;
  serve(req->params[0], rep);
}

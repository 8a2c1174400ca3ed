/*
 * ui_assets.h - the dashboard's files (server/pascald/ui/), compiled into
 * pascald by cmake/embed_assets.cmake so that the daemon needs no file
 * system path to serve them.
 */
#ifndef PASCALD_UI_ASSETS_H
#define PASCALD_UI_ASSETS_H

#include <stddef.h>

typedef struct pd_ui_asset {
  const char *name;          /* file name: "index.html", "app.js", ... */
  const unsigned char *data; /* its bytes (NUL-terminated, not counted) */
  size_t len;
} pd_ui_asset;

extern const pd_ui_asset pd_ui_assets[];
extern const size_t pd_ui_asset_count;

#endif

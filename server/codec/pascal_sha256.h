/*
 * pascal_sha256.h - SHA-256 (FIPS 180-4), a public utility of the codec:
 * the content hash of frozen calibration bundles (docs/bundle-format.md)
 * and pascald's digests of API tokens and lease secrets. A small
 * self-contained implementation so that nothing needs a crypto library.
 */
#ifndef PASCAL_SHA256_H
#define PASCAL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define PASCAL_SHA256_HEX_LEN 64

/* Hash `len` bytes at `data` and write 64 lower-case hex digits plus a NUL
 * into hex[65]. */
void pascal_sha256_hex(const void *data, size_t len, char hex[PASCAL_SHA256_HEX_LEN + 1]);

#endif

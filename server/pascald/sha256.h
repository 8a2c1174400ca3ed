/*
 * sha256.h - SHA-256 (FIPS 180-4), used to store API tokens hashed.
 */
#ifndef PASCALD_SHA256_H
#define PASCALD_SHA256_H

#include <stddef.h>
#include <stdint.h>

void pd_sha256(const void *data, size_t len, uint8_t out[32]);

#endif

/*
 * test_sha256.c - server/codec/sha256.c against the FIPS 180-4 / NIST example
 * vectors and, around the padding boundaries (55, 56, 63, 64, 65, 119, 120
 * bytes), against digests computed independently with Python's hashlib.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal_sha256.h"

static void expect(const void *data, size_t len, const char *want)
{
  char hex[PASCAL_SHA256_HEX_LEN + 1];
  pascal_sha256_hex(data, len, hex);
  CHECK(strcmp(hex, want) == 0);
}

int main(void)
{
  expect("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  expect("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  expect(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  char *million = malloc(1000000);
  memset(million, 'a', 1000000);
  expect(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  free(million);

  /* bytes (7 i + 3) mod 256, digests from hashlib.sha256 */
  static const struct {
    size_t len;
    const char *hex;
  } edge[] = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
  };
  unsigned char buf[120];
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (unsigned char)((i * 7 + 3) % 256);
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
    expect(buf, edge[i].len, edge[i].hex);
  return check_summary();
}

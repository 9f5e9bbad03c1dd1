// OpenSSL's libcrypto (Debian: libssl-dev), which the CryptoKit stand-in computes with. A module
// of its own name, not RewardCrypto's COpenSSLCrypto, so RewardCrypto built here sees no OpenSSL
// module and compiles its CryptoKit branch only.
#ifndef CSTANDINLIBCRYPTO_SHIM_H
#define CSTANDINLIBCRYPTO_SHIM_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

static inline void standin_openssl_free(void *pointer) { OPENSSL_free(pointer); }

#endif

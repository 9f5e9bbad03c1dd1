// The parts of OpenSSL 3's libcrypto RewardCrypto uses: the EVP interfaces (digests, ECDSA keys,
// signing and verifying), PEM/DER key encoding, ECDSA signature encoding, constant-time compare and
// the error queue. Only non-deprecated OpenSSL 3 APIs are called from Swift.
#ifndef REWARDCRYPTO_COPENSSLCRYPTO_SHIM_H
#define REWARDCRYPTO_COPENSSLCRYPTO_SHIM_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/// OPENSSL_free is a macro; this is it as a function Swift can call.
static inline void copenssl_free(void *pointer) { OPENSSL_free(pointer); }

/// EVP_PKEY_fromdata selections: composite macros Swift does not import, as constants.
static const int copenssl_select_keypair = EVP_PKEY_KEYPAIR;
static const int copenssl_select_public_key = EVP_PKEY_PUBLIC_KEY;

/// OSSL_PARAM_BLD keeps the parameter *names* by pointer (it expects string literals), so names
/// must outlive the built parameters: these return OpenSSL's literals.
static inline const char *copenssl_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *copenssl_param_public_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *copenssl_param_private_key(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }

#endif

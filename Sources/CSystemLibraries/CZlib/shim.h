// zlib (Debian: zlib1g-dev; part of every Apple SDK), for the CRC-32 that checks the remote
// configuration's on-disk cache in MediationKitRemoteConfig.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

#endif

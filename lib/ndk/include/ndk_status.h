/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_STATUS_H
#define NDK_STATUS_H

/**
 * @file
 * NTSTATUS-named status codes of the NDK API, with their Windows values.
 * Included by ndk.h; not meant to be included on its own.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An NTSTATUS value: >= 0 success or information, < 0 error. */
typedef int32_t ndk_status_t;

/** @return true if @p s is a success or informational code. */
#define NDK_SUCCESS(s) ((ndk_status_t)(s) >= 0)

/**
 * X-macro of every status code: X(NAME, value). NDK_STATUS_<NAME> is
 * defined for each, and ndk_status_str() names them.
 */
#define NDK_STATUS_LIST(X) \
	X(SUCCESS, 0x00000000) \
	X(TIMEOUT, 0x00000102) \
	X(PENDING, 0x00000103) \
	X(BUFFER_OVERFLOW, 0x80000005) \
	X(DEVICE_BUSY, 0x80000011) \
	X(NO_MORE_ENTRIES, 0x8000001A) \
	X(UNSUCCESSFUL, 0xC0000001) \
	X(ACCESS_VIOLATION, 0xC0000005) \
	X(INVALID_HANDLE, 0xC0000008) \
	X(INVALID_PARAMETER, 0xC000000D) \
	X(INVALID_DEVICE_REQUEST, 0xC0000010) \
	X(NO_MEMORY, 0xC0000017) \
	X(BUFFER_TOO_SMALL, 0xC0000023) \
	X(INVALID_PARAMETER_MIX, 0xC0000030) \
	X(DATA_OVERRUN, 0xC000003C) \
	X(SHARING_VIOLATION, 0xC0000043) \
	X(INSUFFICIENT_RESOURCES, 0xC000009A) \
	X(DEVICE_NOT_READY, 0xC00000A3) \
	X(IO_TIMEOUT, 0xC00000B5) \
	X(NOT_SUPPORTED, 0xC00000BB) \
	X(INTERNAL_ERROR, 0xC00000E5) \
	X(CANCELLED, 0xC0000120) \
	X(REMOTE_RESOURCES, 0xC000013D) \
	X(INVALID_CONNECTION, 0xC0000140) \
	X(INVALID_ADDRESS, 0xC0000141) \
	X(INVALID_DEVICE_STATE, 0xC0000184) \
	X(INVALID_BUFFER_SIZE, 0xC0000206) \
	X(TOO_MANY_ADDRESSES, 0xC0000209) \
	X(ADDRESS_ALREADY_EXISTS, 0xC000020A) \
	X(CONNECTION_DISCONNECTED, 0xC000020C) \
	X(CONNECTION_RESET, 0xC000020D) \
	X(CONNECTION_REFUSED, 0xC0000236) \
	X(CONNECTION_INVALID, 0xC000023A) \
	X(CONNECTION_ACTIVE, 0xC000023B) \
	X(NETWORK_UNREACHABLE, 0xC000023C) \
	X(HOST_UNREACHABLE, 0xC000023D) \
	X(REQUEST_ABORTED, 0xC0000240) \
	X(CONNECTION_ABORTED, 0xC0000241) \
	X(DEVICE_REMOVED, 0xC00002B6) \
	X(IMPLEMENTATION_LIMIT, 0xC000042B) \
	X(BAD_VERSION, 0xC0010004)

/** Status codes. */
enum ndk_status_code {
#define NDK_STATUS_ENUM_(name, value) \
	NDK_STATUS_##name = (ndk_status_t)(uint32_t)(value),
	NDK_STATUS_LIST(NDK_STATUS_ENUM_)
#undef NDK_STATUS_ENUM_
};

/**
 * @return "STATUS_<NAME>" for a known code, "STATUS_UNKNOWN" otherwise.
 * The string is static.
 */
const char *ndk_status_str(ndk_status_t status);

/** @return the closest negative errno for a status (0 for success). */
int ndk_status_to_errno(ndk_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* NDK_STATUS_H */

/* SPDX-License-Identifier: BSD-3-Clause */

#include "ndk_names.h"

const char *
ndk_names_op(enum ndk_operation_type type)
{
	switch (type) {
	case NDK_OP_RECEIVE: return "RECEIVE";
	case NDK_OP_RECEIVE_AND_INVALIDATE: return "RECEIVE_AND_INVALIDATE";
	case NDK_OP_SEND: return "SEND";
	case NDK_OP_FAST_REGISTER: return "FAST_REGISTER";
	case NDK_OP_BIND: return "BIND";
	case NDK_OP_INVALIDATE: return "INVALIDATE";
	case NDK_OP_READ: return "READ";
	case NDK_OP_WRITE: return "WRITE";
	}
	return "UNKNOWN";
}

const char *
ndk_names_perr(uint32_t perr)
{
	static const char *const names[] = {
		[NDK_PERR_NONE] = "NONE",
		[NDK_PERR_FLUSHED] = "FLUSHED",
		[NDK_PERR_RETRY_EXCEEDED] = "RETRY_EXCEEDED",
		[NDK_PERR_RNR_RETRY_EXCEEDED] = "RNR_RETRY_EXCEEDED",
		[NDK_PERR_REM_INV_REQ] = "REM_INV_REQ",
		[NDK_PERR_REM_ACCESS] = "REM_ACCESS",
		[NDK_PERR_REM_OP] = "REM_OP",
		[NDK_PERR_LOC_LEN] = "LOC_LEN",
		[NDK_PERR_LOC_PROT] = "LOC_PROT",
		[NDK_PERR_LOC_QP_OP] = "LOC_QP_OP",
		[NDK_PERR_BAD_RESP] = "BAD_RESP",
	};

	return perr < sizeof(names) / sizeof(names[0]) && names[perr] != NULL ?
		names[perr] : "UNKNOWN";
}

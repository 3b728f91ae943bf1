/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

/**
 * @file
 * NVMe over Fabrics on RDMA: the wire formats the target and the host
 * share. Written from the NVM Express Base Specification 2.0 (submission
 * and completion queue entries, SGL descriptors, admin and NVM command
 * sets, status codes), the NVMe over Fabrics specification 1.1 (Fabrics
 * commands, Connect data, discovery log page) and the NVMe/RDMA transport
 * binding (RDMA CM private data).
 *
 * NVMe is little-endian on the wire and so are the hosts DPDK runs this
 * library on (checked below): multi-byte fields are read and written
 * directly. Fields at unaligned offsets are byte arrays with accessors.
 * Sizes and offsets are checked at build time against the specification.
 */

#ifndef NVME_SPEC_H
#define NVME_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#if RTE_BYTE_ORDER != RTE_LITTLE_ENDIAN
#error "lib/nvmf reads NVMe's little-endian fields directly"
#endif

/* ------------------------------------------------------------------ */
/* SGL descriptors (Base 2.0, 4.1.8)                                   */
/* ------------------------------------------------------------------ */

/** SGL descriptor types (high nibble of the identifier byte). */
enum nvme_sgl_type {
	NVME_SGL_TYPE_DATA_BLOCK = 0x0,
	NVME_SGL_TYPE_BIT_BUCKET = 0x1,
	NVME_SGL_TYPE_SEGMENT = 0x2,
	NVME_SGL_TYPE_LAST_SEGMENT = 0x3,
	NVME_SGL_TYPE_KEYED_DATA_BLOCK = 0x4,
	NVME_SGL_TYPE_TRANSPORT_DATA_BLOCK = 0x5,
};

/** SGL descriptor sub-types (low nibble of the identifier byte). */
enum nvme_sgl_subtype {
	NVME_SGL_SUBTYPE_ADDRESS = 0x0,
	NVME_SGL_SUBTYPE_OFFSET = 0x1,      /**< in-capsule data */
	NVME_SGL_SUBTYPE_TRANSPORT = 0xA,
	NVME_SGL_SUBTYPE_INVALIDATE_KEY = 0xF, /**< keyed: invalidate the key */
};

/** Identifier byte from a type and a sub-type. */
#define NVME_SGL_ID(type, subtype) ((uint8_t)(((type) << 4) | (subtype)))
/** Type of an identifier byte. */
#define NVME_SGL_ID_TYPE(id) ((uint8_t)(id) >> 4)
/** Sub-type of an identifier byte. */
#define NVME_SGL_ID_SUBTYPE(id) ((uint8_t)(id) & 0xF)

/**
 * One 16-byte SGL descriptor. Unkeyed data block: @c addr, @c length
 * (32 bits) at bytes 8..11. Keyed data block: @c addr, a 24-bit length at
 * bytes 8..10 and the 32-bit key at bytes 11..14 (nvme_sgl_keyed_*()).
 */
struct nvme_sgl_desc {
	uint64_t addr;          /**< address, or offset for in-capsule data */
	uint8_t b[7];           /**< length / key: see the accessors */
	uint8_t id;             /**< NVME_SGL_ID(type, subtype) */
};

/** Unkeyed data block length. */
static inline uint32_t
nvme_sgl_length(const struct nvme_sgl_desc *d)
{
	uint32_t v;

	memcpy(&v, d->b, 4);
	return v;
}

/** Set an unkeyed data block length. */
static inline void
nvme_sgl_set_length(struct nvme_sgl_desc *d, uint32_t len)
{
	memcpy(d->b, &len, 4);
	memset(d->b + 4, 0, 3);
}

/** Keyed data block length (24 bits). */
static inline uint32_t
nvme_sgl_keyed_length(const struct nvme_sgl_desc *d)
{
	return (uint32_t)d->b[0] | (uint32_t)d->b[1] << 8 |
		(uint32_t)d->b[2] << 16;
}

/** Keyed data block key (the remote token). */
static inline uint32_t
nvme_sgl_keyed_key(const struct nvme_sgl_desc *d)
{
	uint32_t v;

	memcpy(&v, d->b + 3, 4);
	return v;
}

/** Fill a keyed data block descriptor; @p len below 1 << 24. */
static inline void
nvme_sgl_set_keyed(struct nvme_sgl_desc *d, uint64_t addr, uint32_t len,
		   uint32_t key, bool invalidate)
{
	d->addr = addr;
	d->b[0] = (uint8_t)len;
	d->b[1] = (uint8_t)(len >> 8);
	d->b[2] = (uint8_t)(len >> 16);
	memcpy(d->b + 3, &key, 4);
	d->id = NVME_SGL_ID(NVME_SGL_TYPE_KEYED_DATA_BLOCK,
			    invalidate ? NVME_SGL_SUBTYPE_INVALIDATE_KEY :
			    NVME_SGL_SUBTYPE_ADDRESS);
}

/** Largest keyed data block length. */
#define NVME_SGL_KEYED_MAX_LEN ((1u << 24) - 1)

/* ------------------------------------------------------------------ */
/* Submission and completion queue entries (Base 2.0, 4.2, 4.6)        */
/* ------------------------------------------------------------------ */

/** CDW0 flags: PSDT (bits 7:6), 01b = SGLs for data (fabrics: always). */
#define NVME_CMD_PSDT_SGL_MPTR_CONTIG 0x40
/** CDW0 flags: PSDT mask. */
#define NVME_CMD_PSDT_MASK 0xC0
/** CDW0 flags: FUSE mask (bits 1:0). */
#define NVME_CMD_FUSE_MASK 0x03

/** A 64-byte submission queue entry (command capsule's first 64 bytes). */
struct nvme_cmd {
	uint8_t opc;            /**< opcode */
	uint8_t flags;          /**< FUSE, PSDT */
	uint16_t cid;           /**< command identifier */
	uint32_t nsid;          /**< namespace (fabrics: byte 4 is fctype) */
	uint32_t cdw2;
	uint32_t cdw3;
	uint64_t mptr;          /**< metadata pointer */
	struct nvme_sgl_desc dptr; /**< data pointer: SGL descriptor 1 */
	uint32_t cdw10;
	uint32_t cdw11;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14;
	uint32_t cdw15;
};

/** Status field: phase (bit 0), SC (8:1), SCT (11:9), CRD, M, DNR. */
#define NVME_STATUS_P 0x0001
#define NVME_STATUS_SC_SHIFT 1
#define NVME_STATUS_SC_MASK 0xFF
#define NVME_STATUS_SCT_SHIFT 9
#define NVME_STATUS_SCT_MASK 0x7
#define NVME_STATUS_MORE 0x4000
#define NVME_STATUS_DNR 0x8000

/** A 16-byte completion queue entry (response capsule). */
struct nvme_cpl {
	uint32_t cdw0;          /**< command specific */
	uint32_t cdw1;          /**< command specific */
	uint16_t sqhd;          /**< submission queue head pointer */
	uint16_t sqid;          /**< submission queue identifier */
	uint16_t cid;           /**< command identifier */
	uint16_t status;        /**< NVME_STATUS_* fields */
};

/** Status code type (SCT). */
enum nvme_sct {
	NVME_SCT_GENERIC = 0x0,
	NVME_SCT_COMMAND_SPECIFIC = 0x1,
	NVME_SCT_MEDIA = 0x2,
	NVME_SCT_PATH = 0x3,
	NVME_SCT_VENDOR = 0x7,
};

/** Generic command status (SCT 0). */
enum nvme_sc_generic {
	NVME_SC_SUCCESS = 0x00,
	NVME_SC_INVALID_OPCODE = 0x01,
	NVME_SC_INVALID_FIELD = 0x02,
	NVME_SC_CID_CONFLICT = 0x03,
	NVME_SC_DATA_TRANSFER_ERROR = 0x04,
	NVME_SC_POWER_LOSS_ABORT = 0x05,
	NVME_SC_INTERNAL_ERROR = 0x06,
	NVME_SC_ABORTED_BY_REQUEST = 0x07,
	NVME_SC_ABORTED_SQ_DELETION = 0x08,
	NVME_SC_ABORTED_FAILED_FUSED = 0x09,
	NVME_SC_ABORTED_MISSING_FUSED = 0x0A,
	NVME_SC_INVALID_NAMESPACE = 0x0B,
	NVME_SC_COMMAND_SEQUENCE_ERROR = 0x0C,
	NVME_SC_INVALID_SGL_SEG_DESC = 0x0D,
	NVME_SC_INVALID_NUM_SGL_DESC = 0x0E,
	NVME_SC_DATA_SGL_LENGTH_INVALID = 0x0F,
	NVME_SC_METADATA_SGL_LENGTH_INVALID = 0x10,
	NVME_SC_SGL_DESC_TYPE_INVALID = 0x11,
	NVME_SC_INVALID_CONTROLLER_MEM_BUF = 0x12,
	NVME_SC_INVALID_PRP_OFFSET = 0x13,
	NVME_SC_ATOMIC_WRITE_UNIT_EXCEEDED = 0x14,
	NVME_SC_OPERATION_DENIED = 0x15,
	NVME_SC_INVALID_SGL_OFFSET = 0x16,
	NVME_SC_HOSTID_INCONSISTENT_FORMAT = 0x18,
	NVME_SC_KEEP_ALIVE_EXPIRED = 0x19,
	NVME_SC_KEEP_ALIVE_INVALID = 0x1A,
	NVME_SC_ABORTED_PREEMPT = 0x1B,
	NVME_SC_SANITIZE_FAILED = 0x1C,
	NVME_SC_SANITIZE_IN_PROGRESS = 0x1D,
	NVME_SC_SGL_DATA_BLOCK_GRANULARITY_INVALID = 0x1E,
	NVME_SC_COMMAND_INVALID_IN_CMB = 0x1F,
	NVME_SC_NAMESPACE_IS_WRITE_PROTECTED = 0x20,
	NVME_SC_COMMAND_INTERRUPTED = 0x21,
	NVME_SC_TRANSIENT_TRANSPORT_ERROR = 0x22,
	NVME_SC_LBA_OUT_OF_RANGE = 0x80,
	NVME_SC_CAPACITY_EXCEEDED = 0x81,
	NVME_SC_NAMESPACE_NOT_READY = 0x82,
	NVME_SC_RESERVATION_CONFLICT = 0x83,
	NVME_SC_FORMAT_IN_PROGRESS = 0x84,
};

/** Command specific status (SCT 1). */
enum nvme_sc_command_specific {
	NVME_SC_COMPLETION_QUEUE_INVALID = 0x00,
	NVME_SC_INVALID_QUEUE_IDENTIFIER = 0x01,
	NVME_SC_INVALID_QUEUE_SIZE = 0x02,
	NVME_SC_ABORT_COMMAND_LIMIT_EXCEEDED = 0x03,
	NVME_SC_ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED = 0x05,
	NVME_SC_INVALID_FIRMWARE_SLOT = 0x06,
	NVME_SC_INVALID_FIRMWARE_IMAGE = 0x07,
	NVME_SC_INVALID_INTERRUPT_VECTOR = 0x08,
	NVME_SC_INVALID_LOG_PAGE = 0x09,
	NVME_SC_INVALID_FORMAT = 0x0A,
	NVME_SC_FEATURE_ID_NOT_SAVEABLE = 0x0D,
	NVME_SC_FEATURE_NOT_CHANGEABLE = 0x0E,
	NVME_SC_FEATURE_NOT_NAMESPACE_SPECIFIC = 0x0F,
	NVME_SC_CONFLICTING_ATTRIBUTES = 0x80,  /**< NVM: DSM, Write Zeroes */
	NVME_SC_INVALID_PROTECTION_INFO = 0x81,
	NVME_SC_ATTEMPTED_WRITE_TO_RO_RANGE = 0x82,
	/* Fabrics (Connect), SCT 1 */
	NVME_SC_CONNECT_INCOMPATIBLE_FORMAT = 0x80,
	NVME_SC_CONNECT_CONTROLLER_BUSY = 0x81,
	NVME_SC_CONNECT_INVALID_PARAMETERS = 0x82,
	NVME_SC_CONNECT_RESTART_DISCOVERY = 0x83,
	NVME_SC_CONNECT_INVALID_HOST = 0x84,
	NVME_SC_DISCOVERY_RESTART = 0x90,
	NVME_SC_AUTH_REQUIRED = 0x91,
};

/** Media and data integrity errors (SCT 2). */
enum nvme_sc_media {
	NVME_SC_WRITE_FAULTS = 0x80,
	NVME_SC_UNRECOVERED_READ_ERROR = 0x81,
	NVME_SC_COMPARE_FAILURE = 0x85,
	NVME_SC_ACCESS_DENIED = 0x86,
	NVME_SC_DEALLOCATED_OR_UNWRITTEN_BLOCK = 0x87,
};

/** Path related status (SCT 3). */
enum nvme_sc_path {
	NVME_SC_INTERNAL_PATH_ERROR = 0x00,
	NVME_SC_CONTROLLER_PATHING_ERROR = 0x60,
	NVME_SC_HOST_PATHING_ERROR = 0x70,
	NVME_SC_ABORTED_BY_HOST = 0x71,
};

/** The status field (without the phase bit) for @p sct and @p sc. */
static inline uint16_t
nvme_status(uint8_t sct, uint8_t sc, int dnr)
{
	return (uint16_t)((uint16_t)sc << NVME_STATUS_SC_SHIFT |
			  (uint16_t)(sct & NVME_STATUS_SCT_MASK) <<
			  NVME_STATUS_SCT_SHIFT |
			  (dnr ? NVME_STATUS_DNR : 0));
}

/** SC of a status field. */
static inline uint8_t
nvme_status_sc(uint16_t status)
{
	return (uint8_t)(status >> NVME_STATUS_SC_SHIFT);
}

/** SCT of a status field. */
static inline uint8_t
nvme_status_sct(uint16_t status)
{
	return (uint8_t)((status >> NVME_STATUS_SCT_SHIFT) &
			 NVME_STATUS_SCT_MASK);
}

/* ------------------------------------------------------------------ */
/* Opcodes                                                             */
/* ------------------------------------------------------------------ */

/** Admin command set opcodes (Base 2.0, 5). */
enum nvme_admin_opc {
	NVME_OPC_DELETE_IO_SQ = 0x00,
	NVME_OPC_CREATE_IO_SQ = 0x01,
	NVME_OPC_GET_LOG_PAGE = 0x02,
	NVME_OPC_DELETE_IO_CQ = 0x04,
	NVME_OPC_CREATE_IO_CQ = 0x05,
	NVME_OPC_IDENTIFY = 0x06,
	NVME_OPC_ABORT = 0x08,
	NVME_OPC_SET_FEATURES = 0x09,
	NVME_OPC_GET_FEATURES = 0x0A,
	NVME_OPC_ASYNC_EVENT_REQUEST = 0x0C,
	NVME_OPC_NS_MANAGEMENT = 0x0D,
	NVME_OPC_FIRMWARE_COMMIT = 0x10,
	NVME_OPC_FIRMWARE_IMAGE_DOWNLOAD = 0x11,
	NVME_OPC_NS_ATTACHMENT = 0x15,
	NVME_OPC_KEEP_ALIVE = 0x18,
	NVME_OPC_FABRICS = 0x7F,   /**< Fabrics command: see nvmf_fctype */
};

/** NVM command set opcodes (NVM Command Set 1.0, 3). */
enum nvme_nvm_opc {
	NVME_OPC_FLUSH = 0x00,
	NVME_OPC_WRITE = 0x01,
	NVME_OPC_READ = 0x02,
	NVME_OPC_WRITE_UNCORRECTABLE = 0x04,
	NVME_OPC_COMPARE = 0x05,
	NVME_OPC_WRITE_ZEROES = 0x08,
	NVME_OPC_DATASET_MANAGEMENT = 0x09,
};

/** Dataset Management CDW11 attribute: deallocate. */
#define NVME_DSM_ATTR_DEALLOCATE (1u << 2)

/** One Dataset Management range (16 bytes). */
struct nvme_dsm_range {
	uint32_t attributes;    /**< context attributes */
	uint32_t nlb;           /**< number of logical blocks (not 0's based) */
	uint64_t slba;          /**< starting LBA */
};

/* ------------------------------------------------------------------ */
/* Identify (Base 2.0, 5.17)                                           */
/* ------------------------------------------------------------------ */

/** Identify CNS values (CDW10 bits 7:0). */
enum nvme_identify_cns {
	NVME_CNS_NAMESPACE = 0x00,
	NVME_CNS_CONTROLLER = 0x01,
	NVME_CNS_ACTIVE_NS_LIST = 0x02,
	NVME_CNS_NS_ID_DESC_LIST = 0x03,
	NVME_CNS_CSI_NAMESPACE = 0x05,
	NVME_CNS_CSI_CONTROLLER = 0x06,
	NVME_CNS_CSI_ACTIVE_NS_LIST = 0x07,
};

/** Namespace identification descriptor types (CNS 03h). */
enum nvme_nidt {
	NVME_NIDT_EUI64 = 0x1,      /**< 8 bytes */
	NVME_NIDT_NGUID = 0x2,      /**< 16 bytes */
	NVME_NIDT_UUID = 0x3,       /**< 16 bytes */
	NVME_NIDT_CSI = 0x4,        /**< 1 byte */
};

/** Size of every Identify data structure. */
#define NVME_IDENTIFY_SIZE 4096

/**
 * Identify Controller data structure: the fields a fabrics controller
 * fills (others stay zero). Offsets from Base 2.0 Figure 275.
 */
struct nvme_id_ctrl {
	uint16_t vid;           /**< 0: PCI vendor ID (0 for fabrics) */
	uint16_t ssvid;         /**< 2 */
	char sn[20];            /**< 4: serial number, space padded */
	char mn[40];            /**< 24: model number, space padded */
	char fr[8];             /**< 64: firmware revision */
	uint8_t rab;            /**< 72: recommended arbitration burst */
	uint8_t ieee[3];        /**< 73 */
	uint8_t cmic;           /**< 76: multi-path I/O capabilities */
	uint8_t mdts;           /**< 77: max data transfer size, 2^n pages */
	uint16_t cntlid;        /**< 78: controller ID */
	uint32_t ver;           /**< 80: version */
	uint32_t rtd3r;         /**< 84 */
	uint32_t rtd3e;         /**< 88 */
	uint32_t oaes;          /**< 92: optional async events supported */
	uint32_t ctratt;        /**< 96: controller attributes */
	uint16_t rrls;          /**< 100 */
	uint8_t rsvd102[9];     /**< 102 */
	uint8_t cntrltype;      /**< 111: 1 I/O, 2 discovery */
	uint8_t fguid[16];      /**< 112 */
	uint16_t crdt[3];       /**< 128 */
	uint8_t rsvd134[122];   /**< 134 */
	uint16_t oacs;          /**< 256: optional admin command support */
	uint8_t acl;            /**< 258: abort command limit (0's based) */
	uint8_t aerl;           /**< 259: async event request limit (0's) */
	uint8_t frmw;           /**< 260: firmware updates */
	uint8_t lpa;            /**< 261: log page attributes */
	uint8_t elpe;           /**< 262: error log page entries (0's) */
	uint8_t npss;           /**< 263: power states (0's) */
	uint8_t avscc;          /**< 264 */
	uint8_t apsta;          /**< 265 */
	uint16_t wctemp;        /**< 266 */
	uint16_t cctemp;        /**< 268 */
	uint16_t mtfa;          /**< 270 */
	uint32_t hmpre;         /**< 272 */
	uint32_t hmmin;         /**< 276 */
	uint8_t tnvmcap[16];    /**< 280 */
	uint8_t unvmcap[16];    /**< 296 */
	uint32_t rpmbs;         /**< 312 */
	uint16_t edstt;         /**< 316 */
	uint8_t dsto;           /**< 318 */
	uint8_t fwug;           /**< 319 */
	uint16_t kas;           /**< 320: keep alive support, 100 ms units */
	uint16_t hctma;         /**< 322 */
	uint16_t mntmt;         /**< 324 */
	uint16_t mxtmt;         /**< 326 */
	uint32_t sanicap;       /**< 328 */
	uint8_t rsvd332[180];   /**< 332 */
	uint8_t sqes;           /**< 512: SQ entry size, required/max (log2) */
	uint8_t cqes;           /**< 513: CQ entry size, required/max (log2) */
	uint16_t maxcmd;        /**< 514: max outstanding commands */
	uint32_t nn;            /**< 516: number of namespaces */
	uint16_t oncs;          /**< 520: optional NVM command support */
	uint16_t fuses;         /**< 522 */
	uint8_t fna;            /**< 524: format NVM attributes */
	uint8_t vwc;            /**< 525: volatile write cache */
	uint16_t awun;          /**< 526 */
	uint16_t awupf;         /**< 528 */
	uint8_t icsvscc;        /**< 530 */
	uint8_t nwpc;           /**< 531 */
	uint16_t acwu;          /**< 532 */
	uint16_t rsvd534;       /**< 534 */
	uint32_t sgls;          /**< 536: SGL support */
	uint32_t mnan;          /**< 540 */
	uint8_t rsvd544[224];   /**< 544 */
	char subnqn[256];       /**< 768: NVM subsystem NQN */
	uint8_t rsvd1024[768];  /**< 1024 */
	/* Fabrics specific, 1792..2047 */
	uint32_t ioccsz;        /**< 1792: I/O command capsule size, 16 B units */
	uint32_t iorcsz;        /**< 1796: I/O response capsule size, 16 B */
	uint16_t icdoff;        /**< 1800: in-capsule data offset, 16 B */
	uint8_t fcatt;          /**< 1802: fabrics controller attributes */
	uint8_t msdbd;          /**< 1803: max SGL data block descriptors */
	uint16_t ofcs;          /**< 1804: optional fabrics commands */
	uint8_t rsvd1806[242];  /**< 1806 */
	uint8_t psd[32][32];    /**< 2048: power state descriptors */
	uint8_t vs[1024];       /**< 3072: vendor specific */
};

/** Identify Controller SGLS: SGLs supported, keyed SGL data blocks. */
#define NVME_CTRL_SGLS_SUPPORTED 0x1
#define NVME_CTRL_SGLS_KEYED (1u << 2)
#define NVME_CTRL_SGLS_OFFSET (1u << 20)   /**< in-capsule offsets */
/** Identify Controller ONCS bits. */
#define NVME_CTRL_ONCS_DSM (1u << 2)
#define NVME_CTRL_ONCS_WRITE_ZEROES (1u << 3)
/** Identify Controller OAES: namespace attribute notices. */
#define NVME_CTRL_OAES_NS_ATTR (1u << 8)
/** OAES: firmware activation notices. */
#define NVME_CTRL_OAES_FW_ACT (1u << 9)
/** OAES: asymmetric namespace access change notices. */
#define NVME_CTRL_OAES_ANA (1u << 11)
/** OAES: discovery log page change notices (discovery controllers). */
#define NVME_CTRL_OAES_DISC (1u << 31)
/** Identify Controller CNTRLTYPE values. */
#define NVME_CTRL_TYPE_IO 1
#define NVME_CTRL_TYPE_DISCOVERY 2

/** LBA format descriptor. */
struct nvme_lbaf {
	uint16_t ms;            /**< metadata size */
	uint8_t lbads;          /**< LBA data size, log2 */
	uint8_t rp;             /**< relative performance */
};

/** Identify Namespace data structure (Base 2.0 / NVM 1.0, Figure 97). */
struct nvme_id_ns {
	uint64_t nsze;          /**< 0: namespace size, blocks */
	uint64_t ncap;          /**< 8: capacity */
	uint64_t nuse;          /**< 16: utilization */
	uint8_t nsfeat;         /**< 24 */
	uint8_t nlbaf;          /**< 25: number of LBA formats (0's) */
	uint8_t flbas;          /**< 26: formatted LBA size */
	uint8_t mc;             /**< 27 */
	uint8_t dpc;            /**< 28 */
	uint8_t dps;            /**< 29 */
	uint8_t nmic;           /**< 30: multi-path / sharing */
	uint8_t rescap;         /**< 31 */
	uint8_t fpi;            /**< 32 */
	uint8_t dlfeat;         /**< 33: deallocate logical block features */
	uint16_t nawun;         /**< 34 */
	uint16_t nawupf;        /**< 36 */
	uint16_t nacwu;         /**< 38 */
	uint16_t nabsn;         /**< 40 */
	uint16_t nabo;          /**< 42 */
	uint16_t nabspf;        /**< 44 */
	uint16_t noiob;         /**< 46 */
	uint8_t nvmcap[16];     /**< 48 */
	uint16_t npwg;          /**< 64 */
	uint16_t npwa;          /**< 66 */
	uint16_t npdg;          /**< 68 */
	uint16_t npda;          /**< 70 */
	uint16_t nows;          /**< 72 */
	uint8_t rsvd74[18];     /**< 74 */
	uint32_t anagrpid;      /**< 92 */
	uint8_t rsvd96[3];      /**< 96 */
	uint8_t nsattr;         /**< 99 */
	uint16_t nvmsetid;      /**< 100 */
	uint16_t endgid;        /**< 102 */
	uint8_t nguid[16];      /**< 104 */
	uint8_t eui64[8];       /**< 120 */
	struct nvme_lbaf lbaf[64]; /**< 128 */
	uint8_t vs[3712];       /**< 384 */
};

/** Identify Namespace NSFEAT: deallocated blocks and DSM supported. */
#define NVME_NS_FEAT_THIN (1u << 0)
/** DLFEAT: deallocated blocks read as zeroes. */
#define NVME_NS_DLFEAT_READ_ZEROES 0x1

/* ------------------------------------------------------------------ */
/* Log pages (Base 2.0, 5.16)                                          */
/* ------------------------------------------------------------------ */

/** Log page identifiers. */
enum nvme_log_id {
	NVME_LOG_ERROR = 0x01,
	NVME_LOG_SMART = 0x02,
	NVME_LOG_FW_SLOT = 0x03,
	NVME_LOG_CHANGED_NS = 0x04,
	NVME_LOG_COMMANDS_SUPPORTED = 0x05,
	NVME_LOG_DISCOVERY = 0x70,
};

/** Get Log Page CDW10: Retain Asynchronous Event. */
#define NVME_LOG_RAE (1u << 15)

/** Get Log Page: log page ID in CDW10 bits 7:0, NUMDL in 31:16. */
static inline uint8_t
nvme_log_lid(const struct nvme_cmd *c)
{
	return (uint8_t)c->cdw10;
}

/** Get Log Page: number of bytes asked for (NUMDL/NUMDU are 0's based
 * dword counts). */
static inline uint64_t
nvme_log_len(const struct nvme_cmd *c)
{
	uint32_t numd = (c->cdw10 >> 16) | (c->cdw11 & 0xFFFF) << 16;

	return ((uint64_t)numd + 1) * 4;
}

/** Get Log Page: byte offset (LPOL, LPOU). */
static inline uint64_t
nvme_log_offset(const struct nvme_cmd *c)
{
	return (uint64_t)c->cdw12 | (uint64_t)c->cdw13 << 32;
}

/** Error information log entry (64 bytes). */
struct nvme_error_log_entry {
	uint64_t error_count;
	uint16_t sqid;
	uint16_t cid;
	uint16_t status;        /**< status field, phase bit included */
	uint16_t param_error_location;
	uint64_t lba;
	uint32_t nsid;
	uint8_t vendor;
	uint8_t trtype;
	uint8_t rsvd30[2];
	uint64_t command_specific;
	uint16_t trtype_specific;
	uint8_t rsvd42[22];
};

/** SMART / health information log (512 bytes). */
struct nvme_smart_log {
	uint8_t critical_warning;       /**< 0 */
	uint16_t temperature;           /**< 1: kelvin (unaligned) */
	uint8_t avail_spare;            /**< 3 */
	uint8_t avail_spare_threshold;  /**< 4 */
	uint8_t percentage_used;        /**< 5 */
	uint8_t endurance_group_cw;     /**< 6 */
	uint8_t rsvd7[25];              /**< 7 */
	uint8_t data_units_read[16];    /**< 32: 1000 x 512 B units */
	uint8_t data_units_written[16]; /**< 48 */
	uint8_t host_reads[16];         /**< 64: read commands */
	uint8_t host_writes[16];        /**< 80 */
	uint8_t ctrl_busy_time[16];     /**< 96 */
	uint8_t power_cycles[16];       /**< 112 */
	uint8_t power_on_hours[16];     /**< 128 */
	uint8_t unsafe_shutdowns[16];   /**< 144 */
	uint8_t media_errors[16];       /**< 160 */
	uint8_t num_err_log_entries[16];/**< 176 */
	uint32_t warning_temp_time;     /**< 192 */
	uint32_t critical_temp_time;    /**< 196 */
	uint16_t temp_sensor[8];        /**< 200 */
	uint8_t rsvd216[296];           /**< 216 */
} __attribute__((packed));

/** Changed namespace list: up to 1024 NSIDs (4096 bytes). */
#define NVME_CHANGED_NS_MAX 1024

/* ------------------------------------------------------------------ */
/* Features (Base 2.0, 5.27.1)                                         */
/* ------------------------------------------------------------------ */

/** Feature identifiers (Get/Set Features CDW10 bits 7:0). */
enum nvme_feat_id {
	NVME_FEAT_ARBITRATION = 0x01,
	NVME_FEAT_POWER_MGMT = 0x02,
	NVME_FEAT_TEMP_THRESHOLD = 0x04,
	NVME_FEAT_ERROR_RECOVERY = 0x05,
	NVME_FEAT_VOLATILE_WC = 0x06,
	NVME_FEAT_NUM_QUEUES = 0x07,
	NVME_FEAT_IRQ_COALESCE = 0x08,
	NVME_FEAT_IRQ_CONFIG = 0x09,
	NVME_FEAT_WRITE_ATOMIC = 0x0A,
	NVME_FEAT_ASYNC_EVENT = 0x0B,
	NVME_FEAT_KEEP_ALIVE_TIMER = 0x0F,
	NVME_FEAT_HOST_ID = 0x81,
};

/** Get Features SEL (CDW10 bits 10:8). */
enum nvme_feat_sel {
	NVME_FEAT_SEL_CURRENT = 0,
	NVME_FEAT_SEL_DEFAULT = 1,
	NVME_FEAT_SEL_SAVED = 2,
	NVME_FEAT_SEL_SUPPORTED = 3,
};

/** Set Features SV (save) bit, CDW10 bit 31. */
#define NVME_FEAT_SAVE (1u << 31)

/* ------------------------------------------------------------------ */
/* Asynchronous events (Base 2.0, 5.2)                                 */
/* ------------------------------------------------------------------ */

/** AER completion DW0: type (2:0), info (15:8), log page (23:16). */
enum nvme_async_event_type {
	NVME_AER_TYPE_ERROR = 0x0,
	NVME_AER_TYPE_SMART = 0x1,
	NVME_AER_TYPE_NOTICE = 0x2,
};

/** Notice: namespace attribute changed (info 00h, log page 04h). */
#define NVME_AER_NOTICE_NS_CHANGED 0x00
/** Notice: discovery log page changed (info F0h, log page 70h). */
#define NVME_AER_NOTICE_DISC_CHANGED 0xF0

/** DW0 of an AER completion. */
static inline uint32_t
nvme_aer_dw0(uint8_t type, uint8_t info, uint8_t log_page)
{
	return (uint32_t)type | (uint32_t)info << 8 |
		(uint32_t)log_page << 16;
}

/* ------------------------------------------------------------------ */
/* Controller properties (Base 2.0, 3.1.3)                             */
/* ------------------------------------------------------------------ */

/** Property offsets. */
enum nvme_prop {
	NVME_PROP_CAP = 0x00,   /**< 8 bytes */
	NVME_PROP_VS = 0x08,
	NVME_PROP_INTMS = 0x0C,
	NVME_PROP_INTMC = 0x10,
	NVME_PROP_CC = 0x14,
	NVME_PROP_CSTS = 0x1C,
	NVME_PROP_NSSR = 0x20,
};

/** CAP fields. */
#define NVME_CAP_MQES_MASK 0xFFFFull            /**< max queue entries, 0's */
#define NVME_CAP_CQR (1ull << 16)               /**< contiguous queues */
#define NVME_CAP_TO_SHIFT 24                    /**< timeout, 500 ms units */
#define NVME_CAP_CSS_NVM (1ull << 37)           /**< NVM command set */
#define NVME_CAP_MPSMIN_SHIFT 48

/** CC fields. */
#define NVME_CC_EN 0x1u
#define NVME_CC_SHN_SHIFT 14
#define NVME_CC_SHN_MASK (0x3u << NVME_CC_SHN_SHIFT)
#define NVME_CC_SHN_NORMAL (0x1u << NVME_CC_SHN_SHIFT)
#define NVME_CC_SHN_ABRUPT (0x2u << NVME_CC_SHN_SHIFT)
#define NVME_CC_IOSQES_SHIFT 16
#define NVME_CC_IOCQES_SHIFT 20

/** CSTS fields. */
#define NVME_CSTS_RDY 0x1u
#define NVME_CSTS_CFS 0x2u
#define NVME_CSTS_SHST_SHIFT 2
#define NVME_CSTS_SHST_MASK (0x3u << NVME_CSTS_SHST_SHIFT)
#define NVME_CSTS_SHST_OCCURRING (0x1u << NVME_CSTS_SHST_SHIFT)
#define NVME_CSTS_SHST_COMPLETE (0x2u << NVME_CSTS_SHST_SHIFT)

/** A version number as VS and Identify VER hold it. */
#define NVME_VERSION(mjr, mnr, ter) \
	((uint32_t)(mjr) << 16 | (uint32_t)(mnr) << 8 | (uint32_t)(ter))

/* ------------------------------------------------------------------ */
/* Fabrics commands (NVMe-oF 1.1, 3)                                   */
/* ------------------------------------------------------------------ */

/** Fabrics command types (byte 4 of a Fabrics command). */
enum nvmf_fctype {
	NVMF_FCTYPE_PROPERTY_SET = 0x00,
	NVMF_FCTYPE_CONNECT = 0x01,
	NVMF_FCTYPE_PROPERTY_GET = 0x04,
	NVMF_FCTYPE_AUTH_SEND = 0x05,
	NVMF_FCTYPE_AUTH_RECV = 0x06,
	NVMF_FCTYPE_DISCONNECT = 0x08,
};

/** Fabrics command, generic layout (64 bytes). */
struct nvmf_cmd {
	uint8_t opc;            /**< 0x7F */
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;         /**< nvmf_fctype */
	uint8_t rsvd5[35];
	uint8_t fabric_specific[24]; /**< bytes 40..63 */
};

/** Connect command (fctype 01h). */
struct nvmf_connect_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd5[19];
	struct nvme_sgl_desc dptr; /**< 24: the Connect data */
	uint16_t recfmt;        /**< 40: record format, 0 */
	uint16_t qid;           /**< 42: 0 admin, 1.. I/O */
	uint16_t sqsize;        /**< 44: 0's based */
	uint8_t cattr;          /**< 46: connect attributes */
	uint8_t rsvd47;
	uint32_t kato;          /**< 48: keep alive timeout, ms (admin) */
	uint8_t rsvd52[12];
};

/** Connect data (1024 bytes, in the command capsule or by SGL). */
struct nvmf_connect_data {
	uint8_t hostid[16];     /**< 0: host identifier (UUID) */
	uint16_t cntlid;        /**< 16: 0xFFFF dynamic; I/O: the admin's */
	uint8_t rsvd18[238];
	char subnqn[256];       /**< 256 */
	char hostnqn[256];      /**< 512 */
	uint8_t rsvd768[256];
};

/** Connect: dynamic controller model. */
#define NVMF_CNTLID_DYNAMIC 0xFFFF

/**
 * Connect response: DW0 bits 15:0 the controller ID (admin queue);
 * on INVALID_PARAMETERS, DW0 bits 15:0 IPO (offset of the bad field)
 * and bit 16 IATTR (1: in the Connect data).
 */
#define NVMF_CONNECT_IATTR_DATA (1u << 16)

/** Property Get/Set command (fctype 04h / 00h). */
struct nvmf_property_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd5[35];
	uint8_t attrib;         /**< 40: bits 2:0 size, 0 = 4 B, 1 = 8 B */
	uint8_t rsvd41[3];
	uint32_t offset;        /**< 44 */
	uint64_t value;         /**< 48: Property Set */
	uint8_t rsvd56[8];
};

/** Property attribute: 8-byte property. */
#define NVMF_PROP_SIZE_8 1

/* ------------------------------------------------------------------ */
/* Discovery (NVMe-oF 1.1, 5)                                          */
/* ------------------------------------------------------------------ */

/** The well-known discovery subsystem NQN. */
#define NVMF_DISCOVERY_NQN "nqn.2014-08.org.nvmexpress.discovery"
/** Largest NQN (bytes, without the NUL). */
#define NVMF_NQN_MAX_LEN 223
/** NVMe-oF's port for RDMA (IANA 4420). */
#define NVMF_RDMA_PORT 4420

/** Transport types. */
enum nvmf_trtype {
	NVMF_TRTYPE_RDMA = 1,
	NVMF_TRTYPE_FC = 2,
	NVMF_TRTYPE_TCP = 3,
	NVMF_TRTYPE_LOOP = 254,
};

/** Address families. */
enum nvmf_adrfam {
	NVMF_ADRFAM_IPV4 = 1,
	NVMF_ADRFAM_IPV6 = 2,
};

/** Discovery log entry subsystem types. */
enum nvmf_subtype {
	NVMF_SUBTYPE_DISCOVERY_REFERRAL = 1,
	NVMF_SUBTYPE_NVME = 2,
	NVMF_SUBTYPE_CURRENT_DISCOVERY = 3,
};

/** TREQ: secure channel not specified / not required; SQ flow control
 * disable not required/allowed (bit 2). */
#define NVMF_TREQ_NOT_SPECIFIED 0x0
#define NVMF_TREQ_NOT_REQUIRED 0x2
#define NVMF_TREQ_DISABLE_SQFLOW (1u << 2)

/** RDMA transport specific address subtype (TSAS). */
struct nvmf_rdma_tsas {
	uint8_t qptype;         /**< 1: reliable connected */
	uint8_t prtype;         /**< 1: no provider specified, 4: RoCEv2 */
	uint8_t cms;            /**< 1: RDMA_IP_CM */
	uint8_t rsvd3[5];
	uint16_t pkey;
	uint8_t rsvd10[246];
};

#define NVMF_RDMA_QPTYPE_CONNECTED 1
#define NVMF_RDMA_PRTYPE_NOT_SPECIFIED 1
#define NVMF_RDMA_PRTYPE_ROCEV2 4
#define NVMF_RDMA_CMS_RDMA_CM 1

/** Discovery log page entry (1024 bytes). */
struct nvmf_disc_entry {
	uint8_t trtype;         /**< 0 */
	uint8_t adrfam;         /**< 1 */
	uint8_t subtype;        /**< 2 */
	uint8_t treq;           /**< 3 */
	uint16_t portid;        /**< 4 */
	uint16_t cntlid;        /**< 6: 0xFFFF dynamic */
	uint16_t asqsz;         /**< 8: admin max SQ size */
	uint16_t eflags;        /**< 10 */
	uint8_t rsvd12[20];
	char trsvcid[32];       /**< 32: port, as text, space padded */
	uint8_t rsvd64[192];
	char subnqn[256];       /**< 256 */
	char traddr[256];       /**< 512: address, as text, space padded */
	struct nvmf_rdma_tsas tsas; /**< 768 */
};

/** Discovery log page header (1024 bytes, then the entries). */
struct nvmf_disc_log_hdr {
	uint64_t genctr;        /**< generation counter */
	uint64_t numrec;        /**< number of records */
	uint16_t recfmt;        /**< 0 */
	uint8_t rsvd18[1006];
};

/* ------------------------------------------------------------------ */
/* NVMe/RDMA transport binding: RDMA CM private data                   */
/* ------------------------------------------------------------------ */

/** RDMA_CM_REQUEST private data (32 bytes). */
struct nvmf_rdma_cm_req {
	uint16_t recfmt;        /**< 0 */
	uint16_t qid;           /**< queue ID, 0 admin */
	uint16_t hrqsize;       /**< host receive queue size (1's based) */
	uint16_t hsqsize;       /**< host send queue size (0's based) */
	uint16_t cntlid;        /**< for I/O queues (optional, 0xFFFF none) */
	uint8_t rsvd10[22];
};

/** RDMA_CM_ACCEPT private data (32 bytes). */
struct nvmf_rdma_cm_rep {
	uint16_t recfmt;        /**< 0 */
	uint16_t crqsize;       /**< controller receive queue size */
	uint8_t rsvd4[28];
};

/** RDMA_CM_REJECT private data (4 bytes). */
struct nvmf_rdma_cm_rej {
	uint16_t recfmt;        /**< 0 */
	uint16_t sts;           /**< nvmf_rdma_cm_status */
};

/** RDMA_CM_REJECT status values. */
enum nvmf_rdma_cm_status {
	NVMF_RDMA_CM_INVALID_LENGTH = 0x01,
	NVMF_RDMA_CM_INVALID_RECFMT = 0x02,
	NVMF_RDMA_CM_INVALID_QID = 0x03,
	NVMF_RDMA_CM_INVALID_HSQSIZE = 0x04,
	NVMF_RDMA_CM_INVALID_HRQSIZE = 0x05,
	NVMF_RDMA_CM_NO_RESOURCES = 0x06,
	NVMF_RDMA_CM_INVALID_IRD = 0x07,
	NVMF_RDMA_CM_INVALID_ORD = 0x08,
	NVMF_RDMA_CM_INVALID_CNTLID = 0x09,
};

/* ------------------------------------------------------------------ */
/* Sizes and offsets, checked against the specifications               */
/* ------------------------------------------------------------------ */

#define NVME_SPEC_CHECK(t, sz) \
	_Static_assert(sizeof(struct t) == (sz), #t " is " #sz " bytes")
#define NVME_SPEC_OFF(t, f, off) \
	_Static_assert(offsetof(struct t, f) == (off), #t "." #f " at " #off)

NVME_SPEC_CHECK(nvme_sgl_desc, 16);
NVME_SPEC_CHECK(nvme_cmd, 64);
NVME_SPEC_OFF(nvme_cmd, dptr, 24);
NVME_SPEC_OFF(nvme_cmd, cdw10, 40);
NVME_SPEC_CHECK(nvme_cpl, 16);
NVME_SPEC_CHECK(nvme_dsm_range, 16);
NVME_SPEC_CHECK(nvme_id_ctrl, NVME_IDENTIFY_SIZE);
NVME_SPEC_OFF(nvme_id_ctrl, cntrltype, 111);
NVME_SPEC_OFF(nvme_id_ctrl, oacs, 256);
NVME_SPEC_OFF(nvme_id_ctrl, kas, 320);
NVME_SPEC_OFF(nvme_id_ctrl, sqes, 512);
NVME_SPEC_OFF(nvme_id_ctrl, sgls, 536);
NVME_SPEC_OFF(nvme_id_ctrl, subnqn, 768);
NVME_SPEC_OFF(nvme_id_ctrl, ioccsz, 1792);
NVME_SPEC_OFF(nvme_id_ctrl, msdbd, 1803);
NVME_SPEC_OFF(nvme_id_ctrl, psd, 2048);
NVME_SPEC_CHECK(nvme_id_ns, NVME_IDENTIFY_SIZE);
NVME_SPEC_OFF(nvme_id_ns, nvmcap, 48);
NVME_SPEC_OFF(nvme_id_ns, anagrpid, 92);
NVME_SPEC_OFF(nvme_id_ns, nguid, 104);
NVME_SPEC_OFF(nvme_id_ns, lbaf, 128);
NVME_SPEC_CHECK(nvme_error_log_entry, 64);
NVME_SPEC_CHECK(nvme_smart_log, 512);
NVME_SPEC_OFF(nvme_smart_log, data_units_read, 32);
NVME_SPEC_OFF(nvme_smart_log, warning_temp_time, 192);
NVME_SPEC_CHECK(nvmf_cmd, 64);
NVME_SPEC_CHECK(nvmf_connect_cmd, 64);
NVME_SPEC_OFF(nvmf_connect_cmd, dptr, 24);
NVME_SPEC_OFF(nvmf_connect_cmd, recfmt, 40);
NVME_SPEC_OFF(nvmf_connect_cmd, kato, 48);
NVME_SPEC_CHECK(nvmf_connect_data, 1024);
NVME_SPEC_OFF(nvmf_connect_data, subnqn, 256);
NVME_SPEC_OFF(nvmf_connect_data, hostnqn, 512);
NVME_SPEC_CHECK(nvmf_property_cmd, 64);
NVME_SPEC_OFF(nvmf_property_cmd, attrib, 40);
NVME_SPEC_OFF(nvmf_property_cmd, offset, 44);
NVME_SPEC_OFF(nvmf_property_cmd, value, 48);
NVME_SPEC_CHECK(nvmf_rdma_tsas, 256);
NVME_SPEC_CHECK(nvmf_disc_entry, 1024);
NVME_SPEC_OFF(nvmf_disc_entry, trsvcid, 32);
NVME_SPEC_OFF(nvmf_disc_entry, subnqn, 256);
NVME_SPEC_OFF(nvmf_disc_entry, traddr, 512);
NVME_SPEC_OFF(nvmf_disc_entry, tsas, 768);
NVME_SPEC_CHECK(nvmf_disc_log_hdr, 1024);
NVME_SPEC_CHECK(nvmf_rdma_cm_req, 32);
NVME_SPEC_CHECK(nvmf_rdma_cm_rep, 32);
NVME_SPEC_CHECK(nvmf_rdma_cm_rej, 4);

#undef NVME_SPEC_CHECK
#undef NVME_SPEC_OFF

#endif /* NVME_SPEC_H */

/** Wire protocol opcodes and limits the embedded server speaks (the same as mongod 7). */
export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

export const HEADER_SIZE = 16;
/** mongod's maxMessageSizeBytes: a frame declaring more is refused and the connection closed. */
export const MAX_MESSAGE_SIZE = 48_000_000;
export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

/** OP_MSG flag bits. */
export const MSG_CHECKSUM_PRESENT = 1 << 0;
export const MSG_MORE_TO_COME = 1 << 1;
export const MSG_EXHAUST_ALLOWED = 1 << 16;
/** Bits that must be understood; any other bit among the low 16 is an error (spec: "required bits"). */
export const MSG_KNOWN_REQUIRED_BITS = MSG_CHECKSUM_PRESENT | MSG_MORE_TO_COME;

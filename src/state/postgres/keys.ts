/**
 * Advisory lock keys: PostgreSQL advisory locks are named by one 64-bit integer, so each lock of the
 * state store is named by the first 8 bytes of SHA-256(purpose, schema, stack). Two stacks, or two
 * schemas of one database, never share a lock (a collision of 64 bits is not a practical concern).
 */
import { createHash } from "node:crypto";

/** What a lock is for: the state lock of `tgw apply`, the watch leadership, or running migrations. */
export type LockPurpose = "state" | "leader" | "migrate";

/** The advisory lock key (a signed 64-bit integer, as a decimal string for the driver). */
export function advisoryKey(purpose: LockPurpose, schema: string, stack: string): string {
  const digest = createHash("sha256").update(`tgw\0${purpose}\0${schema}\0${stack}`).digest();
  return digest.readBigInt64BE(0).toString();
}

/**
 * How `pg_locks` shows a bigint advisory lock: `classid` is the high 32 bits and `objid` the low 32
 * bits, both as unsigned oids, with `objsubid` 1.
 */
export function pgLocksIds(key: string): { classid: string; objid: string } {
  const unsigned = BigInt.asUintN(64, BigInt(key));
  return { classid: (unsigned >> 32n).toString(), objid: (unsigned & 0xffffffffn).toString() };
}

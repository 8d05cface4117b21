/**
 * The lock holder's description, kept next to the lock (`<state>.lock-info`) so that whoever waits can
 * say who holds it, and whether that holder is gone. Written atomically after the lock is taken and
 * removed before it is released: a description still present when the lock is taken again was left
 * by a holder that never released it.
 */

import type { Stats } from "node:fs";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { writeFileAtomic } from "./atomic-write.js";
import type { LockHolder } from "./errors.js";

/** Identity of one lock directory (inode and birth time): a new lock at the same path differs. */
export function lockIdOf(stat: Stats): string {
  return `${stat.ino}-${Math.round(stat.birthtimeMs)}`;
}

/** Reads a description; undefined if missing or unreadable (it is advisory). */
export async function readLockInfo(path: string): Promise<LockHolder | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch {
    return undefined;
  }
  const v = value as Partial<LockHolder> | null;
  if (
    typeof v?.holder === "string" &&
    typeof v.pid === "number" &&
    typeof v.hostname === "string" &&
    typeof v.since === "string" &&
    typeof v.lockId === "string"
  ) {
    return { holder: v.holder, pid: v.pid, hostname: v.hostname, since: v.since, lockId: v.lockId };
  }
  return undefined;
}

/** Describes this process as the holder of the lock directory `lockStat`, and writes it to `path`. */
export async function writeLockInfo(path: string, holder: string, lockStat: Stats): Promise<LockHolder> {
  const info: LockHolder = {
    holder,
    pid: process.pid,
    hostname: hostname(),
    since: new Date().toISOString(),
    lockId: lockIdOf(lockStat),
  };
  // Readable by others on the machine: it only says who holds the lock.
  await writeFileAtomic(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o644 });
  return info;
}

/**
 * True if the process described by `info` certainly no longer holds the lock directory `lockStat`:
 * the description is of that very directory, the holder ran on this host, and its pid is not alive
 * (or is this process, which does not hold it: `heldHere` false). Holders on other hosts cannot be
 * checked; their locks are taken over only when they stop refreshing them (stale).
 */
export function holderIsGone(info: LockHolder, lockStat: Stats, heldHere: boolean): boolean {
  if (info.lockId !== lockIdOf(lockStat)) return false;
  if (info.hostname !== hostname()) return false;
  if (info.pid === process.pid) return !heldHere;
  return !processIsAlive(info.pid);
}

/** True when a process `pid` runs on this host (one that belongs to another user included). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

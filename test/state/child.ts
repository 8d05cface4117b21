/** Runs test/state/lock-child.ts in its own Node process and follows what it says. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./lock-child.ts", import.meta.url));

/** One line the child printed. */
export interface ChildEvent {
  event: "ready" | "locking" | "locked" | "wrote" | "unlocking" | "failed";
  name: string;
  /** Wall-clock ms. */
  at: number;
  serial?: number;
  code?: string;
  message?: string;
}

/** A running lock child. */
export interface LockChild {
  process: ChildProcess;
  events: ChildEvent[];
  /** Resolves with the first event of that type (rejects if the child exits first). */
  waitFor(event: ChildEvent["event"]): Promise<ChildEvent>;
  /** Tells the child to take the lock. */
  go(): void;
  /** Resolves with the exit code (or signal name) when the child ends. */
  exited: Promise<number | string>;
}

/**
 * Starts a child that opens the store with `factory` (a module exporting `openStore(location, stack)`).
 * `holdMs` < 0 holds the lock until killed.
 */
export function startLockChild(opts: {
  factory: string;
  location: string;
  stack: string;
  name: string;
  holdMs: number;
  timeoutMs: number;
}): LockChild {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      SCRIPT,
      opts.factory,
      opts.location,
      opts.stack,
      opts.name,
      String(opts.holdMs),
      String(opts.timeoutMs),
    ],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  const events: ChildEvent[] = [];
  const waiters: { event: string; resolve: (e: ChildEvent) => void; reject: (e: Error) => void }[] = [];
  let stderr = "";
  let buffer = "";
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  child.stdout?.on("data", (d) => {
    buffer += String(d);
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      if (line.trim() === "") continue;
      const e = JSON.parse(line) as ChildEvent;
      events.push(e);
      for (const w of waiters.filter((w) => w.event === e.event)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
    }
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => {
      for (const w of waiters.splice(0)) {
        w.reject(new Error(`child ${opts.name} exited (${code ?? signal}) before "${w.event}": ${stderr}`));
      }
      resolve(code ?? signal ?? "unknown");
    });
  });
  return {
    process: child,
    events,
    exited,
    go: () => child.stdin?.write("go\n"),
    waitFor: (event) => {
      const seen = events.find((e) => e.event === event);
      if (seen) return Promise.resolve(seen);
      if (child.exitCode !== null || child.signalCode !== null) {
        return Promise.reject(new Error(`child ${opts.name} already exited: ${stderr}`));
      }
      return new Promise((resolve, reject) => waiters.push({ event, resolve, reject }));
    },
  };
}

const LEASE_SCRIPT = fileURLToPath(new URL("./lease-child.ts", import.meta.url));

/** A running lease child (test/state/lease-child.ts). */
export interface LeaseChild {
  process: ChildProcess;
  /** Sends one command line: `confirmed`, `assert`, `write` or `unlock`. */
  send(command: "confirmed" | "assert" | "write" | "unlock"): void;
  /** Resolves with the child's line number `index` (0: `locked`), waiting for it if need be. */
  line(index: number): Promise<Record<string, unknown>>;
}

/**
 * Starts a lease child on the store `factory` opens at `location` for `stack`, with a lease (or stale
 * time) of `leaseMs`.
 */
export function startLeaseChild(
  factory: string,
  location: string,
  stack: string,
  leaseMs: number,
): LeaseChild {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", LEASE_SCRIPT, factory, location, stack, String(leaseMs)],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  const lines: Record<string, unknown>[] = [];
  let buffer = "";
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  child.stdout?.on("data", (d) => {
    buffer += String(d);
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      lines.push(JSON.parse(buffer.slice(0, i)) as Record<string, unknown>);
      buffer = buffer.slice(i + 1);
    }
  });
  return {
    process: child,
    send: (command) => child.stdin?.write(`${command}\n`),
    line: async (index) => {
      // Up to a minute: the child starts through tsx, which a loaded machine may make slow.
      for (let i = 0; i < 6000; i++) {
        if (lines.length > index) return lines[index] as Record<string, unknown>;
        if (child.exitCode !== null || child.signalCode !== null) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`the lease child said nothing more; stderr:\n${stderr}`);
    },
  };
}

/**
 * Which state store a command uses, in order (docs/state.md):
 * 1. `--state` (a file path, or a `postgres://` URL);
 * 2. the `TGW_STATE_URL` environment variable (same forms);
 * 3. the configuration's `state:` block (src/config/state-setting.ts), when the operator allows its
 *    host (`TGW_STATE_HOSTS`, ./postgres/url.ts `checkConfiguredHost`);
 * 4. the file `<config dir>/.tgw/state.json`.
 *
 * The PostgreSQL store is loaded only when a `postgres://` URL is used, so file users never load the
 * driver.
 */
import { parseDuration } from "../duration.js";
import { UsageError } from "../errors.js";
import { FileStateStore } from "./file-store.js";
import { resolveStatePath } from "./location.js";
import { checkConfiguredHost, isPostgresUrl, parsePostgresUrl, redactUrl } from "./postgres/url.js";
import type { StateStore } from "./store.js";

/** Where a state lives. */
export type StateLocation = { kind: "file"; path: string } | { kind: "postgres"; url: string };

/** Inputs of `locateState`. */
export interface LocateStateOptions {
  /** `--state`. */
  state?: string | undefined;
  /** The configuration's `state:` URL (DesiredState.stateUrl). */
  configured?: string | undefined;
  /** The `-f` arguments (the first locates the default file). */
  config?: string[] | undefined;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** Chooses the state location (see the module comment for the order). */
export function locateState(opts: LocateStateOptions): StateLocation {
  const env = opts.env ?? process.env;
  const chosen = opts.state ?? (env.TGW_STATE_URL?.trim() || undefined) ?? opts.configured;
  if (chosen !== undefined && isPostgresUrl(chosen)) {
    parsePostgresUrl(chosen); // Refuse a bad URL before anything runs.
    if (chosen === opts.configured && opts.state === undefined && !env.TGW_STATE_URL?.trim()) {
      checkConfiguredHost(chosen, env);
    }
    return { kind: "postgres", url: chosen };
  }
  if (chosen !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(chosen)) {
    throw new UsageError(
      `state ${redactUrl(chosen)}: only postgres:// URLs and file paths are supported (set by ${
        opts.state !== undefined
          ? "--state"
          : env.TGW_STATE_URL?.trim()
            ? "TGW_STATE_URL"
            : "the state: block"
      })`,
    );
  }
  return {
    kind: "file",
    path: resolveStatePath({
      ...(chosen === undefined ? {} : { state: chosen }),
      config: opts.config,
      ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    }),
  };
}

/**
 * The environment variable that sets the state lock's lease (a duration: `15s`, `1500ms`): how long a
 * holder that stops (frozen, hung, cut off) keeps the lock. PostgreSQL ends the holder's silent
 * session after it; a state file's lock not refreshed for that long is taken over as stale.
 */
export const LOCK_LEASE_ENV = "TGW_LOCK_LEASE";

/**
 * The lease of `TGW_LOCK_LEASE` in ms.
 * @throws UsageError when it is not a duration of at least `min`.
 */
function leaseMs(text: string, min: { ms: number; shown: string; of: string }): number {
  const ms = parseDuration(text, LOCK_LEASE_ENV);
  if (ms < min.ms)
    throw new UsageError(`${LOCK_LEASE_ENV} must be at least ${min.shown} ${min.of}, got ${text}`);
  return ms;
}

/** A store and how to let go of it. */
export interface OpenedStore {
  store: StateStore;
  /** Closes its database connections (nothing for a file). */
  close(): Promise<void>;
}

/**
 * Opens the store at `location`.
 * @param opts.stack required for PostgreSQL (rows are keyed by stack); for a file, the stack it must hold.
 * @throws UsageError when a PostgreSQL store is asked for without a stack.
 */
export async function openStateStore(
  location: StateLocation,
  opts: {
    stack?: string | undefined;
    warn?: (message: string) => void;
    /** Debug notes of the file store (a torn last journal line ignored). */
    debug?: (message: string) => void;
    command?: string;
  },
): Promise<OpenedStore> {
  const lease = process.env[LOCK_LEASE_ENV]?.trim();
  if (location.kind === "file") {
    const store = new FileStateStore(location.path, {
      ...(opts.stack === undefined ? {} : { stack: opts.stack }),
      ...(lease ? { staleMs: leaseMs(lease, { ms: 2_000, shown: "2s", of: "for a state file" }) } : {}),
      ...(opts.warn === undefined ? {} : { warn: opts.warn }),
      ...(opts.debug === undefined ? {} : { debug: opts.debug }),
    });
    return { store, close: async () => {} };
  }
  if (opts.stack === undefined) {
    throw new UsageError(
      "a PostgreSQL state holds one row set per stack: name the stack with --stack, or with -f the configuration whose stack it is",
    );
  }
  const { PostgresStateStore } = await import("./postgres/store.js");
  const store = new PostgresStateStore(location.url, {
    stack: opts.stack,
    ...(opts.command === undefined ? {} : { command: opts.command }),
    ...(lease
      ? { lockLeaseMs: leaseMs(lease, { ms: 300, shown: "300ms", of: "for a PostgreSQL state" }) }
      : {}),
  });
  return { store, close: () => store.close() };
}

/**
 * How `plan`, `apply`, `destroy`, `import` and `endpoints` reach an API and a state:
 *
 * - With `TGW_API_URL` (and `TGW_API_KEY`), that API.
 * - Without `TGW_API_URL`, the embedded default: the reference server started in this process on a
 *   loopback port, its data in `<configDir>/.tgw/server.sqlite`, the package's
 *   `examples/fixtures.yaml` loaded, and a fresh random admin token for this run. So
 *   `npx tgw apply -f examples/complete --auto-approve` works with nothing else running.
 * - The state lives in `<configDir>/.tgw/state.json`, configDir being the directory of the first `-f`
 *   (or the current directory), unless `--state`, `TGW_STATE_URL` or the configuration's `state:`
 *   block names another file or a PostgreSQL database (src/state/open.ts).
 *
 * One dim line on stderr says which API is used.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ApiClient,
  defaultBudgetDir,
  type RateLimit,
  type ResponseEvent,
  type RetryOptions,
  WAITING_AFTER_MS,
  type WaitingEvent,
} from "../client/index.js";
import { loadConfig } from "../config/index.js";
import { UsageError } from "../errors.js";
import type { DesiredState } from "../model/desired.js";
import { parseRateLimit } from "../server/options.js";
import type { StateApi } from "../state/index.js";
import { locateState, openStateStore } from "../state/open.js";
import type { StateStore } from "../state/store.js";
import { colorErr, debugLog, flushBufferedOutput, isDebug, warn } from "./output.js";

/** The package's fixtures file (src/cli and dist/cli are both two levels below the package root). */
export const PACKAGE_FIXTURES = fileURLToPath(new URL("../../examples/fixtures.yaml", import.meta.url));

/** An API to talk to. */
export interface Target {
  api: ApiClient;
  /** `embedded` (reference server in this process) or `remote` (TGW_API_URL). */
  kind: "embedded" | "remote";
  /** Human description, e.g. `the API at https://api.example.com`. */
  description: string;
  /** What the state records about this API (no secret): `embedded`, or the URL and a key fingerprint. */
  identity: StateApi;
  /** Requests made so far (every attempt, retries included). */
  requests(): number;
  /** Closes the client (and stops the embedded server). */
  close(): Promise<void>;
}

/** Options of `openTarget`. */
export interface TargetOptions {
  configDir: string;
  env?: Record<string, string | undefined>;
  /**
   * Print the one line saying which API is used (default true); `later`: the caller prints it with
   * `announceTarget` (long waits are still reported).
   */
  announce?: boolean | "later";
  onResponse?: (event: ResponseEvent) => void;
  /** Retry settings of the client (default: the client's); `tgw watch` retries whole reconciles itself. */
  retry?: Partial<RetryOptions>;
  /**
   * The command only reads (`plan`, `endpoints`): an embedded server whose data file does not exist
   * yet runs in memory instead of creating `.tgw/server.sqlite`.
   */
  readOnly?: boolean;
  /** See `ApiClientOptions.probeOutages` (default false; `tgw watch`: true). */
  probeOutages?: boolean;
}

/**
 * Opens the API named by the environment, or starts the embedded reference server.
 * @throws UsageError when TGW_API_URL is set without TGW_API_KEY, or is not an http(s) URL.
 */
export async function openTarget(opts: TargetOptions): Promise<Target> {
  const env = opts.env ?? process.env;
  let count = 0;
  const quiet = opts.announce === false;
  const onResponse = (e: ResponseEvent) => {
    count++;
    // Described only under --debug: this runs for every request.
    if (isDebug()) debugLog(describeResponse(e));
    if (!quiet && e.retryInMs !== undefined && e.retryInMs >= WAITING_AFTER_MS) waitLine(describeRetry(e));
    opts.onResponse?.(e);
  };
  const onWaiting = quiet ? undefined : (e: WaitingEvent) => waitLine(describeWait(e));
  const url = env.TGW_API_URL?.trim();
  let target: Target;
  if (url) {
    const key = env.TGW_API_KEY?.trim();
    if (!key)
      throw new UsageError("TGW_API_URL is set but TGW_API_KEY is not: set it to an API key of that API");
    const api = new ApiClient({
      baseUrl: url,
      apiKey: key,
      // Consecutive runs on this machine share the key's rate-limit budget (docs/plan.md).
      budgetDir: defaultBudgetDir(),
      ...rateLimitOption(env.TGW_RATE_LIMIT),
      onResponse,
      ...(onWaiting ? { onWaiting } : {}),
      ...(opts.retry ? { retry: opts.retry } : {}),
      ...(opts.probeOutages === undefined ? {} : { probeOutages: opts.probeOutages }),
    });
    target = {
      api,
      kind: "remote",
      description: `the API at ${url}`,
      identity: remoteIdentity(url, key),
      requests: () => count,
      close: () => api.close(),
    };
  } else {
    // Imported here so that a remote run never loads the server's code (Fastify, SQLite).
    const { startServer } = await import("../server/server.js");
    const dir = join(opts.configDir, ".tgw");
    const dataPath = join(dir, "server.sqlite");
    const inMemory = opts.readOnly === true && !existsSync(dataPath);
    if (!inMemory) await mkdir(dir, { recursive: true, mode: 0o700 });
    const server = await startServer({
      ...(inMemory ? {} : { dataPath, dataKey: await embeddedDataKey(dir) }),
      fixtures: PACKAGE_FIXTURES,
      bootstrapToken: `tgw_embedded_${randomBytes(24).toString("hex")}`,
      logger: false,
    });
    const api = new ApiClient({
      baseUrl: server.url,
      apiKey: server.token,
      onResponse,
      ...(onWaiting ? { onWaiting } : {}),
      ...(opts.retry ? { retry: opts.retry } : {}),
      ...(opts.probeOutages === undefined ? {} : { probeOutages: opts.probeOutages }),
    });
    const shown = relative(process.cwd(), dataPath) || dataPath;
    target = {
      api,
      kind: "embedded",
      identity: { url: "embedded" },
      description: inMemory
        ? `the embedded reference server (no data yet: ${shown.startsWith("..") ? dataPath : shown} is created by the first apply)`
        : `the embedded reference server (data in ${shown.startsWith("..") ? dataPath : shown})`,
      requests: () => count,
      close: async () => {
        await api.close();
        await server.close();
      },
    };
  }
  if (opts.announce !== false && opts.announce !== "later") announceTarget(target);
  return target;
}

/** Prints the one dim line on stderr saying which API `target` is. */
export function announceTarget(target: Target): void {
  const hint = target.kind === "embedded" ? "; set TGW_API_URL and TGW_API_KEY to use another API" : "";
  process.stderr.write(`${colorErr.dim(`Using ${target.description}${hint}.`)}\n`);
}

/**
 * The client's rate limit from `TGW_RATE_LIMIT` (docs/plan.md > Apply): `N/WINDOW` such as `600/60s`
 * for a key with another limit than production's, `none` to send unpaced; unset: the client's default
 * (120 per 60 s against a remote API, none on loopback).
 * @throws UsageError for any other text
 */
export function rateLimitOption(text: string | undefined): { rateLimit?: RateLimit | false } {
  if (text === undefined || text.trim() === "") return {};
  if (text.trim() === "none") return { rateLimit: false };
  try {
    const { limit, windowMs } = parseRateLimit(text);
    return { rateLimit: { requests: limit, windowMs } };
  } catch {
    throw new UsageError(
      `TGW_RATE_LIMIT=${JSON.stringify(text)}: expected N/WINDOW such as 120/60s (units ms, s, m, h), or none`,
    );
  }
}

/**
 * The identity of a remote API: its URL without credentials, query or trailing slash, and the first 16
 * hex digits of SHA-256 over `tgw-api-key:` and the key (one-way, and not the hash a server keeps).
 */
export function remoteIdentity(url: string, key: string): StateApi {
  let shown = url;
  try {
    const u = new URL(url);
    shown = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    // Not a URL: the client refuses it with a clear message.
  }
  const digest = createHash("sha256").update(`tgw-api-key:${key}`).digest("hex").slice(0, 16);
  return { url: shown, key: digest };
}

/** `GET /api_keys 200 12ms`, `POST /api_keys no response (timeout) 30000ms, attempt 2`: no body, no header. */
export function describeResponse(e: ResponseEvent): string {
  const outcome = e.status !== undefined ? String(e.status) : `no response (${e.failure ?? "failed"})`;
  const attempt = e.attempt > 1 ? `, attempt ${e.attempt}` : "";
  const retry = e.retryInMs !== undefined ? `, retrying in ${seconds(e.retryInMs)}` : "";
  return `${e.method} ${e.path} ${outcome} ${Math.round(e.durationMs)}ms${attempt}${retry}`;
}

function describeRetry(e: ResponseEvent): string {
  const why = e.status !== undefined ? `answered ${e.status}` : `got no response (${e.failure ?? "failed"})`;
  return `${e.method} ${e.path} ${why}: waiting ${seconds(e.retryInMs ?? 0)} before retrying...`;
}

function describeWait(e: WaitingEvent): string {
  if (e.for === "rate-limit")
    return `${e.method} ${e.path}: waiting ${seconds(e.waitedMs)} for the client's rate limit (the API allows so many calls a minute)...`;
  const limit = e.timeoutMs !== undefined ? `; gives up after ${seconds(e.timeoutMs)}` : "";
  return `${e.method} ${e.path}: waiting for the API's answer (${seconds(e.waitedMs)} so far${limit})...`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}

/** One line on stderr saying what a long wait waits for. */
function waitLine(text: string): void {
  flushBufferedOutput();
  process.stderr.write(`${colorErr.dim(text)}\n`);
}

/** Options shared by the commands that read configuration and state. */
export interface WorkspaceOptions {
  file?: string[];
  state?: string;
}

/** The configuration, its state store and where they are. */
export interface Workspace {
  desired: DesiredState;
  /** Absolute paths of the `-f` arguments (the working directory when none), to reload the same configuration later. */
  paths: string[];
  configDir: string;
  store: StateStore;
}

/**
 * Loads the configuration of `-f` (default: the current directory) and opens its state store.
 * @throws ConfigError with every problem of the configuration.
 */
export async function openWorkspace(opts: WorkspaceOptions, env = process.env): Promise<Workspace> {
  const files = opts.file ?? [];
  const { desired } = await loadConfig(files, { env });
  const { store } = await openStateStore(
    locateState({ state: opts.state, configured: desired.stateUrl, config: files, env }),
    {
      stack: desired.stack,
      warn,
      debug: debugLog,
    },
  );
  // Absolute, so a saved plan reloads the same configuration from any directory.
  const paths = files.length > 0 ? files.map((f) => resolve(f)) : [process.cwd()];
  return { desired, paths, configDir: desired.configDir, store };
}

/** The lock holder text of a command (the store adds pid, host and time). */
export function holder(command: string): string {
  return `tgw ${command}`;
}

/**
 * The key of the embedded server's data file: `TGW_DATA_KEY` when set, else `.tgw/server.key`
 * (made once, mode 0600, beside the data in the 0700 `.tgw` directory).
 */
async function embeddedDataKey(dir: string): Promise<string> {
  const given = process.env.TGW_DATA_KEY;
  if (given) return given;
  const file = join(dir, "server.key");
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    const key = randomBytes(32).toString("base64");
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: "wx" }).catch(() => {});
    return (await readFile(file, "utf8")).trim();
  }
}

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
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiClient, type ResponseEvent, type RetryOptions } from "../client/index.js";
import type { DesiredState } from "../config/desired.js";
import { loadConfig } from "../config/index.js";
import { UsageError } from "../errors.js";
import { locateState, openStateStore } from "../state/open.js";
import type { StateStore } from "../state/store.js";
import { colorErr } from "./output.js";

/** The package's fixtures file (src/cli and dist/cli are both two levels below the package root). */
export const PACKAGE_FIXTURES = fileURLToPath(new URL("../../examples/fixtures.yaml", import.meta.url));

/** An API to talk to. */
export interface Target {
  api: ApiClient;
  /** `embedded` (reference server in this process) or `remote` (TGW_API_URL). */
  kind: "embedded" | "remote";
  /** Human description, e.g. `the API at https://api.example.com`. */
  description: string;
  /** Requests made so far (every attempt, retries included). */
  requests(): number;
  /** Closes the client (and stops the embedded server). */
  close(): Promise<void>;
}

/** Options of `openTarget`. */
export interface TargetOptions {
  configDir: string;
  env?: Record<string, string | undefined>;
  /** Print the one line saying which API is used (default true). */
  announce?: boolean;
  onResponse?: (event: ResponseEvent) => void;
  /** Retry settings of the client (default: the client's); `tgw watch` retries whole reconciles itself. */
  retry?: Partial<RetryOptions>;
}

/**
 * Opens the API named by the environment, or starts the embedded reference server.
 * @throws UsageError when TGW_API_URL is set without TGW_API_KEY, or is not an http(s) URL.
 */
export async function openTarget(opts: TargetOptions): Promise<Target> {
  const env = opts.env ?? process.env;
  let count = 0;
  const onResponse = (e: ResponseEvent) => {
    count++;
    opts.onResponse?.(e);
  };
  const url = env.TGW_API_URL?.trim();
  let target: Target;
  if (url) {
    const key = env.TGW_API_KEY?.trim();
    if (!key)
      throw new UsageError("TGW_API_URL is set but TGW_API_KEY is not: set it to an API key of that API");
    const api = new ApiClient({
      baseUrl: url,
      apiKey: key,
      onResponse,
      ...(opts.retry ? { retry: opts.retry } : {}),
    });
    target = {
      api,
      kind: "remote",
      description: `the API at ${url}`,
      requests: () => count,
      close: () => api.close(),
    };
  } else {
    // Imported here so that a remote run never loads the server's code (Fastify, SQLite).
    const { startServer } = await import("../server/server.js");
    const dir = join(opts.configDir, ".tgw");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const dataPath = join(dir, "server.sqlite");
    const server = await startServer({
      dataPath,
      fixtures: PACKAGE_FIXTURES,
      bootstrapToken: `tgw_embedded_${randomBytes(24).toString("hex")}`,
      logger: false,
    });
    const api = new ApiClient({
      baseUrl: server.url,
      apiKey: server.token,
      onResponse,
      ...(opts.retry ? { retry: opts.retry } : {}),
    });
    const shown = relative(process.cwd(), dataPath) || dataPath;
    target = {
      api,
      kind: "embedded",
      description: `the embedded reference server (data in ${shown.startsWith("..") ? dataPath : shown})`,
      requests: () => count,
      close: async () => {
        await api.close();
        await server.close();
      },
    };
  }
  if (opts.announce !== false) {
    const hint = target.kind === "embedded" ? "; set TGW_API_URL and TGW_API_KEY to use another API" : "";
    process.stderr.write(`${colorErr.dim(`Using ${target.description}${hint}.`)}\n`);
  }
  return target;
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
      warn: (m) => process.stderr.write(`${colorErr.yellow("Warning:")} ${m}\n`),
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

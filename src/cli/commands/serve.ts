/**
 * `tgw serve`: runs the reference implementation of the API (issue 3; docs/server.md) until SIGINT or
 * SIGTERM, then closes gracefully (in-flight requests end, the store is flushed and closed).
 *
 * Prints its URL on stdout, and the bootstrap admin token only when it generated one (first start on
 * an empty store without TGW_BOOTSTRAP_TOKEN): that is the only time it is shown. The request log
 * (pino: one line per request) goes to stderr, readable on a terminal (pino-pretty), JSON lines
 * otherwise or with `--log-format json`, and never holds a token, key or body.
 */
import { TgwError, UsageError } from "../../errors.js";
import type { startServer } from "../../server/server.js";
import type { RegisterCommand } from "../command.js";
import { color, colorErr, helpExamples } from "../output.js";

interface ServeOptions {
  host: string;
  port: string;
  data?: string;
  fixtures?: string;
  rateLimit?: string;
  faults?: string;
  logLevel: string;
  logFormat?: string;
  publicUrl?: string;
  mintAdminKey?: boolean;
  account?: string;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Default port of `tgw serve`. */
export const DEFAULT_SERVE_PORT = 4010;

/** Registers `tgw serve`. */
export const registerServe: RegisterCommand = (program) => {
  program
    .command("serve")
    .description("run the reference implementation of the API (try tgw with nothing else installed; tests)")
    .addHelpText(
      "after",
      helpExamples(
        "tgw serve",
        "tgw serve --port 8080 --data api.sqlite --fixtures examples/fixtures.yaml",
        "tgw serve --rate-limit 120/60s --faults 503=0.1,429=0.05",
      ),
    )
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--port <port>", "port to listen on (0: any free port)", String(DEFAULT_SERVE_PORT))
    .option("--data <path>", "SQLite file that keeps everything across restarts (default: in memory)")
    .option(
      "--fixtures <file>",
      "YAML file of edges, routes, tunnels, CAs... with fixed ids (examples/fixtures.yaml)",
    )
    .option("--rate-limit <N/WINDOW>", "limit per API key, e.g. 120/60s like production (default: none)")
    .option(
      "--faults <spec>",
      "inject failures, e.g. 500=0.1,503=0.05,429=0.05,drop=0.02,seed=7 (default: none)",
    )
    .option(
      "--public-url <url>",
      "base URL of every uri and next_page_uri, e.g. https://api.example.com (default: the listen address; never the request's Host)",
    )
    .option(
      "--mint-admin-key",
      "with --data: store a new admin key in the data file, print its token once and exit (needs access to the file, not to a running server)",
    )
    .option(
      "--account <id>",
      "with --mint-admin-key: the account (acct_...) or new for a new account (default: the default account)",
    )
    .option("--log-level <level>", `request log level: ${LOG_LEVELS.join(", ")}`, "info")
    .option(
      "--log-format <format>",
      "request log: human (one readable line per request; the default on a terminal) or json (JSON lines; the default otherwise)",
    )
    .addHelpText(
      "after",
      `
Environment:
  TGW_BOOTSTRAP_TOKEN  an admin token valid for this run (otherwise one is generated and printed
                       once, when the store has no API key yet)
  TGW_DATA_KEY         with --data: the key that encrypts the secrets kept in the file (required;
                       at least 16 characters, e.g. from \`openssl rand -base64 32\`)`,
    )
    .action(runServe);
};

/** Runs `tgw serve` until SIGINT or SIGTERM (or, with --mint-admin-key, mints a key and returns). */
async function runServe(opts: ServeOptions): Promise<void> {
  const port = Number(opts.port);
  if (!/^\d+$/.test(opts.port) || port > 65535)
    throw new UsageError(`--port must be 0..65535, got ${opts.port}`);
  if (opts.logFormat !== undefined && opts.logFormat !== "human" && opts.logFormat !== "json")
    throw new UsageError(`--log-format must be human or json, got ${opts.logFormat}`);
  if (!LOG_LEVELS.includes(opts.logLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")}, got ${opts.logLevel}`);
  }
  const dataKey = process.env.TGW_DATA_KEY;
  if (opts.mintAdminKey || opts.account !== undefined) {
    await mintKey(opts, dataKey);
    return;
  }
  const server = await listen(opts, port, dataKey);
  const c = color;
  process.stdout.write(`${c.bold("tgw serve")}: reference API listening on ${c.cyan(server.url)}\n`);
  process.stdout.write(`  export TGW_API_URL=${server.url}\n`);
  if (server.tokenGenerated) {
    process.stdout.write(
      `  export TGW_API_KEY=${server.token}\n${c.yellow("  This bootstrap admin token is shown only once: keep it.")}\n`,
    );
  }
  await new Promise<void>((resolve, reject) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.stdout.write("tgw serve: shutting down\n");
      server.close().then(resolve, reject);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/**
 * Starts the reference server as `opts` say.
 * @throws TgwError (code serve) when the address is in use or not local; the server's own errors.
 */
async function listen(
  opts: ServeOptions,
  port: number,
  dataKey: string | undefined,
): Promise<Awaited<ReturnType<typeof startServer>>> {
  const bootstrapToken = process.env.TGW_BOOTSTRAP_TOKEN;
  try {
    // Loaded only here: Fastify and SQLite are not needed by the other commands' start-up.
    const { startServer: start } = await import("../../server/server.js");
    return await start({
      host: opts.host,
      port,
      ...(opts.data === undefined ? {} : { dataPath: opts.data }),
      ...(dataKey ? { dataKey } : {}),
      ...(opts.fixtures === undefined ? {} : { fixtures: opts.fixtures }),
      ...(opts.rateLimit === undefined ? {} : { rateLimit: opts.rateLimit }),
      ...(opts.faults === undefined ? {} : { faults: opts.faults }),
      ...(opts.publicUrl === undefined ? {} : { publicUrl: opts.publicUrl }),
      ...(bootstrapToken ? { bootstrapToken } : {}),
      logger: { level: opts.logLevel, stream: await logStream(opts.logFormat) },
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "EADDRINUSE")
      throw new TgwError("serve", `${opts.host}:${port} is already in use: choose another --port`);
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
      throw new TgwError("serve", `cannot listen on ${opts.host}: no such local address`);
    }
    throw err;
  }
}

/**
 * `tgw serve --data FILE --mint-admin-key [--account ID|new]`: a new admin key written straight into
 * the data file (for an operator who lost every admin key), its token printed once.
 * @throws UsageError without --data, or for an account that does not exist
 */
async function mintKey(opts: ServeOptions, dataKey: string | undefined): Promise<void> {
  if (!opts.mintAdminKey) throw new UsageError("--account goes with --mint-admin-key");
  if (opts.data === undefined)
    throw new UsageError("--mint-admin-key needs --data FILE: the data file to add the key to");
  const { mintAdminKeyInFile } = await import("../../server/mint.js");
  const minted = mintAdminKeyInFile(opts.data, dataKey, opts.account);
  process.stdout.write(
    `tgw serve: new admin key ${minted.keyId} of account ${minted.accountId}\n  export TGW_API_KEY=${minted.token}\n${color.yellow("  This token is shown only once: keep it.")}\n`,
  );
}

/**
 * Where the request log goes: stderr as JSON lines, or through pino-pretty as one readable line per
 * request (`[10:02:11.123] INFO: GET /api_keys 200 5.7 ms op_...`) for `human`, the default on a
 * terminal.
 */
async function logStream(format: string | undefined): Promise<NodeJS.WritableStream> {
  if ((format ?? (process.stderr.isTTY ? "human" : "json")) === "json") return process.stderr;
  const { default: pretty } = await import("pino-pretty");
  return pretty({
    destination: 2,
    sync: true,
    colorize: colorErr.isColorSupported,
    translateTime: "HH:MM:ss.l",
    ignore: "pid,hostname,operation_id,method,url,status,duration_ms",
    messageFormat: (log, key) =>
      typeof log.method === "string"
        ? `${log.method} ${String(log.url)} ${String(log.status)} ${String(log.duration_ms)} ms ${String(log.operation_id)}`
        : String(log[key]),
  });
}

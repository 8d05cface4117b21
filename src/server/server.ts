/**
 * Starting and stopping the reference server: configures the app (./app.ts), listens, and closes
 * gracefully. Used by `tgw serve`, by the embedded default of `tgw plan/apply` and by every test
 * (test/helpers/server.ts).
 */
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";

/** Settings of startServer. */
export interface StartServerOptions {
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Port; default 0 (an ephemeral port). */
  port?: number;
  /** SQLite file that survives restarts; default: in memory. */
  dataPath?: string;
  /** Key that encrypts the secrets kept in `dataPath` (required with it; see docs/server.md > Storage). */
  dataKey?: string;
  /** Path to a fixtures YAML file (e.g. examples/fixtures.yaml). */
  fixtures?: string;
  /** Admin token valid for this run, even if the store already holds keys. */
  bootstrapToken?: string;
  /** `N/WINDOW`, e.g. `120/60s`; default: no limit. */
  rateLimit?: string;
  /** Fault injection, e.g. `500=0.1,503=0.05,429=0.05,drop=0.02,seed=7`; default: none. */
  faults?: string;
  /** Base of every `uri` and `next_page_uri`, e.g. `https://api.example.com`; default: the listen address. */
  publicUrl?: string;
  /** pino options, true for defaults; default false. */
  logger?: boolean | object;
  /** Check every response against `$defs.response` (a mismatch answers 500); default false. */
  checkResponses?: boolean;
}

/** A running server. */
export interface RunningServer {
  /** `http://host:port`, the API base URL. */
  url: string;
  /** An admin token valid for this run (the bootstrap token given, or the one generated). */
  token: string;
  /** True when the token was generated and stored as a new API key (print it once). */
  tokenGenerated: boolean;
  /** Stops listening, ends open connections and closes the store. */
  close(): Promise<void>;
  app: FastifyInstance;
}

/**
 * Builds the app and listens.
 * @throws UsageError (bad rate limit or faults), FixturesError, or the listen error (port in use...)
 */
export async function startServer(opts: StartServerOptions = {}): Promise<RunningServer> {
  const app = await buildApp({
    dataPath: opts.dataPath,
    dataKey: opts.dataKey,
    fixtures: opts.fixtures,
    bootstrapToken: opts.bootstrapToken,
    rateLimit: opts.rateLimit,
    faults: opts.faults,
    logger: opts.logger,
    checkResponses: opts.checkResponses,
    publicUrl: opts.publicUrl,
  });
  const host = opts.host ?? "127.0.0.1";
  try {
    await app.listen({ host, port: opts.port ?? 0 });
  } catch (err) {
    await app.close();
    throw err;
  }
  const { port } = app.server.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  let closing: Promise<void> | undefined;
  const url = `http://${shownHost}:${port}`;
  if (opts.publicUrl === undefined) app.publicUrl.base = url;
  return {
    url,
    token: app.bootstrap.token,
    tokenGenerated: app.bootstrap.generated,
    close: () => {
      closing ??= app.close();
      return closing;
    },
    app,
  };
}

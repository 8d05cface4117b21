/**
 * PostgreSQL state URLs: `postgres://[user@]host[:port]/database[?schema=tgw&history=20]`
 * (`postgresql://` too). The password should come from the standard `PG*` environment variables
 * (`PGPASSWORD`, a `~/.pgpass` file) or `${env:}`, never be written in a configuration file.
 *
 * Query parameters of our own (`schema`, `history`) are removed before the URL reaches the driver;
 * the others (`sslmode`...) are passed on. The location shown in messages never holds the password.
 * @see docs/state.md
 */
import { parse as parseConnectionString } from "pg-connection-string";
import { UsageError } from "../../errors.js";

/** Default number of past states kept per stack. */
export const DEFAULT_HISTORY = 20;

/** Default schema of the tables. */
export const DEFAULT_SCHEMA = "tgw";

/** What a PostgreSQL state URL names. */
export interface PostgresTarget {
  /** The URL for the driver: our parameters removed, the password kept (if any). */
  connectionString: string;
  /** Schema of the tables (`?schema=`, default `tgw`). */
  schema: string;
  /** How many past states to keep per stack (`?history=`, default 20). */
  history: number;
  /** The URL for messages: no password, our parameters kept when not default. */
  display: string;
}

/** True if `text` is a PostgreSQL URL (`postgres://` or `postgresql://`). */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text.trim());
}

/**
 * Parses a PostgreSQL state URL.
 * @throws UsageError naming the problem (not a URL, bad schema name, bad history count).
 */
export function parsePostgresUrl(text: string): PostgresTarget {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`state URL ${redactUrl(text)} is not a valid URL`);
  }
  const schema = url.searchParams.get("schema") ?? DEFAULT_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new UsageError(
      `state URL ${redactUrl(text)}: schema "${schema}" must be lowercase letters, digits and _ (at most 63)`,
    );
  }
  const historyText = url.searchParams.get("history");
  const history = historyText === null ? DEFAULT_HISTORY : Number(historyText);
  if (!Number.isInteger(history) || history < 1 || history > 10_000) {
    throw new UsageError(
      `state URL ${redactUrl(text)}: history must be a whole number from 1 to 10000, got "${historyText}"`,
    );
  }
  url.searchParams.delete("schema");
  url.searchParams.delete("history");
  const connectionString = url.toString();
  const shown = new URL(connectionString);
  shown.password = "";
  if (schema !== DEFAULT_SCHEMA) shown.searchParams.set("schema", schema);
  return { connectionString, schema, history, display: shown.toString() };
}

/** `text` with any password replaced by `***` (for messages about a URL that may not parse). */
export function redactUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@\s]*):[^@/\s]*@/i, "$1:***@");
}

/** True if the URL text carries a password (`user:password@`). */
export function hasPassword(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:[^@/\s]*@/i.test(text.trim());
}

/** The environment variable in which the operator lists the hosts a configuration's `state:` may name. */
export const STATE_HOSTS_ENV = "TGW_STATE_HOSTS";

/**
 * Refuses a configuration's `state:` URL whose host the operator has not allowed (docs/state.md >
 * Who chooses the database). The driver would send that host the password of `PGPASSWORD` or
 * `~/.pgpass`, so a configuration (a pull request) may not choose it: the host must be listed in
 * `TGW_STATE_HOSTS` (names separated by `,` or spaces). A URL without a host (the operator's `PGHOST`
 * or the local socket) needs no listing. The host is the one the driver connects to (`?host=` wins).
 * @throws UsageError naming the host and the way to allow it
 */
export function checkConfiguredHost(url: string, env: Record<string, string | undefined>): void {
  const host = (parseConnectionString(url.trim()).host ?? "").toLowerCase();
  if (host === "") return;
  const allowed = (env[STATE_HOSTS_ENV] ?? "")
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((h) => h !== "");
  if (allowed.includes(host)) return;
  throw new UsageError(
    `the configuration's state: names the PostgreSQL host ${host}, which the operator has not allowed (the database password would be sent to it): set ${STATE_HOSTS_ENV}=${host}, or give the state with --state or TGW_STATE_URL`,
  );
}

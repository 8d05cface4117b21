/**
 * Small HTTP helpers for the reference server tests: raw calls over real HTTP (fetch), the error
 * body check, and response validation against `$defs.response` with the project's Ajv.
 */
import net from "node:net";
import { createAjv, getKind, schemaKey } from "../../src/model/index.js";

/** What a call returned. */
export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. Tests read it freely, so it is untyped. */
  // biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, checked by assertions
  body: any;
  text: string;
}

/** A client bound to one server and token. */
export interface Caller {
  (
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string | undefined>,
  ): Promise<Answer>;
  url: string;
  token: string;
}

/**
 * Makes a caller. Defaults: `Authorization: Bearer <token>`, `Service-Version: 2`, and
 * `Content-Type: application/json` with a body. A header given as undefined is left out. A string
 * body is sent as is; anything else as JSON. `path` may be a full URL.
 */
export function caller(url: string, token: string): Caller {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string | undefined> = {},
  ): Promise<Answer> => {
    const all: Record<string, string | undefined> = {
      authorization: `Bearer ${token}`,
      "service-version": "2",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    };
    const sent = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >;
    const res = await fetch(path.startsWith("http") ? path : `${url}${path}`, {
      method,
      headers: sent,
      // Bytes, not a string: fetch would add its own Content-Type to a string body.
      ...(body === undefined
        ? {}
        : { body: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)) }),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return Object.assign(call, { url, token });
}

/** Throws unless `answer` is an error of docs/design.md section 5 with this status; returns its msg. */
export function errorMessage(answer: Answer, status: number): string {
  const b = answer.body;
  const shape =
    answer.status === status &&
    b !== null &&
    typeof b === "object" &&
    Object.keys(b).sort().join(",") === "details,error_code,msg,status_code" &&
    /^TGW_\d+$/.test(b.error_code) &&
    b.status_code === status &&
    typeof b.msg === "string" &&
    b.msg.length > 0 &&
    Object.keys(b.details).join(",") === "operation_id" &&
    /^op_[A-Za-z0-9]+$/.test(b.details.operation_id);
  if (!shape) throw new Error(`expected a ${status} error body, got ${answer.status} ${answer.text}`);
  return b.msg as string;
}

const ajv = createAjv();

/** The messages of the failures of `body` against the kind's `$defs.response`, or [] when valid. */
export function responseProblems(kindName: string, body: unknown): string[] {
  const kind = getKind(kindName);
  const validate = ajv.getSchema(schemaKey(kind.schemaId, "response"));
  if (!validate) throw new Error(`no response schema for ${kindName}`);
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
export function rawRequest(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on("data", (d) => chunks.push(d));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
  });
}

/**
 * Server fuzz (issue 12, "Proof"): a few hundred fast-check requests over raw sockets (methods,
 * paths with odd ids, percent-encoding and lengths, queries, headers, bodies of random JSON, deep
 * nesting, bad UTF-8, other charsets) to a reference server with the example fixtures and an
 * admin token. Every request must get an answer; none may be a 5xx; every 4xx must have the
 * documented body `{error_code, status_code, msg, details: {operation_id}}` with its own status.
 * Prints the figures (cases, statuses seen) so runs can be compared.
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { allKinds, fillPath } from "../../src/model/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { errorMessage, rawRequest } from "../server/http.js";

const TOKEN = "tgw_fuzz_admin_token";
const RUNS = Number(process.env.TGW_FUZZ_RUNS ?? 300);

let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startTestServer({ bootstrapToken: TOKEN });
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

const params = { edge_id: "edghts_example01", route_id: "edghtsrt_example01" };
const PATHS = [...allKinds().values()].map((k) => fillPath(k.path, params));

const segment = fc.oneof(
  fc.constantFrom(
    "ak_example",
    "edghts_example01",
    "ipp_example01",
    "usr_admin",
    "",
    "..",
    "%zz",
    "%00",
    "%2F",
    "ak_%E2%82%AC",
  ),
  fc.stringMatching(/^[A-Za-z0-9_%.~-]{0,40}$/),
  fc.integer({ min: 90, max: 300 }).map((n) => `ak_${"a".repeat(n)}`),
);
const path = fc.oneof(
  fc.constantFrom(...PATHS, "/", "/debug/requests", "/debug/event_deliveries", "/nope", "//api_keys"),
  fc.tuple(fc.constantFrom(...PATHS), segment).map(([base, id]) => `${base}/${id}`),
  fc.tuple(fc.constantFrom(...PATHS), segment, segment).map(([base, a, b]) => `${base}/${a}/${b}`),
);
const query = fc.oneof(
  fc.constant(""),
  fc.constantFrom(
    "?limit=0",
    "?limit=101",
    "?limit=abc",
    "?limit=5",
    "?before_id=ak_none",
    "?limit=%zz",
    "?a=1&a=2&limit=1&limit=2",
  ),
  fc.stringMatching(/^[A-Za-z0-9_=&%.-]{0,30}$/).map((q) => `?${q}`),
);
const method = fc.constantFrom(
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "HEAD",
  "OPTIONS",
  "TRACE",
  "CONNECT",
  "FOO",
);

const jsonBody = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc
    .record(
      {
        description: fc.string(),
        metadata: fc.string(),
        owner_id: fc.string(),
        labels: fc.dictionary(fc.string(), fc.string()),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  fc.integer({ min: 60, max: 20_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
  fc.integer({ min: 60, max: 5_000 }).map((n) => `{"description":${'{"a":'.repeat(n)}1${"}".repeat(n)}}`),
  fc.string({ maxLength: 200 }),
);
const body = fc.oneof(
  fc.constant(undefined),
  jsonBody.map((text) => Buffer.from(text, "utf8")),
  fc
    .uint8Array({ maxLength: 64 })
    .map((bytes) => Buffer.concat([Buffer.from('{"description":"'), Buffer.from(bytes), Buffer.from('"}')])),
);
const contentType = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  undefined,
);
const auth = fc.oneof(
  { weight: 6, arbitrary: fc.constant(`Bearer ${TOKEN}`) },
  { weight: 1, arbitrary: fc.constantFrom(`bearer ${TOKEN}`, "Bearer nope", "Basic abc", "", undefined) },
);
const version = fc.oneof(
  { weight: 6, arbitrary: fc.constant("2") },
  { weight: 1, arbitrary: fc.constantFrom("1", "", "2, 2", undefined) },
);
const extraHeader = fc.oneof(
  fc.constant(""),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `X-Pad: ${"x".repeat(n)}\r\n`),
  fc.constantFrom("Host: evil.example\r\n", "Accept: */*\r\n", "Expect: 100-continue\r\n"),
);

interface Case {
  method: string;
  target: string;
  body: Buffer | undefined;
  contentType: string | undefined;
  auth: string | undefined;
  version: string | undefined;
  extra: string;
}

/** The raw bytes of a case (Connection: close, so the answer ends when the socket does). */
function bytesOf(c: Case): Buffer {
  const headers = [
    `Host: 127.0.0.1:${port}`,
    "Connection: close",
    ...(c.auth === undefined ? [] : [`Authorization: ${c.auth}`]),
    ...(c.version === undefined ? [] : [`Service-Version: ${c.version}`]),
    ...(c.contentType === undefined || c.body === undefined ? [] : [`Content-Type: ${c.contentType}`]),
  ];
  if (c.body !== undefined) headers.push(`Content-Length: ${c.body.length}`);
  return Buffer.concat([
    Buffer.from(
      `${c.method} ${c.target} HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join("")}${c.extra}\r\n`,
    ),
    c.body ?? Buffer.alloc(0),
  ]);
}

/** Reads a raw answer: status and body text. */
function parse(raw: string): { status: number; body: string } {
  const text = raw.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const head = text.indexOf("\r\n\r\n");
  let bodyText = head < 0 ? "" : text.slice(head + 4);
  if (/\r\ntransfer-encoding: chunked/i.test(text.slice(0, head))) {
    bodyText = bodyText.replace(/^[0-9a-f]+\r\n/i, "").replace(/\r\n0\r\n\r\n$/, "");
  }
  return { status, body: bodyText };
}

it("answers every fuzzed request, never with a 5xx, every error in the documented shape", async () => {
  const statuses = new Map<number, number>();
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.record({ method, path, query, body, contentType, auth, version, extra: extraHeader }),
      async (g) => {
        const c: Case = { ...g, target: `${g.path}${g.query}` };
        const answer = parse(await rawRequest(port, bytesOf(c)));
        cases++;
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expect(answer.status, `no answer to ${c.method} ${c.target}`).toBeGreaterThan(0);
        expect(answer.status, `${c.method} ${c.target}: ${answer.body}`).toBeLessThan(500);
        if (answer.status >= 400 && c.method !== "HEAD") {
          let parsed: unknown;
          try {
            parsed = JSON.parse(answer.body);
          } catch {
            parsed = undefined;
          }
          errorMessage(
            { status: answer.status, headers: new Headers(), body: parsed, text: answer.body },
            answer.status,
          );
        }
      },
    ),
    { numRuns: RUNS, seed: Number(process.env.TGW_FUZZ_SEED ?? 20261123) },
  );
  const shown = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  console.log(`server fuzz: ${cases} requests; statuses ${shown.join(", ")}; 0 answers of 5xx`);
}, 60_000);

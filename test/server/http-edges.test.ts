/**
 * What the HTTP stack sees before our routes (issue 12, items 8, 9, 11 and 12): every answer has the
 * documented error body, deep JSON is a 400 and not a 500, only UTF-8 JSON is accepted, and `uri` /
 * `next_page_uri` come from the public URL, never from the request's `Host`. Raw sockets, because
 * fetch would refuse to send most of these requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../src/server/server.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { errorMessage, rawRequest } from "./http.js";

let server: TestServer;
let port: number;

beforeAll(async () => {
  server = await startTestServer({ bootstrapToken: "tgw_http_edges" });
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

const HEADERS =
  "Host: api.test\r\nAuthorization: Bearer tgw_http_edges\r\nService-Version: 2\r\nConnection: close\r\n";

/** A raw answer as status + parsed body, checked to be the documented error body. */
async function rawError(request: string | Buffer, status: number): Promise<string> {
  const text = await rawRequest(port, request);
  const statusLine = text.slice(0, text.indexOf("\r\n"));
  const bodyText = text.slice(text.indexOf("\r\n\r\n") + 4);
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  return errorMessage(
    { status: Number(statusLine.split(" ")[1]), headers: new Headers(), body, text: bodyText },
    status,
  );
}

const post = (body: string | Buffer, contentType = "application/json") =>
  Buffer.concat([
    Buffer.from(
      `POST /api_keys HTTP/1.1\r\n${HEADERS}Content-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    ),
    Buffer.from(body),
  ]);

describe("answers the HTTP stack used to give in its own shape", () => {
  it("bad percent-encoding in the path: 400", async () => {
    expect(await rawError(`GET /api_keys/ak_%zz HTTP/1.1\r\n${HEADERS}\r\n`, 400)).toContain(
      "percent-encoding",
    );
  });
  it("a path parameter over 100 characters: 404", async () => {
    expect(await rawError(`GET /api_keys/ak_${"a".repeat(200)} HTTP/1.1\r\n${HEADERS}\r\n`, 404)).toContain(
      "at most 100 characters",
    );
  });
  it("headers over 16 KiB: 431", async () => {
    await rawError(`GET /api_keys HTTP/1.1\r\n${HEADERS}X-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431);
  });
  it("an unknown method and a malformed request line: 400", async () => {
    await rawError(`FOO /api_keys HTTP/1.1\r\n${HEADERS}\r\n`, 400);
    await rawError("garbage\r\n\r\n", 400);
  });
  it("CONNECT: 405 instead of a closed connection", async () => {
    expect(await rawError(`CONNECT example.com:443 HTTP/1.1\r\n${HEADERS}\r\n`, 405)).toContain("CONNECT");
  });
});

describe("bodies", () => {
  it("JSON nested 10,000 levels deep: 400, not 500", async () => {
    const deep = `{"description":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    expect(await rawError(post(deep), 400)).toContain("deeper than 64 levels");
  });
  it("charset other than UTF-8: 415", async () => {
    await rawError(post('{"description":"x"}', "application/json; charset=utf-16"), 415);
    const ok = await rawRequest(port, post('{"description":"x"}', "application/json; charset=UTF-8"));
    expect(ok).toMatch(/^HTTP\/1.1 201/);
  });
  it("invalid UTF-8: 400, never stored as U+FFFD", async () => {
    const bad = Buffer.concat([
      Buffer.from('{"description":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    expect(await rawError(post(bad), 400)).toContain("not valid UTF-8");
  });
});

describe("uri and next_page_uri", () => {
  it("never reflect the Host header: they use the listen address by default", async () => {
    const text = await rawRequest(
      port,
      `GET /ip_policies?limit=1 HTTP/1.1\r\n${HEADERS.replace("api.test", "evil.example")}\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1.1 200/);
    expect(text).not.toContain("evil.example");
    expect(text).toContain(`"uri":"${server.url}/ip_policies"`);
    expect(text).toContain(`"next_page_uri":"${server.url}/ip_policies?before_id=`);
  });
  it("use --public-url when given", async () => {
    const other = await startServer({ bootstrapToken: "tgw_public", publicUrl: "https://api.example.com/" });
    try {
      const answer = await fetch(`${other.url}/api_keys`, {
        headers: { authorization: "Bearer tgw_public", "service-version": "2" },
      });
      const body = (await answer.json()) as { uri: string };
      expect(body.uri).toBe("https://api.example.com/api_keys");
    } finally {
      await other.close();
    }
    await expect(startServer({ publicUrl: "ftp://x" })).rejects.toThrow(/invalid public URL/);
  });
});

/**
 * The provider's gRPC layer (src/terraform/grpc.ts), with node:http2 as the client: framing across
 * DATA frames, concurrent streams, statuses in trailers and Trailers-Only responses, deadlines, a
 * client that goes away, response streams, stopping, and mutual TLS on a unix socket.
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import * as http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { connect as tlsConnect } from "node:tls";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  frameMessage,
  GrpcError,
  type GrpcServer,
  grpcServer,
  MessageReader,
  type Method,
  parseTimeout,
  percentEncode,
  Status,
} from "../../src/terraform/grpc.js";
import { selfSignedCertificate } from "../../src/terraform/tls.js";

const dir = mkdtempSync(join(tmpdir(), "tgw-grpc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = {
  decode: (bytes: Buffer) => JSON.parse(bytes.toString("utf8")) as unknown,
  encode: (message: unknown) => Buffer.from(JSON.stringify(message)),
};
type Req = { text?: string; wait?: number; code?: number };
const seen: { started: number; aborted: unknown[] } = { started: 0, aborted: [] };

/** Waits until `cond` holds (the machine may be slow), for up to 5 s. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await sleep(10);
  expect(cond()).toBe(true);
}

const methods = new Map<string, Method>([
  ["/t.Echo/Say", { kind: "unary", ...json, handle: (r) => ({ said: (r as Req).text }) }],
  [
    "/t.Echo/Slow",
    {
      kind: "unary",
      ...json,
      handle: async (r) => {
        await sleep((r as Req).wait ?? 0);
        return { said: (r as Req).text };
      },
    },
  ],
  [
    "/t.Echo/Fail",
    {
      kind: "unary",
      ...json,
      handle: (r) => {
        const { code, text } = r as Req;
        throw code === undefined ? new Error(text) : new GrpcError(code, text ?? "");
      },
    },
  ],
  [
    "/t.Echo/Hang",
    {
      kind: "unary",
      ...json,
      handle: async (_r, call) => {
        seen.started++;
        await once(call.signal, "abort");
        seen.aborted.push(call.signal.reason);
        return { late: true };
      },
    },
  ],
  [
    "/t.Echo/Watch",
    {
      kind: "server-stream",
      ...json,
      handle: async (_r, call) => {
        seen.started++;
        call.send({ n: 1 });
        call.send({ n: 2 });
        await once(call.signal, "abort");
      },
    },
  ],
]);

let server: GrpcServer | undefined;
let port: string | number = 0;
afterEach(async () => {
  await server?.close(true);
  server = undefined;
  seen.aborted = [];
  seen.started = 0;
});

async function start(): Promise<http2.ClientHttp2Session> {
  server = grpcServer(methods, { maxMessageBytes: 1024 });
  port = await server.listen(0);
  return http2.connect(`http://127.0.0.1:${port}`);
}

interface Answer {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  messages: unknown[];
  /** grpc-status and grpc-message, wherever they came (trailers, or a Trailers-Only response). */
  status: number;
  message: string;
}

/** Sends `chunks` (each written as its own DATA frame) on a new stream; the answer once it ends. */
async function call(
  session: http2.ClientHttp2Session,
  path: string,
  chunks: Buffer[],
  headers: http2.OutgoingHttpHeaders = {},
): Promise<Answer> {
  const req = session.request({
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc",
    te: "trailers",
    ...headers,
  });
  const answer: Answer = { headers: {}, trailers: {}, messages: [], status: -1, message: "" };
  const reader = new MessageReader();
  req.on("response", (h) => {
    answer.headers = h;
  });
  req.on("trailers", (t) => {
    answer.trailers = t;
  });
  req.on("data", (d: Buffer) => answer.messages.push(...reader.push(d).map((m) => json.decode(m))));
  req.on("error", () => {});
  for (const chunk of chunks) {
    req.write(chunk);
    await sleep(1);
  }
  req.end();
  await once(req, "close");
  const end = { ...answer.headers, ...answer.trailers };
  answer.status = Number(end["grpc-status"] ?? -1);
  answer.message = decodeURIComponent(String(end["grpc-message"] ?? ""));
  return answer;
}

const request = (message: unknown) => [frameMessage(json.encode(message))];

describe("the gRPC layer", () => {
  it("reads a message split across many DATA frames, and answers with headers, the message, trailers", async () => {
    const session = await start();
    const bytes = frameMessage(json.encode({ text: "héllo" }));
    const chunks = [...bytes].map((b) => Buffer.from([b]));
    const answer = await call(session, "/t.Echo/Say", chunks);
    expect(answer.headers[":status"]).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/grpc+proto");
    expect(answer.messages).toEqual([{ said: "héllo" }]);
    expect(answer.trailers["grpc-status"]).toBe("0");
    session.close();
  });

  it("answers concurrent streams on one connection, each its own", async () => {
    const session = await start();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(session, "/t.Echo/Slow", request({ text: `n${i}`, wait: 30 - i })),
      ),
    );
    expect(answers.map((a) => a.messages[0])).toEqual(
      Array.from({ length: 30 }, (_, i) => ({ said: `n${i}` })),
    );
    expect(answers.every((a) => a.status === Status.OK)).toBe(true);
    session.close();
  });

  it("answers an unknown method UNIMPLEMENTED, Trailers-Only", async () => {
    const session = await start();
    const answer = await call(session, "/t.Echo/Nope", request({}));
    expect(answer.headers["grpc-status"]).toBe(String(Status.UNIMPLEMENTED));
    expect(answer.message).toBe("unknown method /t.Echo/Nope");
    expect(answer.messages).toEqual([]);
    session.close();
  });

  it("answers a handler's error INTERNAL, or with its gRPC status; the message percent-encoded", async () => {
    const session = await start();
    const internal = await call(session, "/t.Echo/Fail", request({ text: "boom: 100% ✗\nnext" }));
    expect(internal.status).toBe(Status.INTERNAL);
    expect(String(internal.headers["grpc-message"])).toBe("boom: 100%25 %E2%9C%97%0Anext");
    expect(internal.message).toBe("boom: 100% ✗\nnext");
    const invalid = await call(
      session,
      "/t.Echo/Fail",
      request({ code: Status.INVALID_ARGUMENT, text: "bad" }),
    );
    expect([invalid.status, invalid.message]).toEqual([Status.INVALID_ARGUMENT, "bad"]);
    session.close();
  });

  it("refuses what is not one good message: none, two, undecodable, compressed, too big, not gRPC", async () => {
    const session = await start();
    expect((await call(session, "/t.Echo/Say", [])).status).toBe(Status.INTERNAL);
    expect((await call(session, "/t.Echo/Say", [...request({}), ...request({})])).status).toBe(
      Status.INTERNAL,
    );
    expect((await call(session, "/t.Echo/Say", [frameMessage(Buffer.from("{"))])).message).toMatch(
      /not a valid/,
    );
    const compressed = frameMessage(json.encode({}));
    compressed[0] = 1;
    expect((await call(session, "/t.Echo/Say", [compressed])).status).toBe(Status.INTERNAL);
    const big = await call(session, "/t.Echo/Say", request({ text: "x".repeat(2000) }));
    expect(big.status).toBe(Status.RESOURCE_EXHAUSTED);
    const gzip = await call(session, "/t.Echo/Say", request({}), { "grpc-encoding": "gzip" });
    expect(gzip.status).toBe(Status.UNIMPLEMENTED);
    const html = await call(session, "/t.Echo/Say", request({}), { "content-type": "text/html" });
    expect(html.headers[":status"]).toBe(415);
    expect((await call(session, "/t.Echo/Say", request({ text: "still fine" }))).messages).toEqual([
      { said: "still fine" },
    ]);
    session.close();
  });

  it("ends a call at its grpc-timeout with DEADLINE_EXCEEDED and aborts the handler", async () => {
    const session = await start();
    const started = Date.now();
    const answer = await call(session, "/t.Echo/Hang", request({}), { "grpc-timeout": "80m" });
    expect(answer.status).toBe(Status.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
    await until(() => seen.aborted.length === 1);
    expect(seen.aborted).toEqual([expect.objectContaining({ code: Status.DEADLINE_EXCEEDED })]);
    session.close();
  });

  it("aborts the handler of a client that goes away, and serves on", async () => {
    const session = await start();
    const req = session.request({
      ":method": "POST",
      ":path": "/t.Echo/Hang",
      "content-type": "application/grpc",
    });
    req.on("error", () => {});
    req.end(request({})[0]);
    await until(() => seen.started === 1);
    req.close(http2.constants.NGHTTP2_CANCEL);
    await until(() => seen.aborted.length === 1);
    expect(seen.aborted).toEqual([expect.objectContaining({ code: Status.CANCELLED })]);
    expect((await call(session, "/t.Echo/Say", request({ text: "hi" }))).messages).toEqual([{ said: "hi" }]);
    session.destroy();
    await sleep(20);
    const other = http2.connect(`http://127.0.0.1:${port}`);
    expect((await call(other, "/t.Echo/Say", request({ text: "again" }))).messages).toEqual([
      { said: "again" },
    ]);
    other.close();
  });

  it("streams responses, and a graceful stop ends the stream OK after the unary calls in flight", async () => {
    const session = await start();
    const watching = call(session, "/t.Echo/Watch", request({}));
    const slow = call(session, "/t.Echo/Slow", request({ text: "last", wait: 100 }));
    await until(() => seen.started === 1);
    const closed = server?.close();
    const [watch, last] = await Promise.all([watching, slow]);
    expect(watch.messages).toEqual([{ n: 1 }, { n: 2 }]);
    expect(watch.trailers["grpc-status"]).toBe("0");
    expect(last.messages).toEqual([{ said: "last" }]);
    await closed;
    expect(session.closed || session.destroyed).toBe(true);
  });

  it("serves mutual TLS on a unix socket to the trusted client only", async () => {
    const own = selfSignedCertificate("localhost");
    const client = selfSignedCertificate("localhost");
    const stranger = selfSignedCertificate("localhost");
    server = grpcServer(methods, {
      tls: { keyPem: own.keyPem, certPem: own.certPem, clientCaPem: client.certPem },
    });
    const socket = join(dir, "plugin.sock");
    expect(await server.listen(socket)).toBe(socket);
    const connect = (who: typeof client) =>
      http2.connect("https://localhost", {
        createConnection: () =>
          tlsConnect({
            path: socket,
            servername: "localhost",
            ca: [own.certPem],
            key: who.keyPem,
            cert: who.certPem,
            ALPNProtocols: ["h2"],
          }),
      });
    const trusted = connect(client);
    expect((await call(trusted, "/t.Echo/Say", request({ text: "tls" }))).messages).toEqual([
      { said: "tls" },
    ]);
    trusted.close();
    const other = connect(stranger);
    other.on("error", () => {});
    expect((await call(other, "/t.Echo/Say", request({ text: "tls" }))).messages).toEqual([]);
    other.destroy();
  });
});

describe("the gRPC layer's pieces", () => {
  it("splits messages out of chunks cut anywhere", () => {
    const bytes = Buffer.concat([
      frameMessage(Buffer.from("ab")),
      frameMessage(Buffer.alloc(0)),
      frameMessage(Buffer.from("cde")),
    ]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const reader = new MessageReader();
      const out = [...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))];
      expect(out.map((m) => m.toString())).toEqual(["ab", "", "cde"]);
      expect(reader.pending).toBe(0);
    }
    expect(() => new MessageReader(2).push(frameMessage(Buffer.from("abc")))).toThrow(/over 2/);
  });

  it("reads grpc-timeout in every unit, and ignores a malformed one", () => {
    expect(["1H", "2M", "3S", "40m", "5000u", "7n"].map(parseTimeout)).toEqual([
      3_600_000, 120_000, 3000, 40, 5, 1,
    ]);
    expect([undefined, "", "1s", "123456789S", "99999999H"].map(parseTimeout)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("percent-encodes grpc-message", () => {
    expect(percentEncode("a b%c\té")).toBe("a b%25c%09%C3%A9");
  });
});

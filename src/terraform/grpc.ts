/**
 * A small gRPC server on `node:http2`: what the plugin protocol needs, after "gRPC over HTTP2"
 * (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md). Methods are found by path
 * (`/<package>.<Service>/<Method>`); the layer moves bytes, and each method brings its codec.
 *
 * - Requests: `POST`, `content-type: application/grpc[+proto]` (else HTTP 415), messages framed as a
 *   compressed flag (one byte, always 0: only the `identity` encoding is accepted) and a big-endian
 *   32-bit length, split across DATA frames in any way. A unary call takes exactly one message.
 * - Responses: headers (`:status 200`, `content-type: application/grpc+proto`), the framed messages,
 *   then trailers `grpc-status` and `grpc-message` (percent-encoded); an error before any message is
 *   a Trailers-Only response (one HEADERS frame that ends the stream).
 * - Errors: an unknown path is UNIMPLEMENTED; a handler that throws answers its error's `code` when it
 *   is a gRPC status (a `GrpcError`), else INTERNAL with its message; an undecodable request INTERNAL;
 *   a message over the size limit RESOURCE_EXHAUSTED.
 * - Deadlines: `grpc-timeout` (`<1-8 digits><H|M|S|m|u|n>`) ends the call with DEADLINE_EXCEEDED when
 *   it passes, and aborts the handler's signal; so does a client that goes away (reset, closed
 *   connection), after which nothing more is written.
 * - Stopping: `close()` takes no new connections or streams (GOAWAY; a stream that still comes is
 *   UNAVAILABLE), ends response streams with OK, and resolves when the unary calls in flight have
 *   answered and the connections are closed; `close(true)` drops everything at once.
 */
import * as http2 from "node:http2";

/** gRPC status codes (https://github.com/grpc/grpc/blob/master/doc/statuscodes.md). */
export const Status = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/** An error that answers a call with its gRPC status `code` (0-16) and `message`. */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "GrpcError";
  }
}

/** What a handler knows of its call. */
export interface CallContext {
  /** The method's path. */
  path: string;
  /** The request headers (custom metadata included). */
  headers: http2.IncomingHttpHeaders;
  /** Aborted when the call ends early: the deadline passed, the client went away, the server stops. */
  signal: AbortSignal;
}

/** What a response-streaming handler may do besides: send messages, while the call is open. */
export interface StreamContext extends CallContext {
  /** Sends one message; ignored once the call has ended. */
  send(message: unknown): void;
}

/** The request's and response's wire forms (./protocol.ts `Codec`). */
interface MethodCodec {
  /** @throws Error when the bytes are not a request. */
  decode(bytes: Buffer): unknown;
  /** @throws Error when the message cannot be encoded. */
  encode(message: unknown): Uint8Array;
}

/** A unary method: one request, one response (the value its handler returns or resolves to). */
export interface UnaryMethod extends MethodCodec {
  kind: "unary";
  handle(request: unknown, call: CallContext): unknown;
}

/** A server-streaming method: one request, the messages `send` sends; the call ends OK when `handle` resolves. */
export interface ServerStreamMethod extends MethodCodec {
  kind: "server-stream";
  handle(request: unknown, call: StreamContext): Promise<void> | void;
}

/** A method the server serves. */
export type Method = UnaryMethod | ServerStreamMethod;

/** A server's options. */
export interface GrpcServerOptions {
  /** Serve TLS (HTTP/2 over TLS, ALPN h2) with this PEM key and certificate; without it, cleartext (h2c). */
  tls?: {
    keyPem: string;
    certPem: string;
    /** Demand a client certificate issued by (or equal to) one of these PEM certificates. */
    clientCaPem?: string;
  };
  /** The largest message accepted, in bytes (default 256 MiB, as terraform-plugin-go's servers). */
  maxMessageBytes?: number;
}

/** A running server. */
export interface GrpcServer {
  /**
   * Listens on a unix socket (an absolute path) or a TCP port of 127.0.0.1 (a number; 0 for any).
   * @returns the socket path, or the TCP port bound
   * @throws Error when the address cannot be bound.
   */
  listen(address: string | number): Promise<string | number>;
  /** Stops: gracefully (see the module's doc), or at once with `force`. Resolves when all is closed. */
  close(force?: boolean): Promise<void>;
}

const DEFAULT_MAX_MESSAGE = 256 * 1024 * 1024;
const CONTENT_TYPE = "application/grpc+proto";

/** The server of `methods` (by path); not listening until `listen`. */
export function grpcServer(
  methods: ReadonlyMap<string, Method>,
  options: GrpcServerOptions = {},
): GrpcServer {
  const settings: http2.ServerOptions = {
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
    maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
  };
  const tls = options.tls;
  const server = tls
    ? http2.createSecureServer({
        ...settings,
        key: tls.keyPem,
        cert: tls.certPem,
        ...(tls.clientCaPem ? { ca: [tls.clientCaPem], requestCert: true, rejectUnauthorized: true } : {}),
      })
    : http2.createServer(settings);
  const sessions = new Set<http2.ServerHttp2Session>();
  const calls = new Set<Call>();
  const limit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE;
  server.on("session", (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
    session.on("error", () => {}); // the session closes; its calls see their streams close
  });
  server.on("sessionError", () => {});
  server.on("tlsClientError", () => {}); // a client without the trusted certificate
  let closing = false;
  server.on("stream", (stream, headers) => {
    const call = new Call(stream, headers);
    if (closing) return call.finish(Status.UNAVAILABLE, "the server is stopping");
    calls.add(call);
    call.signal.addEventListener("abort", () => calls.delete(call));
    void serveCall(call, methods, limit).finally(() => calls.delete(call));
  });
  return {
    listen: (address) => listen(server, address),
    close: async (force = false) => {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if (!force) for (const call of calls) if (call.streaming) call.finish(Status.OK, "", "server stopping");
      for (const session of sessions) force ? session.destroy() : session.close();
      await closed;
    },
  };
}

/** Binds `server` to a unix socket path or a TCP port of 127.0.0.1. */
function listen(server: http2.Http2Server | http2.Http2SecureServer, address: string | number) {
  return new Promise<string | number>((resolve, reject) => {
    server.once("error", reject);
    const done = () => {
      server.off("error", reject);
      const bound = server.address();
      resolve(typeof bound === "object" && bound ? bound.port : (bound ?? address));
    };
    if (typeof address === "number") server.listen(address, "127.0.0.1", done);
    else server.listen(address, done);
  });
}

/** Reads, decodes and answers one call. */
async function serveCall(call: Call, methods: ReadonlyMap<string, Method>, limit: number): Promise<void> {
  const headers = call.headers;
  if (headers[":method"] !== "POST" || !/^application\/grpc([+;]|$)/.test(String(headers["content-type"]))) {
    call.refuse(headers[":method"] !== "POST" ? 405 : 415);
    return;
  }
  const method = methods.get(call.path);
  if (!method) return call.finish(Status.UNIMPLEMENTED, `unknown method ${call.path}`);
  const encoding = headers["grpc-encoding"];
  if (encoding && encoding !== "identity")
    return call.finish(Status.UNIMPLEMENTED, `message encoding ${encoding} is not supported`);
  const timeout = parseTimeout(headers["grpc-timeout"]);
  if (timeout !== undefined) call.deadline(timeout);
  call.streaming = method.kind === "server-stream";
  try {
    const messages = await readMessages(call.stream, limit);
    if (call.signal.aborted) return; // ended meanwhile: the deadline, the client, the server stopping
    if (messages.length !== 1)
      throw new GrpcError(Status.INTERNAL, `expected one request message, got ${messages.length}`);
    let request: unknown;
    try {
      request = method.decode(messages[0] as Buffer);
    } catch (err) {
      throw new GrpcError(Status.INTERNAL, `the request is not a valid message: ${(err as Error).message}`);
    }
    if (method.kind === "unary") {
      const response = await method.handle(request, call.context());
      call.finish(Status.OK, "", undefined, method.encode(response));
    } else {
      await method.handle(
        request,
        call.streamContext((m) => method.encode(m)),
      );
      call.finish(Status.OK);
    }
  } catch (err) {
    const code = err instanceof GrpcError && err.code >= 0 && err.code <= 16 ? err.code : Status.INTERNAL;
    call.finish(code, err instanceof Error ? err.message : String(err));
  }
}

/**
 * The messages of a request stream, whole, once the client has ended it. A message's bytes are a
 * slice of one Buffer whatever the DATA frames it came in.
 * @throws GrpcError INTERNAL for a compressed or cut message, RESOURCE_EXHAUSTED for one over `limit`
 *   bytes, CANCELLED when the stream closes before its end.
 */
export function readMessages(stream: NodeJS.ReadableStream & { destroyed?: boolean }, limit: number) {
  return new Promise<Buffer[]>((resolve, reject) => {
    const reader = new MessageReader(limit);
    const messages: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => {
      try {
        messages.push(...reader.push(chunk));
      } catch (err) {
        stream.removeAllListeners("data");
        stream.resume();
        reject(err);
      }
    });
    stream.on("end", () =>
      reader.pending
        ? reject(new GrpcError(Status.INTERNAL, "the request ended inside a message"))
        : resolve(messages),
    );
    stream.on("close", () => reject(new GrpcError(Status.CANCELLED, "the client went away")));
  });
}

/** Splits length-prefixed messages out of chunks of any size. */
export class MessageReader {
  #buffered: Buffer[] = [];
  #size = 0;

  constructor(readonly limit = DEFAULT_MAX_MESSAGE) {}

  /** Bytes received that are not yet a whole message. */
  get pending(): number {
    return this.#size;
  }

  /**
   * Adds a chunk; returns the messages it completes, in order.
   * @throws GrpcError INTERNAL for a compressed message, RESOURCE_EXHAUSTED for one over the limit.
   */
  push(chunk: Buffer): Buffer[] {
    this.#buffered.push(chunk);
    this.#size += chunk.length;
    const out: Buffer[] = [];
    while (this.#size >= 5) {
      const head = this.#buffered.length === 1 ? (this.#buffered[0] as Buffer) : this.#join();
      const flag = head[0];
      const length = head.readUInt32BE(1);
      if (flag !== 0) throw new GrpcError(Status.INTERNAL, "a compressed message, but no message encoding");
      if (length > this.limit)
        throw new GrpcError(Status.RESOURCE_EXHAUSTED, `a message of ${length} bytes, over ${this.limit}`);
      if (this.#size < 5 + length) break;
      const all = this.#join();
      out.push(all.subarray(5, 5 + length));
      const rest = all.subarray(5 + length);
      this.#buffered = rest.length > 0 ? [rest] : [];
      this.#size = rest.length;
    }
    return out;
  }

  #join(): Buffer {
    const all = this.#buffered.length === 1 ? (this.#buffered[0] as Buffer) : Buffer.concat(this.#buffered);
    this.#buffered = [all];
    return all;
  }
}

/** One message with its 5-byte prefix (uncompressed). */
export function frameMessage(message: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

/**
 * A `grpc-timeout` value in milliseconds; undefined when absent, malformed, or beyond what a timer
 * holds (about 24.8 days), which is no deadline in practice.
 */
export function parseTimeout(value: string | string[] | undefined): number | undefined {
  const match = typeof value === "string" ? /^(\d{1,8})([HMSmun])$/.exec(value) : null;
  if (!match) return undefined;
  const unit = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 }[match[2] as "H"];
  const ms = Math.ceil(Number(match[1]) * unit);
  return ms <= 2 ** 31 - 1 ? ms : undefined;
}

/** `grpc-message`'s percent-encoding: UTF-8, every byte outside 0x20-0x7E, and `%`, as `%XX`. */
export function percentEncode(message: string): string {
  let out = "";
  for (const byte of Buffer.from(message, "utf8"))
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/** One call's state: whether its headers went out, whether it ended, its deadline timer. */
class Call {
  readonly #abort = new AbortController();
  #headersSent = false;
  #ended = false;
  #timer: NodeJS.Timeout | undefined;
  streaming = false;

  constructor(
    readonly stream: http2.ServerHttp2Stream,
    readonly headers: http2.IncomingHttpHeaders,
  ) {
    stream.on("error", () => {}); // a reset stream: 'close' follows
    stream.on("close", () => {
      if (!this.#ended) this.#end(new GrpcError(Status.CANCELLED, "the client went away"));
    });
  }

  get path(): string {
    return String(this.headers[":path"]);
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  context(): CallContext {
    return { path: this.path, headers: this.headers, signal: this.signal };
  }

  streamContext(encode: (message: unknown) => Uint8Array): StreamContext {
    return { ...this.context(), send: (message) => this.#write(encode(message)) };
  }

  /** Ends the call with a status when `ms` milliseconds have passed. */
  deadline(ms: number): void {
    this.#timer = setTimeout(() => this.finish(Status.DEADLINE_EXCEEDED, "deadline exceeded"), ms);
  }

  /** Answers a request that is not gRPC with a bare HTTP status. */
  refuse(httpStatus: number): void {
    this.#end(new GrpcError(Status.INTERNAL, `HTTP ${httpStatus}`));
    if (this.stream.destroyed) return;
    this.stream.respond({ ":status": httpStatus }, { endStream: true });
    this.stream.resume();
  }

  /**
   * Ends the call with `code` (and `message`), after `last` if given; a no-op once ended. Aborts the
   * handler's signal unless the status is OK from the handler itself (`reason` names why otherwise).
   */
  finish(code: number, message = "", reason?: string, last?: Uint8Array): void {
    if (this.#ended) return;
    if (last) this.#write(last);
    this.#end(code === Status.OK && !reason ? undefined : new GrpcError(code, reason ?? message));
    const stream = this.stream;
    if (stream.destroyed || stream.closed) return;
    const status: http2.OutgoingHttpHeaders = { "grpc-status": String(code) };
    if (message) status["grpc-message"] = percentEncode(message);
    if (!this.#headersSent) {
      this.#headersSent = true;
      stream.respond({ ":status": 200, "content-type": CONTENT_TYPE, ...status }, { endStream: true });
    } else {
      stream.once("wantTrailers", () => stream.sendTrailers(status));
      stream.end();
    }
    stream.resume(); // drop what the client still sends
  }

  #write(bytes: Uint8Array): void {
    if (this.#ended || this.stream.destroyed || this.stream.closed) return;
    if (!this.#headersSent) {
      this.#headersSent = true;
      this.stream.respond(
        { ":status": 200, "content-type": CONTENT_TYPE, "grpc-accept-encoding": "identity" },
        { waitForTrailers: true },
      );
    }
    this.stream.write(frameMessage(bytes));
  }

  #end(reason: GrpcError | undefined): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    if (reason) this.#abort.abort(reason);
  }
}

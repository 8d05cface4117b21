/**
 * Strict splitting of PEM text (RFC 7468) into blocks. PemConverter in @peculiar/x509 silently skips
 * a block it cannot match (a truncated or corrupted one), so a damaged chain would lose a certificate
 * without a word; this reader says which block is wrong instead. Text outside blocks is ignored, as
 * OpenSSL and Go do (bundles often carry `subject=` or `Bag Attributes` lines).
 */
import { CryptoInputError } from "./errors.js";

/** One PEM block: its label (`CERTIFICATE`, `PRIVATE KEY`...), RFC 1421 headers and decoded body. */
export interface PemBlock {
  /** 1-based position in the text, for messages. */
  index: number;
  label: string;
  /** Header lines such as `Proc-Type: 4,ENCRYPTED` (legacy OpenSSL encryption), by name. */
  headers: Record<string, string>;
  der: Buffer;
}

const BEGIN = /^-----BEGIN ([A-Z0-9][A-Z0-9 ]*)-----$/;
const END = /^-----END ([A-Z0-9][A-Z0-9 ]*)-----$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Every PEM block in `text`, in order.
 *
 * @param text PEM text; CRLF line ends and surrounding whitespace are accepted
 * @param what how to name the input in messages, e.g. "certificate_pem"
 * @returns the blocks; an empty array when there is none (the caller words that error)
 * @throws CryptoInputError when a block has no END line (truncated), an END without BEGIN, a mismatched
 *   END label, or a body that is not valid base64
 */
export function readPemBlocks(text: string, what: string): PemBlock[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: PemBlock[] = [];
  let open: { label: string; headers: Record<string, string>; body: string[]; inHeaders: boolean } | null =
    null;
  let lastHeader: string | null = null;
  for (const raw of lines) {
    const line = raw.trim();
    const begin = BEGIN.exec(line);
    const end = END.exec(line);
    if (open === null) {
      if (begin?.[1] !== undefined) {
        open = { label: begin[1], headers: {}, body: [], inHeaders: true };
        lastHeader = null;
      } else if (end !== null || line.startsWith("-----END")) {
        throw new CryptoInputError(`${what}: found "${line}" without a matching BEGIN line`);
      }
      continue;
    }
    const n = blocks.length + 1;
    if (begin !== null) {
      throw new CryptoInputError(
        `${what}: PEM block ${n} (${open.label}) has no "-----END ${open.label}-----" line before the next BEGIN: is it truncated?`,
      );
    }
    if (end !== null) {
      if (end[1] !== open.label) {
        throw new CryptoInputError(
          `${what}: PEM block ${n} begins as ${open.label} but ends as ${end[1] ?? ""}`,
        );
      }
      blocks.push({
        index: n,
        label: open.label,
        headers: open.headers,
        der: decodeBody(open.body, what, n, open.label),
      });
      open = null;
      continue;
    }
    // RFC 1421 headers come first, then an empty line; base64 never contains ':'.
    if (open.inHeaders) {
      const colon = line.indexOf(":");
      if (colon > 0) {
        lastHeader = line.slice(0, colon).trim();
        open.headers[lastHeader] = line.slice(colon + 1).trim();
        continue;
      }
      if (lastHeader !== null && /^[ \t]/.test(raw) && line !== "") {
        open.headers[lastHeader] = `${open.headers[lastHeader] ?? ""}${line}`;
        continue;
      }
      open.inHeaders = false;
    }
    if (line !== "") open.body.push(line);
  }
  if (open !== null) {
    throw new CryptoInputError(
      `${what}: PEM block ${blocks.length + 1} (${open.label}) has no "-----END ${open.label}-----" line: is it truncated?`,
    );
  }
  return blocks;
}

function decodeBody(body: string[], what: string, n: number, label: string): Buffer {
  const b64 = body.join("");
  if (b64 === "" || b64.length % 4 !== 0 || !BASE64.test(b64)) {
    throw new CryptoInputError(`${what}: PEM block ${n} (${label}) does not contain valid base64 data`);
  }
  return Buffer.from(b64, "base64");
}

/**
 * The formats of validation (./ajv.ts): ajv-formats' full set and the project's own, parsed for real
 * by src/crypto. Its own module, without Ajv itself, so that the generated validators
 * (./validators.gen.ts) can use the table without loading the compiler.
 */
import type { Format } from "ajv";
import { fullFormats } from "ajv-formats/dist/formats.js";
// The modules, not ../crypto/index.js: checking a chain must not load @peculiar/x509 (only the server's certificate-info.ts does).
import { parsePrivateKey } from "../crypto/private-key.js";
import { parseSshPublicKey } from "../crypto/ssh.js";
import { checkCertificateChain } from "../crypto/x509.js";

/**
 * Parsers behind the project's formats; each throws an Error whose message says what is wrong,
 * naming the field `what` (e.g. `ca_pem`).
 */
const formatParsers: Record<string, (value: string, what?: string) => unknown> = {
  "pem-certificate-chain": checkCertificateChain,
  "pem-private-key": parsePrivateKey,
  "ssh-public-key": parseSshPublicKey,
};

/**
 * Why `value` does not satisfy `format`, or undefined if it does (or the format is not ours).
 * Validation errors only say "must match format"; callers use this to name the cause.
 * `field` is the name the message uses for the value (default `value`); a leading `<field>: ` is left out,
 * since callers print the field's path in front of the reason.
 */
export function explainFormat(format: string, value: unknown, field?: string): string | undefined {
  const parse = formatParsers[format];
  if (!parse) {
    if (format === "regex" && typeof value === "string") {
      try {
        new RegExp(value);
      } catch (err) {
        return `not a valid regular expression: ${(err as Error).message}`;
      }
    }
    return undefined;
  }
  const what = field ?? "value";
  try {
    parse(String(value), what);
    return undefined;
  } catch (err) {
    // Callers put the field's path in front of the reason: drop the parser's own "<field>: ".
    const message = (err as Error).message;
    return message.startsWith(`${what}: `) ? message.slice(what.length + 2) : message;
  }
}

/**
 * The formats of validation by name: ajv-formats' full set and the project's own (./ajv.ts doc). The
 * generated validators (./validators.gen.ts) look their formats up here.
 */
export const ajvFormatTable: Record<string, Format> = {
  ...fullFormats,
  uri: uriFormat,
  ...Object.fromEntries(
    Object.entries(formatParsers).map(([name, parse]): [string, Format] => [name, parserFormat(parse)]),
  ),
};

/**
 * The commonest URIs: `http(s)://host[:port][/path][?query][#fragment]` written with unreserved
 * characters, sub-delims, `:` and `@` only (RFC 3986 section 3, without percent-encoding). Every such
 * string is an RFC 3986 URI (test/model/formats.test.ts checks it against ajv-formats' rule).
 */
const PLAIN_HTTP_URI =
  /^https?:\/\/[A-Za-z0-9.-]+(?::[0-9]*)?(?:\/[A-Za-z0-9._~!$&'()*+,;=:@-]*)*(?:\?[A-Za-z0-9._~!$&'()*+,;=:@/?-]*)?(?:#[A-Za-z0-9._~!$&'()*+,;=:@/?-]*)?$/;

/**
 * ajv-formats' `uri` (RFC 3986), which accepts a plain http(s) URL without running its full regular
 * expression: compiling that one is a noticeable part of every run's start-up (bench/README.md).
 */
function uriFormat(value: string): boolean {
  return PLAIN_HTTP_URI.test(value) || (fullFormats.uri as (value: string) => boolean)(value);
}

/** An Ajv string format whose values are those `parse` accepts (returns without throwing). */
export function parserFormat(parse: (value: string) => unknown): Format {
  return {
    type: "string",
    validate: (value: string) => {
      try {
        parse(value);
        return true;
      } catch {
        return false;
      }
    },
  };
}

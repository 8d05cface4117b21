/**
 * The `uri` format's shortcut for plain http(s) URLs (src/model/formats.ts) accepts only what
 * ajv-formats' RFC 3986 rule accepts, and the format as a whole judges like that rule.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { expect, it } from "vitest";
import { ajvFormatTable } from "../../src/model/index.js";

const rfc3986 = fullFormats.uri as (value: string) => boolean;
const uri = ajvFormatTable.uri as (value: string) => boolean;

const chars = (set: string, max = 12) => fc.string({ unit: fc.constantFrom(...set), maxLength: max });
const PCHAR = "abcXYZ019._~!$&'()*+,;=:@-";
/** URLs of the shortcut's shape. */
const plainUrl = fc
  .tuple(
    fc.constantFrom("http://", "https://"),
    chars("abz09.-", 10),
    fc.option(chars("0123456789", 5).map((p) => `:${p}`)),
    fc.array(
      chars(PCHAR).map((p) => `/${p}`),
      { maxLength: 3 },
    ),
    fc.option(chars(`${PCHAR}/?`).map((q) => `?${q}`)),
    fc.option(chars(`${PCHAR}/?`).map((f) => `#${f}`)),
  )
  .map(([scheme, host, port, path, query, fragment]) =>
    [scheme, host, port ?? "", path.join(""), query ?? "", fragment ?? ""].join(""),
  );
/** Printable ASCII and a few others, to put anywhere in a plain URL. */
const anyChar = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.constantFrom("\t", "\n", "é", "\u2028", "%2F", "%zz", "[::1]"),
);
/** A plain URL with up to two characters put in or changed: near misses of the shortcut's shape. */
const nearUrl = fc
  .tuple(plainUrl, fc.array(fc.tuple(fc.nat(), anyChar, fc.boolean()), { maxLength: 2 }))
  .map(([url, edits]) =>
    edits.reduce((u, [at, c, replace]) => {
      const i = at % (u.length + 1);
      return u.slice(0, i) + c + u.slice(replace ? i + 1 : i);
    }, url),
  );

it("judges every URL like ajv-formats' RFC 3986 rule", () => {
  fc.assert(
    fc.property(fc.oneof(plainUrl, nearUrl, fc.string()), (value) => {
      expect(uri(value)).toBe(rfc3986(value));
    }),
    { numRuns: 20_000 },
  );
});

it("takes the shortcut for plain URLs and still refuses what the rule refuses", () => {
  for (const ok of ["https://hooks.example.com/tgw", "http://10.0.0.1:8080/a/b?x=1&y=2#top", "http://h:/"])
    expect(uri(ok)).toBe(true);
  for (const bad of ["https://exa mple.com", "http://a/%zz", "example.com/path", "https://h/<x>", ""])
    expect(uri(bad)).toBe(false);
  expect(uri("urn:isbn:0451450523")).toBe(true); // not plain http: the full rule decides
});

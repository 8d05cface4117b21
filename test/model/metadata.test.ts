import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  decodeMetadata,
  encodeMetadata,
  normalizeUserMetadata,
} from "../../src/model/metadata.js";

const marker = { stack: "prod", address: "api_keys.ci" };

describe("metadata wire form", () => {
  it("merges a mapping with the marker, keys sorted at every depth", () => {
    expect(encodeMetadata({ z: 1, a: { y: 2, b: 3 } }, marker)).toBe(
      '{"a":{"b":3,"y":2},"tgw":{"address":"api_keys.ci","stack":"prod"},"z":1}',
    );
  });

  it("keeps a plain string under value, and a JSON-object string as that object", () => {
    expect(encodeMetadata("team infra", marker)).toBe(
      '{"tgw":{"address":"api_keys.ci","stack":"prod"},"value":"team infra"}',
    );
    expect(encodeMetadata('{"team":"infra"}', marker)).toBe(
      '{"team":"infra","tgw":{"address":"api_keys.ci","stack":"prod"}}',
    );
    expect(encodeMetadata(undefined, marker)).toBe('{"tgw":{"address":"api_keys.ci","stack":"prod"}}');
  });

  it("writes the marker alone as the canonical JSON of the marker object, whatever its strings hold", () => {
    // encodeMetadata writes this case out by hand; canonicalJson (safe-stable-stringify) is the reference.
    const text = fc.string({ unit: "binary", maxLength: 12 });
    fc.assert(
      fc.property(text, text, fc.option(text, { nil: undefined }), (stack, address, lineage) => {
        const m = lineage === undefined ? { stack, address } : { stack, address, lineage };
        const expected = canonicalJson({ tgw: m });
        for (const user of [undefined, "", {}]) expect(encodeMetadata(user, m)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("sends the user's value unchanged without a marker (ownership: state-only)", () => {
    expect(encodeMetadata("team infra")).toBe("team infra");
    expect(encodeMetadata({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
    expect(encodeMetadata(undefined)).toBe("");
  });

  it("round-trips: decoding what was encoded gives the marker and the user's part", () => {
    for (const user of [undefined, "", "plain text", '{"k":"v"}', { k: ["v", 1] }, '["not","an","object"]']) {
      const decoded = decodeMetadata(encodeMetadata(user, marker));
      expect(decoded.marker).toEqual(marker);
      expect(decoded.user).toBe(normalizeUserMetadata(user));
    }
  });

  it("writes the state lineage into the marker; a marker without one (older tgw) stays valid", () => {
    const lined = { ...marker, lineage: "6f1c0000-0000-4000-8000-000000000000" };
    const text = encodeMetadata({ team: "infra" }, lined);
    expect(text).toBe(
      '{"team":"infra","tgw":{"address":"api_keys.ci","lineage":"6f1c0000-0000-4000-8000-000000000000","stack":"prod"}}',
    );
    expect(decodeMetadata(text)).toEqual({ marker: lined, user: '{"team":"infra"}' });
    expect(decodeMetadata('{"tgw":{"address":"api_keys.ci","stack":"prod"}}').marker).toEqual(marker);
    expect(decodeMetadata('{"tgw":{"address":"api_keys.ci","lineage":7,"stack":"prod"}}').marker).toEqual(
      marker,
    );
  });

  it("reports no marker on metadata written by someone else", () => {
    expect(decodeMetadata("hello").marker).toBeUndefined();
    expect(decodeMetadata('{"tgw":"not a marker"}').marker).toBeUndefined();
    expect(decodeMetadata('{"b":1,"a":2}')).toEqual({ user: '{"a":2,"b":1}' });
  });
});

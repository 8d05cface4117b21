/**
 * `liveMetadata` parses live metadata once (src/engine/normalize.ts); it must give exactly what the
 * chain it replaces gave: decode the marker out, normalise the user's part, unwrap `{"value": ...}`.
 */
import { describe, expect, it } from "vitest";
import { liveObject } from "../../src/engine/live.js";
import { desiredMetadata, liveMetadata } from "../../src/engine/normalize.js";
import { decodeMetadata, normalizeUserMetadata, userMetadataObject } from "../../src/model/index.js";

/** The previous definition, kept as the reference. */
function reference(wire: string): string {
  const text = normalizeUserMetadata(decodeMetadata(wire).user);
  const obj = userMetadataObject(text);
  if (obj && Object.keys(obj).length === 1 && typeof obj.value === "string") return obj.value;
  return text;
}

const marker = '"tgw":{"address":"api_keys.a","lineage":"l","stack":"s"}';
const wires = [
  "",
  "plain text",
  "  {not json",
  "[1,2]",
  "{}",
  " {} ",
  '{"value":"x"}',
  '{"value":1}',
  '{"value":"x","other":2}',
  '{"b":1,"a":{"d":[3,{"z":1,"y":2}],"c":null}}',
  '{"a":1e999,"b":-0,"c":"\\u00e9\\n","a":2}',
  '{"__proto__":{"x":1},"k":"v"}',
  `{${marker}}`,
  `{${marker},"value":"text"}`,
  `{${marker},"value":"{\\"b\\":1,\\"a\\":2}"}`,
  `{${marker},"value":"{\\"value\\":\\"inner\\"}"}`,
  `{${marker},"value":"{}"}`,
  `{${marker},"value":""}`,
  `{${marker},"value":7}`,
  `{${marker},"n":1,"team":"bench"}`,
  `{${marker},"value":"x","n":1}`,
  '{"tgw":{"stack":1,"address":"a"},"n":1}',
  '{"tgw":"not a marker"}',
  '{"tgw":{"stack":"s","address":"a"}}',
];

describe("liveMetadata", () => {
  for (const wire of wires) {
    it(`reads ${JSON.stringify(wire)} as the decode-normalise-unwrap chain does`, () => {
      expect(liveMetadata(wire)).toBe(reference(wire));
    });
  }

  it("is not a string for anything but a string", () => {
    expect(liveMetadata(undefined)).toBe("");
    expect(liveMetadata(5)).toBe("");
  });

  it("compares equal with the desired side it was written from", () => {
    expect(liveMetadata(`{${marker},"value":"text"}`)).toBe(desiredMetadata("text"));
    expect(liveMetadata(`{${marker},"n":1,"team":"bench"}`)).toBe(desiredMetadata({ team: "bench", n: 1 }));
  });
});

describe("the marker a refresh reads (liveObject)", () => {
  for (const wire of wires) {
    it(`finds in ${JSON.stringify(wire)} the marker decodeMetadata finds`, () => {
      expect(liveObject("api_key", "ak_1", { id: "ak_1", metadata: wire }).marker).toEqual(
        decodeMetadata(wire).marker,
      );
    });
  }
});

/**
 * The error catalogue is one place (src/server/errors.ts) and docs/server.md documents every code
 * with its status: this keeps the two in step, and the codes unique.
 */
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { problems } from "../../src/server/errors.js";

test("every code is unique and documented with its status in docs/server.md", () => {
  const docs = readFileSync(new URL("../../docs/server.md", import.meta.url), "utf8");
  const documented = new Map(
    [...docs.matchAll(/^\|\s*(TGW_\d+)\s*\|\s*(\d)(\d\d|xx)\s*\|/gm)].map((m) => [m[1], `${m[2]}${m[3]}`]),
  );
  const codes = Object.values(problems).map((p) => p.code);
  expect(new Set(codes).size).toBe(codes.length);
  for (const p of Object.values(problems)) {
    const status = documented.get(p.code);
    expect(status, `${p.code} is not in docs/server.md`).toBeDefined();
    if (status !== "4xx") expect(status).toBe(String(p.status));
  }
  expect([...documented.keys()].sort()).toEqual([...codes].sort());
});

/**
 * `instanceof TgwError` across copies of src/errors.ts (the CLI's bundle and the reference server's part,
 * scripts/bundle.ts): a TgwError of another copy is still one; subclasses keep the ordinary check.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.js";
import { TgwError, UsageError } from "../../src/errors.js";

/** What a TgwError made by another copy of the module looks like from this one. */
function fromAnotherCopy(): Error {
  const err = new Error("the data file keeps its secrets encrypted");
  Object.defineProperty(err, Symbol.for("tunnelgw.error"), { value: true });
  return Object.assign(err, { code: "serve", exitCode: 1 });
}

describe("instanceof TgwError", () => {
  it("holds for this copy's errors and another copy's, not for other errors", () => {
    expect(new UsageError("bad flag")).toBeInstanceOf(TgwError);
    expect(fromAnotherCopy()).toBeInstanceOf(TgwError);
    expect(new Error("bug")).not.toBeInstanceOf(TgwError);
    expect({ code: "serve" }).not.toBeInstanceOf(TgwError);
    expect(null).not.toBeInstanceOf(TgwError);
  });

  it("is the ordinary check for a subclass", () => {
    expect(new UsageError("bad flag")).toBeInstanceOf(UsageError);
    expect(new UsageError("bad flag")).not.toBeInstanceOf(ConfigError);
    expect(fromAnotherCopy()).not.toBeInstanceOf(UsageError);
  });
});

/**
 * The plugin protocol's descriptor (src/terraform/protocol.gen.json, built by scripts/gen-protocol.ts)
 * and the messages read with it (src/terraform/protocol.ts): the shape the provider's handlers expect.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { protocolDescriptorText } from "../../scripts/gen-protocol.js";
import { PROVIDER_RPCS } from "../../src/terraform/plugin-server.js";
import { codec, protocolMethods } from "../../src/terraform/protocol.js";
import { loadProviderSchema, schemaResponse } from "../../src/terraform/schema.js";

it("src/terraform/protocol.gen.json is up to date with src/terraform/protocol/*.proto (run `npm run gen`)", () => {
  const current = readFileSync(new URL("../../src/terraform/protocol.gen.json", import.meta.url), "utf8");
  expect(current === protocolDescriptorText()).toBe(true);
});

describe("the protocol's messages", () => {
  it("reads enums as names, 64-bit integers as numbers, bytes as Buffers, unset fields as defaults", () => {
    const type = codec("tfplugin6.ReadResource.Response");
    const bytes = type.encode({
      diagnostics: [
        {
          severity: "ERROR",
          summary: "s",
          attribute: { steps: [{ element_key_int: 7 }, { attribute_name: "a" }] },
        },
      ],
      new_state: { msgpack: Buffer.from([0x80]) },
    });
    const message = type.decode(bytes);
    expect(message).toMatchObject({
      diagnostics: [
        {
          severity: "ERROR",
          summary: "s",
          detail: "",
          attribute: {
            steps: [{ element_key_int: 7, selector: "element_key_int" }, { attribute_name: "a" }],
          },
        },
      ],
      new_state: { msgpack: Buffer.from([0x80]) },
      private: Buffer.alloc(0),
    });
    expect(Buffer.isBuffer((message.new_state as { msgpack: unknown }).msgpack)).toBe(true);
  });

  it("writes the schema response as the .proto files, parsed, do; and reads it back", () => {
    const type = codec("tfplugin6.GetProviderSchema.Response");
    const response = schemaResponse(loadProviderSchema());
    const bytes = type.encode(response);
    expect(bytes.length).toBeGreaterThan(1000);
    const dir = fileURLToPath(new URL("../../src/terraform/protocol/", import.meta.url));
    const parsed = new protobuf.Root().loadSync(`${dir}provider.proto`, { keepCase: true });
    const reference = parsed.lookupType("tfplugin6.GetProviderSchema.Response");
    expect(Buffer.from(bytes).equals(reference.encode(reference.fromObject(response)).finish())).toBe(true);
    expect(type.decode(type.encode(type.decode(bytes)))).toEqual(type.decode(bytes));
  });

  it("lists the services' methods with their gRPC paths", () => {
    const provider = protocolMethods("tfplugin6.Provider");
    expect(provider.map((m) => m.name)).toEqual(expect.arrayContaining([...PROVIDER_RPCS]));
    expect(provider.find((m) => m.name === "StopProvider")?.path).toBe("/tfplugin6.Provider/StopProvider");
    const [stdio] = protocolMethods("plugin.GRPCStdio");
    expect(stdio).toMatchObject({ path: "/plugin.GRPCStdio/StreamStdio", responseStream: true });
    const [check] = protocolMethods("grpc.health.v1.Health");
    expect(check?.response.decode(check.response.encode({ status: "SERVING" }))).toEqual({
      status: "SERVING",
    });
    expect(() => codec("tfplugin6.Nope")).toThrow();
  });
});

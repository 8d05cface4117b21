/**
 * Issue 27, defect 2: every data source of the provider schema (the list comes from the schema, not
 * from this file), read by the real `terraform` against an object that exists, shows every value the
 * API returns for it: none is null in `terraform output -json`. The objects are the fixtures of
 * examples/fixtures.yaml; a kind the fixtures lack gets one object made through the API. The data
 * sources of managed kinds (named as their resource types) read the resources of a configuration:
 * the conformance matrix (./conformance.test.ts) covers them. A list data source (`tunnelgw_api_keys`)
 * without filters shows every object of its list (./list-data-sources.test.ts tries the filters).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { getKind, type KindDescriptor } from "../../src/model/index.js";
import { desiredKinds, listedKindOf, resourceType } from "../../src/model/terraform-names.js";
import { loadProviderSchema } from "../../src/terraform/schema.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { unsetValues } from "./conformance-values.js";
import { APPLY, TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();
const PREFIX = "tunnelgw_";
type Raw = Record<string, unknown>;

describe.skipIf(!available)("terraform data sources (issue 27)", () => {
  let server: TestServer;
  let home: TerraformHome;
  let api: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
    api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    home?.close();
    await server?.close();
  });

  /** The first object of `kind` (under `parentId` for a nested kind), made if there is none. */
  async function anObject(kind: KindDescriptor, parentId?: string): Promise<Raw> {
    const path = parentId ? kind.path.replace(/\{\w+\}/, parentId) : kind.path;
    const items = await api.listAll<Raw>(path, kind.listKey as string);
    return items[0] ?? (await api.post<Raw>(path, {}));
  }

  it("reads every data source with every value the API returns", async () => {
    const managed = new Set(desiredKinds().map(resourceType));
    const types = Object.keys(loadProviderSchema().dataSources)
      .filter((t) => !managed.has(t))
      .sort();
    expect(types.length).toBeGreaterThan(1);
    const blocks: string[] = [];
    const expected: Record<string, Raw> = {};
    for (const type of types) {
      const name = type.slice(PREFIX.length);
      const listed = listedKindOf(type);
      const kind = listed ?? getKind(name);
      const parent = kind.parent ? await anObject(getKind(kind.parent)) : undefined;
      if (listed) {
        // A list data source without filters: every object of the list, in the API's order.
        const path = parent ? kind.path.replace(/\{\w+\}/, String(parent.id)) : kind.path;
        const items = await api.listAll<Raw>(path, kind.listKey as string);
        expected[type] = { id: name, ids: items.map((i) => i.id), [name]: items };
        blocks.push(`data "${type}" "x" {${parent ? `\n  edge_id = "${String(parent.id)}"\n` : ""}}`);
        continue;
      }
      const raw = await anObject(kind, parent ? String(parent.id) : undefined);
      expected[type] = raw;
      const args = [`id = "${String(raw.id)}"`, ...(parent ? [`edge_id = "${String(parent.id)}"`] : [])];
      blocks.push(`data "${type}" "x" {\n  ${args.join("\n  ")}\n}`);
    }
    const outputs = types.map((t) => `output "${t}" {\n  value     = data.${t}.x\n  sensitive = true\n}`);
    const dir = home.workspace("data");
    writeFileSync(
      join(dir, "main.tf"),
      [
        'terraform {\n  required_providers {\n    tunnelgw = { source = "tunnelgw/tunnelgw" }\n  }\n}',
        ...blocks,
        ...outputs,
      ].join("\n"),
    );
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    expect(init.code, init.stderr).toBe(0);
    const apply = await home.tf(dir, ...APPLY);
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    const out = await home.tf(dir, "output", "-json", "-no-color");
    const values = JSON.parse(out.stdout) as Record<string, { value: unknown }>;
    const problems = Object.fromEntries(
      types
        .map((t) => [t, unsetValues(expected[t], values[t]?.value)] as const)
        .filter(([, p]) => p.length > 0),
    );
    expect(problems).toEqual({});
  }, 180_000);
});

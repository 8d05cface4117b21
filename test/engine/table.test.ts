/**
 * Table tests of diff and plan against the reference server, DNSControl style: each scenario applies
 * a starting configuration, plans the next one and compares the human plan with readable expected
 * text (ids shown as <id>), applies it, and ends with "plan again: no changes".
 */
import { readFileSync } from "node:fs";
import { createColors } from "picocolors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderPlan } from "../../src/cli/render/human.js";
import type { DesiredResource } from "../../src/model/desired.js";
import { res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

const plain = createColors(false);
const pub = readFileSync(new URL("../../examples/keys/deploy_ed25519.pub", import.meta.url), "utf8");
const ROUTE = "edges.https.edghts_example01.routes.edghtsrt_example01";

const cert = (principals: string[], description = "") =>
  res("ssh_host_certificates.bastion", {
    ssh_certificate_authority_id: "sshca_example01",
    public_key: pub,
    principals,
    valid_until: "2031-01-01T00:00:00Z",
    ...(description ? { description } : {}),
  });

interface Scenario {
  name: string;
  from: DesiredResource[];
  to: DesiredResource[];
  text: string;
}

const scenarios: Scenario[] = [
  {
    name: "creates a key with user metadata and a backend",
    from: [],
    to: [
      res("api_keys.ci", { description: "CI", metadata: { team: "infra" } }),
      res("tunnel_group_backends.web", { labels: { app: "web" } }),
    ],
    text: `tgw will perform the following actions:

  # api_keys.ci will be created (not in live state)
  + api_keys.ci (api_key)
      + description = "CI"
      + id          = (known after apply)
      + metadata    = "{\\"team\\":\\"infra\\"}"
      + token       = (sensitive, written to .tgw/secrets/ci.token)

  # tunnel_group_backends.web will be created (not in live state)
  + tunnel_group_backends.web (tunnel_group_backend)
      + description = ""
      + id          = (known after apply)
      + labels      = { "app": "web" }
      + metadata    = ""

Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.
`,
  },
  {
    name: "changing a description is one update of that field",
    from: [res("api_keys.ci", { description: "CI" })],
    to: [res("api_keys.ci", { description: "CI deployer" })],
    text: `tgw will perform the following actions:

  # api_keys.ci will be updated in place (description changed)
  ~ api_keys.ci (api_key) <id>
      ~ description = "CI" -> "CI deployer"

Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.
`,
  },
  {
    name: "changing principals replaces the host certificate; the description rides along",
    from: [cert(["a.example.com"])],
    to: [cert(["b.example.com", "a.example.com"], "bastion")],
    text: `tgw will perform the following actions:

  # ssh_host_certificates.bastion must be replaced (principals cannot change in place)
-/+ ssh_host_certificates.bastion (ssh_host_certificate) <id>
      ~ description = "" -> "bastion"
      ~ id          = "<id>" -> (known after apply)
      ~ principals  = [
          + "b.example.com",
            # (1 unchanged element hidden)
        ] # forces replacement

Plan: 0 to create, 0 to update, 1 to replace, 0 to delete.
`,
  },
  {
    name: "header names in another case, lists in another order, defaults written out: no changes",
    from: [
      res(`${ROUTE}.response_headers`, {
        add: { "X-Frame-Options": "DENY" },
        remove: ["Server", "X-Powered-By"],
      }),
    ],
    to: [
      res(`${ROUTE}.response_headers`, {
        enabled: true,
        add: { "x-frame-options": "DENY" },
        remove: ["x-powered-by", "SERVER"],
      }),
    ],
    text: "No changes. Live state matches the configuration.\n",
  },
  {
    name: "a module setting changes with one PUT showing only that field",
    from: [res(`${ROUTE}.compression`, {})],
    to: [res(`${ROUTE}.compression`, { enabled: false })],
    text: `tgw will perform the following actions:

  # ${ROUTE}.compression will be updated in place (PUT) (enabled changed)
  ~ ${ROUTE}.compression (compression)
      ~ enabled = true -> false

Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.
`,
  },
  {
    name: "removing a resource deletes it; the module the state says tgw set is deleted too",
    from: [res("api_keys.ci"), res("api_keys.old"), res(`${ROUTE}.compression`, {})],
    to: [res("api_keys.ci")],
    text: `tgw will perform the following actions:

  # api_keys.old will be deleted (no longer in the configuration)
  - api_keys.old (api_key) <id>
      - description = ""
      - metadata    = ""
      - owner_id    = "usr_admin"

  # ${ROUTE}.compression will be deleted (no longer in the configuration)
  - ${ROUTE}.compression (compression)
      - enabled = true

Plan: 0 to create, 0 to update, 0 to replace, 2 to delete.
`,
  },
];

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const hideIds = (text: string) =>
  text.replace(/\b(ak|bkdtg|shcrt|sshcr|cert|ipx|ed|esb)_[A-Za-z0-9]+/g, "<id>");

describe.each(scenarios)("$name", ({ from, to, text }) => {
  it("plans the expected text, applies it, and plans again: no changes", async () => {
    await bench.apply([], { allowEmpty: true });
    await bench.apply(from, { allowEmpty: true });
    const { plan } = await bench.plan(to);
    expect(hideIds(renderPlan(plan, plain))).toBe(text);
    await bench.apply(to, { allowEmpty: true });
    const again = await bench.plan(to);
    expect(renderPlan(again.plan, plain)).toBe("No changes. Live state matches the configuration.\n");
  });
});

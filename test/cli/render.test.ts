/**
 * Plan renderings: the human text (terraform plan style) and the JSON document, with secrets masked.
 * Expected outputs are written out in full so that a change of format is a visible decision.
 */
import { createColors } from "picocolors";
import { describe, expect, it } from "vitest";
import { renderPlan, writePlan } from "../../src/cli/render/human.js";
import { planToJson } from "../../src/cli/render/json.js";
import { makePlan } from "../../src/engine/plan.js";
import { desired, live, marked, pathOf, recordOf, res, state } from "../engine/builders.js";

const plain = createColors(false);

const xml = (entity: string) =>
  `<EntityDescriptor entityID="${entity}">\n  <IDPSSODescriptor>\n    <KeyDescriptor/>\n  </IDPSSODescriptor>\n</EntityDescriptor>\n`;

function scenario() {
  const saml = res("edges.https.edghts_1.routes.edghtsrt_1.saml", { idp_metadata: xml("https://idp.new") });
  const oidc = res("edges.https.edghts_1.routes.edghtsrt_1.oidc", {
    issuer: "https://id.example.com",
    client_id: "web",
    client_secret: "s3cret-new",
  });
  const d = desired([
    res("api_keys.ci", { description: "CI deployer" }),
    res("tunnel_group_backends.web", { description: "web", labels: { app: "web" } }),
    res("ssh_host_certificates.h", {
      ssh_certificate_authority_id: "sshca_1",
      public_key: "ssh-ed25519 AAAA",
      principals: ["a.example.com", "b.example.com"],
    }),
    res("event_destinations.d", { format: "json", target: { monitoring_target: { api_key: "new-key" } } }),
    res("event_destinations.logs", {
      format: "json",
      target: { log_group_target: { auth: { role: { role_arn: "arn:role" } }, log_group_arn: "arn:logs" } },
    }),
    res("event_subscriptions.s", {
      sources: [{ type: "api_key_created.v0" }],
      destination_ids: [{ $ref: "event_destinations.d" }, { $ref: "event_destinations.logs" }],
    }),
    saml,
    oidc,
  ]);
  const l = live(
    [
      {
        kind: "tunnel_group_backend",
        id: "bkdtg_1",
        description: "old",
        metadata: marked("tunnel_group_backends.web"),
        labels: { app: "web" },
      },
      {
        kind: "ssh_host_certificate",
        id: "shcrt_1",
        description: "",
        metadata: marked("ssh_host_certificates.h"),
        ssh_certificate_authority_id: "sshca_1",
        public_key: "ssh-ed25519 AAAA",
        principals: ["a.example.com"],
      },
      {
        kind: "event_destination",
        id: "ed_1",
        description: "",
        metadata: marked("event_destinations.d"),
        format: "json",
        target: {
          monitoring_target: { api_key: "old-key", monitoring_tags: "", service: "", monitoring_site: "" },
        },
      },
      { kind: "api_key", id: "ak_9", description: "", metadata: marked("api_keys.old"), owner_id: "usr_1" },
    ],
    [
      { kind: "saml", path: pathOf(saml), enabled: true, idp_metadata: xml("https://idp.old") },
      {
        kind: "oidc",
        path: pathOf(oidc),
        enabled: true,
        issuer: "https://id.example.com",
        client_id: "web",
        client_secret: "s3cret-old",
        scopes: [],
      },
    ],
  );
  // The state records the key the configuration no longer has: its delete is shown.
  return { d, l, s: state([recordOf(res("api_keys.old"), "ak_9")]) };
}

describe("human plan", () => {
  it("shows every action with field-level diffs, secrets masked and a summary", () => {
    const { d, l, s } = scenario();
    const text = renderPlan(makePlan({ desired: d, live: l, state: s }), plain);
    expect(text).toBe(`tgw will perform the following actions:

  # api_keys.ci will be created (not in live state)
  + api_keys.ci (api_key)
      + description = "CI deployer"
      + id          = (known after apply)
      + metadata    = ""
      + token       = (sensitive, written to .tgw/secrets/ci.token)

  # api_keys.old will be deleted (no longer in the configuration)
  - api_keys.old (api_key) ak_9
      - description = ""
      - metadata    = ""
      - owner_id    = "usr_1"

  # edges.https.edghts_1.routes.edghtsrt_1.oidc will be updated in place (PUT) (client_secret changed)
  ~ edges.https.edghts_1.routes.edghtsrt_1.oidc (oidc)
      ~ client_secret = (sensitive) (sensitive value changed)

  # edges.https.edghts_1.routes.edghtsrt_1.saml will be updated in place (PUT) (idp_metadata changed)
  ~ edges.https.edghts_1.routes.edghtsrt_1.saml (saml)
      ~ idp_metadata = <<-EOT
          @@ -1,4 +1,4 @@
          -<EntityDescriptor entityID="https://idp.old">
          +<EntityDescriptor entityID="https://idp.new">
             <IDPSSODescriptor>
               <KeyDescriptor/>
             </IDPSSODescriptor>
        EOT

  # event_destinations.d will be updated in place (target changed)
  ~ event_destinations.d (event_destination) ed_1
      ~ target = {
            "monitoring_target": {
                "api_key": (sensitive),
                "monitoring_tags": "",
                "service": "",
                "monitoring_site": "",
            },
        } (sensitive value changed)

  # event_destinations.logs will be created (not in live state)
  + event_destinations.logs (event_destination)
      + description = ""
      + format      = "json"
      + id          = (known after apply)
      + metadata    = ""
      + target      = {
            "log_group_target": { "auth": { "role": { "role_arn": "arn:role" } }, "log_group_arn": "arn:logs" },
        }

  # event_subscriptions.s will be created (not in live state)
  + event_subscriptions.s (event_subscription)
      + description     = ""
      + destination_ids = ["ed_1", (known after apply)]
      + id              = (known after apply)
      + metadata        = ""
      + sources         = [{ "type": "api_key_created.v0" }]

  # ssh_host_certificates.h must be replaced (principals cannot change in place)
-/+ ssh_host_certificates.h (ssh_host_certificate) shcrt_1
      ~ id         = "shcrt_1" -> (known after apply)
      ~ principals = [
          + "b.example.com",
            # (1 unchanged element hidden)
        ] # forces replacement

  # tunnel_group_backends.web will be updated in place (description changed)
  ~ tunnel_group_backends.web (tunnel_group_backend) bkdtg_1
      ~ description = "old" -> "web"

3 objects were recovered from ownership markers; apply records them in the state.

Plan: 3 to create, 4 to update, 1 to replace, 1 to delete.
`);
    expect(text).not.toContain("s3cret");
    expect(text).not.toContain("new-key");
    expect(text).not.toContain("old-key");
  });

  it("reports drift on its own and says when there is nothing to do", () => {
    const r = res("api_keys.ci", { description: "CI" });
    const drifted = makePlan({
      desired: desired([r]),
      live: live([{ kind: "api_key", id: "ak_1", description: "edited", metadata: marked("api_keys.ci") }]),
      state: state([recordOf(r, "ak_1")]),
    });
    expect(renderPlan(drifted, plain)).toBe(`Objects changed outside tgw since the last apply (drift):
  ! api_keys.ci: description changed

tgw will perform the following actions:

  # api_keys.ci will be updated in place (changed outside tgw (drift): description)
  ~ api_keys.ci (api_key) ak_1
      ~ description = "edited" -> "CI"

Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.
`);
    const same = makePlan({
      desired: desired([r]),
      live: live([{ kind: "api_key", id: "ak_1", description: "CI", metadata: marked("api_keys.ci") }]),
      state: state(),
    });
    expect(renderPlan(same, plain)).toBe(
      "1 object was recovered from ownership markers; apply records it in the state.\n\nNo changes. Live state matches the configuration.\n",
    );
  });

  it("hands a large plan over in chunks of whole lines, the same text as one piece", () => {
    // 1,000 creates of 6 lines each: more than one chunk (src/cli/render/human.ts CHUNK_LINES).
    const name = (i: number) => `k${String(i).padStart(4, "0")}`;
    const rs = Array.from({ length: 1000 }, (_, i) =>
      res(`api_keys.${name(i)}`, { description: `key ${i}` }),
    );
    const plan = makePlan({ desired: desired(rs), live: live([]), state: state() });
    const chunks: string[] = [];
    writePlan(plan, plain, (chunk) => chunks.push(chunk));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.endsWith("\n")).toBe(true);
    const changes = rs.map(
      (r, i) => `  # ${r.address} will be created (not in live state)
  + ${r.address} (api_key)
      + description = "key ${i}"
      + id          = (known after apply)
      + metadata    = ""
      + token       = (sensitive, written to .tgw/secrets/${name(i)}.token)
`,
    );
    expect(chunks.join("")).toBe(
      `tgw will perform the following actions:\n\n${changes.join("\n")}\nPlan: 1000 to create, 0 to update, 0 to replace, 0 to delete.\n`,
    );
  });
});

describe("JSON plan", () => {
  it("has stable field names and masks secrets", () => {
    const { d, l, s } = scenario();
    const json = planToJson(makePlan({ desired: d, live: l, state: s }));
    expect(Object.keys(json)).toEqual([
      "format_version",
      "stack",
      "destroy",
      "has_changes",
      "summary",
      "changes",
      "drift",
      "forget",
      "basis",
    ]);
    expect(json.summary).toEqual({ create: 3, update: 4, replace: 1, delete: 1 });
    const text = JSON.stringify(json);
    expect(text).not.toContain("s3cret");
    expect(text).not.toContain("new-key");
    const oidc = json.changes.find((c) => c.kind === "oidc");
    expect(oidc?.after?.client_secret).toBe("(sensitive)");
    const sub = json.changes.find((c) => c.address === "event_subscriptions.s");
    expect(sub).toMatchObject({
      action: "create",
      after: { destination_ids: ["ed_1", { $ref: "event_destinations.logs" }] },
      depends_on: ["event_destinations.logs"],
      drift: false,
      adopted: false,
    });
  });
});

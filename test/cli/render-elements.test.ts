/**
 * Element-level diffs, as `terraform plan` shows them: a map by key (`+ labels.env = "prod"`), a list
 * by the elements added and removed; a delete lists the attributes going away.
 */
import { createColors } from "picocolors";
import { expect, it } from "vitest";
import { renderPlan } from "../../src/cli/render/human.js";
import { makePlan } from "../../src/engine/plan.js";
import { desired, live, marked, recordOf, res, state } from "../engine/builders.js";

const plain = createColors(false);

it("shows map keys and list elements added, changed and removed", () => {
  const web = res("tunnel_group_backends.web", {
    description: "web",
    labels: { app: "api", env: "prod", "app.kubernetes.io/name": "web" },
  });
  const ssh = res("ssh_credentials.deploy", { public_key: "ssh-ed25519 AAAA", acl: ["bind:a", "bind:c"] });
  const text = renderPlan(
    makePlan({
      desired: desired([web, ssh]),
      live: live([
        {
          kind: "tunnel_group_backend",
          id: "bkdtg_1",
          description: "web",
          metadata: marked(web.address),
          labels: { app: "web", team: "infra", "app.kubernetes.io/name": "web" },
          tunnels: [],
        },
        {
          kind: "ssh_credential",
          id: "sshcr_1",
          description: "",
          metadata: marked(ssh.address),
          public_key: "ssh-ed25519 AAAA",
          acl: ["bind:a", "bind:b"],
          owner_id: "usr_1",
        },
      ]),
      state: state([recordOf(web, "bkdtg_1"), recordOf(ssh, "sshcr_1")]),
    }),
    plain,
  );
  expect(text).toContain(`      ~ acl = [
          + "bind:c",
          - "bind:b",
            # (1 unchanged element hidden)
        ]`);
  expect(text).toContain(`      ~ labels.app  = "web" -> "api"
      + labels.env  = "prod"
      - labels.team = "infra"`);
});

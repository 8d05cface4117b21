/**
 * `tgw plan --format markdown`: a summary table, one collapsible block per change, secrets masked,
 * and never more than a comment holds (a clear note says what was left out).
 */
import { expect, it } from "vitest";
import { COMMENT_LIMIT, renderPlanMarkdown } from "../../src/cli/render/markdown.js";
import { makePlan } from "../../src/engine/plan.js";
import { desired, live, res, state } from "../engine/builders.js";

const plan = (n: number) =>
  makePlan({
    desired: desired([
      res("edges.https.edghts_1.routes.edghtsrt_1.oidc", {
        issuer: "https://id.example.com",
        client_id: "web",
        client_secret: "s3cret-value",
      }),
      ...Array.from({ length: n }, (_, i) =>
        res(`tunnel_group_backends.b${String(i).padStart(4, "0")}`, { description: "x".repeat(200) }),
      ),
    ]),
    live: live(),
    state: state(),
  });

it("has a summary table and a collapsible block per change, secrets masked", () => {
  const md = renderPlanMarkdown(plan(2));
  expect(md).toContain("### tgw plan: stack `demo`");
  expect(md).toContain("| create | update | replace | delete |\n|---:|---:|---:|---:|\n| 3 | 0 | 0 | 0 |");
  expect(md).toContain(
    "<details><summary><code>+</code> tunnel_group_backends.b0000 will be created (not in live state)</summary>\n\n```diff\n+ tunnel_group_backends.b0000 (tunnel_group_backend)\n",
  );
  expect(md.match(/<details>/g)).toHaveLength(3);
  expect(md).toContain("(sensitive)");
  expect(md).not.toContain("s3cret-value");
});

it("stays within the comment limit, saying how many changes were left out", () => {
  const md = renderPlanMarkdown(plan(400));
  expect(md.length).toBeLessThanOrEqual(COMMENT_LIMIT);
  expect(md).toMatch(
    /\*\*Truncated:\*\* \d+ more changes are not shown \(a comment holds at most 65,536 characters\)/,
  );
  expect(md.trimEnd().endsWith("`tgw plan` shows it too.")).toBe(true);
});

it("says when there is nothing to do", () => {
  const empty = makePlan({ desired: desired([]), live: live(), state: state() });
  expect(renderPlanMarkdown(empty)).toBe(
    "### tgw plan: stack `demo`\n\nNo changes. Live state matches the configuration.\n",
  );
});

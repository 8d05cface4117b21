/**
 * Modules of edges and routes that do not exist: a mistyped edge or route id in the configuration.
 * The module's GET answers 404 in that case too, which alone would read as "not set" and plan a PUT
 * that apply then fails on; the refresh also reads the parent (./refresh.ts), and this check turns a
 * missing parent into a plan-time error naming the configuration line.
 */
import { relative } from "node:path";
import type { DesiredResource } from "../model/desired.js";
import { UnknownParentError } from "./errors.js";
import type { LiveState } from "./live.js";
import { modulePath } from "./ownership.js";
import { parentPath } from "./refresh.js";

/**
 * @throws UnknownParentError listing every desired module whose edge or route does not exist.
 */
export function checkModuleParents(resources: readonly DesiredResource[], live: LiveState): void {
  const problems: string[] = [];
  for (const r of resources) {
    if (!r.pathParams) continue;
    const parent = parentPath(modulePath(r));
    if (!live.missingParents.has(parent)) continue;
    const what = r.pathParams.route_id
      ? `route ${r.pathParams.route_id} of edge ${r.pathParams.edge_id}`
      : `edge ${r.pathParams.edge_id}`;
    const file = relative(process.cwd(), r.source.file) || r.source.file;
    problems.push(
      `${file}:${r.source.line}:${r.source.col}: ${r.address}: the ${what} does not exist (GET ${parent} answered 404): check the id`,
    );
  }
  if (problems.length > 0) throw new UnknownParentError(problems);
}

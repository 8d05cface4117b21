/**
 * The contract of a semantic rule: a check beyond the schema that looks at the whole loaded
 * configuration and reports problems in the same positioned form. Rules never throw for bad input
 * and never stop the others; each lives in its own file and is listed in ./index.ts.
 */

import type { OwnershipMode } from "../../desired.js";
import type { Entry } from "../entry.js";
import type { ProblemList } from "../problems.js";

/** Everything a rule may look at. */
export interface RuleContext {
  /** Every resource and module, in file order. */
  entries: readonly Entry[];
  byAddress: ReadonlyMap<string, Entry>;
  stack: string;
  ownership: OwnershipMode;
  problems: ProblemList;
  /** Display path of an absolute path, as in problem positions. */
  display: (abs: string) => string;
}

/** One named check. */
export interface Rule {
  /** Short kebab-case name, e.g. `ref-targets`. */
  name: string;
  check(ctx: RuleContext): void;
}

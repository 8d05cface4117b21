/**
 * The semantic rules, run in this order after the schema stage (../schema-check.ts), by both
 * sources (src/config) and the Terraform provider (src/terraform/validate.ts). Each collects problems
 * and never stops the others (changesets-style named rules).
 */
import { aclPorts } from "./acl-ports.js";
import { referenceCycles } from "./cycles.js";
import { headerNames } from "./header-names.js";
import { literalIds } from "./literal-ids.js";
import { reservedMetadataKey } from "./metadata.js";
import { moduleParents } from "./module-parents.js";
import { refTargets } from "./refs.js";
import type { Rule } from "./rule.js";
import { privateKeyMatches } from "./tls-key.js";
import { tokenFiles } from "./token-files.js";
import { unorderedDuplicates } from "./unordered-duplicates.js";
import { validityWindow } from "./validity.js";

export type { Rule, RuleContext } from "./rule.js";

/** Every rule. */
export const RULES: readonly Rule[] = [
  refTargets,
  referenceCycles,
  literalIds,
  reservedMetadataKey,
  privateKeyMatches,
  headerNames,
  unorderedDuplicates,
  aclPorts,
  validityWindow,
  moduleParents,
  tokenFiles,
];

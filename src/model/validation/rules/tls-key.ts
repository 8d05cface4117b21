/**
 * The private key of a TLS certificate must belong to the leaf certificate of its chain (docs/design.md
 * section 5: the API answers 400 otherwise). Runs only when both values parsed; fields are found by
 * their formats, not their names.
 */
import { privateKeyMatchesCertificate } from "../../../crypto/private-key.js";
import { type FieldDescriptor, fieldsWhere } from "../../index.js";
import { hasProblemAt, pointerChild, reportAt } from "../entry.js";
import type { Rule } from "./rule.js";

const holdsChain = (f: FieldDescriptor) => f.schema.format === "pem-certificate-chain";
const holdsKey = (f: FieldDescriptor) => f.schema.format === "pem-private-key";

export const privateKeyMatches: Rule = {
  name: "private-key-matches-certificate",
  check({ entries, problems }) {
    for (const entry of entries) {
      const [chain] = fieldsWhere(entry.kind, holdsChain);
      const [key] = fieldsWhere(entry.kind, holdsKey);
      if (!chain || !key) continue;
      const certPem = entry.fields[chain.name];
      const keyPem = entry.fields[key.name];
      if (typeof certPem !== "string" || typeof keyPem !== "string") continue;
      if ([chain.name, key.name].some((n) => hasProblemAt(problems, entry, pointerChild("", n)))) continue;
      let matches: boolean;
      try {
        matches = privateKeyMatchesCertificate(keyPem, certPem);
      } catch {
        continue; // a parse failure is the schema stage's to report
      }
      if (!matches) {
        reportAt(
          problems,
          entry,
          pointerChild("", key.name),
          `does not belong to the leaf certificate of ${chain.name} (their public keys differ)`,
        );
      }
    }
  },
};

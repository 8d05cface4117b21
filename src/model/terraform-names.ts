/**
 * The names Terraform gives the desired-state kinds: the provider's name, one resource type per kind
 * (`tunnelgw_api_key`, `tunnelgw_tls_edge_backend`) and the parent ids a module's resource type takes
 * (`edge_id`, `route_id`). Both the Terraform provider's schema (src/terraform/provider-schema.ts) and
 * the CDKTF source (src/config/cdktf/load.ts, which reads a synthesized `cdk.tf.json`) map between
 * resource types and kinds with them, so they sit in the model, below each (docs/design.md section 4).
 */
import { allKinds, getKind, type KindDescriptor } from "./index.js";

/** The provider's name, as in resource type prefixes and `required_providers`. */
export const PROVIDER_NAME = "tunnelgw";

/**
 * The Terraform resource type of a desired-state kind: `tunnelgw_api_key`, `tunnelgw_tls_edge_backend`,
 * `tunnelgw_https_edge_route_saml`.
 */
export function resourceType(kind: KindDescriptor): string {
  const parent = kind.module?.parent;
  const name = !parent || kind.kind.startsWith(`${parent}_`) ? kind.kind : `${parent}_${kind.kind}`;
  return `${PROVIDER_NAME}_${name}`;
}

/** The desired-state kind whose resource type is `typeName` (`tunnelgw_tls_edge_backend`), if any. */
export function desiredKindOf(typeName: string): KindDescriptor | undefined {
  return desiredKinds().find((k) => resourceType(k) === typeName);
}

/** The kinds that are desired state (collections and modules), in schema order. */
export function desiredKinds(): KindDescriptor[] {
  return [...allKinds().values()].filter((k) => !k.referencedOnly && (k.collection || k.module));
}

/** The path parameters of a module (`edge_id`, `route_id`), each with the kind whose id it holds. */
export function moduleParams(kind: KindDescriptor): { name: string; kind: KindDescriptor }[] {
  const parent = kind.module?.parent;
  if (!parent) return [];
  if (parent === "https_edge_route") {
    return [
      { name: "edge_id", kind: getKind("https_edge") },
      { name: "route_id", kind: getKind("https_edge_route") },
    ];
  }
  return [{ name: "edge_id", kind: getKind(parent) }];
}

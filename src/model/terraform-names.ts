/**
 * The names Terraform gives the desired-state kinds: the provider's name, one resource type per kind
 * (`tunnelgw_api_key`, `tunnelgw_tls_edge_backend`) and the parent ids a module's resource type takes
 * (`edge_id`, `route_id`). Both the Terraform provider's schema (src/terraform/provider-schema.ts) and
 * the CDKTF source (src/config/cdktf/load.ts, which reads a synthesized `cdk.tf.json`) map between
 * resource types and kinds with them, so they sit in the model, below each (docs/design.md section 4).
 * Also the list data sources' names (`tunnelgw_api_keys`), which the provider and its schema share.
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

/**
 * The plural of a kind's name, as a list data source is named: the configuration collection's name
 * when the kind has one (`api_keys`, `tunnel_group_backends`), else English rules (`ip_policies`,
 * `https_edge_routes`, `endpoints`).
 */
export function pluralName(kind: KindDescriptor): string {
  if (kind.collection) return kind.collection;
  const name = kind.kind;
  if (/[^aeiou]y$/.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(name)) return `${name}es`;
  return `${name}s`;
}

/**
 * The list data source of a kind the API lists (it has a `listKey`): `tunnelgw_api_keys`,
 * `tunnelgw_https_edge_routes`, `tunnelgw_endpoints`.
 */
export function listDataSourceType(kind: KindDescriptor): string {
  return `${PROVIDER_NAME}_${pluralName(kind)}`;
}

/** The kinds that have a list data source: every kind with a list operation, in schema order. */
export function listedKinds(): KindDescriptor[] {
  return [...allKinds().values()].filter((k) => k.listKey !== undefined && k.operations.has("list"));
}

/** The kind the list data source `typeName` lists (`tunnelgw_api_keys`), if it is one. */
export function listedKindOf(typeName: string): KindDescriptor | undefined {
  return listedKinds().find((k) => listDataSourceType(k) === typeName);
}

/**
 * The filters of list data sources: response fields a listed object is narrowed by (exact matches;
 * metadata compared as data), each an optional argument where the kind's response has it.
 */
export const LIST_FILTERS = ["description", "metadata"] as const;

/** The path parameters of a nested collection's list path (`edge_id` of an edge's routes). */
export function listPathParams(kind: KindDescriptor): string[] {
  return kind.module ? [] : [...kind.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

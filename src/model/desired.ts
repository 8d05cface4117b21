/**
 * Desired state: what the configuration says, validated and with `${env:}` / `${file:}` values
 * resolved. This is the contract between the config layer (which builds it from YAML or
 * cdk.tf.json) and the engine (which diffs it against live state). The engine never sees YAML.
 *
 * `${ref:<collection>.<name>}` values stay symbolic (`RefValue`) because the target's id may not
 * exist until apply creates it; the engine resolves them in dependency order.
 */

/** A reference to another managed resource's id, written `${ref:tunnel_group_backends.web}`. */
export interface RefValue {
  $ref: string;
}

/** True if `v` is a symbolic reference. */
export function isRef(v: unknown): v is RefValue {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as RefValue).$ref === "string" &&
    Object.keys(v).length === 1
  );
}

/** Values of `ownership` (docs/design.md section 3.1); the first is the default. */
export const OWNERSHIP_MODES = ["marker", "state-only"] as const;
/** `marker`: ownership marker in metadata; `state-only`: the state store alone. */
export type OwnershipMode = (typeof OWNERSHIP_MODES)[number];

/** Where something was written: 1-based line and column. */
export interface SourcePosition {
  file: string;
  line: number;
  col: number;
}

/** Reconciler options of one resource that are not API fields (configuration section "options"). */
export interface ResourceOptions {
  /** A plan that would delete or replace the resource fails (docs/design.md / issue 5 safety). */
  prevent_destroy: boolean;
  /** API keys only: where to write the token returned at creation (mode 0600). */
  token_file?: string;
  /** API keys only: the token is kept outside tgw; a missing token file is not a lost token. */
  token_kept_elsewhere?: boolean;
}

/** One managed object of desired state: a resource of a collection, or a module. */
export interface DesiredResource {
  /**
   * Stable name. Resources: `<collection>.<name>` (`api_keys.ci-deployer`). Modules:
   * `edges.https.<edge id>.routes.<route id>.saml`, `edges.tls.<edge id>.backend`, ...
   */
  address: string;
  /** Kind name from schemas/ (`api_key`, `saml`...). */
  kind: string;
  /**
   * Request fields as the user wrote them (keys of the kind's create or put schema), with
   * env/file values substituted and refs kept as `RefValue`. `metadata` is either a mapping (the
   * user wrote YAML) or a string, exactly as written: the engine adds the ownership marker.
   * Fields the user did not set are absent (defaults come from the schema at diff time).
   */
  fields: Record<string, unknown>;
  options: ResourceOptions;
  /** Modules only: the path parameters (`edge_id`, and `route_id` for route modules). */
  pathParams?: Record<string, string>;
  /** Addresses this resource refers to through `RefValue`s (targets must exist first). */
  dependsOn: string[];
  /** Where the resource is defined, for error messages. */
  source: SourcePosition;
  /** What the user calls it besides its address: the construct path of a CDKTF resource (`complete/ci`). */
  label?: string;
  /**
   * JSON pointers into `fields` (`/description`, `/target/kafka/topic`) of the values that hold text
   * from `${env:}`: every plan format masks them (docs/configuration.md > `${env:NAME}`).
   */
  sensitive?: string[];
}

/** The whole desired state of one stack. */
export interface DesiredState {
  /** Ownership scope (config `stack`, default: the config directory's name). */
  stack: string;
  /** `marker` (default): ownership marker in metadata; `state-only`: the state store alone. */
  ownership: OwnershipMode;
  /** Every resource and module, sorted by address. */
  resources: DesiredResource[];
  /** Every file read: the configuration files and those pulled in by `${file:...}` (for `watch`). */
  files: string[];
  /** The directory of the configuration (state defaults to `<configDir>/.tgw/state.json`). */
  configDir: string;
  /** `moved:` entries: addresses renamed without recreating their objects (absent: none). */
  moved?: { from: string; to: string }[];
  /** `import:` entries: existing objects (by id) to adopt at a configured address (absent: none). */
  imports?: { to: string; id: string }[];
  /** `removed:` entries: addresses to stop managing without deleting their objects, sorted (absent: none). */
  removed?: string[];
  /** The `state:` block's URL, interpolated (src/config/state-setting.ts); absent: the default file. */
  stateUrl?: string;
}

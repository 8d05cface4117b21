/**
 * The tfplugin6 `Provider` service of terraform-provider-tunnelgw: one object per process (one
 * Terraform run). Each RPC decodes its `DynamicValue`s, calls the pure rules of ./values.ts (which call
 * the engine's normalisation and diff) and the API through src/client, and answers with diagnostics
 * instead of throwing. API errors show code and message (`describeError`), never a stack trace.
 *
 * Ownership (./identity.ts): objects created here carry the marker `{"tgw": {"stack":
 * "terraform:<stack>/<workspace>", "address": "<type>#<digest of the arguments>", "lineage": "<create
 * id>"}}`, unless the provider's `ownership` is `state-only`. A create first adopts an object of its
 * own marker that no resource of this run holds (the orphan of a lost answer or a killed apply), and
 * a POST whose outcome is unknown is followed by a look for its create id before it is sent again.
 *
 * Modules: a module's identity is its path. A create over a module that is already set is refused
 * (import it), and two resources on one path are refused when the plan meets the second.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type Api, ApiClient, ApiError, defaultBudgetDir, NetworkError } from "../client/index.js";
import { objectPath } from "../engine/apply.js";
import { describeError } from "../engine/errors.js";
import { liveMetadataOf } from "../engine/live.js";
import { desiredMetadata, liveMetadata } from "../engine/normalize.js";
import { createBody, patchBody, putBody } from "../engine/requests.js";
import {
  fillPath,
  getKind,
  isTerraformMarker,
  type KindDescriptor,
  kindOfId,
  type OwnershipMarker,
} from "../model/index.js";
import {
  desiredKindOf,
  LIST_FILTERS,
  listedKindOf,
  listPathParams,
  pluralName,
} from "../model/terraform-names.js";
import {
  type CtyType,
  conform,
  decodeValue,
  encodeValue,
  type TfObject,
  type TfValue,
  valueFromJson,
} from "./cty.js";
import {
  createMarker,
  defaultStack,
  markerStack,
  placeholderMarker,
  terraformWorkspace,
} from "./identity.js";
import { ListCache, type RefreshMode } from "./list-cache.js";
import type { ProviderHandlers, ProviderRpc } from "./plugin-server.js";
import { blockType, loadProviderSchema, type ProviderSchema, schemaResponse } from "./schema.js";
import { attributePath, type PathStep, validateConfig } from "./validate.js";
import {
  changedFields,
  fieldsOf,
  moduleId,
  pathParams,
  plannedState,
  type ResourceType,
  readPrivate,
  resourceType,
  stateFromLive,
  writeOnlyDigests,
  writePrivate,
} from "./values.js";

interface Diagnostic {
  severity: "ERROR" | "WARNING";
  summary: string;
  detail: string;
  attribute?: { steps: PathStep[] };
}
type Request = Record<string, unknown> & { type_name?: string };
type Handler = (req: Request) => Promise<Record<string, unknown>>;

const error = (summary: string, detail = "", steps?: PathStep[]): Diagnostic => ({
  severity: "ERROR",
  summary,
  detail,
  ...(steps && steps.length > 0 ? { attribute: { steps } } : {}),
});
const attr = (name: string): PathStep[] => [{ attribute_name: name }];

const dv = (type: CtyType, value: TfValue) => ({ msgpack: Buffer.from(encodeValue(type, value)) });
const decodeDv = (v: unknown): TfValue => decodeValue((v as { msgpack?: Uint8Array } | null)?.msgpack);
const asObject = (v: TfValue): TfObject | null =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as TfObject) : null;

/** Options of the provider (tests and the benchmark). */
export interface ProviderOptions {
  /** How ReadResource reads: `list` (default) or `get`; default from `TGW_TERRAFORM_REFRESH`. */
  refresh?: RefreshMode;
  env?: NodeJS.ProcessEnv;
  /** The Terraform working directory (default `process.cwd()`). */
  cwd?: string;
}

/** How often a create whose outcome is unknown is looked for, then sent again. */
const CREATE_RECOVERY = { attempts: 4, delayMs: 300 };

/** The provider service: handlers by RPC name. */
export class TunnelgwProvider {
  readonly #schema: ProviderSchema;
  readonly #env: NodeJS.ProcessEnv;
  readonly #refresh: RefreshMode;
  readonly #cwd: string;
  #api: Api | undefined;
  #cache: ListCache | undefined;
  /** The marker stack, `terraform:<stack>/<workspace>`. */
  #stack = "";
  #markers = true;
  /**
   * Ids that resources of this run hold (their prior state, or created and adopted here): never
   * adopted by another create. (Terraform runs a process per walk, so this is one plan or apply.)
   */
  readonly #held = new Set<string>();
  /** Module paths planned in this walk: a second resource on one path is refused. */
  readonly #plannedModules = new Set<string>();
  /**
   * Module paths whose plan requires a replace: Terraform plans the create half of a replacement
   * again, with no prior state, which is the same resource and not a second one on that path.
   */
  readonly #replacedModules = new Set<string>();

  constructor(options: ProviderOptions = {}) {
    this.#schema = loadProviderSchema();
    this.#env = options.env ?? process.env;
    this.#cwd = options.cwd ?? process.cwd();
    this.#refresh = options.refresh ?? (this.#env.TGW_TERRAFORM_REFRESH === "get" ? "get" : "list");
  }

  /**
   * The handlers of the Provider service (./plugin-server.ts), by method name: each answers a failure
   * with an error diagnostic (`describeError`) rather than a gRPC error.
   */
  handlers(): ProviderHandlers {
    const rpcs: Record<ProviderRpc, Handler> = {
      GetProviderSchema: async () => schemaResponse(this.#schema),
      ValidateProviderConfig: async (r) => this.#validateProvider(r),
      ValidateResourceConfig: (r) => this.#validateResource(r),
      ValidateDataResourceConfig: async () => ({ diagnostics: [] }),
      UpgradeResourceState: (r) => this.#upgrade(r),
      ConfigureProvider: (r) => this.#configure(r),
      ReadResource: (r) => this.#read(r),
      PlanResourceChange: (r) => this.#plan(r),
      ApplyResourceChange: (r) => this.#apply(r),
      ImportResourceState: (r) => this.#import(r),
      ReadDataSource: (r) => this.#readData(r),
      StopProvider: async () => ({ Error: "" }),
    };
    const out: ProviderHandlers = {};
    for (const [name, fn] of Object.entries(rpcs))
      out[name] = (request) =>
        fn(request).catch((err: unknown) => ({ diagnostics: [error(`${name} failed`, describeError(err))] }));
    return out;
  }

  #type(typeName: string | undefined): ResourceType {
    const entry = this.#schema.resources[typeName ?? ""];
    const rt = entry ? resourceType(typeName as string, entry) : undefined;
    if (!rt) throw new Error(`unknown resource type ${typeName}`);
    return rt;
  }

  #ctyOf(rt: ResourceType): CtyType {
    return blockType({ attributes: rt.attributes });
  }

  /** The marker a PATCH of `id` rewrites into metadata: the one it carries (its identity stays). */
  async #patchMarker(kind: KindDescriptor, id: string, rt: ResourceType, config: TfObject) {
    if (!this.#markers) return undefined;
    const live = await this.#client().cache.read(kind.kind, id);
    const marker = live ? liveMetadataOf(kind, live)?.marker : undefined;
    return marker && marker.stack === this.#stack ? marker : createMarker(this.#stack, rt, config);
  }

  async #validateResource(req: Request) {
    const rt = this.#type(req.type_name);
    const config = asObject(decodeDv(req.config));
    if (!config) return { diagnostics: [] };
    const problems = validateConfig(rt, config, placeholderMarker(rt));
    return {
      diagnostics: problems.map((p) =>
        error(`Invalid ${p.path.join(".")}`, p.message, attributePath(rt.attributes, p.path)),
      ),
    };
  }

  async #upgrade(req: Request) {
    const rt = this.#type(req.type_name);
    const raw = req.raw_state as { json?: Uint8Array } | undefined;
    const type = this.#ctyOf(rt);
    const json = raw?.json && raw.json.length > 0 ? Buffer.from(raw.json).toString("utf8") : "null";
    return { upgraded_state: dv(type, valueFromJson(type, json)), diagnostics: [] };
  }

  /** `terraform validate` and plan: the provider block's values that can be checked offline. */
  async #validateProvider(req: Request) {
    const config = asObject(decodeDv(req.config)) ?? {};
    const invalid = ownershipProblem(config.ownership);
    return { diagnostics: invalid ? [invalid] : [] };
  }

  async #configure(req: Request) {
    const config = asObject(decodeDv(req.config)) ?? {};
    const str = (v: TfValue | undefined) => (typeof v === "string" && v !== "" ? v : undefined);
    const url = str(config.api_url) ?? this.#env.TGW_API_URL;
    const key = str(config.api_key) ?? this.#env.TGW_API_KEY;
    const diagnostics: Diagnostic[] = [];
    if (!url)
      diagnostics.push(
        error("api_url is not set", "Set api_url in the provider block, or TGW_API_URL.", attr("api_url")),
      );
    if (!key)
      diagnostics.push(
        error("api_key is not set", "Set api_key in the provider block, or TGW_API_KEY.", attr("api_key")),
      );
    const ownership = str(config.ownership) ?? "marker";
    const invalid = ownershipProblem(config.ownership);
    if (invalid) diagnostics.push(invalid);
    if (diagnostics.length > 0 || !url || !key) return { diagnostics };
    this.#markers = ownership === "marker";
    this.#stack = markerStack(
      str(config.stack) ?? defaultStack(this.#cwd),
      terraformWorkspace(this.#cwd, this.#env),
    );
    try {
      this.#api = new ApiClient({ baseUrl: url, apiKey: key, budgetDir: defaultBudgetDir() });
    } catch (err) {
      return { diagnostics: [error("Invalid api_url", describeError(err), attr("api_url"))] };
    }
    this.#cache = new ListCache(this.#api, this.#refresh);
    return { diagnostics: [] };
  }

  #client(): { api: Api; cache: ListCache } {
    if (!this.#api || !this.#cache) throw new Error("the provider is not configured");
    return { api: this.#api, cache: this.#cache };
  }

  async #read(req: Request) {
    const rt = this.#type(req.type_name);
    const type = this.#ctyOf(rt);
    const state = asObject(decodeDv(req.current_state));
    if (!state || typeof state.id !== "string") return { new_state: req.current_state, diagnostics: [] };
    this.#held.add(state.id);
    const priv = readPrivate(req.private as Uint8Array | undefined);
    const raw = await this.#client().cache.read(rt.kind.kind, state.id);
    // Gone (404 or absent from a complete list): Terraform removes it from state and plans a create.
    if (!raw) return { new_state: dv(type, null), diagnostics: [], private: req.private };
    return {
      new_state: dv(type, stateFromLive(rt, state, raw, state.id, priv)),
      diagnostics: [],
      private: req.private,
    };
  }

  async #plan(req: Request) {
    const rt = this.#type(req.type_name);
    const type = this.#ctyOf(rt);
    const proposed = asObject(decodeDv(req.proposed_new_state));
    if (!proposed) return { planned_state: req.proposed_new_state, requires_replace: [], diagnostics: [] };
    const config = asObject(decodeDv(req.config)) ?? {};
    const prior = asObject(decodeDv(req.prior_state));
    if (typeof prior?.id === "string") this.#held.add(prior.id);
    const priv = readPrivate(req.prior_private as Uint8Array | undefined);
    if (rt.kind.module) {
      const refused = await this.#planModule(rt, config, prior);
      if (refused) return { diagnostics: [refused] };
    }
    if (!prior) {
      return {
        planned_state: dv(type, plannedState(rt, config, null, false)),
        requires_replace: [],
        diagnostics: [],
      };
    }
    const { changed, replace } = changedFields(rt, config, prior, priv);
    const path = rt.kind.module ? moduleId(rt.kind, config) : undefined;
    if (path !== undefined && replace.length > 0) this.#replacedModules.add(path);
    return {
      planned_state: dv(type, plannedState(rt, config, prior, replace.length > 0, changed)),
      requires_replace: replace.map((name) => ({ steps: [{ attribute_name: name }] })),
      planned_private: req.prior_private,
      diagnostics: [],
    };
  }

  async #apply(req: Request) {
    const rt = this.#type(req.type_name);
    const type = this.#ctyOf(rt);
    const { api, cache } = this.#client();
    const planned = asObject(decodeDv(req.planned_state));
    const prior = asObject(decodeDv(req.prior_state));
    const config = asObject(decodeDv(req.config)) ?? {};
    const priv = readPrivate(req.planned_private as Uint8Array | undefined);
    const kind = rt.kind;
    if (typeof prior?.id === "string") this.#held.add(prior.id);
    try {
      if (!planned) {
        if (prior && typeof prior.id === "string") await this.#delete(rt, prior.id);
        return { new_state: dv(type, null), diagnostics: [] };
      }
      const fields = fieldsOf(rt, config);
      const address = rt.typeName;
      let raw: Record<string, unknown>;
      let id: string;
      if (kind.module) {
        id = moduleId(rt.kind, config) as string;
        // Right before the PUT: the plan's look may be older than a module set meanwhile.
        if (!prior && (await cache.read(kind.kind, id))) return { diagnostics: [moduleExists(rt, id)] };
        const changed = prior ? changedFields(rt, config, prior, priv).changed : ["*"];
        raw =
          changed.length > 0
            ? await api.put<Record<string, unknown>>(id, putBody(kind, address, fields))
            : ((await cache.read(kind.kind, id)) ?? {});
      } else if (!prior) {
        raw = await this.#create(rt, config, fields);
        id = String(raw.id);
        this.#held.add(id);
      } else {
        id = String(prior.id);
        const { changed } = changedFields(rt, config, prior, priv);
        const patchable = changed.filter((name) => kind.fields.some((f) => f.name === name && f.mutable));
        raw =
          patchable.length > 0
            ? await api.patch<Record<string, unknown>>(
                objectPath(kind, id),
                patchBody(
                  kind,
                  address,
                  fields,
                  patchable,
                  kind.fields.some((f) => f.isMetadata && patchable.includes(f.name))
                    ? await this.#patchMarker(kind, id, rt, config)
                    : undefined,
                ),
              )
            : ((await cache.read(kind.kind, id)) ?? {});
      }
      cache.remember(kind.kind, id, raw);
      const nextPriv = writeOnlyDigests(rt, config, prior ? priv : {});
      return {
        new_state: dv(type, stateFromLive(rt, planned, raw, id, nextPriv)),
        private: writePrivate(nextPriv),
        diagnostics: [],
      };
    } catch (err) {
      return {
        diagnostics: [
          error(
            `${rt.typeName}: ${planned ? (prior ? "update" : "create") : "delete"} failed`,
            describeError(err),
          ),
        ],
      };
    }
  }

  /**
   * A module resource's plan: refused when another resource of this walk already planned its path
   * (the two would overwrite each other on every apply), or, for a create, when the module is set
   * already (a blind PUT would take over, and destroy delete, what someone else set: import it).
   */
  async #planModule(rt: ResourceType, config: TfObject, prior: TfObject | null) {
    const path = moduleId(rt.kind, config);
    if (path === undefined) return undefined; // a parent id known only after apply
    const replacement = !prior && this.#replacedModules.delete(path); // the create half of a replace
    if (this.#plannedModules.has(path) && !replacement) {
      return error(
        `two resources manage the module ${path}`,
        `A module's identity is its path: another ${rt.typeName} (or a resource of another module type on the same path) in this configuration sets it too, and each apply would overwrite the other. Keep one resource per module path; if both are in the state, remove one with terraform state rm.`,
      );
    }
    this.#plannedModules.add(path);
    if (!prior && (await this.#client().cache.read(rt.kind.kind, path))) return moduleExists(rt, path);
    return undefined;
  }

  /**
   * The create of a resource that has no state: adopts the orphan of an earlier create of the same
   * resource when there is one, else POSTs; a POST of unknown outcome is looked for by its create id
   * before it is sent again (as tgw's engine does).
   */
  async #create(
    rt: ResourceType,
    config: TfObject,
    fields: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const { api } = this.#client();
    const kind = rt.kind;
    const marker = this.#markers ? createMarker(this.#stack, rt, config) : undefined;
    // Only a kind with metadata carries a marker, and only a listed kind can be looked through.
    if (!marker || !kind.listKey || !kind.fields.some((f) => f.isMetadata)) {
      return api.post(kind.path, createBody(kind, rt.typeName, fields, marker));
    }
    const orphan = await this.#orphan(kind, marker);
    if (orphan) {
      const adopted = await this.#adopt(rt, config, orphan);
      if (adopted) return adopted;
    }
    const body = createBody(kind, rt.typeName, fields, marker);
    for (let attempt = 1; ; attempt++) {
      try {
        return await api.post<Record<string, unknown>>(kind.path, body);
      } catch (err) {
        const unknown = (err instanceof ApiError || err instanceof NetworkError) && err.mayHaveBeenCreated;
        if (!unknown || attempt >= CREATE_RECOVERY.attempts) throw err;
        await sleep(CREATE_RECOVERY.delayMs * attempt);
        const made = await this.#findCreated(kind, marker).catch(() => {
          throw err; // the list fails too: the next apply adopts it by its marker
        });
        if (made && !returnsSecretOnce(rt)) return made;
        if (made) await this.#delete(rt, String(made.id));
      }
    }
  }

  /** The oldest live object of `marker`'s stack and address that no resource of this run holds. */
  async #orphan(kind: KindDescriptor, marker: OwnershipMarker) {
    const all = await this.#client().cache.all(kind.kind);
    const found = [...all.values()].filter((raw) => {
      const m = liveMetadataOf(kind, raw)?.marker;
      return m?.stack === marker.stack && m.address === marker.address && !this.#held.has(String(raw.id));
    });
    found.sort(
      (a, b) =>
        String(a.created_at ?? "").localeCompare(String(b.created_at ?? "")) ||
        String(a.id).localeCompare(String(b.id)),
    );
    return found[0];
  }

  /**
   * Takes `orphan` as the object of a create (changed where it differs from the configuration), or
   * deletes it when its create answer held a secret returned once (an API key's token, lost with the
   * answer): then undefined, and the caller creates a new one.
   */
  async #adopt(rt: ResourceType, config: TfObject, orphan: Record<string, unknown>) {
    const id = String(orphan.id);
    this.#held.add(id);
    if (returnsSecretOnce(rt)) {
      await this.#delete(rt, id);
      return undefined;
    }
    const known: TfObject = {};
    for (const name of Object.keys(rt.attributes)) known[name] = null;
    const prior = stateFromLive(rt, known, orphan, id, {}, true);
    const { changed } = changedFields(rt, config, prior, writeOnlyDigests(rt, config, {}));
    const patchable = changed.filter((name) => rt.kind.fields.some((f) => f.name === name && f.mutable));
    if (patchable.length === 0) return orphan;
    const marker = liveMetadataOf(rt.kind, orphan)?.marker;
    return this.#client().api.patch<Record<string, unknown>>(
      objectPath(rt.kind, id),
      patchBody(rt.kind, rt.typeName, fieldsOf(rt, config), patchable, marker),
    );
  }

  /** The object a POST carrying `marker` made (its create id), from a fresh list. */
  async #findCreated(kind: KindDescriptor, marker: OwnershipMarker) {
    const { api } = this.#client();
    for await (const item of api.list<Record<string, unknown>>(kind.path, kind.listKey as string, {
      limit: 100,
    })) {
      const m = liveMetadataOf(kind, item)?.marker;
      if (m?.stack === marker.stack && m.lineage === marker.lineage) return item;
    }
    return undefined;
  }

  async #delete(rt: ResourceType, id: string): Promise<void> {
    const { api, cache } = this.#client();
    try {
      await api.delete(rt.kind.module ? id : objectPath(rt.kind, id));
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
    cache.remember(rt.kind.kind, id, undefined);
  }

  async #import(req: Request) {
    const rt = this.#type(req.type_name);
    const type = this.#ctyOf(rt);
    const id = String(req.id ?? "");
    const kind = rt.kind;
    const params = kind.module ? parseModulePath(rt, id) : undefined;
    if (kind.module && !params) {
      const example = kind.path.replace(/\{(\w+)\}/g, (_, p: string) => `<${p}>`);
      return {
        diagnostics: [
          error(`Invalid import id for ${rt.typeName}`, `a module is imported by its path: ${example}`),
        ],
      };
    }
    if (!kind.module && kindOfId(id)?.kind !== kind.kind) {
      return {
        diagnostics: [
          error(
            `Invalid import id for ${rt.typeName}`,
            `expected the id of ${kind.title} (${kind.idPrefix ?? ""}...), got "${id}"`,
          ),
        ],
      };
    }
    const raw = await this.#client().cache.read(kind.kind, id);
    if (!raw) {
      return { diagnostics: [error("Cannot import non-existent remote object", `no ${kind.title} ${id}`)] };
    }
    const marker = liveMetadataOf(kind, raw)?.marker;
    if (marker && !isTerraformMarker(marker)) {
      return {
        diagnostics: [
          error(
            `${id} belongs to the tgw stack "${marker.stack}"`,
            `It was created by tgw as ${marker.address}; a tgw stack and Terraform never manage the same object. To move it, run tgw state rm on its address, remove the address from the tgw configuration and the "tgw" key from the object's metadata (through the API; while the marker stays, tgw adopts it again, or deletes it once the configuration lacks it), then import it; or leave it to tgw.`,
          ),
        ],
      };
    }
    const known: TfObject = { ...(params ?? {}) };
    for (const name of Object.keys(rt.attributes)) known[name] ??= null;
    const state = importedState(rt, raw, id, known);
    return {
      imported_resources: [{ type_name: rt.typeName, state: dv(type, state), private: Buffer.alloc(0) }],
      diagnostics: [],
    };
  }

  async #readData(req: Request) {
    const typeName = req.type_name ?? "";
    const entry = this.#schema.dataSources[typeName];
    if (!entry) throw new Error(`unknown data source ${typeName}`);
    const type = blockType(entry.block);
    const config = asObject(decodeDv(req.config)) ?? {};
    const { api, cache } = this.#client();
    const listed = listedKindOf(typeName);
    if (listed) return this.#readList(listed, type, config);
    const kind = dataSourceKind(typeName);
    const { path, id } = dataObjectPath(kind, config);
    const raw =
      path === undefined
        ? await cache.read(kind.kind, id)
        : await api.get<Record<string, unknown>>(path).catch((err: unknown) => {
            if (err instanceof ApiError && err.status === 404) return undefined;
            throw err;
          });
    if (!raw) {
      const what = kind.module ? `is not set on ${path}` : `${id} not found`;
      return { diagnostics: [error(`${kind.title} ${what}`, "", attr(kind.module ? "edge_id" : "id"))] };
    }
    const values = userValues(kind, raw);
    // The decoded config holds every computed attribute as null: only the arguments set override
    // the API's values, else every value the API returns is lost (issue 27, defect 2).
    const args = Object.entries(config).filter(([, v]) => v !== null);
    return {
      state: dv(type, conform(type, { ...(values as TfObject), ...Object.fromEntries(args), id })),
      diagnostics: [],
    };
  }

  /**
   * A list data source (`tunnelgw_api_keys`): the kind's list (a nested collection's under the parent
   * ids of `config`) from the run's list cache, in the API's order, narrowed by the filters set.
   */
  async #readList(kind: KindDescriptor, type: CtyType, config: TfObject) {
    const params = Object.fromEntries(listPathParams(kind).map((p) => [p, String(config[p] ?? "")]));
    const path = fillPath(kind.path, params);
    let raws: Record<string, unknown>[];
    try {
      raws = await this.#client().cache.listed(kind.kind, path);
    } catch (err) {
      const [param] = Object.keys(params);
      if (!(err instanceof ApiError && err.status === 404 && param)) throw err;
      const parent = kind.parent ? getKind(kind.parent).title : "parent";
      return {
        diagnostics: [error(`${parent} ${params[param]} not found`, describeError(err), attr(param))],
      };
    }
    const items = raws
      .map((raw) => ({ ...(userValues(kind, raw) as TfObject), ...params }))
      .filter((item) => matchesFilters(item, config));
    const state = {
      ...config,
      id: pluralName(kind),
      ids: items.map((i) => String(i.id)),
      [pluralName(kind)]: items,
    };
    return { state: dv(type, conform(type, state)), diagnostics: [] };
  }
}

/** The response's values as a data source shows them: of metadata, the user's part (the marker is tgw's). */
function userValues(kind: KindDescriptor, raw: Record<string, unknown>): Record<string, unknown> {
  const field = kind.metadataField;
  return field ? { ...raw, [field]: liveMetadata(raw[field]) } : raw;
}

/**
 * True when `item` (values of a listed object) matches every filter `config` sets: `description`
 * exactly, `metadata` compared as data (as a resource compares it: JSON key order and spacing aside).
 */
export function matchesFilters(item: TfObject, config: TfObject): boolean {
  return LIST_FILTERS.every((name) => {
    const wanted = config[name];
    if (typeof wanted !== "string") return true;
    const value = typeof item[name] === "string" ? (item[name] as string) : "";
    return name === "metadata" ? desiredMetadata(wanted) === liveMetadata(value) : wanted === value;
  });
}

/** The kind a data source reads: a managed kind by its resource type's name, else by its own name. */
function dataSourceKind(typeName: string): KindDescriptor {
  return desiredKindOf(typeName) ?? getKind(typeName.replace(/^tunnelgw_/, ""));
}

/**
 * Where a data source's object is: a module's or a route's API path (from the arguments), or no path
 * for a collection object (read by id through the list cache); `id` is what the state shows.
 */
function dataObjectPath(kind: KindDescriptor, config: TfObject): { path?: string; id: string } {
  if (kind.module) {
    const path = moduleId(kind, config) ?? "";
    return { path, id: path };
  }
  const id = String(config.id ?? "");
  if (!kind.parent) return { id };
  const parent = fillPath(kind.path, { edge_id: String(config.edge_id ?? "") });
  return { path: `${parent}/${encodeURIComponent(id)}`, id };
}

/** The refusal of a create over a module that is set already. */
function moduleExists(rt: ResourceType, path: string): Diagnostic {
  return error(
    `${path} already exists`,
    `${path} already exists; to manage it with Terraform, import it: terraform import ${rt.typeName}.<name> ${path} (or an import block with id = "${path}"). A module's identity is its path: creating it would take over, and a destroy delete, what was set there. If a resource of this configuration was renamed, say so with a moved block.`,
  );
}

/** True for a kind whose create answer holds a secret it never returns again (an API key's token). */
function returnsSecretOnce(rt: ResourceType): boolean {
  return "token" in rt.attributes;
}

/** `edge_id` / `route_id` of a module path, or undefined when `id` is not a path of this module. */
function parseModulePath(rt: ResourceType, id: string): Record<string, string> | undefined {
  const names = pathParams(rt.kind);
  const re = new RegExp(
    `^${rt.kind.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "([^/]+)")}$`,
  );
  const m = re.exec(id);
  if (!m) return undefined;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1] as string)]));
}

/** The state of an imported object: every attribute as the API shows it. */
function importedState(
  rt: ResourceType,
  raw: Record<string, unknown>,
  id: string,
  known: TfObject,
): TfObject {
  return stateFromLive(rt, known, raw, id, {}, true);
}

/** The values of the provider's `ownership` (unset or "" is "marker"). */
const OWNERSHIP_VALUES = ["marker", "state-only"];

/** A diagnostic naming `ownership` and its allowed values when `v` is none of them; unknown: not yet. */
function ownershipProblem(v: TfValue | undefined): Diagnostic | undefined {
  if (typeof v !== "string" || v === "" || OWNERSHIP_VALUES.includes(v)) return undefined;
  return error(
    "Invalid ownership",
    `ownership must be ${OWNERSHIP_VALUES.map((o) => JSON.stringify(o)).join(" or ")}, not ${JSON.stringify(v)}`,
    attr("ownership"),
  );
}

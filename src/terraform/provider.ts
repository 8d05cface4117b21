/**
 * The tfplugin6 `Provider` service of terraform-provider-tunnelgw: one object per process (one
 * Terraform run). Each RPC decodes its `DynamicValue`s, calls the pure rules of ./values.ts (which call
 * the engine's normalisation and diff) and the API through src/client, and answers with diagnostics
 * instead of throwing. API errors show code and message (`describeError`), never a stack trace.
 *
 * Ownership: objects created here carry the marker `{"tgw": {"stack": "terraform:<stack>", "address":
 * "<resource type>"}}` (provider `stack`, default the Terraform working directory's name), unless the
 * provider's `ownership` is `state-only`.
 */
import { basename } from "node:path";
import type * as grpc from "@grpc/grpc-js";
import { type Api, ApiClient, ApiError, defaultBudgetDir } from "../client/index.js";
import { objectPath } from "../engine/apply.js";
import { describeError } from "../engine/errors.js";
import { liveMetadataOf } from "../engine/live.js";
import { createBody, patchBody, putBody } from "../engine/requests.js";
import {
  getKind,
  isTerraformMarker,
  kindOfId,
  type OwnershipMarker,
  TERRAFORM_STACK_PREFIX,
} from "../model/index.js";
import {
  type CtyType,
  conform,
  decodeValue,
  encodeValue,
  type TfObject,
  type TfValue,
  valueFromJson,
} from "./cty.js";
import { ListCache, type RefreshMode } from "./list-cache.js";
import {
  blockType,
  type JsonSchemaEntry,
  loadProviderSchema,
  type ProviderSchema,
  toProtoSchema,
} from "./schema.js";
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
}

/** The provider service: handlers by RPC name. */
export class TunnelgwProvider {
  readonly #schema: ProviderSchema;
  readonly #env: NodeJS.ProcessEnv;
  readonly #refresh: RefreshMode;
  #api: Api | undefined;
  #cache: ListCache | undefined;
  #stack = "";
  #markers = true;

  constructor(options: ProviderOptions = {}) {
    this.#schema = loadProviderSchema();
    this.#env = options.env ?? process.env;
    this.#refresh = options.refresh ?? (this.#env.TGW_TERRAFORM_REFRESH === "get" ? "get" : "list");
  }

  /** The grpc-js service implementation. */
  handlers(): grpc.UntypedServiceImplementation {
    const rpcs: Record<string, Handler> = {
      GetProviderSchema: async () => this.#getSchema(),
      ValidateProviderConfig: async () => ({ diagnostics: [] }),
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
    const out: grpc.UntypedServiceImplementation = {};
    for (const [name, fn] of Object.entries(rpcs)) {
      out[name] = (call: grpc.ServerUnaryCall<Request, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        fn(call.request).then(
          (res) => callback(null, res),
          (err: unknown) => callback(null, { diagnostics: [error(`${name} failed`, describeError(err))] }),
        );
      };
    }
    return out;
  }

  #getSchema() {
    const map = (entries: Record<string, JsonSchemaEntry>) =>
      Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, toProtoSchema(v)]));
    return {
      provider: toProtoSchema(this.#schema.provider),
      resource_schemas: map(this.#schema.resources),
      data_source_schemas: map(this.#schema.dataSources),
      diagnostics: [],
      server_capabilities: { plan_destroy: false, get_provider_schema_optional: false },
    };
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

  #marker(rt: ResourceType): OwnershipMarker | undefined {
    return this.#markers
      ? { stack: `${TERRAFORM_STACK_PREFIX}${this.#stack}`, address: rt.typeName }
      : undefined;
  }

  async #validateResource(req: Request) {
    const rt = this.#type(req.type_name);
    const config = asObject(decodeDv(req.config));
    if (!config) return { diagnostics: [] };
    const marker = {
      stack: `${TERRAFORM_STACK_PREFIX}${this.#stack || "x".repeat(64)}`,
      address: rt.typeName,
    };
    const problems = validateConfig(rt, config, marker);
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
    if (ownership !== "marker" && ownership !== "state-only") {
      diagnostics.push(error("Invalid ownership", 'must be "marker" or "state-only"', attr("ownership")));
    }
    if (diagnostics.length > 0 || !url || !key) return { diagnostics };
    this.#markers = ownership === "marker";
    this.#stack = str(config.stack) ?? (basename(process.cwd()) || "default");
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
    const priv = readPrivate(req.prior_private as Uint8Array | undefined);
    if (!prior) {
      return {
        planned_state: dv(type, plannedState(rt, config, null, false)),
        requires_replace: [],
        diagnostics: [],
      };
    }
    const { changed, replace } = changedFields(rt, config, prior, priv);
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
        id = moduleId(rt, config) as string;
        const changed = prior ? changedFields(rt, config, prior, priv).changed : ["*"];
        raw =
          changed.length > 0
            ? await api.put<Record<string, unknown>>(id, putBody(kind, address, fields))
            : ((await cache.read(kind.kind, id)) ?? {});
      } else if (!prior) {
        raw = await api.post<Record<string, unknown>>(
          kind.path,
          createBody(kind, address, fields, this.#marker(rt)),
        );
        id = String(raw.id);
      } else {
        id = String(prior.id);
        const { changed } = changedFields(rt, config, prior, priv);
        const patchable = changed.filter((name) => kind.fields.some((f) => f.name === name && f.mutable));
        raw =
          patchable.length > 0
            ? await api.patch<Record<string, unknown>>(
                objectPath(kind, id),
                patchBody(kind, address, fields, patchable, this.#marker(rt)),
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
            `It was created by tgw as ${marker.address}; a tgw stack and Terraform never manage the same object. Remove it from that stack first (tgw state rm), or leave it to tgw.`,
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
    const entry = this.#schema.dataSources[req.type_name ?? ""];
    if (!entry) throw new Error(`unknown data source ${req.type_name}`);
    const type = blockType(entry.block);
    const config = asObject(decodeDv(req.config)) ?? {};
    const { api, cache } = this.#client();
    const name = (req.type_name ?? "").replace(/^tunnelgw_/, "");
    if (name === "endpoints") {
      const k = getKind("endpoint");
      const items = await api.listAll<Record<string, unknown>>(k.path, k.listKey as string, { limit: 100 });
      return {
        state: dv(type, conform(type, { id: "endpoints", endpoints: items as TfValue })),
        diagnostics: [],
      };
    }
    const kind = getKind(name);
    const id = String(config.id ?? "");
    const path = kind.parent
      ? `${kind.path.replace(/\{\w+\}/, String(config.edge_id ?? ""))}/${id}`
      : undefined;
    const raw = path
      ? await api.get<Record<string, unknown>>(path).catch((err: unknown) => {
          if (err instanceof ApiError && err.status === 404) return undefined;
          throw err;
        })
      : await cache.read(kind.kind, id);
    if (!raw) return { diagnostics: [error(`${kind.title} ${id} not found`, "", attr("id"))] };
    // The decoded config holds every computed attribute as null: only the arguments set override
    // the API's values, else every value the API returns is lost (issue 27, defect 2).
    const args = Object.entries(config).filter(([, v]) => v !== null);
    return {
      state: dv(type, conform(type, { ...(raw as TfObject), ...Object.fromEntries(args) })),
      diagnostics: [],
    };
  }
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

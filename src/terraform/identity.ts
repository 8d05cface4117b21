/**
 * Who an object the provider creates belongs to, in its ownership marker, so that an object whose
 * create never reached Terraform's state (a lost answer, a killed `terraform apply`) is found and
 * adopted by the next create of the same resource instead of being left behind (issue 27, defect 4).
 *
 * Terraform does not tell a provider the address of the resource it creates, nor the workspace. So:
 * - `stack`: `terraform:<stack>/<workspace>`. `<stack>` is the provider's `stack` attribute, by
 *   default `<directory name>-<8 hex of the SHA-256 of the working directory's absolute path>` (two
 *   checkouts named alike must never adopt each other's objects); `<workspace>` is Terraform's
 *   (`TF_WORKSPACE`, else the one `terraform workspace select` wrote, else `default`).
 * - `address`: `<resource type>#<16 hex of the SHA-256 of the configured arguments>`, secrets left
 *   out: what the provider knows of a resource that is the same on every run of one configuration.
 * - `lineage`: a random id of the create call, so a POST whose answer was lost is found exactly.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { canonicalJson, type OwnershipMarker, TERRAFORM_STACK_PREFIX } from "../model/index.js";
import type { TfObject } from "./cty.js";
import { fieldsOf, type ResourceType } from "./values.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The provider's default `stack`: the working directory's name and a digest of its path. */
export function defaultStack(cwd: string): string {
  const abs = resolve(cwd);
  return `${basename(abs) || "root"}-${sha256(abs).slice(0, 8)}`;
}

/** Terraform's current workspace, as Terraform itself decides it for the working directory `cwd`. */
export function terraformWorkspace(cwd: string, env: NodeJS.ProcessEnv): string {
  if (env.TF_WORKSPACE) return env.TF_WORKSPACE;
  const dataDir = env.TF_DATA_DIR || join(cwd, ".terraform");
  try {
    return readFileSync(join(dataDir, "environment"), "utf8").trim() || "default";
  } catch {
    return "default";
  }
}

/** The marker stack of `stack` in `workspace`. */
export function markerStack(stack: string, workspace: string): string {
  return `${TERRAFORM_STACK_PREFIX}${stack}/${workspace}`;
}

/** The marker `address` of a resource of type `rt` configured as `config`. */
export function resourceIdentity(rt: ResourceType, config: TfObject): string {
  const fields = fieldsOf(rt, config);
  // Secrets stay out: the digest is readable by anyone who reads the object.
  for (const f of rt.kind.fields) if (f.secret || f.writeOnly) delete fields[f.name];
  return `${rt.typeName}#${sha256(canonicalJson(fields)).slice(0, 16)}`;
}

/** The marker of one create call. */
export function createMarker(stack: string, rt: ResourceType, config: TfObject): OwnershipMarker {
  return { stack, address: resourceIdentity(rt, config), lineage: randomUUID() };
}

/** Placeholder marker of the largest size, for the metadata size check of `terraform validate`. */
export function placeholderMarker(rt: ResourceType): OwnershipMarker {
  return {
    stack: markerStack("x".repeat(64), "x".repeat(32)),
    address: `${rt.typeName}#${"0".repeat(16)}`,
    lineage: randomUUID(),
  };
}

/**
 * Integrity of references between objects, driven by the model's `x-tgw.ref` annotations
 * (docs/design.md section 5):
 * - a field that names an object that does not exist, or not of a kind the field holds (wrong
 *   prefix), is refused with 404 naming the field;
 * - an object that another one refers to cannot be deleted (409 naming the referrers), e.g. an event
 *   destination still used by a subscription, an IP policy used by a restriction, a backend used by
 *   an edge's backend module.
 */
import { allKinds, type FieldDescriptor, getKind, type KindDescriptor } from "../../model/index.js";
import { problems } from "../errors.js";
import type { StoredObject } from "../store/resource-store.js";
import { type RequestContext, titleInSentence } from "./context.js";
import type { Body } from "./hooks.js";

interface Referrer {
  kind: KindDescriptor;
  field: FieldDescriptor;
}

let index: Map<string, Referrer[]> | undefined;

/** For each kind, the fields of other kinds that may hold its ids. */
function referrers(kind: string): Referrer[] {
  if (index === undefined) {
    index = new Map();
    for (const k of allKinds().values()) {
      for (const field of k.fields) {
        for (const target of field.ref ?? []) {
          const list = index.get(target) ?? [];
          list.push({ kind: k, field });
          index.set(target, list);
        }
      }
    }
  }
  return index.get(kind) ?? [];
}

const idsIn = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : [];

/**
 * Checks every reference field present in `body`.
 * @throws ApiProblem 404 `<field>: no <kind> with id <id>` for the first unknown reference
 */
export function checkReferences(kind: KindDescriptor, body: Body, ctx: RequestContext): void {
  for (const field of kind.fields) {
    if (field.ref === undefined || body[field.name] === undefined) continue;
    const value = body[field.name];
    idsIn(value).forEach((id, i) => {
      const target = ctx.store.get(id);
      if (target !== undefined && field.ref?.includes(target.kind)) return;
      const label = Array.isArray(value) ? `${field.name}[${i}]` : field.name;
      const what = (field.ref ?? []).map((k) => titleInSentence(getKind(k))).join(" or ");
      throw problems.unknownReference(label, what, id);
    });
  }
}

/**
 * Refuses to delete an object that other objects still refer to.
 * @param ignore ids of objects deleted together with this one (its children)
 * @throws ApiProblem 409 naming up to five referrers and their fields
 */
export function assertNotInUse(obj: StoredObject, ctx: RequestContext, ignore: ReadonlySet<string>): void {
  const users: string[] = [];
  for (const { kind, field } of referrers(obj.kind)) {
    for (const other of ctx.store.mentioning(kind.kind, obj.id)) {
      if (ignore.has(other.id) || !idsIn(other.body[field.name]).includes(obj.id)) continue;
      users.push(`${describe(other)} (${field.name})`);
    }
  }
  if (users.length === 0) return;
  const shown = users.length > 5 ? [...users.slice(0, 5), `${users.length - 5} more`] : users;
  throw problems.inUse(titleInSentence(getKind(obj.kind)), obj.id, shown);
}

/** "event subscription esb_1", "TLS edge backend module of edgtls_1". */
export function describe(obj: StoredObject): string {
  const kind = getKind(obj.kind);
  return kind.module === undefined
    ? `${titleInSentence(kind)} ${obj.id}`
    : `${titleInSentence(kind)} of ${obj.parentId}`;
}

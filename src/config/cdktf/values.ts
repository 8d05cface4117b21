/**
 * Attribute values of a synthesized resource to plain field values, evaluating the expressions
 * tgw supports (./expressions.ts) and refusing the others:
 *
 * - `${tunnelgw_<type>.<name>.id}` (the whole string) becomes a `RefValue` to that resource's address;
 * - `${var.NAME}`: `TF_VAR_NAME` from the environment, else the variable's default. A `sensitive`
 *   variable may set only a secret field (which tgw masks in every output) and is never quoted in
 *   a message;
 * - `${file("PATH")}`: PATH relative to the stack directory (as Terraform reads it), with the limits
 *   and trailing-newline rule of `${file:}` in YAML.
 *
 * Every refused expression is a problem naming the construct path, the attribute and the
 * expression; conversion goes on, so one load reports them all.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages show Terraform's ${...} syntax
import { isAbsolute, resolve } from "node:path";
import type { RefValue } from "../../model/desired.js";
import type { KindDescriptor } from "../../model/index.js";
import type { ProblemList } from "../../model/validation/problems.js";
import { withArticle } from "../../model/words.js";
import {
  convertFields,
  type FileRead,
  type Interpolated,
  noteFromEnv,
  noteFromFile,
  readText,
} from "../interpolate.js";
import type { Node, Position } from "../source.js";
import { type Expression, mayHoldExpression, parseTemplate } from "./expressions.js";

/** A `variable` block of the stack. */
export interface Variable {
  name: string;
  default?: unknown;
  sensitive: boolean;
  /** Terraform type constraint as synthesized (`string`, `number`, `bool`...), if any. */
  type?: string;
}

/** What value conversion needs from the stack. */
export interface ValueContext {
  variables: ReadonlyMap<string, Variable>;
  env: Record<string, string | undefined>;
  /** Directory `file("...")` paths are relative to. */
  stackDir: string;
  display: (abs: string) => string;
  /** The address a reference names (`tunnelgw_api_key.ci` -> `api_keys.ci`), or why it cannot be one. */
  refAddress: (type: string, name: string) => { address: string } | { error: string };
  filesRead: Set<string>;
  /** Directories `file()` may read under (../file-read.ts > fileRoots). */
  fileRoots: readonly string[];
  fileCache: Map<string, FileRead>;
  problems: ProblemList;
}

/** Longest expression quoted in a message. */
const SHOWN = 80;

/** `text`, shortened for a message. */
export function shown(text: string): string {
  return text.length > SHOWN ? `${text.slice(0, SHOWN - 3)}...` : text;
}

/**
 * Converts the attributes of one resource.
 * @param entries the attributes (meta-arguments already taken out)
 * @param basePath the construct path, which starts every display path
 */
export function convertAttributes(
  kind: KindDescriptor,
  entries: { key: string; keyPos: Position; value: Node }[],
  entryPos: Position,
  basePath: string,
  ctx: ValueContext,
): Interpolated {
  const secret = (pointer: string) => {
    const names = pointer
      .split("/")
      .slice(1)
      .filter((s) => !/^\d+$/.test(s));
    return kind.secretPaths.some((p) => p.join("/") === names.join("/"));
  };
  return convertFields(
    entries,
    entryPos,
    basePath,
    (value, node, pointer, path, out) => {
      const parts = parseTemplate(value);
      if (!parts) return value;
      const report = (message: string) => ctx.problems.add(node.pos, path, message);
      const whole = parts.length === 1 && typeof parts[0] !== "string" ? parts[0] : undefined;
      if (whole?.kind === "ref") {
        const target = ctx.refAddress(whole.type, whole.name);
        if ("error" in target) {
          report(`${whole.text}: ${target.error}`);
          return "";
        }
        out.refs.push({ pointer, target: target.address });
        return { $ref: target.address } satisfies RefValue;
      }
      if (whole?.kind === "var") {
        const value = variableValue(whole, node.pos, path, ctx);
        if (value.sensitive) {
          noteFromEnv(out, pointer);
          if (!secret(pointer)) {
            report(
              `${whole.text} is a sensitive variable, which may only set a secret field (${secretFields(kind)}), as tgw masks those everywhere`,
            );
          }
        }
        return value.value;
      }
      let text = "";
      for (const part of parts) {
        if (typeof part === "string") text += part;
        else text += evaluateInString(part, { kind, pointer, path, pos: node.pos, out, ctx, secret });
      }
      return text;
    },
    mayHoldExpression,
  );
}

interface InString {
  kind: KindDescriptor;
  pointer: string;
  path: string;
  pos: Position;
  out: Interpolated;
  ctx: ValueContext;
  secret: (pointer: string) => boolean;
}

/** The text of an expression inside a longer string ("" after reporting a problem). */
function evaluateInString(expr: Expression, at: InString): string {
  const { ctx, pos, path } = at;
  const report = (message: string) => ctx.problems.add(pos, path, message);
  switch (expr.kind) {
    case "ref":
      report(`${expr.text}: a reference must be the whole value, not part of a string`);
      return "";
    case "var": {
      const value = variableValue(expr, pos, path, ctx);
      if (value.sensitive) {
        noteFromEnv(at.out, at.pointer);
        if (!at.secret(at.pointer)) {
          report(
            `${expr.text} is a sensitive variable, which may only set a secret field (${secretFields(at.kind)}), as tgw masks those everywhere`,
          );
        }
      }
      return value.value === undefined || value.value === null ? "" : String(value.value);
    }
    case "file": {
      if (expr.path.trim() === "") {
        report(`${expr.text}: file() needs a path`);
        return "";
      }
      const abs = isAbsolute(expr.path) ? expr.path : resolve(ctx.stackDir, expr.path);
      ctx.filesRead.add(abs);
      const read = readText(abs, ctx);
      if ("error" in read) {
        report(`cannot read ${shown(expr.text)}: ${read.error} (${ctx.display(abs)})`);
        return "";
      }
      noteFromFile(at.out, at.pointer, ctx.display(abs));
      return read.text;
    }
    case "refused":
      report(`${shown(expr.text)} is ${expr.why}, which tgw does not evaluate`);
      return "";
  }
}

/** The value of `var.NAME`: `TF_VAR_NAME`, else the default. */
function variableValue(
  expr: Extract<Expression, { kind: "var" }>,
  pos: Position,
  path: string,
  ctx: ValueContext,
): { value: unknown; sensitive: boolean } {
  const variable = ctx.variables.get(expr.name);
  if (!variable) {
    ctx.problems.add(pos, path, `${expr.text}: the stack has no variable ${expr.name}`);
    return { value: "", sensitive: false };
  }
  const fromEnv = ctx.env[`TF_VAR_${expr.name}`];
  if (fromEnv === undefined && variable.default === undefined) {
    ctx.problems.add(
      pos,
      path,
      `${expr.text} has no value: set the environment variable TF_VAR_${expr.name}, or give the variable a default`,
    );
    return { value: "", sensitive: variable.sensitive };
  }
  if (fromEnv === undefined) return { value: variable.default, sensitive: variable.sensitive };
  if (variable.type === "number" && fromEnv.trim() !== "" && !Number.isNaN(Number(fromEnv))) {
    return { value: Number(fromEnv), sensitive: variable.sensitive };
  }
  if (variable.type === "bool" && (fromEnv === "true" || fromEnv === "false")) {
    return { value: fromEnv === "true", sensitive: variable.sensitive };
  }
  return { value: fromEnv, sensitive: variable.sensitive };
}

function secretFields(kind: KindDescriptor): string {
  const inputs = new Set(kind.fields.map((f) => f.name));
  const names = kind.secretPaths.filter((p) => inputs.has(p[0] ?? "")).map((p) => p.join("."));
  return names.length > 0 ? `here: ${names.join(", ")}` : `${withArticle(kind.title)} has none`;
}

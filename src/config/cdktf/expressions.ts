/**
 * Terraform expressions in the strings of a synthesized `cdk.tf.json`: CDKTF writes every token
 * (a reference, `Fn.*`, a variable, a local, `each.value`...) as `${...}` inside a JSON string.
 * `tgw` evaluates three kinds and refuses every other one (docs/cdktf.md > What tgw reads):
 *
 * - `${tunnelgw_<type>.<name>.id}`: a reference to another resource of the stack; it must be the
 *   whole string (as `${ref:}` in YAML);
 * - `${var.NAME}`: a `TerraformVariable`, also inside a longer string;
 * - `${file("PATH")}`: the contents of a file (`Fn.file`), also inside a longer string.
 *
 * `$${` is a literal `${` and `%%{` a literal `%{`, as in Terraform.
 */

/** One `${...}` found in a string, classified. */
export type Expression =
  | { kind: "ref"; type: string; name: string; text: string }
  | { kind: "var"; name: string; text: string }
  | { kind: "file"; path: string; text: string }
  | { kind: "refused"; why: string; text: string };

/** A string split into literal text and expressions. */
export type Part = string | Expression;

/**
 * Whether `raw` may hold a `${...}` or `%{...}` (or an escaped `$${` / `%%{`); a string without is
 * literal.
 */
export function mayHoldExpression(raw: string): boolean {
  return raw.includes("${") || raw.includes("%{");
}

/**
 * Splits `raw` into literal parts and `${...}` expressions (braces and quoted strings inside an
 * expression are matched, so `${jsonencode({"a" = "}"})}` is one expression).
 * @returns the parts, or `undefined` when `raw` holds no expression at all
 */
export function parseTemplate(raw: string): Part[] | undefined {
  if (!mayHoldExpression(raw)) return undefined;
  const parts: Part[] = [];
  let literal = "";
  let i = 0;
  while (i < raw.length) {
    if (raw.startsWith("$${", i) || raw.startsWith("%%{", i)) {
      literal += raw.slice(i + 1, i + 3);
      i += 3;
      continue;
    }
    if (raw.startsWith("${", i) || raw.startsWith("%{", i)) {
      const end = closingBrace(raw, i + 2);
      const text = raw.slice(i, end < 0 ? raw.length : end + 1);
      if (literal) parts.push(literal);
      literal = "";
      parts.push(
        raw[i] === "%"
          ? { kind: "refused", why: "a template directive (%{...})", text }
          : end < 0
            ? { kind: "refused", why: "an unterminated expression", text }
            : classify(raw.slice(i + 2, end).trim(), text),
      );
      i = end < 0 ? raw.length : end + 1;
      continue;
    }
    literal += raw[i];
    i++;
  }
  if (literal) parts.push(literal);
  return parts;
}

/** Index of the `}` that closes an expression starting at `from`, or -1. */
function closingBrace(raw: string, from: number): number {
  let depth = 0;
  let quote = false;
  for (let i = from; i < raw.length; i++) {
    const c = raw[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === '"') quote = false;
      continue;
    }
    if (c === '"') quote = true;
    else if (c === "{") depth++;
    else if (c === "}") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

const REF = /^(tunnelgw_[a-z0-9_]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+)$/;
const VAR = /^var\.([A-Za-z_][A-Za-z0-9_-]*)$/;
const FILE = /^file\(\s*"((?:[^"\\]|\\.)*)"\s*\)$/;

function classify(expr: string, text: string): Expression {
  const ref = REF.exec(expr);
  if (ref) {
    const [, type = "", name = "", attribute = ""] = ref;
    if (attribute === "id") return { kind: "ref", type, name, text };
    return {
      kind: "refused",
      why: `a reference to the attribute ${attribute} (tgw resolves only ${type}.${name}.id)`,
      text,
    };
  }
  const variable = VAR.exec(expr);
  if (variable) return { kind: "var", name: variable[1] ?? "", text };
  const file = FILE.exec(expr);
  if (file) return { kind: "file", path: unescapeHcl(file[1] ?? ""), text };
  return { kind: "refused", why: refusal(expr), text };
}

/** What a refused expression is, in the words of CDKTF. */
function refusal(expr: string): string {
  if (/^local\./.test(expr)) return "a local value (TerraformLocal)";
  if (/^(each|count)\./.test(expr)) return "count / for_each (iterators)";
  if (/^data\./.test(expr)) return "a data source";
  if (/^module\./.test(expr)) return "a module call";
  if (/^var\./.test(expr)) return "a variable attribute (use the whole variable)";
  if (/^[a-z][a-z0-9_]*\s*\(/.test(expr)) return "a Terraform function (Fn.*)";
  if (/^tunnelgw_/.test(expr)) return "an expression on a tunnelgw resource";
  if (/^[a-z][a-z0-9]*_[a-z0-9_]*\./.test(expr)) return "a reference to a resource of another provider";
  return "a Terraform expression";
}

function unescapeHcl(s: string): string {
  return s.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r" })[c] ?? c);
}

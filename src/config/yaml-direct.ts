/**
 * The direct path of stage 1 (./source.ts): a parser written for the common configuration file that
 * builds the positioned tree in one pass over the text, several times faster than the `yaml` package,
 * which builds a document of its own that is then converted.
 *
 * Its subset: block mappings and sequences indented with spaces, one-line flow mappings and sequences,
 * plain scalars on one line, single- and double-quoted scalars on one line (the usual escapes),
 * literal (`|`) and folded (`>`) block scalars with any chomping and an optional indentation indicator
 * (inline PEMs are common), comments. Anything else (anchors, aliases, tags, multi-line plain or quoted
 * scalars or flow collections, explicit or complex keys, a key given twice, tabs, carriage returns,
 * control characters, document markers...) makes it return undefined, and the caller parses the file
 * with the `yaml` package, which finds and places every problem. So this path never reports a problem
 * and never decides one.
 *
 * Values follow the YAML 1.2 core schema as the `yaml` package reads it; positions are the ones the
 * `yaml` package gives (an empty value is placed where its text would start). A differential property
 * test (test/config/yaml-direct.test.ts) checks that both give the same tree, positions included.
 *
 * A node or key keeps its line and column as numbers, and its `pos` / `keyPos` object is made when
 * read: only a problem, a rule or a resource's source location reads one, so most are never made
 * (a large file has about eight positions per resource; an object for each cost the load much of its
 * time in garbage collection: bench/README.md).
 */
import type { MapEntry, MapNode, Node, Position, ScalarNode, SeqNode } from "../model/validation/nodes.js";

/** Where a node of the direct path was written; `pos` is made on each read. */
abstract class Placed {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly col: number,
  ) {}

  get pos(): Position {
    return positionOf(this);
  }
}

/** A new `Position` of what keeps its place as numbers (a node, or an entry's key). */
function positionOf(at: { file: string; line: number; col: number }): Position {
  return { file: at.file, line: at.line, col: at.col };
}

class DirectScalar extends Placed implements ScalarNode {
  readonly type = "scalar";
  constructor(
    readonly value: string | number | boolean | null,
    file: string,
    line: number,
    col: number,
  ) {
    super(file, line, col);
  }
}

class DirectMap extends Placed implements MapNode {
  readonly type = "map";
  constructor(
    readonly entries: MapEntry[],
    file: string,
    line: number,
    col: number,
  ) {
    super(file, line, col);
  }
}

class DirectSeq extends Placed implements SeqNode {
  readonly type = "seq";
  constructor(
    readonly items: Node[],
    file: string,
    line: number,
    col: number,
  ) {
    super(file, line, col);
  }
}

/** A mapping entry whose `keyPos` is made on each read, like a node's `pos`. */
class DirectEntry implements MapEntry {
  constructor(
    readonly key: string,
    readonly value: Node,
    readonly file: string,
    readonly line: number,
    readonly col: number,
  ) {}

  get keyPos(): Position {
    return positionOf(this);
  }
}

/**
 * Thrown past `maxNodes` nodes: the file is refused whichever path reads it (the full one counts at
 * least as many: it expands aliases), so it is not read again by the full path, which would build
 * every node first (seconds and hundreds of MB for a file of 200,000 keys).
 */
export class TooManyNodes extends Error {
  constructor(readonly pos: Position) {
    super("too many YAML nodes");
  }
}

/** Thrown when the text leaves the subset; caught by parseYamlDirect. */
class Decline extends Error {}
const DECLINE = new Decline("outside the direct path's subset");
const decline = (): never => {
  throw DECLINE;
};

/**
 * Characters this path never reads: tabs, carriage returns, control and non-characters, the byte
 * order mark, lone surrogates' ranges and the Unicode line separators; and document markers.
 */
const UNSUPPORTED_TEXT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]|^(?:---|\.\.\.|%)/m;

const NL = 0x0a;
const SPACE = 0x20;
const HASH = 0x23;
const COLON = 0x3a;
const DASH = 0x2d;
const COMMA = 0x2c;
const PIPE = 0x7c;
const GT = 0x3e;
const PLUS = 0x2b;

/** Characters that may not start a plain scalar (`-`, `?` and `:` may, before a safe character). */
const INDICATORS = new Set("-?:,[]{}#&*!|>'\"%@`".split("").map((c) => c.charCodeAt(0)));
const FLOW_INDICATORS = new Set([COMMA, 0x5b, 0x5d, 0x7b, 0x7d]);

/**
 * Parses `text` when it is within the direct path's subset.
 * @param file display path used in positions
 * @param maxNodes, maxDepth the full parser's bounds; beyond `maxDepth`, undefined
 * @throws TooManyNodes past `maxNodes` nodes
 * @returns the root node of the file's one document (a mapping or a sequence: a scalar alone
 *   declines), [] for a file with only comments and blank lines, or undefined: try the next path
 */
export function parseYamlDirect(
  file: string,
  text: string,
  maxNodes: number,
  maxDepth: number,
): Node[] | undefined {
  if (UNSUPPORTED_TEXT.test(text)) return undefined;
  try {
    return new DirectParser(file, text, maxNodes, maxDepth).document();
  } catch (err) {
    if (err === DECLINE) return undefined;
    throw err;
  }
}

/**
 * A forward-only reader. `pos` is an offset in the text; `line` and `lineStart` describe the line
 * `pos` is on, so every position is made while its line is current. Block readers start at their
 * first item and return with `pos` at the first character of the next line with content, whose
 * indentation is `indent` (-1 at the end of the text).
 */
class DirectParser {
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private indent = 0;
  private count = 0;
  /**
   * The smallest column (0-based) of a comment line the last `nextLine` passed whose `#` is followed by
   * text (`#x`), or -1. The `yaml` package misreads a plain value on a later line than its key when
   * such a comment, no deeper than the key, comes between (`a:`, `#x`, ` v`, `e: 1`: "v e" as a key).
   */
  private tightComment = -1;

  constructor(
    private readonly file: string,
    private readonly text: string,
    private readonly maxNodes: number,
    private readonly maxDepth: number,
  ) {}

  document(): Node[] {
    this.nextLine();
    if (this.indent === -1) return [];
    const c = this.text.charCodeAt(this.pos);
    let root: Node;
    if (c === 0x5b || c === 0x7b) {
      root = this.flowCollection(0);
      this.endLine();
    } else if (this.isSeqItem()) {
      root = this.blockSeq(this.indent, 0);
    } else {
      root = this.blockMap(this.indent, 0);
    }
    if (this.indent !== -1) decline();
    return [root];
  }

  /** The 1-based column of `offset`, on the current line. */
  private col(offset: number): number {
    return offset - this.lineStart + 1;
  }

  private counted(depth: number): void {
    if (++this.count > this.maxNodes)
      throw new TooManyNodes({ file: this.file, line: this.line, col: this.col(this.pos) });
    if (depth > this.maxDepth) decline();
  }

  /** From a line start: past blank and comment lines, to the first character of a line with content. */
  private nextLine(): void {
    const t = this.text;
    this.tightComment = -1;
    for (;;) {
      let i = this.pos;
      while (t.charCodeAt(i) === SPACE) i++;
      if (t.charCodeAt(i) === HASH) {
        const next = t.charCodeAt(i + 1);
        const col = i - this.lineStart;
        if (
          next !== SPACE &&
          next !== NL &&
          i + 1 < t.length &&
          (this.tightComment === -1 || col < this.tightComment)
        )
          this.tightComment = col;
        i = lineEnd(t, i);
      }
      if (t.charCodeAt(i) === NL) {
        this.newLine(i + 1);
        continue;
      }
      if (i >= t.length) {
        this.pos = i;
        this.indent = -1;
        return;
      }
      this.pos = i;
      this.indent = i - this.lineStart;
      return;
    }
  }

  private newLine(start: number): void {
    this.pos = start;
    this.line++;
    this.lineStart = start;
  }

  /** After a value: spaces and a comment may follow on its line; then to the next line with content. */
  private endLine(): void {
    const t = this.text;
    let i = this.pos;
    while (t.charCodeAt(i) === SPACE) i++;
    if (t.charCodeAt(i) === HASH) {
      if (i === this.pos) decline();
      i = lineEnd(t, i);
    }
    if (t.charCodeAt(i) === NL) this.newLine(i + 1);
    else if (i >= t.length) this.pos = i;
    else decline();
    this.nextLine();
  }

  private isSeqItem(): boolean {
    const t = this.text;
    if (t.charCodeAt(this.pos) !== DASH) return false;
    const next = t.charCodeAt(this.pos + 1);
    return next === SPACE || next === NL || this.pos + 1 >= t.length;
  }

  private blockMap(indent: number, depth: number): Node {
    this.counted(depth);
    const map = new DirectMap([], this.file, this.line, this.col(this.pos));
    const entries = map.entries;
    for (;;) {
      const line = this.line;
      const col = this.col(this.pos);
      const key = this.key();
      if (isDuplicate(entries, key)) decline();
      entries.push(new DirectEntry(key, this.blockValue(indent, depth + 1, true), this.file, line, col));
      if (this.indent < indent) break;
      if (this.indent > indent) decline();
    }
    return map;
  }

  private blockSeq(indent: number, depth: number): Node {
    this.counted(depth);
    const seq = new DirectSeq([], this.file, this.line, this.col(this.pos));
    for (;;) {
      this.pos++; // the `-`
      seq.items.push(this.blockValue(indent, depth + 1, false));
      if (this.indent < indent || (this.indent === indent && !this.isSeqItem())) break;
      if (this.indent > indent) decline();
    }
    return seq;
  }

  /**
   * The value after a mapping key's `:` or a sequence's `-` (at `pos`), in a collection at column
   * `indent` + 1: on the same line, on the lines below, or empty.
   */
  private blockValue(indent: number, depth: number, inMap: boolean): Node {
    const t = this.text;
    let i = this.pos;
    while (t.charCodeAt(i) === SPACE) i++;
    const c = t.charCodeAt(i);
    if (c === NL || i >= t.length || (c === HASH && i > this.pos)) {
      const empty = new DirectScalar(null, this.file, this.line, this.col(i));
      this.endLine();
      if (inMap && this.indent === indent && this.isSeqItem()) return this.blockSeq(indent, depth);
      if (this.indent <= indent) {
        this.counted(depth);
        return empty;
      }
      if (this.isSeqItem()) return this.blockSeq(this.indent, depth);
      if (this.keyEnd() !== -1) return this.blockMap(this.indent, depth);
      if (this.tightComment !== -1 && this.tightComment <= indent) decline();
      return this.inlineValue(depth); // a scalar or flow collection alone on the next line
    }
    this.pos = i;
    if (c === PIPE || c === GT) return this.blockScalar(indent, depth);
    if (!inMap && this.isSeqItem()) return this.blockSeq(i - this.lineStart, depth);
    if (!inMap && this.keyEnd() !== -1) return this.blockMap(i - this.lineStart, depth);
    return this.inlineValue(depth);
  }

  /**
   * A literal (`|`) or folded (`>`) block scalar whose header is at `pos`, the value of an entry of the
   * collection at column `indent` (0-based: the spec's n). Returns with `pos` at the next line with
   * content, like the block readers. Declined: a header other than `|`/`>` with an optional
   * indentation indicator and chomping indicator; lines of spaces only that are deeper than the content
   * before its first line (an error, or the indentation when there is no content) or after an
   * indentation indicator, or that end the text without a line break.
   */
  private blockScalar(indent: number, depth: number): DirectScalar {
    this.counted(depth);
    const line = this.line;
    const col = this.col(this.pos);
    const header = this.blockHeader();
    if (header === undefined) return new DirectScalar("", this.file, line, col);
    const { folded, chomp, explicit } = header;
    const contentIndent = explicit === 0 ? this.blockIndent(indent) : indent + explicit;
    const body = this.blockLines(contentIndent, folded, explicit !== 0);
    // The last line's break is kept (clip, keep) also at the end of a text without one, as the `yaml`
    // package reads it.
    let value = body.value;
    if (!body.seen) value = chomp === 1 ? "\n".repeat(body.blanks) : "";
    else if (chomp === 0) value += "\n";
    else if (chomp === 1) value += "\n".repeat(body.blanks + 1);
    this.nextLine();
    return new DirectScalar(value, this.file, line, col);
  }

  /**
   * The header of a block scalar at `pos` (`|` or `>`, then a chomping and an indentation indicator
   * in either order, then an optional comment); leaves `pos` at the next line. Undefined when the
   * header ends the text (no body).
   */
  private blockHeader(): { folded: boolean; chomp: -1 | 0 | 1; explicit: number } | undefined {
    const t = this.text;
    const folded = t.charCodeAt(this.pos) === GT;
    let i = this.pos + 1;
    let chomp: -1 | 0 | 1 = 0; // -1 strip, 0 clip, 1 keep
    let explicit = 0;
    for (let k = 0; k < 2; k++) {
      const c = t.charCodeAt(i);
      if ((c === DASH || c === PLUS) && chomp === 0) chomp = c === DASH ? -1 : 1;
      else if (c >= 0x31 && c <= 0x39 && explicit === 0) explicit = c - 0x30;
      else break;
      i++;
    }
    let j = i;
    while (t.charCodeAt(j) === SPACE) j++;
    if (t.charCodeAt(j) === HASH) {
      if (j === i) decline();
      j = lineEnd(t, j);
    }
    if (j >= t.length) {
      // The header ends the text: no body, no line break.
      this.pos = j;
      this.nextLine();
      return undefined;
    }
    if (t.charCodeAt(j) !== NL) decline();
    this.newLine(j + 1);
    return { folded, chomp, explicit };
  }

  /**
   * The content's indentation without an indicator: that of the first line with content (deeper than
   * the parent at `indent`), read ahead from `pos` without moving it.
   */
  private blockIndent(indent: number): number {
    const t = this.text;
    let deepestBlank = 0;
    let contentIndent = indent + 1; // when no line has content: every line is blank or ends the scalar
    for (let at = this.pos; ; ) {
      let s = at;
      while (t.charCodeAt(s) === SPACE) s++;
      const spaces = s - at;
      if (s < t.length && t.charCodeAt(s) !== NL) {
        if (spaces > indent) contentIndent = spaces;
        break;
      }
      if (spaces > deepestBlank) deepestBlank = spaces;
      if (s >= t.length) break;
      at = s + 1;
    }
    // YAML makes deeper leading blank lines an error, or (with no content) the indentation.
    if (deepestBlank > contentIndent || (deepestBlank > indent && contentIndent === indent + 1)) decline();
    return contentIndent;
  }

  /**
   * The lines of a block scalar's body at `contentIndent`, folded or not, up to the first line less
   * indented; `explicit`: the header gave the indentation. Returns the value before chomping, whether
   * a line had content, and the blank lines after the last one.
   */
  private blockLines(
    contentIndent: number,
    folded: boolean,
    explicit: boolean,
  ): { value: string; seen: boolean; blanks: number } {
    const t = this.text;
    let value = "";
    let seen = false; // a line of content was read
    let lastMore = false; // the last one was more indented (kept as written when folded)
    let blanks = 0; // blank lines since the last line of content, or since the header
    for (;;) {
      const start = this.pos;
      let s = start;
      while (t.charCodeAt(s) === SPACE) s++;
      const spaces = s - start;
      const c = t.charCodeAt(s);
      if (s >= t.length || c === NL) {
        // A line of spaces only: blank up to the content's indentation, content (the spaces beyond
        // it) when deeper. Declined when deeper before the first line of content, or after an
        // indentation indicator (the `yaml` package then drops such lines at the end unless as deep
        // as the first line), or when it ends the text.
        if (s >= t.length ? spaces > 0 : spaces > contentIndent && (!seen || explicit)) decline();
        if (s >= t.length) break;
        if (spaces <= contentIndent) {
          blanks++;
          this.newLine(s + 1);
          continue;
        }
      }
      if (spaces < contentIndent) break; // the scalar ends: a comment or the next entry
      const end = lineEnd(t, s);
      const text = t.slice(start + contentIndent, end);
      const more = spaces > contentIndent;
      if (!seen) value = blanks === 0 ? text : "\n".repeat(blanks) + text;
      else if (folded && !more && !lastMore) value += blanks === 0 ? ` ${text}` : "\n".repeat(blanks) + text;
      else value += "\n".repeat(blanks + 1) + text;
      seen = true;
      lastMore = more;
      blanks = 0;
      if (end >= t.length) {
        this.pos = end;
        break;
      }
      this.newLine(end + 1);
    }
    return { value, seen, blanks };
  }

  /** A scalar or a flow collection at `pos`, ending its line. */
  private inlineValue(depth: number): Node {
    const c = this.text.charCodeAt(this.pos);
    const node = c === 0x5b || c === 0x7b ? this.flowCollection(depth) : this.scalar(false, depth);
    this.endLine(); // a deeper line next (a continuation or a mistake) declines in the caller
    return node;
  }

  /** Where the mapping key at `pos` ends (its `:`), or -1 when `pos` is not at a supported key. */
  private keyEnd(): number {
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    let end: number;
    if (c === 0x22 || c === 0x27) end = quotedEnd(t, this.pos);
    else if (startsPlain(t, this.pos, false)) end = plainEnd(t, this.pos, false);
    else return -1;
    if (end === -1 || t.charCodeAt(end) !== COLON) return -1;
    const after = t.charCodeAt(end + 1);
    return after === SPACE || after === NL || end + 1 >= t.length ? end : -1;
  }

  /** A block mapping key and its `:`; `pos` moves past the `:`. */
  private key(): string {
    const end = this.keyEnd();
    if (end === -1) decline();
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    let key: string;
    if (c === 0x22 || c === 0x27) {
      key = unquote(t, this.pos, end);
    } else {
      const value = resolvePlain(t.slice(this.pos, end));
      if (typeof value !== "string" || value === "<<") decline();
      key = value as string;
    }
    if (key === "") decline();
    this.pos = end + 1;
    return key;
  }

  /** A quoted or plain scalar at `pos`; `pos` moves past it. */
  private scalar(flow: boolean, depth: number): DirectScalar {
    this.counted(depth);
    const t = this.text;
    const start = this.pos;
    const c = t.charCodeAt(start);
    let value: string | number | boolean | null;
    if (c === 0x22 || c === 0x27) {
      const end = quotedEnd(t, start);
      if (end === -1) decline();
      value = unquote(t, start, end);
      this.pos = end;
    } else {
      if (!startsPlain(t, start, flow)) decline();
      const end = plainEnd(t, start, flow);
      value = resolvePlain(t.slice(start, end));
      this.pos = end;
    }
    return new DirectScalar(value, this.file, this.line, this.col(start));
  }

  /** A flow mapping or sequence on one line, at `pos`; `pos` moves past its closing bracket. */
  private flowCollection(depth: number): Node {
    this.counted(depth);
    const t = this.text;
    const map = t.charCodeAt(this.pos) === 0x7b;
    const close = map ? 0x7d : 0x5d;
    const line = this.line;
    const col = this.col(this.pos);
    const entries: MapEntry[] = [];
    const items: Node[] = [];
    this.pos++;
    this.skipSpaces();
    if (t.charCodeAt(this.pos) === close) {
      this.pos++;
      return map ? new DirectMap(entries, this.file, line, col) : new DirectSeq(items, this.file, line, col);
    }
    for (;;) {
      if (map) {
        const quoted = isQuote(t, this.pos);
        const keyNode = this.scalar(true, depth + 1);
        this.count--; // a key is not a node of its own
        if (typeof keyNode.value !== "string" || keyNode.value === "" || keyNode.value === "<<") decline();
        const key = keyNode.value as string;
        if (isDuplicate(entries, key)) decline();
        if (t.charCodeAt(this.pos) !== COLON) decline();
        this.pos++;
        // After a plain key, `:` needs a space (`{a:1}` is one plain scalar in YAML).
        if (t.charCodeAt(this.pos) !== SPACE && !quoted) decline();
        this.skipSpaces();
        const value = this.flowValue(depth + 1);
        entries.push(new DirectEntry(key, value, this.file, keyNode.line, keyNode.col));
      } else {
        items.push(this.flowValue(depth + 1));
        if (t.charCodeAt(this.pos) === COLON) decline(); // an implicit single-pair mapping
      }
      this.skipSpaces();
      const c = t.charCodeAt(this.pos);
      this.pos++;
      if (c === close) break;
      if (c !== COMMA) decline();
      this.skipSpaces();
      if (t.charCodeAt(this.pos) === close) decline(); // a trailing comma: left to the full parser
    }
    return map ? new DirectMap(entries, this.file, line, col) : new DirectSeq(items, this.file, line, col);
  }

  private flowValue(depth: number): Node {
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x5b || c === 0x7b) return this.flowCollection(depth);
    if (c === COMMA || c === 0x5d || c === 0x7d || c === HASH) decline();
    return this.scalar(true, depth);
  }

  private skipSpaces(): void {
    while (this.text.charCodeAt(this.pos) === SPACE) this.pos++;
  }
}

/** Keys of the mappings with more than a few entries (a file's top level holds thousands). */
const keySets = new WeakMap<MapEntry[], Set<string>>();

/** Whether `key` is already in `entries`; call it before adding each entry. */
function isDuplicate(entries: MapEntry[], key: string): boolean {
  if (entries.length < 8) {
    for (const entry of entries) if (entry.key === key) return true;
    return false;
  }
  let keys = keySets.get(entries);
  if (keys === undefined) {
    keys = new Set(entries.map((entry) => entry.key));
    keySets.set(entries, keys);
  }
  if (keys.has(key)) return true;
  keys.add(key);
  return false;
}

function isQuote(t: string, i: number): boolean {
  const c = t.charCodeAt(i);
  return c === 0x22 || c === 0x27;
}

/** The offset of the line break ending the line that holds `i`, or the text's length. */
function lineEnd(t: string, i: number): number {
  const end = t.indexOf("\n", i);
  return end === -1 ? t.length : end;
}

/** Whether a plain scalar may start at `i`: not an indicator, or `-?:` before a safe character. */
function startsPlain(t: string, i: number, flow: boolean): boolean {
  const c = t.charCodeAt(i);
  if (i >= t.length || c === SPACE || c === NL) return false;
  if (!INDICATORS.has(c)) return true;
  if (c !== DASH && c !== 0x3f && c !== COLON) return false;
  const next = t.charCodeAt(i + 1);
  return !(i + 1 >= t.length || next === SPACE || next === NL || (flow && FLOW_INDICATORS.has(next)));
}

/**
 * Where the one-line plain scalar starting at `i` ends, trailing spaces excluded: before `: ` (or `:`
 * at the line's end), ` #`, the line break, and in a flow collection before `,[]{}` and `:` followed
 * by one of them.
 */
function plainEnd(t: string, i: number, flow: boolean): number {
  let end = i;
  let j = i;
  for (; j < t.length; j++) {
    const c = t.charCodeAt(j);
    if (c === NL) break;
    if (c === SPACE) continue;
    if (c === COLON) {
      const next = t.charCodeAt(j + 1);
      if (next === SPACE || next === NL || j + 1 >= t.length || (flow && FLOW_INDICATORS.has(next))) break;
    } else if (c === HASH && t.charCodeAt(j - 1) === SPACE) {
      break;
    } else if (flow && FLOW_INDICATORS.has(c)) {
      break;
    }
    end = j + 1;
  }
  return end;
}

/** Where the quoted scalar starting at `i` ends (past its closing quote), or -1 if not on this line. */
function quotedEnd(t: string, i: number): number {
  const quote = t.charCodeAt(i);
  for (let j = i + 1; j < t.length; j++) {
    const c = t.charCodeAt(j);
    if (c === NL) return -1;
    if (quote === 0x22 && c === 0x5c) {
      // An escaped line break continues the scalar on the next line: not one line.
      if (t.charCodeAt(j + 1) === NL) return -1;
      j++;
    } else if (c === quote) {
      if (quote === 0x27 && t.charCodeAt(j + 1) === 0x27) j++;
      else return j + 1;
    }
  }
  return -1;
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  n: "\n",
  t: "\t",
  r: "\r",
  "0": "\0",
};

/** The value of the quoted scalar `t[start, end)`; escapes other than ESCAPES and `\uXXXX` decline. */
function unquote(t: string, start: number, end: number): string {
  const body = t.slice(start + 1, end - 1);
  if (t.charCodeAt(start) === 0x27) return body.includes("'") ? body.replaceAll("''", "'") : body;
  if (!body.includes("\\")) return body;
  // `[\s\S]`, not `.`: a backslash before any character, line breaks included, is read or declined.
  return body.replace(/\\(u[0-9a-fA-F]{4}|[\s\S])/g, (_, e: string) => {
    if (e.length === 5) return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    return ESCAPES[e] ?? decline();
  });
}

const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const BOOLS = new Map([
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ["false", false],
  ["False", false],
  ["FALSE", false],
]);
const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INF_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;

/** A plain scalar's value under the YAML 1.2 core schema (the `yaml` package's reading). */
export function resolvePlain(s: string): string | number | boolean | null {
  if (s === "") return null;
  const c = s.charCodeAt(0);
  // Only text starting with a digit, a sign, a dot or one of `~nNtTfF` can be other than a string.
  if (
    !(
      c <= 0x39 ||
      c === 0x7e ||
      c === 0x6e ||
      c === 0x4e ||
      c === 0x74 ||
      c === 0x54 ||
      c === 0x66 ||
      c === 0x46
    )
  ) {
    return s;
  }
  if (NULLS.has(s)) return null;
  const bool = BOOLS.get(s);
  if (bool !== undefined) return bool;
  if (INT.test(s)) return Number.parseInt(s, 10);
  if (OCT.test(s)) return Number.parseInt(s.slice(2), 8);
  if (HEX.test(s)) return Number.parseInt(s.slice(2), 16);
  if (FLOAT.test(s)) return Number.parseFloat(s);
  if (INF_NAN.test(s))
    return s.endsWith("nan") || s.endsWith("NaN") || s.endsWith("NAN")
      ? Number.NaN
      : s[0] === "-"
        ? -Infinity
        : Infinity;
  return s;
}

/** JSON pointers (RFC 6901), as Ajv's `instancePath` and the configuration's value positions write them. */

/** The unescaped names of a JSON pointer (`~1` is `/`, `~0` is `~`): `/a~1b/0` -> `["a/b", "0"]`. */
export function pointerSegments(pointer: string): string[] {
  return pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

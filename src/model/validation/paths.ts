/**
 * Field paths as shown to people: `api_keys.ci.description`, `event_subscriptions.all.sources[0].type`,
 * `tunnel_group_backends.web.labels["app.kubernetes.io/name"]`. A key made of letters, digits, `_`
 * and `-` is joined with a dot; any other key is quoted in brackets so the path stays unambiguous.
 */

const PLAIN_KEY = /^[A-Za-z0-9_-]+$/;

/** The path of `key` inside the mapping at `parent` ("" is the document root). */
export function childPath(parent: string, key: string): string {
  if (!PLAIN_KEY.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent === "" ? key : `${parent}.${key}`;
}

/** The path of item `index` of the list at `parent`. */
export function itemPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

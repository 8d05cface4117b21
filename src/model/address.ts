/**
 * Resource names and addresses (DECISIONS.md section 2): a resource's address is
 * `<collection>.<name>`, for example `api_keys.ci`; modules are addressed by their path instead.
 */

/** Names of resources: lower-case letters, digits, `_` and `-`, starting with a letter or digit. */
export const NAME_PATTERN = "^[a-z0-9][a-z0-9_-]{0,62}$";

const ADDRESS = new RegExp(`^([a-z0-9_]+)\\.(${NAME_PATTERN.slice(1, -1)})$`);

/**
 * Splits a resource address into its collection and name.
 * @returns undefined when `address` is not `<collection>.<name>` with a valid name (the collection
 *   is not checked against the kinds).
 */
export function parseAddress(address: string): { collection: string; name: string } | undefined {
  const match = ADDRESS.exec(address);
  return match ? { collection: match[1] as string, name: match[2] as string } : undefined;
}

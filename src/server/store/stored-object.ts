/** The shape of one stored object: what ./resource-store.ts returns and ./object-cache.ts keeps. */

/** A stored object of any kind. `body` is plain JSON data. */
export interface StoredObject {
  /** Insertion order, only ever growing: newest first is `seq` descending. */
  seq: number;
  kind: string;
  id: string;
  /** The object it hangs off (a route's edge, a module's edge or route), or null. */
  parentId: string | null;
  /** RFC 3339. */
  createdAt: string;
  updatedAt: string;
  /** The user or bot whose key created it; null for fixtures and objects older than accounts. */
  createdBy: string | null;
  body: Record<string, unknown>;
}

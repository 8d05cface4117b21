/**
 * A free TCP port for a test: the one the OS gives a server listening on 127.0.0.1 port 0, closed
 * again before the port is returned. Every test that needs a free port takes it from here.
 *
 * The race it accepts: the port is free when returned, not reserved. Between the close and the moment
 * the caller's own server binds it (a `tgw watch --health-port`, a PostgreSQL server), another process
 * may take it, as a listener or as the local port of an outgoing connection (both come from the OS's
 * ephemeral range), and that server then fails with EADDRINUSE. The window lasts until that server
 * binds (seconds for a child process on a loaded machine), but the range holds thousands of ports, so
 * this is rare; a port picked at random may instead be held already, for as long as its holder runs
 * (test/cli/commands/exfiltration.test.ts picked its health port so, and failed once on a loaded machine).
 * Where a server can bind port 0 itself and say which port it got, prefer that: no race at all.
 *
 * Also a port nothing listens on, for tests of a refused connection.
 */
import { createServer } from "node:net";

/** A port on 127.0.0.1 that nothing listened on when it was returned (see the race above). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The plugin's certificate (src/terraform/tls.ts) and the DER writer under it (src/terraform/der.ts):
 * node:crypto reads the certificate with the fields go-plugin relies on, and it works in a real TLS
 * handshake with client-certificate checking, both ways, as between Terraform and the provider.
 */
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { connect, createServer, type TLSSocket } from "node:tls";
import { describe, expect, it } from "vitest";
import { integer, namedBits, octetString, oid, setOf, time, tlv } from "../../src/terraform/der.js";
import { type OwnCertificate, selfSignedCertificate } from "../../src/terraform/tls.js";

const hex = (b: Buffer) => b.toString("hex");

describe("the DER writer", () => {
  it("writes short and long lengths", () => {
    expect(hex(tlv(0x04, Buffer.alloc(3)))).toBe("0403000000");
    expect(hex(tlv(0x04, Buffer.alloc(200)).subarray(0, 3))).toBe("0481c8");
    expect(hex(tlv(0x04, Buffer.alloc(300)).subarray(0, 4))).toBe("0482012c");
  });

  it("writes integers in their shortest two's complement form", () => {
    expect(hex(integer(2))).toBe("020102");
    expect(hex(integer(0))).toBe("020100");
    expect(hex(integer(128))).toBe("02020080");
    expect(hex(integer(Buffer.from("0000ff", "hex")))).toBe("020200ff");
    expect(() => integer(-1)).toThrow(RangeError);
  });

  it("writes object identifiers in base 128", () => {
    expect(hex(oid("1.2.840.10045.4.3.2"))).toBe("06082a8648ce3d040302");
    expect(hex(oid("2.5.29.17"))).toBe("0603551d11");
    expect(() => oid("1")).toThrow(RangeError);
  });

  it("drops the trailing zero bits of a named bit list, and sorts a SET OF", () => {
    expect(hex(namedBits([0, 2, 5]))).toBe("030202a4");
    expect(hex(namedBits([8]))).toBe("0303070080");
    expect(hex(setOf(octetString(Buffer.from([2])), octetString(Buffer.from([1]))))).toBe("3106040101040102");
  });

  it("writes UTCTime up to 2049 and GeneralizedTime from 2050", () => {
    expect(time(new Date("2026-12-08T01:24:05.999Z")).toString("latin1")).toBe("\x17\x0d261208012405Z");
    expect(time(new Date("2050-01-01T00:00:00Z")).toString("latin1")).toBe("\x18\x0f20500101000000Z");
  });
});

describe("the plugin's certificate", () => {
  it("is a self-signed CA for localhost, for server and client auth, valid for 30 days", () => {
    const now = Date.parse("2026-03-01T12:00:00Z");
    const own = selfSignedCertificate("localhost", now);
    const cert = new X509Certificate(own.der);
    expect(cert.raw.equals(new X509Certificate(own.certPem).raw)).toBe(true);
    expect(cert.subject).toBe("CN=localhost\nO=tunnelgw");
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.subjectAltName).toBe("DNS:localhost");
    expect(cert.ca).toBe(true);
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
    expect(cert.checkHost("localhost")).toBe("localhost");
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: "prime256v1" });
    expect(new Date(cert.validFrom).toISOString()).toBe("2026-03-01T11:59:00.000Z");
    expect(new Date(cert.validTo).toISOString()).toBe("2026-03-31T12:00:00.000Z");
    expect(cert.serialNumber).toMatch(/^[1-7][0-9A-F]{15}$/);
    // Key usage (critical): digitalSignature, keyEncipherment, keyCertSign; basic constraints critical.
    expect(hex(own.der)).toContain("0603551d0f0101ff0404030202a4");
    expect(hex(own.der)).toContain("0603551d130101ff040530030101ff");
    expect(cert.toLegacyObject().ext_key_usage).toEqual(["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
  });

  it("serves mutual TLS with only the peer's certificate trusted, and refuses any other client", async () => {
    const server = selfSignedCertificate("localhost");
    const client = selfSignedCertificate("localhost");
    const stranger = selfSignedCertificate("localhost");
    expect(await handshake(server, client, client)).toBe("ok");
    expect(await handshake(server, client, stranger)).not.toBe("ok");
  });
});

/** Connects `client` to a server of `server` trusting only `trusted`; "ok" or what went wrong. */
async function handshake(
  server: OwnCertificate,
  trusted: OwnCertificate,
  client: OwnCertificate,
): Promise<string> {
  const tlsServer = createServer({
    key: server.keyPem,
    cert: server.certPem,
    ca: [trusted.certPem],
    requestCert: true,
    rejectUnauthorized: true,
  });
  tlsServer.on("secureConnection", (socket: TLSSocket) => socket.end("hello"));
  tlsServer.on("tlsClientError", () => {});
  tlsServer.listen(0, "127.0.0.1");
  await once(tlsServer, "listening");
  const { port } = tlsServer.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve) => {
      const socket = connect({
        host: "127.0.0.1",
        port,
        servername: "localhost",
        ca: [server.certPem],
        key: client.keyPem,
        cert: client.certPem,
      });
      let data = "";
      socket.on("data", (d: Buffer) => {
        data += d.toString();
      });
      socket.on("end", () => resolve(data === "hello" ? "ok" : `no data (${data})`));
      socket.on("error", (err) => resolve(err.message));
    });
  } finally {
    tlsServer.close();
  }
}

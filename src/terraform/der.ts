/**
 * A small ASN.1 DER writer (ITU-T X.690 section 10, the distinguished encoding): just the types an
 * X.509 certificate (RFC 5280) is made of. Each function returns one complete encoding (tag, length,
 * contents) as a Buffer; constructed types take their members already encoded. Nothing here parses.
 */

/** One encoding: `tag` (one byte, class and constructed bit included), the definite length, `body`. */
export function tlv(tag: number, body: Buffer): Buffer {
  const n = body.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

/** SEQUENCE of the encoded `members`, in order. */
export function sequence(...members: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(members));
}

/** SET OF the encoded `members`, sorted by their encodings as DER requires (X.690 11.6). */
export function setOf(...members: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat([...members].sort(Buffer.compare)));
}

/** BOOLEAN: `true` is 0xFF, as DER requires. */
export function boolean(value: boolean): Buffer {
  return tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
}

/**
 * INTEGER of a non-negative number given as big-endian unsigned bytes (a serial number) or as a
 * small non-negative integer: the shortest two's complement form, a 0x00 first when the top bit is set.
 * @throws RangeError for a negative or unsafe number.
 */
export function integer(value: Buffer | number): Buffer {
  let bytes: Buffer;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a DER integer here: ${value}`);
    const digits: number[] = [];
    for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) digits.unshift(rest % 256);
    bytes = Buffer.from(digits);
  } else bytes = value;
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  bytes = bytes.subarray(start);
  if (bytes.length === 0) bytes = Buffer.from([0]);
  if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(0x02, bytes);
}

/**
 * OBJECT IDENTIFIER from its dotted form (`"1.2.840.10045.4.3.2"`): the first two arcs in one number,
 * every arc in base 128 with the high bit on all bytes but the last (X.690 8.19).
 * @throws RangeError when the text is not a dotted OID of at least two arcs.
 */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split(".").map(Number);
  const [first, second] = arcs;
  if (first === undefined || second === undefined || arcs.some((a) => !Number.isSafeInteger(a) || a < 0))
    throw new RangeError(`not an object identifier: ${dotted}`);
  const out: number[] = [];
  for (const arc of [first * 40 + second, ...arcs.slice(2)]) {
    const digits = [arc % 128];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128))
      digits.unshift(0x80 | (rest % 128));
    out.push(...digits);
  }
  return tlv(0x06, Buffer.from(out));
}

/** OCTET STRING holding `bytes`. */
export function octetString(bytes: Buffer): Buffer {
  return tlv(0x04, bytes);
}

/** BIT STRING of whole bytes (no unused bits): a public key, a signature. */
export function bitString(bytes: Buffer): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));
}

/**
 * BIT STRING of a named bit list (X.690 11.2.2: trailing zero bits dropped), bit 0 the first (most
 * significant) bit: RFC 5280 KeyUsage.
 * @param bits the numbers of the bits that are set, from 0
 */
export function namedBits(bits: number[]): Buffer {
  if (bits.length === 0) return tlv(0x03, Buffer.from([0]));
  const used = Math.max(...bits) + 1;
  const bytes = Buffer.alloc(Math.ceil(used / 8));
  for (const bit of bits) bytes[bit >> 3] = (bytes[bit >> 3] ?? 0) | (0x80 >> (bit & 7));
  return tlv(0x03, Buffer.concat([Buffer.from([bytes.length * 8 - used]), bytes]));
}

/**
 * PrintableString (`A-Z a-z 0-9 '()+,-./:=?` and space).
 * @throws RangeError for any other character.
 */
export function printableString(text: string): Buffer {
  if (!/^[A-Za-z0-9 '()+,\-./:=?]*$/.test(text)) throw new RangeError(`not a PrintableString: ${text}`);
  return tlv(0x13, Buffer.from(text, "ascii"));
}

/**
 * The time as RFC 5280 section 4.1.2.5 wants it: UTCTime `YYMMDDHHMMSSZ` for the years 1950-2049,
 * GeneralizedTime `YYYYMMDDHHMMSSZ` otherwise; whole seconds (milliseconds dropped), UTC.
 */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(0x17, Buffer.from(digits.slice(2), "ascii"));
  return tlv(0x18, Buffer.from(digits, "ascii"));
}

/** A context-specific, constructed, explicit tag `[n]` around one encoding (n < 31). */
export function explicit(n: number, inner: Buffer): Buffer {
  return tlv(0xa0 | n, inner);
}

/** A context-specific, primitive, implicit tag `[n]` on `body` (n < 31): a GeneralName's dNSName is `[2]`. */
export function implicit(n: number, body: Buffer): Buffer {
  return tlv(0x80 | n, body);
}

import { createSocket } from 'node:dgram';

/**
 * A DNS server on loopback that answers TXT questions from a table, in the real wire format (RFC 1035):
 * what a verified-domain check asks through Node's resolver (CADRE_DNS_SERVERS). A name it holds no record
 * for is NXDOMAIN; any other question type gets an empty answer.
 */
export interface DnsServer {
  /** `127.0.0.1:port`, as CADRE_DNS_SERVERS takes it. */
  address: string;
  setTxt(name: string, values: string[]): void;
  remove(name: string): void;
  /** Questions asked so far, `name TYPE`. */
  asked: string[];
  close(): Promise<void>;
}

const TXT = 16;

function readName(message: Buffer, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let offset = start;
  for (let length = message[offset]!; length !== 0; length = message[offset]!) {
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('latin1'));
    offset += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), end: offset + 1 };
}

/** One TXT record's data: each value as character-strings of at most 255 bytes. */
function txtData(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length || at === 0; at += 255) {
    const chunk = bytes.subarray(at, at + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
    if (bytes.length === 0) break;
  }
  return Buffer.concat(parts);
}

export async function startDnsServer(): Promise<DnsServer> {
  const records = new Map<string, string[]>();
  const asked: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    if (query.length < 12) return;
    const { name, end } = readName(query, 12);
    const type = query.readUInt16BE(end);
    asked.push(`${name} ${type === TXT ? 'TXT' : type}`);
    const question = query.subarray(12, end + 4);
    const values = records.get(name);
    const answers = type === TXT && values ? values : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    // QR, the query's RD, RA; RCODE 3 (NXDOMAIN) for a name without records.
    header.writeUInt16BE(0x8080 | (query.readUInt16BE(2) & 0x0100) | (values ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const body = answers.map((value) => {
      const data = txtData(value);
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      fixed.writeUInt16BE(TXT, 2);
      fixed.writeUInt16BE(1, 4); // IN
      fixed.writeUInt32BE(60, 6);
      fixed.writeUInt16BE(data.length, 10);
      return Buffer.concat([fixed, data]);
    });
    socket.send(Buffer.concat([header, question, ...body]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    setTxt: (name, values) => records.set(name.toLowerCase(), values),
    remove: (name) => records.delete(name.toLowerCase()),
    asked,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

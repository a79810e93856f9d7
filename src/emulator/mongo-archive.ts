// A mongodump --archive as mongo-tools writes it (archive/prelude.go,
// multiplexer.go), for the demo's MongoDB job: the magic number, the prelude
// (a header document, one metadata document per collection, a terminator),
// then per collection a namespace header, its documents and a terminator, and
// an EOF header carrying the CRC-64/ECMA of the documents' bytes. Documents
// are real BSON (the bson package), drawn from a seeded generator.
import { BSON, Binary, Decimal128, Long, ObjectId } from 'bson';
import { Crc64 } from '../util/crc64.js';
import { pick, randInt, type Rng } from './util.js';

const TERMINATOR = Buffer.from([0xff, 0xff, 0xff, 0xff]);
const MAGIC = Buffer.from([0x6d, 0xe2, 0x99, 0x81]);
/** 2024-03-01T00:00:00Z. */
const EPOCH_MS = 1_709_251_200_000;
const PATHS = ['/', '/pricing', '/docs/install', '/blog/restore-tests', '/login', '/account', '/checkout', '/docs/api'];
const AGENTS = ['Mozilla/5.0 (X11; Linux x86_64)', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4)', 'curl/8.5.0', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_3)'];
const COUNTRIES = ['DE', 'FR', 'JP', 'US', 'NL', 'GB', 'BR'];

function objectId(rng: Rng): ObjectId {
  const bytes = Buffer.alloc(12);
  for (let i = 0; i < 12; i++) bytes[i] = randInt(rng, 0, 255);
  return new ObjectId(bytes);
}

type Maker = (rng: Rng, i: number, text: string) => Record<string, unknown>;

const COLLECTIONS: Array<[string, Maker]> = [
  ['users', (rng, i, text) => ({ _id: objectId(rng), user_id: i + 1, email: `user${i + 1}@example.org`, country: pick(rng, COUNTRIES), created: new Date(EPOCH_MS - randInt(rng, 0, 400) * 86_400_000), plan: pick(rng, ['free', 'pro', 'team']), bio: text })],
  ['sessions', (rng, i, text) => ({ _id: objectId(rng), session: new Binary(Buffer.from(Array.from({ length: 16 }, () => randInt(rng, 0, 255)))), user_id: randInt(rng, 1, 200), started: new Date(EPOCH_MS - randInt(rng, 0, 86_400) * 1000), pages: randInt(rng, 1, 30), n: i, trail: text })],
  ['pageviews', (rng, i, text) => ({ _id: objectId(rng), ts: new Date(EPOCH_MS - randInt(rng, 0, 86_400_000)), path: pick(rng, PATHS), ua: pick(rng, AGENTS), ms: randInt(rng, 3, 2400), bytes: Long.fromNumber(randInt(rng, 200, 2_000_000)), seq: i, referrer_text: text })],
  ['orders', (rng, i, text) => ({ _id: objectId(rng), order: i + 1, user_id: randInt(rng, 1, 200), total: Decimal128.fromString(`${randInt(rng, 1, 999)}.${String(randInt(rng, 0, 99)).padStart(2, '0')}`), items: Array.from({ length: randInt(rng, 1, 4) }, () => ({ sku: `SKU-${randInt(rng, 100, 999)}`, qty: randInt(rng, 1, 5) })), paid: rng() < 0.9, note: text })],
];

/** At most this many documents per collection (a few hundred, as a real small database): larger archives get longer text fields. */
const MAX_PER_COLLECTION = 300;
/** The fixed fields of a document, about. */
const BASE_DOCUMENT = 150;

/**
 * A mongodump archive of the database `db`, about `budget` bytes (at least a few documents per
 * collection); `text(rng, n)` draws a text field of n characters.
 */
export function mongodumpArchive(rng: Rng, db: string, budget: number, text: (rng: Rng, n: number) => string = (_r, n) => 'x'.repeat(n)): Buffer {
  const perCollection = Math.max(3, Math.min(MAX_PER_COLLECTION, Math.floor(budget / 4 / BASE_DOCUMENT)));
  const textLength = Math.max(0, Math.floor(budget / 4 / perCollection) - BASE_DOCUMENT);
  const bodies: Buffer[] = [];
  const metadata: Buffer[] = [];
  for (const [name, make] of COLLECTIONS) {
    const docs = Array.from({ length: perCollection }, (_, i) => Buffer.from(BSON.serialize(make(rng, i, textLength ? text(rng, randInt(rng, Math.floor(textLength / 2), textLength * 2)) : ''))));
    const crc = new Crc64();
    for (const d of docs) crc.update(d);
    const size = docs.reduce((n, d) => n + d.length, 0);
    metadata.push(
      Buffer.from(
        BSON.serialize({
          db,
          collection: name,
          metadata: JSON.stringify({ indexes: [{ v: 2, key: { _id: 1 }, name: '_id_' }], collectionName: name, type: 'collection' }),
          size,
          type: 'collection',
        }),
      ),
    );
    // mongodump writes a collection's documents in blocks of a few, each under its namespace header.
    for (let at = 0; at < docs.length; at += 50) {
      bodies.push(Buffer.from(BSON.serialize({ db, collection: name, EOF: false, CRC: Long.fromNumber(0) })), ...docs.slice(at, at + 50), TERMINATOR);
    }
    bodies.push(Buffer.from(BSON.serialize({ db, collection: name, EOF: true, CRC: Long.fromBigInt(crc.signed()) })), TERMINATOR);
  }
  const header = Buffer.from(BSON.serialize({ version: '0.1', server_version: '7.0.14', tool_version: '100.10.0', concurrent_collections: 4 }));
  return Buffer.concat([MAGIC, header, ...metadata, TERMINATOR, ...bodies]);
}

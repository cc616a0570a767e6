/**
 * What the catalogue's two baselines share: the published offers of some EANs read straight from the
 * database (better-sqlite3 or pg, no project code), and an offer written as the public API writes it,
 * so their answers can be compared byte for byte with Shelfmark's.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';

export interface OfferRow {
  id: number;
  identifier: string;
  ean: string;
  price_cents: number;
  condition: string;
  remarks: string | null;
}

const COLUMNS = 'id, identifier, ean, price_cents, condition, remarks';
const ORDER = 'order by ean, price_cents, id';

/** The public offer's JSON: the fields and their order as the API document gives them. */
export function offerJson(row: OfferRow, feeCents: number): string {
  return JSON.stringify({
    id: Number(row.id),
    identifier: row.identifier,
    ean: row.ean,
    price: (row.price_cents + feeCents) / 100,
    serviceFee: feeCents / 100,
    currency: 'EUR',
    condition: row.condition,
    remarks: row.remarks,
  });
}

/** The `eans` query value as a sorted list of distinct codes. */
export function eansOf(query: string | undefined): string[] {
  const codes = new Set<string>();
  for (const part of (query ?? '').split(',')) if (part.trim() !== '') codes.add(part.trim());
  return [...codes].sort();
}

export interface CatalogueReader {
  /** Published offers of these EANs, by EAN, price, id. */
  published(eans: readonly string[]): Promise<OfferRow[]>;
  /** Every published offer, by EAN, price, id. */
  all(): Promise<OfferRow[]>;
  close(): Promise<void>;
}

export function openCatalogue(engine: 'sqlite' | 'postgres', url: string): CatalogueReader {
  if (engine === 'sqlite') {
    const db = new SQLite(url.replace(/^sqlite:/, ''));
    db.pragma('busy_timeout = 5000');
    // One prepared statement per number of EANs, as any server that prepares its queries keeps them.
    const statements = new Map<number, SQLite.Statement>();
    const statement = (count: number): SQLite.Statement => {
      let found = statements.get(count);
      if (found === undefined) {
        const marks = Array.from({ length: count }, () => '?').join(',');
        found = db.prepare(`select ${COLUMNS} from offers where ean in (${marks}) and status = 'published' ${ORDER}`);
        statements.set(count, found);
      }
      return found;
    };
    return {
      published: async (eans) => statement(eans.length).all(...eans) as OfferRow[],
      all: async () =>
        db.prepare(`select ${COLUMNS} from offers where status = 'published' ${ORDER}`).all() as OfferRow[],
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => undefined);
  return {
    published: async (eans) =>
      (
        await pool.query<OfferRow>({
          name: 'published',
          text: `select ${COLUMNS} from offers where ean = any($1) and status = 'published' ${ORDER}`,
          values: [eans],
        })
      ).rows,
    all: async () =>
      (await pool.query<OfferRow>(`select ${COLUMNS} from offers where status = 'published' ${ORDER}`)).rows,
    close: () => pool.end(),
  };
}

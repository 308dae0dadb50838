// CPU-heavy, pure-JavaScript work for the ts-app test app.
//
// The declarations and comments up here vanish when esbuild strips the
// types, so every line below lands at a different line number in
// dist/hot.js. A profiler that reports src/hot.ts lines (not dist/hot.js
// lines) must have followed the source map.

/** What GET /work returns. */
export interface WorkResult {
  /** 32-bit FNV-1a style checksum of the sample data. */
  checksum: number;
  /** How many numbers were folded into the checksum. */
  items: number;
}

/** One record in the catalog that GET /json serialises. */
export interface CatalogItem {
  id: number;
  sku: string;
  title: string;
  price: number;
  tags: string[];
  inStock: boolean;
}

type Seed = number;

const SAMPLE_SIZE = 1_000_000;
const ROUNDS = 24;

// Fixed-seed linear congruential generator: same data on every run.
function nextSeed(seed: Seed): Seed {
  return (Math.imul(seed, 1103515245) + 12345) >>> 0;
}

function makeSample(size: number): number[] {
  const values: number[] = new Array(size);
  let seed: Seed = 42;
  for (let i = 0; i < size; i++) {
    seed = nextSeed(seed);
    values[i] = seed & 0xffff;
  }
  return values;
}

const sample = makeSample(SAMPLE_SIZE);

// Deliberately naive: re-walks the whole array several times per request.
export function checksum(values: readonly number[], rounds: number): number {
  let acc = 0x811c9dc5;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < values.length; i++) {
      acc = Math.imul(acc ^ values[i], 0x01000193) >>> 0;
    }
  }
  return acc;
}

export function doWork(): WorkResult {
  return { checksum: checksum(sample, ROUNDS), items: sample.length * ROUNDS };
}

// Roughly 2 MB once serialised; built once at startup.
export function buildCatalog(count: number): CatalogItem[] {
  const items: CatalogItem[] = [];
  let seed: Seed = 7;
  for (let id = 0; id < count; id++) {
    seed = nextSeed(seed);
    items.push({
      id,
      sku: `SKU-${(seed % 1_000_000).toString().padStart(6, '0')}`,
      title: `Item ${id} of the test catalog`,
      price: (seed % 100_000) / 100,
      tags: ['test', `group-${seed % 17}`, `shelf-${id % 23}`],
      inStock: (seed & 1) === 1,
    });
  }
  return items;
}

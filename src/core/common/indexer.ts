// Interning: each distinct item of a stream gets one place in a list (frames, call sites, types
// merged from several sources), found again by its key.

/** A function giving each distinct item (by `key`) its index in `list`, appending the new ones. */
export function indexer<T>(list: T[], key: (item: T) => string): (item: T) => number {
  const index = new Map<string, number>();
  return (item) => {
    const k = key(item);
    let i = index.get(k);
    if (i === undefined) {
      i = list.length;
      index.set(k, i);
      list.push(item);
    }
    return i;
  };
}

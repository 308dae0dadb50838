// One name per route: 10,000 distinct URLs of one handler are one route. The framework's own
// pattern wins where the app told us (`/orders/:id`); otherwise the path, without its query, with
// the segments that look like ids folded: numbers `{n}`, UUIDs `{uuid}`, long hex or base64-ish
// tokens `{id}`.

const NUMBER = /^-?\d+(\.\d+)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Mongo ObjectIds, hashes, slugs with digits mixed in: 16+ chars of hex, or 20+ of a token alphabet
// holding at least one digit (so `/orders/pending-shipments` stays a word).
const HEX = /^[0-9a-f]{16,}$/i;
const TOKEN = /^(?=.*\d)[A-Za-z0-9_-]{20,}$/;

/** `/orders/123?x=1` → `/orders/{n}`; a framework pattern, when given, is kept as it is. */
export function routeOf(path: string, pattern?: string): string {
  if (pattern) return pattern;
  const bare = path.split(/[?#]/, 1)[0] || '/';
  return bare
    .split('/')
    .map((seg) => {
      if (seg === '') return seg;
      let raw = seg;
      try {
        raw = decodeURIComponent(seg);
      } catch {
        // a malformed escape is a segment like any other
      }
      if (NUMBER.test(raw)) return '{n}';
      if (UUID.test(raw)) return '{uuid}';
      if (HEX.test(raw) || TOKEN.test(raw)) return '{id}';
      return seg;
    })
    .join('/');
}

/** The key of a route in every table: `GET /orders/{n}`. */
export function routeKey(method: string, route: string): string {
  return `${method.toUpperCase()} ${route}`;
}

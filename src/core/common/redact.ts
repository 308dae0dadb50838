// Secrets the user puts in a load test (Authorization headers, passwords in a body or a query
// string) must not end up in report.json or logs in clear.
const SECRET_NAME = /pass|secret|token|auth|api[-_]?key|cookie|session|credential|signature|private/i;
export const REDACTED = '«redacted»';

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, SECRET_NAME.test(k) ? REDACTED : v]));
}

/** A URL (or path) with the values of secret-looking query parameters replaced. */
export function redactUrl(url: string): string {
  // http://user:password@host/…: the password goes, the user name stays.
  const clean = url.replace(/^(https?:\/\/[^/?#@:]*):[^/?#@]*@/, `$1:${encodeURIComponent(REDACTED)}@`);
  const q = clean.indexOf('?');
  if (q < 0) return clean;
  return `${clean.slice(0, q + 1)}${redactPairs(clean.slice(q + 1))}`;
}

function redactPairs(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = safeDecode(pair.slice(0, eq));
      return SECRET_NAME.test(name) ? `${pair.slice(0, eq)}=${encodeURIComponent(REDACTED)}` : pair;
    })
    .join('&');
}

/** JSON bodies keep their shape with secret values replaced; form bodies likewise; others only their size. */
export function redactBody(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  try {
    return JSON.stringify(redactJson(JSON.parse(body)));
  } catch {
    // not JSON
  }
  if (/^[^=&\s]+=[^&\s]*(&[^=&\s]+=[^&\s]*)*$/.test(body)) return redactPairs(body);
  return `«${Buffer.byteLength(body)} bytes»`;
}

function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_NAME.test(k) ? REDACTED : redactJson(v)]),
    );
  }
  return value;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** Environment variables as given by the user, with secret-looking ones replaced. */
export function redactEnv(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, SECRET_NAME.test(k) ? REDACTED : v]));
}

/** A command line with the values of its secret-looking `NAME=value` words (and `--name=value` flags) replaced. */
export function redactCommand(line: string): string {
  return line.replace(
    /(^|\s)(--?)?([A-Za-z_][A-Za-z0-9_-]*)=("[^"]*"|'[^']*'|\S+)/g,
    (whole, pre: string, dash = '', name: string) =>
      SECRET_NAME.test(name.replace(/-/g, '_')) ? `${pre}${dash}${name}=${REDACTED}` : whole,
  );
}

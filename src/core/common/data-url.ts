// The text a `data:` URL carries (an inline sourceMappingURL): base64 or percent-encoded.

/** The decoded payload of `url` (which starts with `data:`), or undefined when it does not decode. */
export function dataUrlText(url: string): string | undefined {
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const meta = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  try {
    return meta.endsWith(';base64') ? Buffer.from(payload, 'base64').toString('utf8') : decodeURIComponent(payload);
  } catch {
    return undefined; // a malformed percent-escape
  }
}

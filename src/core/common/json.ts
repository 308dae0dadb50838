// Whether a text parses as JSON (a remembered request body, a source map read from the app).

export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

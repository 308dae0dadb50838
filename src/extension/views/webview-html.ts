// Bits every webview host needs: a fresh nonce per page load.
import { randomBytes } from 'node:crypto';

export function nonce(): string {
  return randomBytes(18).toString('base64');
}

// The known answer: two calls of one blocking API with 2:1 work, on their own lines.
import * as crypto from 'node:crypto';

type Digest = Buffer;

/** Types the runtime must strip or compile away. */
export function check(password: string): number {
  const strong: Digest = crypto.pbkdf2Sync(password, 'salt', 20000, 64, 'sha512'); // truth own 2
  const weak: Digest = crypto.pbkdf2Sync(password, 'salt', 10000, 64, 'sha512'); // truth own 1
  return strong[0] ^ weak[0];
}

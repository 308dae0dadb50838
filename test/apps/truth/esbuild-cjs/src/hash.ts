import { pbkdf2Sync } from 'node:crypto';

export function hot(iterations: number): Buffer {
  return pbkdf2Sync('pw', 'salt', iterations, 64, 'sha512');
}

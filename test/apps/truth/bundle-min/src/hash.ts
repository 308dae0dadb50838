import { pbkdf2Sync } from 'node:crypto';

export function strong(password: string): Buffer {
  return pbkdf2Sync(password, 'salt', 20000, 64, 'sha512'); // truth own 2
}

export function weak(password: string): Buffer {
  return pbkdf2Sync(password, 'salt', 10000, 64, 'sha512'); // truth own 1
}

import { pbkdf2Sync } from 'node:crypto';

/** The work: PBKDF2 with as many rounds as the caller asks (its cost is linear in them). */
export function digest(input: string, rounds: number): Buffer {
  return pbkdf2Sync(input, 'salt', rounds, 32, 'sha256');
}

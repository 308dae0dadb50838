// How a run fails: one typed error whose kind says what went wrong, in words a person can act on.
export type RunErrorKind =
  | 'cancelled'
  | 'app-exited'
  | 'never-listened'
  | 'port-in-use'
  | 'bad-options'
  | 'load-failed'
  | 'inspector'
  | 'analysis-failed'
  | 'busy';

export class RunError extends Error {
  constructor(
    readonly kind: RunErrorKind,
    message: string,
    readonly output = '',
  ) {
    super(message);
    this.name = 'RunError';
  }
}

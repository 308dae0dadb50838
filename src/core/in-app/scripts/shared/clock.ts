/** µs of the monotonic clock (process.hrtime), the clock of V8's profile timestamps. */
export const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

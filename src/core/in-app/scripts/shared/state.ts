// Where an in-app script keeps its state between two evaluations: a property of globalThis under a
// registered symbol (Symbol.for), out of the way of the app's own globals, and found again by the
// next evaluation of the same script (each evaluation runs the script's text afresh).
type Slots = Record<symbol, unknown>;

export function readSlot<T>(name: string): T | undefined {
  return (globalThis as unknown as Slots)[Symbol.for(name)] as T | undefined;
}

export function writeSlot<T>(name: string, value: T): T {
  (globalThis as unknown as Slots)[Symbol.for(name)] = value;
  return value;
}

export function clearSlot(name: string): void {
  delete (globalThis as unknown as Slots)[Symbol.for(name)];
}

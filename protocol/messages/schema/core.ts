// The core of the payload validator kit (spec: Frame, "Payloads are UTF-8 JSON … Unknown fields are ignored"):
// the Schema interface, results and the helpers that read and build objects without touching a prototype.

/** The outcome of a check: the validated value, or a reason that names the field. */
export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A validator and encoder for one JSON value of type `T`. */
export interface Schema<T> {
  /** Validates `value` (parsed JSON) found at `path` ("Join.resume.mac"); never throws. */
  check(value: unknown, path: string): DecodeResult<T>;
  /** The JSON-ready form of a valid `T`: byte arrays become base64, absent optional fields are left out. */
  toJson(value: T): unknown;
  /** How a field of this schema behaves when it is absent (undefined or null) in an object. */
  readonly absent?: 'optional' | 'default' | 'lenient';
  /** The value a `dflt` field takes when absent. */
  readonly fallback?: T;
}

/** A schema whose field may be left out of its object (`opt`, `lenient`). */
export interface OptionalSchema<T> extends Schema<T> {
  readonly absent: 'optional' | 'lenient';
}

/** The type a schema validates to. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

export type Shape = Record<string, Schema<unknown>>;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalSchema<unknown> ? never : K }[keyof S];
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalSchema<unknown> ? K : never }[keyof S];
/** The object type an `obj` shape describes: `opt` fields become optional properties. */
export type ObjOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> };

export const ok = <T>(value: T): DecodeResult<T> => ({ ok: true, value });
export const fail = (path: string, message: string): { ok: false; reason: string } => ({
  ok: false,
  reason: `${path}: ${message}`,
});

/** Reads an own property only: inherited or polluted prototype properties never count as fields. */
export function own(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** Defines an own data property, so a key such as `__proto__` stays data and never touches a prototype. */
export function put(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A key as it appears in a reason: quoted, control characters escaped, at most 40 characters. */
export function showKey(key: string): string {
  return JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
}

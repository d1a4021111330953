// A tiny declarative validator kit for the JSON payloads (spec: Frame, "Payloads are UTF-8 JSON, camelCase,
// nulls omitted, byte arrays base64 … Unknown fields are ignored"). A schema checks a parsed JSON value and
// builds a fresh result field by field (no prototype pollution), and turns a typed value back into JSON.
// Checks never throw; a failure is a reason that names the field: "Chat.text: longer than 500 characters".

export { showKey } from './schema/core.ts';
export type { DecodeResult, Infer, ObjOf, OptionalSchema, Schema } from './schema/core.ts';
export { bool, bytes, clip, codePoints, int, num, oneOf, sha256Hex, str, uint } from './schema/values.ts';
export type { BytesOptions, StrOptions } from './schema/values.ts';
export { arr, dflt, lenient, obj, opt, rec, refine } from './schema/containers.ts';
export type { ArrOptions, RecOptions } from './schema/containers.ts';
export { json } from './schema/json.ts';
export type { JsonOptions, JsonValue } from './schema/json.ts';

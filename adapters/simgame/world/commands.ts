// The commands the simulated world understands, as they travel (plain JSON, positions in metres),
// and their decoder: hostile or malformed input gives a `decode` refusal, never an exception.
// Spec: architecture.txt §6 (references by position and by `<sender>:<seq>` key, never by id).
import { toCm } from './geometry.ts';
import { MAP_HALF_CM, type Point } from './types.ts';

/** The refusal classes of engine.apply (engine contract); `inject_refused` is the launcher's. */
export const REFUSAL = { decode: 'decode', engine: 'engine', company: 'company', module: 'module' } as const;
export type RefusalClass = (typeof REFUSAL)[keyof typeof REFUSAL];

export interface Refusal {
  readonly ok: false;
  readonly class: RefusalClass;
  readonly detail: string;
}
export type ApplyResult = { readonly ok: true } | Refusal;

/** A position on the wire, metres. */
export interface WirePoint {
  x: number;
  y: number;
}

/** A command as it travels (and as bots make it). */
export type Command =
  | { type: 'buildRoad' | 'buildTrack'; from: WirePoint; to: WirePoint }
  | { type: 'bulldoze'; at: WirePoint }
  | { type: 'buildConstruction'; file: string; at: WirePoint; rot?: number }
  | { type: 'createLine'; key: string; stops: WirePoint[] }
  | { type: 'buyVehicle'; key: string; line: string; model: string }
  | { type: 'sellVehicle'; vehicle: string }
  | { type: 'takeLoan' | 'repayLoan'; amount: number }
  | { type: 'spend'; amount: number; reason?: string };

export type CommandType = Command['type'];

/** A decoded command: positions in whole centimetres, every field checked for shape. */
export type Decoded =
  | { type: 'buildRoad' | 'buildTrack'; from: Point; to: Point }
  | { type: 'bulldoze'; at: Point }
  | { type: 'buildConstruction'; file: string; at: Point; rot: number }
  | { type: 'createLine'; key: string; stops: Point[] }
  | { type: 'buyVehicle'; key: string; line: string; model: string }
  | { type: 'sellVehicle'; vehicle: string }
  | { type: 'takeLoan' | 'repayLoan'; amount: number }
  | { type: 'spend'; amount: number };

/**
 * The category a command is reported to the mod with (feverlink3.command(cmd, category)); the
 * Permissions message of wire-protocol.txt knows build, bulldoze, spend and other.
 */
export const CATEGORY: Readonly<Record<CommandType, 'build' | 'bulldoze' | 'spend' | 'other'>> = {
  buildRoad: 'build',
  buildTrack: 'build',
  buildConstruction: 'build',
  bulldoze: 'bulldoze',
  buyVehicle: 'spend',
  spend: 'spend',
  takeLoan: 'spend',
  repayLoan: 'spend',
  createLine: 'other',
  sellVehicle: 'other',
};

/** `<sender>:<seq>` for entities made in a session, `s:<id>` for the save's own. */
const KEY = /^[A-Za-z0-9_.-]{1,40}:[0-9]{1,15}$/;
const MAX_STOPS = 16;
const MAX_TEXT = 200;

export function refuse(cls: RefusalClass, detail: string): Refusal {
  return { ok: false, class: cls, detail };
}

type Field<T> = T | Refusal;
const isRefusal = (v: unknown): v is Refusal =>
  typeof v === 'object' && v !== null && (v as { ok?: unknown }).ok === false;

function point(raw: unknown, name: string): Field<Point> {
  if (typeof raw !== 'object' || raw === null) return refuse('decode', `${name}: expected {x, y}`);
  const { x, y } = raw as Record<string, unknown>;
  if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) {
    return refuse('decode', `${name}: x and y must be finite numbers`);
  }
  const p = { x: toCm(x), y: toCm(y) };
  if (Math.abs(p.x) > MAP_HALF_CM || Math.abs(p.y) > MAP_HALF_CM) return refuse('engine', `${name}: outside the map`);
  return p;
}

function text(raw: unknown, name: string): Field<string> {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_TEXT) {
    return refuse('decode', `${name}: expected a string of 1..${MAX_TEXT} characters`);
  }
  return raw;
}

function key(raw: unknown, name: string, forCreation: boolean): Field<string> {
  if (typeof raw !== 'string' || !KEY.test(raw)) {
    return refuse('decode', `${name}: expected a key <sender>:<seq>`);
  }
  if (forCreation && raw.startsWith('s:')) return refuse('decode', `${name}: s:<id> keys belong to the save`);
  return raw;
}

function amount(raw: unknown): Field<number> {
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw <= 0) {
    return refuse('decode', 'amount: expected a positive whole number');
  }
  return raw;
}

/** Checks a command's shape. Never throws, whatever `raw` is. */
export function decodeCommand(raw: unknown): Decoded | Refusal {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return refuse('decode', 'command: expected an object');
  }
  const c = raw as Record<string, unknown>;
  switch (c.type) {
    case 'buildRoad':
    case 'buildTrack': {
      const from = point(c.from, 'from');
      const to = point(c.to, 'to');
      if (isRefusal(from)) return from;
      if (isRefusal(to)) return to;
      return { type: c.type, from, to };
    }
    case 'bulldoze': {
      const at = point(c.at, 'at');
      return isRefusal(at) ? at : { type: 'bulldoze', at };
    }
    case 'buildConstruction': {
      const file = text(c.file, 'file');
      const at = point(c.at, 'at');
      if (isRefusal(file)) return file;
      if (isRefusal(at)) return at;
      const rot = c.rot ?? 0;
      if (typeof rot !== 'number' || !Number.isInteger(rot) || rot < 0 || rot > 359) {
        return refuse('decode', 'rot: expected whole degrees 0..359');
      }
      return { type: 'buildConstruction', file, at, rot };
    }
    case 'createLine': {
      const k = key(c.key, 'key', true);
      if (isRefusal(k)) return k;
      if (!Array.isArray(c.stops) || c.stops.length < 2 || c.stops.length > MAX_STOPS) {
        return refuse('decode', `stops: expected a list of 2..${MAX_STOPS} positions`);
      }
      const stops: Point[] = [];
      for (const [i, s] of c.stops.entries()) {
        const p = point(s, `stops[${i + 1}]`);
        if (isRefusal(p)) return p;
        stops.push(p);
      }
      return { type: 'createLine', key: k, stops };
    }
    case 'buyVehicle': {
      const k = key(c.key, 'key', true);
      const line = key(c.line, 'line', false);
      const model = text(c.model, 'model');
      if (isRefusal(k)) return k;
      if (isRefusal(line)) return line;
      if (isRefusal(model)) return model;
      return { type: 'buyVehicle', key: k, line, model };
    }
    case 'sellVehicle': {
      const vehicle = key(c.vehicle, 'vehicle', false);
      return isRefusal(vehicle) ? vehicle : { type: 'sellVehicle', vehicle };
    }
    case 'takeLoan':
    case 'repayLoan':
    case 'spend': {
      const a = amount(c.amount);
      return isRefusal(a) ? a : { type: c.type, amount: a };
    }
    default:
      return refuse('decode', `type: unknown command ${JSON.stringify(String(c.type)).slice(0, 60)}`);
  }
}

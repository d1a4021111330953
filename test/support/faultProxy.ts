// The TCP fault proxy moved to adapters/transport/faultProxy.ts (the demo's --drops cuts players through it); the
// tests' imports stay as they were.
export * from '../../adapters/transport/faultProxy.ts';
export { seededRandom } from './random.ts';

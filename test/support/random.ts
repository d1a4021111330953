// A seeded random source for the tests that shuffle, split or delay (the file link's writers, the fault proxy),
// so a failing run can be replayed from its seed: the in-memory network's own generator (mulberry32).
export { seededRandom } from '../../adapters/transport/memoryLinkConditions.ts';

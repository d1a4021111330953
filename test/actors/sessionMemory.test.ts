// The session scenarios (test/support/sessionScenarios.ts) over both transports: real TCP on 127.0.0.1 and the
// in-memory network on a simulated clock. The same checks, the same sessions; only the bytes' road differs.
import { describe } from 'vitest';
import { memoryHarness } from '../support/memorySession.ts';
import { tcpHarness, type SessionHarness } from '../support/sessionHarness.ts';
import { sessionScenarios } from '../support/sessionScenarios.ts';

const transports: [string, () => SessionHarness][] = [
  ['tcp', tcpHarness],
  ['memory', () => memoryHarness()],
  ['memory with latency and jitter', () => memoryHarness({ seed: 42, link: { latencyMs: 3, jitterMs: 4 } })],
];

describe.each(transports)('sessions over %s', (_name, make) => {
  sessionScenarios(make);
});

// How many event-loop turns pass while `work` runs: a setImmediate chain that counts each turn. A streaming reader or
// sender that awaits between its pieces lets it run once per piece at least; one that blocks the loop does not.
export async function eventLoopTurnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; value: T }> {
  let turns = 0;
  let spinning = true;
  const spin = () => {
    turns++;
    if (spinning) setImmediate(spin);
  };
  setImmediate(spin);
  try {
    const value = await work();
    return { turns, value };
  } finally {
    spinning = false;
  }
}

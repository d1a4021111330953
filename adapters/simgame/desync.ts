// `feverlink3 demo --desync` on the game's side: one divergence injected into this simulated game's world, so the
// checksum rounds have something to find (issue 10 item 6). The demo names the game through the environment
// (FEVERLINK3_SIM_DESYNC_AFTER = game-ms after the game's first step), which the launcher passes on to its game.
// The divergence: the first road or track changes hands (player ↔ town) — the `edges` lane, a part the policy
// repairs after two rounds; money is left alone (Authority would correct it without a repair). The session simulator
// also makes an apply fail halfway (failNextApplyPartly: the mod's partial verdict, issue 11 item 9's repair source).
import type { SimGame } from './game.ts';
import type { World } from './world/types.ts';

export const DESYNC_ENV = 'FEVERLINK3_SIM_DESYNC_AFTER';

/** Flips the owner of the world's first edge; what it did, or undefined when the world has no edge. */
export function injectDivergence(world: World): string | undefined {
  const edge = world.edges.values().next().value;
  if (!edge) return undefined;
  const was = edge.owner;
  edge.owner = was === 'town' ? 'player' : 'town';
  return `edge ${edge.id} now belongs to the ${edge.owner} (was ${was})`;
}

/**
 * Makes the game's next engine.apply of a command that would apply fail halfway, as an engine whose apply is not
 * transactional (spec "Repair source"): part of the world changes (the first edge changes hands) and the apply throws,
 * which the mod reports as a refusal of class engine, partial. Once; `threw` is told what changed, before the throw.
 * `armed` false: the command applies as usual (the simulator disarms it once the session winds down).
 */
export function failNextApplyPartly(game: SimGame, threw: (what: string) => void, armed: () => boolean = () => true): void {
  const apply = game.apply.bind(game);
  game.apply = (cmd) => {
    // a command the engine refuses anyway is refused cleanly (the others refuse it too: no differing verdict); while
    // not armed, every command applies as usual
    if (!armed() || !game.dryRun(cmd).ok) return apply(cmd);
    game.apply = apply;
    const what = `a command applied partly: ${injectDivergence(game.world) ?? 'nothing changed'}`;
    threw(what);
    throw new Error(`the engine threw halfway through the command (${what})`);
  };
}

/**
 * The injector the game loop calls after each frame, or undefined when the environment asks for none: once the
 * world has run `after` game-ms past the time it first stood at, the divergence is injected, once.
 */
export function desyncFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  say: (line: string) => void,
): ((world: World) => void) | undefined {
  const text = env[DESYNC_ENV];
  if (text === undefined || text === '') return undefined;
  const after = Number(text);
  if (!Number.isSafeInteger(after) || after < 0) {
    say(`warn: ${DESYNC_ENV}=${JSON.stringify(text)} is not a whole number of game-ms: no divergence`);
    return undefined;
  }
  let from: number | undefined;
  let done = false;
  return (world) => {
    if (done) return;
    from ??= world.time;
    if (world.time - from < after) return;
    done = true;
    const what = injectDivergence(world);
    say(what ? `warn: DESYNC injected at ${world.time}: ${what}` : 'warn: DESYNC not injected: the world has no edge');
  };
}

// What each game wrote to its launcher, read straight from the in-memory session folders: the promise of its Clock
// lines (the highest `safe` written) and its stamped Actions. The invariants hold the games to these: a game may
// not step past what its peers promised, and an action its originator sent must be applied or refused everywhere.
import type { MemoryFs } from '../../adapters/fileLink/memoryFs.ts';

export interface WrittenAction {
  readonly from: number;
  readonly seq: number;
  /**
   * Where it is applied: the Action's stamp, or for a parked build (made in a pause, `body.commit`) the stamp of the
   * BuildCommit its game wrote for it, once written (the record's stamp is only where the pause stood).
   */
  stamp: number;
  /**
   * Its game's world was not the session's when it wrote it, or stopped being it before the action could reach every
   * game (an outsider, a player away, one back without a catch-up): the host refuses it or never gets it, and the
   * world it was made in is replaced by a load. The never-lost check leaves it out.
   */
  excused: boolean;
  /** Written while its game did not hold the session's world (an outsider before its load): refused everywhere. */
  readonly outsider: boolean;
}

export interface FromGameView {
  /** The highest `safe` of the game's Clock lines so far (-1: none yet). */
  promised: number;
  readonly actions: WrittenAction[];
}

const decoder = new TextDecoder();

interface Folder {
  id: number;
  offset: number;
  view: FromGameView;
  rest: string;
  inWorld: () => boolean;
  outsider: () => boolean;
}

/** Follows from_game.log of each registered folder as the games append to it. */
export class FromGameLogs {
  private readonly fs: MemoryFs;
  private readonly folders = new Map<string, Folder>();
  private readonly unwatch: () => void;

  constructor(fs: MemoryFs) {
    this.fs = fs;
    this.unwatch = fs.watch((path) => {
      if (!path.endsWith('/from_game.log')) return;
      const folder = this.folders.get(path);
      if (folder) this.read(path, folder);
    });
  }

  /**
   * Starts following `<dir>/from_game.log` of the game with this id; `inWorld`: its world is the session's now;
   * `outsider`: its game holds no world of the session's (before its load).
   */
  follow(dir: string, id: number, inWorld: () => boolean = () => true, outsider: () => boolean = () => false): FromGameView {
    const view: FromGameView = { promised: -1, actions: [] };
    this.folders.set(`${dir}/from_game.log`, { id, offset: 0, view, rest: '', inWorld, outsider });
    return view;
  }

  private read(path: string, folder: Folder): void {
    const inode = this.fs.inode(path);
    if (inode === undefined || inode.size <= folder.offset) return;
    const text = folder.rest + decoder.decode(inode.bytes.subarray(folder.offset, inode.size));
    folder.offset = inode.size;
    const lines = text.split('\n');
    folder.rest = lines.pop() ?? '';
    for (const line of lines) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const kind = line.slice(0, tab);
      if (kind !== 'Clock' && kind !== 'Action' && kind !== 'BuildCommit') continue;
      let payload: { safe?: number; stamp?: number; seq?: number; pause?: boolean; owner?: number };
      try {
        payload = JSON.parse(line.slice(tab + 1)) as typeof payload;
      } catch {
        continue;
      }
      if (kind === 'Clock' && typeof payload.safe === 'number') folder.view.promised = Math.max(folder.view.promised, payload.safe);
      if (kind === 'BuildCommit' && typeof payload.stamp === 'number' && payload.owner === folder.id) {
        // the parked build's real stamp (seed 3235: committed at 20 000 where every game stood at the end, and checked
        // as if due at its record's 16 200)
        const parked = folder.view.actions.findLast((w) => w.seq === payload.seq);
        if (parked) parked.stamp = payload.stamp;
      }
      if (kind === 'Action' && payload.pause !== true && typeof payload.stamp === 'number' && typeof payload.seq === 'number') {
        folder.view.actions.push({ from: folder.id, seq: payload.seq, stamp: payload.stamp, excused: !folder.inWorld(), outsider: folder.outsider() });
      }
    }
  }

  close(): void {
    this.unwatch();
  }
}

// Seeds of shard 3 of the simulator's run in npm test (test/sim/ciShard.ts says what each shard checks).
import { simShardTest } from './ciShard.ts';

simShardTest(3);

// The single binary's entry: esbuild bundles it (CommonJS) into the Node SEA (scripts/release.mjs). The inspector's
// page comes from the binary's assets, built ahead of time (there is no esbuild and no inspect/page/ folder here).
import { useEmbeddedPage } from '../../inspect/pageBundle.ts';
import { inspectorPage } from '../runtime.ts';
import { runCli } from './main.ts';

const page = inspectorPage();
if (page) useEmbeddedPage(page);
void runCli(process.argv.slice(2));

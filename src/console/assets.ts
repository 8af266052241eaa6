/**
 * The console's pages: one HTML shell, a script and a style sheet in
 * ./assets (shipped as they are: no build step), and uPlot for the charts,
 * served from its npm package. Read once, at start: no network, ever.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The folder of the shipped assets: beside this module in src/ and in dist/ (scripts/build.js copies it). */
export const ASSETS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'assets');

const FILES = ['index.html', 'app.js', 'pages.js', 'ui.js', 'app.css'];

export function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const file of FILES) {
    const ext = file.slice(file.lastIndexOf('.'));
    assets.set(`/assets/${file}`, { body: readFileSync(join(ASSETS_DIR, file)), type: TYPES[ext]! });
  }
  const uplot = dirname(createRequire(import.meta.url).resolve('uplot'));
  assets.set('/assets/vendor/uPlot.iife.min.js', { body: readFileSync(join(uplot, 'uPlot.iife.min.js')), type: TYPES['.js']! });
  assets.set('/assets/vendor/uPlot.min.css', { body: readFileSync(join(uplot, 'uPlot.min.css')), type: TYPES['.css']! });
  return assets;
}

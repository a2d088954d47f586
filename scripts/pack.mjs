// Keeps install scripts out of the package as published. npm runs `prepare` when it installs a package from a
// tarball file or from git, so a packed package.json that kept ours would make every such install of the
// tarball rebuild a dist/ it already holds (and warn that an install script is not covered by allowScripts).
// Installs from git still build: they pack the repository's own package.json, which keeps `prepare`.
//
// npm pack and npm publish run `prepack` before they read the package's files and `postpack` after the
// tarball is written (package.json: "prepack": "npm run build && node scripts/pack.mjs strip"):
//   node scripts/pack.mjs strip    saves package.json aside, then writes it without its install scripts
//   node scripts/pack.mjs restore  puts the saved package.json back
// A pack that fails between the two leaves package.json stripped (git diff shows it): the next strip or
// restore puts it back first, and refuses, touching nothing, if package.json was edited in between.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const saved = join(root, '.package.json.packing');

/** Lifecycle scripts that npm may run where the package is installed, not where it is developed. */
export const INSTALL_SCRIPTS = [
  'preinstall',
  'install',
  'postinstall',
  'prepublish',
  'preprepare',
  'prepare',
  'postprepare',
];

/** `text` (a package.json) without its install scripts, formatted as npm writes it. */
export function stripInstallScripts(text) {
  const json = JSON.parse(text);
  for (const name of INSTALL_SCRIPTS) delete json.scripts?.[name];
  return `${JSON.stringify(json, null, 2)}\n`;
}

function restore() {
  if (!existsSync(saved)) return;
  const original = readFileSync(saved, 'utf8');
  if (readFileSync(manifest, 'utf8') !== stripInstallScripts(original)) {
    throw new Error(
      `package.json changed since a pack stripped it; the original is in ${saved}: merge the two by hand and delete it`,
    );
  }
  writeFileSync(manifest, original);
  rmSync(saved);
}

function strip() {
  restore();
  const original = readFileSync(manifest, 'utf8');
  // Written aside under another name first, so a crash leaves either no copy or a whole one.
  writeFileSync(`${saved}.tmp`, original);
  renameSync(`${saved}.tmp`, saved);
  writeFileSync(manifest, stripInstallScripts(original));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const command = process.argv[2];
  if (command === 'strip') strip();
  else if (command === 'restore') restore();
  else {
    console.error(`usage: node scripts/pack.mjs strip|restore (got ${command})`);
    process.exit(2);
  }
}

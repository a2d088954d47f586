// Tests the package through the bundlers users build with. Packs the tarball once, installs it into a copy of
// each app under test-consumer/bundlers/ (Vite, webpack 5, esbuild, Rollup with node-resolve: each the tool's
// plain setup, with the same page, test-consumer/bundlers/main.js, as src/main.js), builds each app with its
// own `npm run build`, and opens the result in Debian's Chromium (playwright-core, never a downloaded
// browser). Each page runs PointGridWorkers' neighbors() and pairs() against the grid's own calls:
//   - every build served with COOP/COEP (a cross-origin isolated page: the pool's shared mode) and without
//     them (a static host that sets no headers: the pool's copy mode);
//   - the tools' own servers with the headers their config sets: vite preview, the Vite dev server and
//     webpack's dev server.
// The bundlers live in tools/bundlers (own lock file: npm ci --prefix tools/bundlers, installed here when
// missing), Vite and esbuild in the root's devDependencies; each app gets them through PATH (and a link for
// a package its config imports), not an install of its own.
//
// Usage: npm run test:bundlers [-- vite webpack ...] (some apps only; `-- next` for the Next.js app, which the
// default run leaves out: see APPS). Runs under tsx, for e2e/serve.ts.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, serve } from '../e2e/serve.ts';

const started = performance.now();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const apps = join(root, 'test-consumer/bundlers');
const tools = join(root, 'tools/bundlers');
const results = join(root, 'test-results/bundlers');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const quiet = ['--no-audit', '--no-fund', '--loglevel=error'];
/** Generous: the CI machine has 2 shared cores. */
const PAGE_MS = 30_000;
const SERVER_MS = 60_000;
const BUILD_MS = 180_000;

/**
 * Each app: the folder its build (`npm run build`) serves from, what the tool prints for a warning (a plain
 * build must print none), the servers of its own tool (`npm run <script> -- <args>`; all send the COOP/COEP
 * headers of the app's config), and the packages its config file imports.
 */
const APPS = {
  vite: {
    site: 'dist',
    // Vite's warnings have no common prefix: this is the one a worker URL it cannot resolve gives.
    warning: /doesn't exist at build time|\(!\)|warning/i,
    servers: [
      {
        name: 'vite preview',
        script: 'preview',
        args: (port) => ['--host', '127.0.0.1', '--port', port, '--strictPort'],
      },
      {
        name: 'Vite dev server',
        script: 'dev',
        args: (port) => ['--host', '127.0.0.1', '--port', port, '--strictPort'],
      },
    ],
  },
  webpack: {
    site: 'public',
    warning: /WARNING in|ERROR in/,
    servers: [{ name: 'webpack dev server', script: 'start', args: (port) => ['--host', '127.0.0.1', '--port', port] }],
  },
  esbuild: { site: 'public', warning: /\[WARNING\]/ },
  rollup: { site: 'public', warning: /\(!\)/, imports: ['@rollup/plugin-node-resolve'] },
  // Next.js (app router, Turbopack) only when named: next and its binaries are about 300 MB to fetch and copy,
  // more than CI's share allows. Turbopack compiles nothing outside the app's folder, so next is installed
  // there, from the app's own lock (npm ci), instead of reached through PATH.
  next: {
    optIn: true,
    ownDependencies: true,
    warning: /⚠|warning/i,
    servers: [
      { name: 'next start', script: 'start', args: (port) => ['-H', '127.0.0.1', '-p', port] },
      { name: 'next dev', script: 'dev', args: (port) => ['-H', '127.0.0.1', '-p', port] },
    ],
  },
};

const only = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const chosen = Object.keys(APPS).filter((name) => (only.length === 0 ? !APPS[name].optIn : only.includes(name)));
let passed = 0;
let failed = 0;

function report(what, seconds, failure) {
  if (failure === undefined) {
    passed++;
    console.log(`ok   ${what} (${seconds.toFixed(1)} s)`);
  } else {
    failed++;
    console.log(`FAIL ${what} (${seconds.toFixed(1)} s)\n  ${failure.replaceAll('\n', '\n  ')}`);
  }
}

/** Runs `action`, reports it, and returns whether it passed. */
async function check(what, action) {
  const started = performance.now();
  let failure;
  try {
    await action();
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  report(what, (performance.now() - started) / 1000, failure);
  return failure === undefined;
}

/** PATH with the bundlers' bins: tools/bundlers first, then the root's (Vite, esbuild). */
const env = {
  ...process.env,
  PATH: [join(tools, 'node_modules/.bin'), join(root, 'node_modules/.bin'), process.env.PATH].join(delimiter),
  npm_config_update_notifier: 'false',
  NEXT_TELEMETRY_DISABLED: '1',
};

function run(command, args, cwd, timeout = BUILD_MS) {
  return execFileSync(command, args, { cwd, env, encoding: 'utf8', timeout, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The end of a tool's output, where the cause of a failure usually is. */
function lastLines(text) {
  return text.split('\n').slice(-40).join('\n');
}

async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return String(port);
}

/** Starts `npm run <script>` in its own process group, and resolves when `origin` answers. */
async function startServer(cwd, script, args, origin) {
  const child = spawn(npm, ['run', script, '--', ...args], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout.on('data', (chunk) => {
    printed += chunk;
  });
  child.stderr.on('data', (chunk) => {
    printed += chunk;
  });
  const exited = new Promise((done) => child.once('exit', (code) => done(code)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return; // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, 5_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = performance.now() + SERVER_MS;
  let exitCode;
  exited.then((code) => {
    exitCode = code;
  });
  while (performance.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`npm run ${script} exited with ${exitCode}:\n${printed.trim()}`);
    const answered = await fetch(origin).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return stop;
    await new Promise((done) => setTimeout(done, 200));
  }
  await stop();
  throw new Error(`npm run ${script} did not answer at ${origin} within ${SERVER_MS / 1000} s:\n${printed.trim()}`);
}

/**
 * Opens `url` and checks the page's report: the pool's results equal the grid's, in shared mode on an
 * isolated page and in copy mode on one that is not. Any console error, page error or failed request fails it.
 */
async function checkPage(context, url, isolated, shot) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  try {
    await page.goto(url);
    await page.waitForFunction('globalThis.__spatialhashConsumer !== undefined', undefined, { timeout: PAGE_MS });
    const result = await page.evaluate('globalThis.__spatialhashConsumer');
    if (!result.ok) problems.unshift(`the page reports: ${result.error}`);
    else {
      if (result.isolated !== isolated)
        problems.unshift(`crossOriginIsolated is ${result.isolated}, expected ${isolated}`);
      if (result.shared !== isolated) problems.unshift(`pool.shared is ${result.shared}, expected ${isolated}`);
      // The WebAssembly kernels load from the bundle (embedded, nothing to resolve) and reach every worker.
      if (result.kernels !== 'wasm') problems.unshift(`the page's thread runs on ${result.kernels}, expected wasm`);
      if (result.poolKernels?.join() !== 'wasm')
        problems.unshift(`the pool's threads searched on ${result.poolKernels?.join(' and ')}, expected wasm`);
    }
  } catch (error) {
    problems.unshift(error instanceof Error ? error.message.split('\n')[0] : String(error));
  }
  if (problems.length > 0) {
    mkdirSync(results, { recursive: true });
    await page.screenshot({ path: join(results, `${shot}.png`) }).catch(() => {});
  }
  await page.close();
  if (problems.length > 0) throw new Error(problems.join('\n'));
}

async function main() {
  if (!existsSync(CHROMIUM_PATH)) {
    console.error(`test:bundlers: no Chromium at ${CHROMIUM_PATH}; apt-get install -y chromium, or set CHROMIUM_PATH`);
    return 2;
  }
  if (!existsSync(join(tools, 'node_modules/webpack'))) {
    console.log('test:bundlers: installing tools/bundlers (npm ci)');
    run(npm, ['ci', ...quiet], tools);
  }
  const work = mkdtempSync(join(tmpdir(), 'spatialhash-bundlers-'));
  const profile = join(work, 'chromium-profile');
  let context;
  try {
    let tarball;
    const packed = await check('npm pack', () => {
      const [result] = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', work, ...quiet], root));
      tarball = join(work, result.filename);
    });
    if (!packed) return 1;
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    for (const name of chosen) {
      const spec = APPS[name];
      const app = join(work, name);
      const built = await check(`${name}: install the tarball, build with no warning`, () => {
        cpSync(join(apps, name), app, { recursive: true });
        mkdirSync(join(app, 'src'), { recursive: true });
        cpSync(join(apps, 'main.js'), join(app, 'src/main.js'));
        if (spec.ownDependencies) run(npm, ['ci', '--prefer-offline', ...quiet], app);
        const args = ['install', '--no-save', '--no-package-lock', '--offline', '--no-audit', '--no-fund', tarball];
        const installed = spawnSync(npm, args, { cwd: app, env, encoding: 'utf8', timeout: BUILD_MS });
        const printed = `${installed.stdout}${installed.stderr}`;
        if (installed.status !== 0) throw new Error(`npm install failed:\n${printed}`);
        if (/install.?scripts|allowScripts/i.test(printed)) throw new Error(`npm warned:\n${printed}`);
        for (const imported of spec.imports ?? []) {
          const target = join(app, 'node_modules', imported);
          mkdirSync(dirname(target), { recursive: true });
          symlinkSync(join(tools, 'node_modules', imported), target, 'dir');
        }
        const build = spawnSync(npm, ['run', 'build'], { cwd: app, env, encoding: 'utf8', timeout: BUILD_MS });
        const log = `${build.stdout}${build.stderr}`.trim();
        if (build.status !== 0) throw new Error(`npm run build failed:\n${lastLines(log)}`);
        if (spec.warning.test(log)) throw new Error(`the build warned:\n${lastLines(log)}`);
        if (spec.site !== undefined && !readdirSync(join(app, spec.site)).includes('index.html')) {
          throw new Error(`the build left no index.html in ${spec.site}/`);
        }
      });
      if (!built) continue;
      for (const isolated of spec.site === undefined ? [] : [true, false]) {
        const how = isolated ? 'with COOP/COEP' : 'without COOP/COEP';
        await check(`${name}: the build ${how} (${isolated ? 'shared' : 'copy'} mode)`, async () => {
          const { server, origin } = await serve(join(app, spec.site), { isolated });
          try {
            await checkPage(
              context,
              `${origin}/index.html`,
              isolated,
              `${name}-build-${isolated ? 'isolated' : 'plain'}`,
            );
          } finally {
            // Chromium keeps its connections open: close them, or close() waits for them to time out.
            server.closeAllConnections();
            await new Promise((done) => server.close(done));
          }
        });
      }
      for (const server of spec.servers ?? []) {
        await check(`${name}: ${server.name}, headers from the app's config`, async () => {
          const port = await freePort();
          const origin = `http://127.0.0.1:${port}`;
          const stop = await startServer(app, server.script, server.args(port), `${origin}/`);
          try {
            await checkPage(context, `${origin}/`, true, `${name}-${server.script}`);
          } finally {
            await stop();
          }
        });
      }
    }
  } finally {
    await context?.close();
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`test:bundlers took ${((performance.now() - started) / 1000).toFixed(1)} s (${chosen.join(', ')})`);
  // Alone on the last line, so CI logs show the count plainly.
  console.log(`bundlers: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error('test:bundlers: could not run:', error);
    process.exitCode = 2;
  },
);

#!/usr/bin/env node
// The `spatialhash` command: the built CLI (dist/cli.js). A shim, so that npm links the command when the
// package is installed in a checkout before it is built, and says then what to run instead of a stack.
try {
  await import('../dist/cli.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli.js')) throw error;
  process.stderr.write(
    'spatialhash: error: spatialhash-cli is not built: run "npm run build --workspace spatialhash-cli" in the checkout\n',
  );
  process.exitCode = 1;
}

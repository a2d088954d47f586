#!/usr/bin/env node
/**
 * The `spatialhash` command (see run.ts). Sets the exit code rather than
 * calling process.exit, so stdout and stderr are flushed when piped.
 *
 * @module
 */

import { run } from './run.js';

process.exitCode = await run(process.argv.slice(2));

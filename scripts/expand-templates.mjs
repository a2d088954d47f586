// Expands the kernel templates (src/templates/*.template.ts) into the files that run: each hot loop of the
// library (within, the half-stencil pair search, the grid build, weld's near search) is written once, over the
// dimension and over the target (TypeScript for the JavaScript path, AssemblyScript for the WebAssembly
// kernels), and this script writes its instances. The generated files are committed (so that reading, grepping
// and debugging see real code) and carry a banner naming their template; `--check` fails when one of them is
// not what its template makes now (test/layout/templates.test.ts runs it, and npm run build runs the expansion).
//
// A template is TypeScript with a few directives, each on a line of its own:
//
//   //#output <target> <path>          an output file: target js (TypeScript) or as (AssemblyScript)
//   //#macro <targets> <name>(<params>) = <text>
//                                      @name(args) expands to text, params replaced by args. Targets: js, as,
//                                      all, or one of them with a dimension (js2, as3, all2...) and/or a
//                                      variant (all.count, js2.rows: where //#for VARIANT has that value): the
//                                      most particular definition for the output's target, the loop's D and
//                                      VARIANT wins (a variant's before a dimension's)
//   //#macro <targets> <name>(<params>) and lines up to //#endmacro
//                                      a block macro: a line that is only @name(args) becomes those lines
//                                      (indented as the call, directives in them expanded where it is called)
//                                      src/templates/shared-macros.ts holds those every template has: @in3D(line)
//                                      (the line in 3D only) and @inlined()
//   //#for <NAME> of <v1> <v2> ...     the lines up to //#endfor, once per value (a dimension, a variant)
//   //#if <expr> / //#elif <expr> / //#else / //#endif
//                                      lines kept where the JavaScript expression over the names in scope holds
//                                      (TARGET: 'js' or 'as', and every //#for name)
//
// and ${NAME} in a line becomes the value of NAME (only for names in scope: ${...} of template literals is kept).
// In the js target, AssemblyScript's number types become `number` (`: f64`, `: i32`, ...) and its casts
// (`<i32>x`) go: a template writes the AssemblyScript types, and casts only where the value is already of the
// type, so that both targets compute the same numbers. The TypeScript outputs are formatted by Biome, as every
// hand-written file is.
//
// Usage: node scripts/expand-templates.mjs [--check]
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const templates = join(root, 'src/templates');
const biome = join(root, 'node_modules/.bin/biome');
// The macros every template has (a file of //#macro lines and their comments only).
const SHARED = 'src/templates/shared-macros.ts';

const NUMBER_TYPES = 'f64|f32|i32|u32|i64|u64|usize|isize|u8|u16|i8|i16';

/** The directive on `line` ([name, rest]) or undefined. */
function directive(line) {
  const match = /^\s*\/\/#(\w+)\s*(.*)$/.exec(line);
  return match === null ? undefined : [match[1], match[2].trim()];
}

/** Reads a template's outputs and macros (over those of `shared`, if given), and the lines that remain. */
function parse(file, shared) {
  const outputs = [];
  const macros = new Map(shared);
  const body = [];
  // The lines of the block macro being read, if one is.
  let open;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, k) => {
      const d = directive(line);
      const where = `${file}:${k + 1}`;
      if (open !== undefined) {
        if (d?.[0] === 'macro') throw new Error(`${where}: a macro inside a block macro`);
        if (d?.[0] === 'endmacro') open = undefined;
        else open.push({ text: line, at: k + 1 });
        return;
      }
      if (d?.[0] === 'endmacro') throw new Error(`${where}: //#endmacro without its //#macro`);
      if (d?.[0] !== 'output' && d?.[0] !== 'macro') {
        body.push({ text: line, at: k + 1 });
        return;
      }
      // The comment lines right above an output or a macro are its own: they stay in the template.
      while (body.length > 0 && /^\s*\/\/(?!#)/.test(body[body.length - 1].text)) body.pop();
      if (d[0] === 'output') {
        const [target, path] = d[1].split(/\s+/);
        if (target !== 'js' && target !== 'as') throw new Error(`${where}: target must be js or as`);
        outputs.push({ target, path });
        return;
      }
      const match = /^([\w.,]+)\s+(\w+)\(([^)]*)\)\s*(?:=\s*(.*))?$/.exec(d[1]);
      if (match === null) throw new Error(`${where}: a macro is //#macro <targets> name(params) [= text]`);
      const params = match[3]
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      // Without "= text", the lines up to //#endmacro.
      const lines = match[4] === undefined ? [] : undefined;
      if (shared !== undefined && [...shared.keys()].some((key) => key.endsWith(`:${match[2]}`))) {
        throw new Error(`${where}: @${match[2]} is a macro of every template (${SHARED}): name this one apart`);
      }
      for (const target of match[1].split(',')) {
        if (!/^(js|as|all)[23]?(\.\w+)?$/.test(target)) throw new Error(`${where}: unknown macro target ${target}`);
        macros.set(`${target}:${match[2]}`, { params, text: match[4], lines });
      }
      open = lines;
    });
  if (open !== undefined) throw new Error(`${file}: a block macro without its //#endmacro`);
  return { outputs, macros, body };
}

/** The test of an //#if or //#elif in scope `env`. */
function holds(expr, env, where) {
  try {
    return Boolean(new Function(...Object.keys(env), `return (${expr});`)(...Object.values(env)));
  } catch (error) {
    throw new Error(`${where}: cannot evaluate ${JSON.stringify(expr)}: ${error.message}`);
  }
}

/** The lines from `start` to the matching `close` directive (nesting `open`), and where it is. */
function block(lines, start, open, close, where) {
  let depth = 0;
  for (let k = start; k < lines.length; k++) {
    const d = directive(lines[k].text);
    if (d?.[0] === open) depth++;
    else if (d?.[0] === close) {
      if (depth === 0) return k;
      depth--;
    }
  }
  throw new Error(`${where}: no //#${close} for this //#${open === 'for' ? 'for' : 'if'}`);
}

/** Expands `lines` (directives and all) in scope `env` into plain lines, macros applied. */
function expand(lines, env, file, macros) {
  const out = [];
  for (let k = 0; k < lines.length; k++) {
    const where = `${file}:${lines[k].at}`;
    const d = directive(lines[k].text);
    if (d?.[0] === 'for') {
      const match = /^(\w+)\s+of\s+(.+)$/.exec(d[1]);
      if (match === null) throw new Error(`${where}: a loop is //#for NAME of v1 v2 ...`);
      const end = block(lines, k + 1, 'for', 'endfor', where);
      for (const value of match[2].split(/\s+/)) {
        const v = /^-?\d+$/.test(value) ? Number(value) : value;
        out.push(...expand(lines.slice(k + 1, end), { ...env, [match[1]]: v }, file, macros));
      }
      k = end;
    } else if (d?.[0] === 'if') {
      const end = block(lines, k + 1, 'if', 'endif', where);
      // The branches: [test, first line, end line] at depth 0.
      const branches = [];
      let test = d[1];
      let from = k + 1;
      let depth = 0;
      for (let j = k + 1; j < end; j++) {
        const inner = directive(lines[j].text);
        if (inner?.[0] === 'if') depth++;
        else if (inner?.[0] === 'endif') depth--;
        else if (depth === 0 && (inner?.[0] === 'elif' || inner?.[0] === 'else')) {
          branches.push([test, from, j]);
          test = inner[0] === 'else' ? 'true' : inner[1];
          from = j + 1;
        }
      }
      branches.push([test, from, end]);
      const taken = branches.find(([t]) => holds(t, env, where));
      if (taken !== undefined) out.push(...expand(lines.slice(taken[1], taken[2]), env, file, macros));
      k = end;
    } else if (d !== undefined && ['endfor', 'endif', 'elif', 'else'].includes(d[0])) {
      throw new Error(`${where}: //#${d[0]} without its opening directive`);
    } else if (d !== undefined && !['output', 'macro'].includes(d[0])) {
      throw new Error(`${where}: unknown directive //#${d[0]}`);
    } else {
      const call = /^(\s*)@(\w+)\(.*\)$/.exec(lines[k].text);
      const macro = call === null ? undefined : macroFor(macros, call[2], env);
      if (macro?.lines !== undefined) {
        // A block macro: its lines, args for params, indented as the call, expanded here.
        const { args, end } = callArguments(lines[k].text, call[0].indexOf('(', call[1].length), where);
        if (end !== lines[k].text.length) throw new Error(`${where}: a block macro's call is alone on its line`);
        if (args.length !== macro.params.length) {
          throw new Error(`${where}: @${call[2]} takes ${macro.params.length} arguments, got ${args.length}`);
        }
        const body = macro.lines.map(({ text, at }) => ({
          text: text === '' ? '' : call[1] + replaceParams(text, macro.params, args),
          at,
        }));
        out.push(...expand(body, env, file, macros));
      } else out.push(applyMacros(substitute(lines[k].text, env), macros, env, where));
    }
  }
  return out;
}

/** ${NAME} replaced for the names in scope. */
function substitute(text, env) {
  return text.replace(/\$\{(\w+)\}/g, (whole, name) => (name in env ? String(env[name]) : whole));
}

/** The arguments of the call whose "(" is at `open` in `text`, and the index after its ")". */
function callArguments(text, open, where) {
  const args = [];
  let depth = 0;
  let from = open + 1;
  for (let k = open; k < text.length; k++) {
    const c = text[k];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') {
      depth--;
      if (depth === 0) {
        args.push(text.slice(from, k).trim());
        return { args: args.filter((a, i) => a !== '' || i > 0), end: k + 1 };
      }
    } else if (c === ',' && depth === 1) {
      args.push(text.slice(from, k).trim());
      from = k + 1;
    }
  }
  throw new Error(`${where}: unbalanced parentheses in a macro call`);
}

/** `text` with each of `params` (a whole word) replaced by its argument. */
function replaceParams(text, params, args) {
  return params.reduce((body, param, i) => body.replace(new RegExp(`\\b${param}\\b`, 'g'), () => args[i]), text);
}

/** The macro `name` for the target, dimension and variant of `env`: the most particular definition. */
function macroFor(macros, name, env) {
  const d = env.D ?? '';
  const targets = [`${env.TARGET}${d}`, env.TARGET, `all${d}`, 'all'];
  if (env.VARIANT !== undefined) targets.unshift(...targets.map((t) => `${t}.${env.VARIANT}`));
  for (const target of targets) {
    const macro = macros.get(`${target}:${name}`);
    if (macro !== undefined) return macro;
  }
  return undefined;
}

/** Every @macro(...) call in `text` expanded (outermost first; what a macro expands to is expanded again). */
function applyMacros(text, macros, env, where) {
  for (let guard = 0; guard < 1000; guard++) {
    const match = /@(\w+)\(/.exec(text);
    if (match === null) return text;
    const macro = macroFor(macros, match[1], env);
    if (macro === undefined) throw new Error(`${where}: no macro @${match[1]} for target ${env.TARGET}, D ${env.D}`);
    if (macro.lines !== undefined) throw new Error(`${where}: block macro @${match[1]} called within a line`);
    const { args, end } = callArguments(text, match.index + match[0].length - 1, where);
    if (args.length !== macro.params.length) {
      throw new Error(`${where}: @${match[1]} takes ${macro.params.length} arguments, got ${args.length}`);
    }
    const expanded = substitute(replaceParams(macro.text, macro.params, args), env);
    text = text.slice(0, match.index) + expanded + text.slice(end);
  }
  throw new Error(`${where}: macros expand without end`);
}

/** AssemblyScript's number types and casts, as TypeScript sees them. */
function toTypeScript(text) {
  return text
    .replace(new RegExp(`: (${NUMBER_TYPES})\\b`, 'g'), ': number')
    .replace(/: bool\b/g, ': boolean')
    .replace(new RegExp(`<(${NUMBER_TYPES})>`, 'g'), '');
}

/**
 * `line` with its statements on lines of their own, indented as it is (a macro of several statements expands
 * into one line): AssemblyScript, which no formatter reads, gets what Biome does for the TypeScript.
 */
function splitStatements(line) {
  const indent = /^\s*/.exec(line)[0];
  // (Not in a block comment, nor a line with a string.)
  if (/^\s*\*|\/\*/.test(line)) return [line];
  const parts = [];
  let depth = 0;
  let from = 0;
  for (let k = 0; k < line.length; k++) {
    const c = line[k];
    if (c === '/' && line[k + 1] === '/') break;
    if (c === "'" || c === '"' || c === '`') return [line];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ';' && depth === 0 && line[k + 1] === ' ' && /\S/.test(line.slice(k + 1))) {
      parts.push(line.slice(from, k + 1).trim());
      from = k + 1;
    }
  }
  if (parts.length === 0) return [line];
  parts.push(line.slice(from).trim());
  return parts.map((part) => indent + part);
}

/** What the template `file` makes for each of its outputs: [{ path, text }]. */
export function expandTemplate(file) {
  const name = relative(root, file);
  const shared = parse(join(root, SHARED));
  if (shared.outputs.length > 0 || shared.body.some(({ text }) => text.trim() !== '' && !/^\s*\/\//.test(text))) {
    throw new Error(`${SHARED}: only macros and comments`);
  }
  const { outputs, macros, body } = parse(file, shared.macros);
  return outputs.map(({ target, path }) => {
    let lines = expand(body, { TARGET: target }, name, macros);
    if (target === 'as') lines = lines.flatMap(splitStatements);
    const banner = [
      `// Generated from ${name} by scripts/expand-templates.mjs (npm run build): edit the template, not this file.`,
      '',
    ];
    let text = `${banner.join('\n')}${lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd()}\n`;
    if (target === 'js') {
      text = toTypeScript(text);
      text = execFileSync(biome, ['format', `--stdin-file-path=${path}`], { input: text, cwd: root, encoding: 'utf8' });
    }
    return { path, text };
  });
}

/** Every template's outputs. */
export function expandAll() {
  return readdirSync(templates)
    .filter((f) => f.endsWith('.template.ts'))
    .sort()
    .flatMap((f) => expandTemplate(join(templates, f)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const stale = [];
  for (const { path, text } of expandAll()) {
    const target = join(root, path);
    let current;
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      current = undefined;
    }
    if (current === text) continue;
    if (check) stale.push(path);
    else writeFileSync(target, text);
  }
  if (stale.length > 0) {
    console.error(`These generated files are not what their templates make (run npm run build): ${stale.join(', ')}`);
    process.exit(1);
  }
}

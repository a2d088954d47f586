/**
 * glTF and GLB files read and checked before glTF-Transform sees them: the
 * GLB container (magic, version, length, chunks), the JSON, and every
 * buffer, bufferView and accessor against the bytes that are really there,
 * so that a file claiming more than it holds is an error naming the
 * accessor, bufferView or buffer and the offset, before anything is
 * allocated by the claim (glTF-Transform trusts the counts: an accessor past
 * its buffer came out as "vertices in 0", a count of 2^32 as a typed array
 * error with a stack). External buffers and images are read here too, so
 * the caller knows every file the input is made of.
 *
 * Values are checked later, on the document (gltf.ts): POSITION finite,
 * indices within POSITION.
 *
 * @module
 */

import { readFileSync, type Stats, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { InputError, systemError } from '../errors.js';

/** The parts of a glTF 2.0 JSON this tool reads (everything else passes through glTF-Transform untouched). */
export interface GltfJson {
  asset?: { version?: unknown; minVersion?: unknown };
  extensionsUsed?: unknown;
  extensionsRequired?: unknown;
  buffers?: BufferDef[];
  bufferViews?: BufferViewDef[];
  accessors?: AccessorDef[];
  meshes?: { name?: unknown; primitives?: PrimitiveDef[] }[];
  images?: { uri?: unknown; bufferView?: unknown; name?: unknown; mimeType?: unknown }[];
  [key: string]: unknown;
}

interface BufferDef {
  uri?: unknown;
  byteLength?: unknown;
  extensions?: { EXT_meshopt_compression?: { fallback?: unknown } };
}

interface MeshoptView {
  buffer?: unknown;
  byteOffset?: unknown;
  byteLength?: unknown;
  byteStride?: unknown;
  count?: unknown;
  mode?: unknown;
}

interface BufferViewDef {
  buffer?: unknown;
  byteOffset?: unknown;
  byteLength?: unknown;
  byteStride?: unknown;
  extensions?: { EXT_meshopt_compression?: MeshoptView };
}

interface AccessorDef {
  bufferView?: unknown;
  byteOffset?: unknown;
  componentType?: unknown;
  count?: unknown;
  type?: unknown;
  sparse?: {
    count?: unknown;
    indices?: { bufferView?: unknown; byteOffset?: unknown; componentType?: unknown };
    values?: { bufferView?: unknown; byteOffset?: unknown };
  };
}

export interface PrimitiveDef {
  attributes?: Record<string, unknown>;
  indices?: unknown;
  mode?: unknown;
  targets?: Record<string, unknown>[];
  extensions?: { KHR_draco_mesh_compression?: { bufferView?: unknown; attributes?: Record<string, unknown> } };
}

/** Where a buffer's byte 0 is: which file, and at what offset in it (the BIN chunk's data in a GLB). */
export interface BufferPlace {
  file: string;
  offset: number;
}

/** A glTF read and checked: what glTF-Transform's readJSON takes, and what the tool needs to know about it. */
export interface CheckedGltf {
  json: GltfJson;
  /** By URI as the JSON gives it (and `@glb.bin` for the GLB's BIN chunk). */
  resources: Record<string, Uint8Array>;
  /** Every file read for it: the input, its external buffers and images (absolute paths). */
  files: string[];
  /** Per buffer, where its bytes are (undefined: a data URI or a meshopt fallback buffer with no bytes). */
  places: (BufferPlace | undefined)[];
  binary: boolean;
  /** The extensions the file uses. */
  extensions: Set<string>;
}

/** glTF-Transform's key for the GLB's BIN chunk. */
const GLB_BUFFER = '@glb.bin';
const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

const COMPONENT_SIZES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const COMPONENT_NAMES: Record<number, string> = {
  5120: 'BYTE',
  5121: 'UNSIGNED_BYTE',
  5122: 'SHORT',
  5123: 'UNSIGNED_SHORT',
  5125: 'UNSIGNED_INT',
  5126: 'FLOAT',
};
const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };

/**
 * How much larger than its compressed bytes a meshopt bufferView may be
 * decoded: the codecs spend at least 2 bits per 16 vertex bytes and half a
 * byte per triangle, so 128x (plus a little) bounds every honest file, and a
 * count claiming more is refused before the decoder allocates for it.
 */
const MESHOPT_MAX_RATIO = 128;

/** What to do with a glTF 1.0 file, in the errors that meet one. */
export const GLTF1_ADVICE =
  'glTF 1.0, which this tool does not read: convert it to glTF 2.0 first, e.g. with Cesium\'s gltf-pipeline ("npx gltf-pipeline -i in.gltf -o out.gltf" upgrades 1.0 files)';

const number = (n: number) => n.toLocaleString('en-US');

function isIndex(value: unknown, length: number): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) < length;
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Reads a whole file, with a one-line error naming it. */
function readWhole(path: string, label: string, owner: string): Uint8Array {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw systemError(owner, `cannot read ${label} (${path})`, error);
  }
  if (stats.isDirectory()) throw new InputError(owner, '', `${label} (${path}) is a folder, not a file`);
  try {
    return readFileSync(path);
  } catch (error) {
    throw systemError(owner, `cannot read ${label} (${path})`, error);
  }
}

/** The bytes of a `data:` URI, checked (Node's base64 decoder skips what is not base64, so it is checked first). */
function dataUri(uri: string, what: string, file: string): Uint8Array {
  const comma = uri.indexOf(',');
  if (comma < 0) throw new InputError(file, '', `${what}: the data URI has no ","`);
  const header = uri.slice(5, comma);
  const payload = uri.slice(comma + 1);
  if (!header.endsWith(';base64')) {
    try {
      return Buffer.from(decodeURIComponent(payload), 'latin1');
    } catch {
      throw new InputError(file, '', `${what}: the data URI has an invalid percent escape`);
    }
  }
  const bad = /[^A-Za-z0-9+/=]/.exec(payload);
  if (bad !== null) {
    throw new InputError(
      file,
      '',
      `${what}: the data URI is not valid base64: ${JSON.stringify(bad[0])} at character ${bad.index} of its data`,
    );
  }
  const padding = /=*$/.exec(payload)![0].length;
  if (padding > 2 || payload.slice(0, payload.length - padding).includes('=') || payload.length % 4 === 1) {
    throw new InputError(file, '', `${what}: the data URI is not valid base64 (its length or "=" padding is wrong)`);
  }
  return Buffer.from(payload, 'base64');
}

/** A relative URI as a path beside the input (percent escapes decoded); URLs and absolute paths refused. */
function localPath(uri: string, what: string, input: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri) && !/^[a-z]:[\\/]/i.test(uri)) {
    throw new InputError(input, '', `${what} refers to ${JSON.stringify(uri)}: only files beside the input are read`);
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    throw new InputError(input, '', `${what}: its uri ${JSON.stringify(uri)} has an invalid percent escape`);
  }
  return resolve(dirname(input), decoded);
}

/** The GLB container: the JSON chunk's text and the BIN chunk (copied, so that typed arrays over it are aligned). */
function readGlb(bytes: Uint8Array, input: string): { text: string; jsonAt: number; bin?: Uint8Array; binAt: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12) {
    throw new InputError(input, `offset ${bytes.length}`, `truncated GLB: the 12-byte header ends at ${bytes.length}`);
  }
  const version = view.getUint32(4, true);
  if (version === 1) throw new InputError(input, 'offset 4', `GLB version 1 (KHR_binary_glTF) is ${GLTF1_ADVICE}`);
  if (version !== 2) {
    throw new InputError(input, 'offset 4', `GLB version ${version}: this tool reads version 2 (glTF 2.0) only`);
  }
  const length = view.getUint32(8, true);
  if (length > bytes.length) {
    throw new InputError(
      input,
      `offset ${bytes.length}`,
      `truncated GLB: its header says ${number(length)} bytes, the file ends at ${number(bytes.length)}`,
    );
  }
  let text: string | undefined;
  let jsonAt = 0;
  let bin: Uint8Array | undefined;
  let binAt = 0;
  for (let at = 12; at < length; ) {
    if (at + 8 > length) {
      throw new InputError(
        input,
        `offset ${at}`,
        `truncated GLB: a chunk header (8 bytes) runs past its end at ${length}`,
      );
    }
    const chunkLength = view.getUint32(at, true);
    const type = view.getUint32(at + 4, true);
    const start = at + 8;
    if (start + chunkLength > length) {
      const name = type === CHUNK_JSON ? 'JSON' : type === CHUNK_BIN ? 'BIN' : `0x${type.toString(16)}`;
      throw new InputError(
        input,
        `offset ${at}`,
        `truncated GLB: the ${name} chunk of ${number(chunkLength)} bytes runs to ${number(start + chunkLength)}, past the end at ${number(length)}`,
      );
    }
    if (at === 12) {
      if (type !== CHUNK_JSON) {
        throw new InputError(
          input,
          'offset 16',
          `the first GLB chunk must be JSON, its type is 0x${type.toString(16)}`,
        );
      }
      text = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(start, start + chunkLength));
      jsonAt = start;
    } else if (type === CHUNK_BIN && bin === undefined) {
      bin = bytes.slice(start, start + chunkLength);
      binAt = start;
    }
    // Other chunk types are to be ignored (glTF 2.0, GLB file format).
    at = start + chunkLength;
  }
  if (text === undefined) throw new InputError(input, 'offset 12', 'the GLB has no JSON chunk');
  return { text, jsonAt, bin, binAt };
}

/** JSON.parse with an error naming the line (a .gltf) or the offset (a GLB's JSON chunk). */
function parseJson(text: string, input: string, jsonAt: number | undefined): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    const message = (error as Error).message;
    const at = /position (\d+)/.exec(message);
    // Node 20's V8 names no position for some errors, only the text around it: found again in the text.
    const around = /"(?:\.\.\.)?([\s\S]+?)(?:\.\.\.)?" is not valid JSON/.exec(message);
    const position = at !== null ? Number(at[1]) : around !== null ? text.indexOf(around[1]!) : -1;
    const where =
      position < 0
        ? ''
        : jsonAt === undefined
          ? `line ${text.slice(0, position).split('\n').length}`
          : `offset ${jsonAt + position}`;
    const problem = message
      .replace(/ in JSON at position \d+[\s\S]*$/, '')
      .replace(/, "[\s\S]*" is not valid JSON$/, '');
    throw new InputError(input, where, `the glTF JSON is not valid: ${problem}`);
  }
}

/**
 * The checks of the module notes: reads `input` (GLB or JSON glTF, told by
 * its first bytes), its external buffers and images, and returns what
 * glTF-Transform's readJSON takes. Throws an InputError naming the file,
 * where and what is wrong.
 */
export function readCheckedGltf(input: string, isGlbName: boolean): CheckedGltf {
  const bytes = readWhole(input, 'the file', input);
  const binary = bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) === GLB_MAGIC;
  let text: string;
  let jsonAt: number | undefined;
  const resources: Record<string, Uint8Array> = {};
  let bin: Uint8Array | undefined;
  let binAt = 0;
  if (binary) {
    const glb = readGlb(bytes, input);
    text = glb.text;
    jsonAt = glb.jsonAt;
    bin = glb.bin;
    binAt = glb.binAt;
    if (bin !== undefined) resources[GLB_BUFFER] = bin;
  } else {
    const start = Buffer.from(bytes.subarray(0, 64)).toString('latin1').trimStart();
    if (isGlbName && !start.startsWith('{')) {
      const head = [...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
      throw new InputError(input, 'offset 0', `not a GLB: it begins with the bytes ${head}, a GLB with "glTF"`);
    }
    text = new TextDecoder('utf-8').decode(bytes);
  }
  const parsed = parseJson(text, input, jsonAt);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InputError(input, '', 'the glTF JSON must be an object');
  }
  const json = parsed as GltfJson;
  checkVersion(json, input);
  const extensions = new Set(Array.isArray(json.extensionsUsed) ? json.extensionsUsed.map(String) : []);
  const files = [resolve(input)];
  const places = checkBuffers(json, input, resources, files, bin, binAt, binary);
  checkBufferViews(json, input, resources, places);
  const fileBytes = Object.values(resources).reduce((sum, data) => sum + data.length, bytes.length);
  checkAccessors(json, input, places, fileBytes);
  checkMeshes(json, input);
  checkImages(json, input, resources, files);
  checkReferences(json, input);
  return { json, resources, files, places, binary, extensions };
}

function checkVersion(json: GltfJson, input: string): void {
  const version = json.asset?.version;
  // glTF 1.0 keyed its objects by name (meshes: { "mesh-1": ... }); 2.0 has arrays.
  const keyed = ['meshes', 'accessors', 'buffers', 'bufferViews'].some(
    (key) => json[key] !== undefined && !Array.isArray(json[key]),
  );
  if ((typeof version === 'string' && /^1(\.|$)/.test(version)) || (version === undefined && keyed)) {
    throw new InputError(input, '', `this is ${GLTF1_ADVICE}`);
  }
  if (typeof version !== 'string') throw new InputError(input, '', 'asset.version is missing: not a glTF 2.0 file');
  if (!/^2(\.|$)/.test(version)) {
    throw new InputError(input, '', `glTF version ${JSON.stringify(version)}: this tool reads glTF 2.x`);
  }
  for (const key of ['buffers', 'bufferViews', 'accessors', 'meshes', 'images']) {
    if (json[key] !== undefined && !Array.isArray(json[key])) {
      throw new InputError(input, '', `"${key}" must be an array in glTF 2.0`);
    }
  }
}

function checkBuffers(
  json: GltfJson,
  input: string,
  resources: Record<string, Uint8Array>,
  files: string[],
  bin: Uint8Array | undefined,
  binAt: number,
  binary: boolean,
): (BufferPlace | undefined)[] {
  const places: (BufferPlace | undefined)[] = [];
  for (const [b, buffer] of (json.buffers ?? []).entries()) {
    const what = `buffer ${b}`;
    if (buffer === null || typeof buffer !== 'object') throw new InputError(input, '', `${what} is not an object`);
    // glTF-Transform writes a buffer nothing uses as {} (no byteLength): read as empty when no bufferView uses it.
    const used = (json.bufferViews ?? []).some((view) => view?.buffer === b);
    const declared = buffer.byteLength === undefined && buffer.uri === undefined && !used ? 0 : buffer.byteLength;
    if (!isCount(declared)) {
      throw new InputError(input, '', `${what}: byteLength must be an integer >= 0, got ${JSON.stringify(declared)}`);
    }
    const uri = buffer.uri;
    let data: Uint8Array | undefined;
    let place: BufferPlace | undefined;
    if (uri === undefined) {
      if (buffer.extensions?.EXT_meshopt_compression?.fallback === true) {
        // A meshopt fallback holds no bytes: only bufferViews decoded by EXT_meshopt_compression point into it.
        places.push(undefined);
        continue;
      }
      if (!binary || b !== 0) {
        throw new InputError(
          input,
          '',
          `${what} has no uri and is not the BIN chunk of a GLB (only buffer 0 of a GLB can be)`,
        );
      }
      if (bin === undefined) {
        if (declared === 0) {
          places.push(undefined);
          continue;
        }
        throw new InputError(
          input,
          '',
          `${what} is the GLB's BIN chunk, and the GLB has none (byteLength ${number(declared)})`,
        );
      }
      data = bin;
      place = { file: input, offset: binAt };
      if (data.length < declared) {
        throw new InputError(
          input,
          `offset ${binAt}`,
          `${what} (the BIN chunk) holds ${number(data.length)} bytes, its byteLength says ${number(declared)}`,
        );
      }
    } else if (typeof uri !== 'string') {
      throw new InputError(input, '', `${what}: uri must be a string`);
    } else if (uri.startsWith('data:')) {
      data = dataUri(uri, what, input);
      resources[uri] = data;
      if (data.length < declared) {
        throw new InputError(
          input,
          '',
          `${what}: its data URI holds ${number(data.length)} bytes, its byteLength says ${number(declared)}`,
        );
      }
    } else {
      const path = localPath(uri, what, input);
      data = readWhole(path, `${what} (${uri})`, input);
      resources[uri] = data;
      files.push(path);
      place = { file: path, offset: 0 };
      if (data.length < declared) {
        throw new InputError(
          input,
          '',
          `${what} (${uri}) has ${number(data.length)} bytes, its byteLength says ${number(declared)}${data.length === 0 ? ' (an empty file)' : ' (truncated?)'}`,
        );
      }
    }
    places.push(place);
  }
  return places;
}

function checkBufferViews(
  json: GltfJson,
  input: string,
  _resources: Record<string, Uint8Array>,
  places: (BufferPlace | undefined)[],
): void {
  const buffers = json.buffers ?? [];
  for (const [v, view] of (json.bufferViews ?? []).entries()) {
    const what = `bufferView ${v}`;
    if (view === null || typeof view !== 'object') throw new InputError(input, '', `${what} is not an object`);
    if (!isIndex(view.buffer, buffers.length)) {
      throw new InputError(
        input,
        '',
        `${what}: buffer ${JSON.stringify(view.buffer)} is not one of the ${buffers.length} buffers`,
      );
    }
    const offset = view.byteOffset ?? 0;
    const length = view.byteLength;
    if (!isCount(offset) || !isCount(length)) {
      throw new InputError(input, '', `${what}: byteOffset and byteLength must be integers >= 0`);
    }
    const bufferLength = buffers[view.buffer]!.byteLength as number;
    if (offset + length > bufferLength) {
      throw new InputError(
        input,
        '',
        `${what}: bytes ${number(offset)} to ${number(offset + length)} run past the end of buffer ${view.buffer} (${number(bufferLength)} bytes)`,
      );
    }
    if (view.byteStride !== undefined) {
      const stride = view.byteStride;
      if (
        !Number.isInteger(stride) ||
        (stride as number) < 4 ||
        (stride as number) > 252 ||
        (stride as number) % 4 !== 0
      ) {
        throw new InputError(
          input,
          '',
          `${what}: byteStride must be a multiple of 4 from 4 to 252, got ${JSON.stringify(stride)}`,
        );
      }
    }
    const meshopt = view.extensions?.EXT_meshopt_compression;
    if (meshopt !== undefined) {
      checkMeshoptView(meshopt, what, length, json, input);
    } else if (
      places[view.buffer] === undefined &&
      buffers[view.buffer]!.uri === undefined &&
      (bufferLength > 0 || length > 0)
    ) {
      throw new InputError(
        input,
        '',
        `${what} points into buffer ${view.buffer}, which holds no bytes (a meshopt fallback)`,
      );
    }
  }
}

function checkMeshoptView(meshopt: MeshoptView, what: string, viewLength: number, json: GltfJson, input: string): void {
  const buffers = json.buffers ?? [];
  const label = `${what} (EXT_meshopt_compression)`;
  if (!isIndex(meshopt.buffer, buffers.length)) {
    throw new InputError(
      input,
      '',
      `${label}: buffer ${JSON.stringify(meshopt.buffer)} is not one of the ${buffers.length} buffers`,
    );
  }
  const offset = meshopt.byteOffset ?? 0;
  const { byteLength, byteStride, count } = meshopt;
  if (!isCount(offset) || !isCount(byteLength) || !isCount(byteStride) || !isCount(count) || byteStride === 0) {
    throw new InputError(
      input,
      '',
      `${label}: byteOffset, byteLength, byteStride and count must be integers (byteStride > 0)`,
    );
  }
  const bufferLength = buffers[meshopt.buffer]!.byteLength as number;
  if (offset + byteLength > bufferLength) {
    throw new InputError(
      input,
      '',
      `${label}: compressed bytes ${number(offset)} to ${number(offset + byteLength)} run past the end of buffer ${meshopt.buffer} (${number(bufferLength)} bytes)`,
    );
  }
  const decoded = count * byteStride;
  if (decoded > viewLength) {
    throw new InputError(
      input,
      '',
      `${label}: count ${number(count)} x byteStride ${byteStride} is ${number(decoded)} bytes, more than the bufferView's ${number(viewLength)}`,
    );
  }
  if (decoded > MESHOPT_MAX_RATIO * byteLength + 4096) {
    throw new InputError(
      input,
      '',
      `${label}: count ${number(count)} would decode ${number(decoded)} bytes from ${number(byteLength)}, more than meshopt can encode in them`,
    );
  }
}

/** Bytes one element of `type` takes in a bufferView: matrix columns of 1- and 2-byte components are padded to 4. */
function elementBytes(type: string, componentSize: number): number {
  const columns = type === 'MAT2' ? 2 : type === 'MAT3' ? 3 : type === 'MAT4' ? 4 : 0;
  if (columns === 0 || componentSize === 4) return COMPONENTS[type]! * componentSize;
  return columns * Math.ceil((columns * componentSize) / 4) * 4;
}

/** Accessors compressed by Draco: their data comes from the decoder, not from a bufferView. */
function dracoAccessors(json: GltfJson): Set<number> {
  const set = new Set<number>();
  for (const mesh of json.meshes ?? []) {
    for (const primitive of mesh?.primitives ?? []) {
      if (primitive?.extensions?.KHR_draco_mesh_compression === undefined) continue;
      for (const value of Object.values(primitive.attributes ?? {})) if (typeof value === 'number') set.add(value);
      if (typeof primitive.indices === 'number') set.add(primitive.indices);
    }
  }
  return set;
}

function checkAccessors(json: GltfJson, input: string, places: (BufferPlace | undefined)[], fileBytes: number): void {
  const views = json.bufferViews ?? [];
  const draco = dracoAccessors(json);
  for (const [a, accessor] of (json.accessors ?? []).entries()) {
    const what = `accessor ${a}`;
    if (accessor === null || typeof accessor !== 'object') throw new InputError(input, '', `${what} is not an object`);
    const componentSize = COMPONENT_SIZES[accessor.componentType as number];
    if (componentSize === undefined) {
      throw new InputError(
        input,
        '',
        `${what}: componentType ${JSON.stringify(accessor.componentType)} is not a glTF component type`,
      );
    }
    const type = accessor.type;
    if (typeof type !== 'string' || !(type in COMPONENTS)) {
      throw new InputError(
        input,
        '',
        `${what}: type ${JSON.stringify(type)} is not SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4`,
      );
    }
    const count = accessor.count;
    if (!isCount(count) || count < 1 || count > 0xffffffff) {
      throw new InputError(
        input,
        '',
        `${what}: count must be an integer from 1 to 2^32 - 1, got ${JSON.stringify(count)}`,
      );
    }
    const size = elementBytes(type, componentSize);
    const kind = `${type} ${COMPONENT_NAMES[accessor.componentType as number]}`;
    // Without a bufferView: Draco decodes the data (as many elements as it holds), or zeros by the spec, which
    // glTF-Transform allocates by the count: a count the files cannot describe is refused before that.
    if (accessor.bufferView === undefined && !draco.has(a) && count > fileBytes) {
      throw new InputError(
        input,
        '',
        `${what}: count ${number(count)} of ${kind} with no bufferView (all zeros) is more than the ${number(fileBytes)} bytes of the files could describe`,
      );
    }
    if (accessor.bufferView !== undefined && !draco.has(a)) {
      if (!isIndex(accessor.bufferView, views.length)) {
        throw new InputError(
          input,
          '',
          `${what}: bufferView ${JSON.stringify(accessor.bufferView)} is not one of the ${views.length} bufferViews`,
        );
      }
      const view = views[accessor.bufferView]!;
      const offset = accessor.byteOffset ?? 0;
      if (!isCount(offset)) throw new InputError(input, '', `${what}: byteOffset must be an integer >= 0`);
      const stride = (view.byteStride as number | undefined) ?? size;
      const viewLength = view.byteLength as number;
      const needed = count === 0 ? 0 : offset + stride * (count - 1) + size;
      if (needed > viewLength) {
        const place = places[view.buffer as number];
        const at =
          place === undefined
            ? ''
            : ` (it starts at offset ${number(place.offset + ((view.byteOffset as number | undefined) ?? 0))} of ${basename(place.file)})`;
        throw new InputError(
          input,
          '',
          `${what}: count ${number(count)} of ${kind} (${size} bytes each, stride ${stride}) needs ${number(needed)} bytes of bufferView ${accessor.bufferView}, which has ${number(viewLength)}${at}`,
        );
      }
      if (
        (((view.byteOffset as number | undefined) ?? 0) + offset) % componentSize !== 0 ||
        stride % componentSize !== 0
      ) {
        throw new InputError(input, '', `${what}: its data is not aligned to its ${componentSize}-byte components`);
      }
    }
    if (accessor.sparse !== undefined) checkSparse(accessor, what, count, size, json, input);
  }
}

function checkSparse(
  accessor: AccessorDef,
  what: string,
  count: number,
  size: number,
  json: GltfJson,
  input: string,
): void {
  const sparse = accessor.sparse!;
  const views = json.bufferViews ?? [];
  const label = `${what} (sparse)`;
  const entries = sparse.count;
  if (!isCount(entries) || entries < 1 || entries > count) {
    throw new InputError(
      input,
      '',
      `${label}: count must be from 1 to the accessor's ${number(count)}, got ${JSON.stringify(entries)}`,
    );
  }
  const indexSize = { 5121: 1, 5123: 2, 5125: 4 }[sparse.indices?.componentType as number];
  if (indexSize === undefined) {
    throw new InputError(
      input,
      '',
      `${label}: indices.componentType must be UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT`,
    );
  }
  for (const [part, bytes, ref] of [
    ['indices', entries * indexSize, sparse.indices],
    ['values', entries * size, sparse.values],
  ] as const) {
    if (!isIndex(ref?.bufferView, views.length)) {
      throw new InputError(
        input,
        '',
        `${label}: ${part}.bufferView ${JSON.stringify(ref?.bufferView)} is not one of the ${views.length} bufferViews`,
      );
    }
    const offset = ref.byteOffset ?? 0;
    if (!isCount(offset) || offset + bytes > (views[ref.bufferView]!.byteLength as number)) {
      throw new InputError(
        input,
        '',
        `${label}: ${number(entries)} ${part} (${number(bytes)} bytes from ${JSON.stringify(offset)}) run past the end of bufferView ${ref.bufferView}`,
      );
    }
  }
}

function checkMeshes(json: GltfJson, input: string): void {
  const accessors = json.accessors ?? [];
  const views = json.bufferViews ?? [];
  for (const [m, mesh] of (json.meshes ?? []).entries()) {
    if (mesh === null || typeof mesh !== 'object' || !Array.isArray(mesh.primitives)) {
      throw new InputError(input, '', `mesh ${m} has no primitives array`);
    }
    for (const [p, primitive] of mesh.primitives.entries()) {
      const where = `mesh ${m}, primitive ${p}`;
      if (
        primitive === null ||
        typeof primitive !== 'object' ||
        primitive.attributes === null ||
        typeof primitive.attributes !== 'object'
      ) {
        throw new InputError(input, '', `${where} has no attributes object`);
      }
      const refer = (semantic: string, value: unknown) => {
        if (!isIndex(value, accessors.length)) {
          throw new InputError(
            input,
            '',
            `${where}: ${semantic} is accessor ${JSON.stringify(value)}, not one of the ${accessors.length} accessors`,
          );
        }
        return accessors[value]!;
      };
      for (const [semantic, value] of Object.entries(primitive.attributes)) {
        const accessor = refer(semantic, value);
        if (semantic === 'POSITION' && accessor.type !== 'VEC3') {
          throw new InputError(
            input,
            '',
            `accessor ${value} (POSITION of ${where}) is ${String(accessor.type)}; POSITION must be VEC3`,
          );
        }
      }
      for (const [t, target] of (primitive.targets ?? []).entries()) {
        for (const [semantic, value] of Object.entries(target ?? {})) refer(`target ${t} ${semantic}`, value);
      }
      if (primitive.indices !== undefined) {
        const accessor = refer('indices', primitive.indices);
        if (accessor.type !== 'SCALAR' || ![5121, 5123, 5125].includes(accessor.componentType as number)) {
          throw new InputError(
            input,
            '',
            `accessor ${primitive.indices} (indices of ${where}) is ${String(accessor.type)} ${COMPONENT_NAMES[accessor.componentType as number] ?? accessor.componentType}; indices must be SCALAR of unsigned integers`,
          );
        }
      }
      const draco = primitive.extensions?.KHR_draco_mesh_compression;
      for (const [semantic, id] of Object.entries(draco?.attributes ?? {})) {
        // Draco's decoder takes an int32: 1e308 would read attribute 0, another attribute's data.
        if (!isIndex(id, 2 ** 31)) {
          throw new InputError(
            input,
            '',
            `${where}: its Draco attribute id of ${semantic} is ${JSON.stringify(id)}, not an integer >= 0`,
          );
        }
      }
      if (draco !== undefined && !isIndex(draco.bufferView, views.length)) {
        throw new InputError(
          input,
          '',
          `${where}: its Draco bufferView ${JSON.stringify(draco.bufferView)} is not one of the ${views.length} bufferViews`,
        );
      }
    }
  }
}

function checkImages(json: GltfJson, input: string, resources: Record<string, Uint8Array>, files: string[]): void {
  const views = json.bufferViews ?? [];
  for (const [i, image] of (json.images ?? []).entries()) {
    const what = `image ${i}`;
    if (image === null || typeof image !== 'object') throw new InputError(input, '', `${what} is not an object`);
    if (image.bufferView !== undefined) {
      if (!isIndex(image.bufferView, views.length)) {
        throw new InputError(
          input,
          '',
          `${what}: bufferView ${JSON.stringify(image.bufferView)} is not one of the ${views.length} bufferViews`,
        );
      }
      continue;
    }
    const uri = image.uri;
    if (typeof uri !== 'string') throw new InputError(input, '', `${what} has neither a uri nor a bufferView`);
    if (uri.startsWith('data:')) {
      resources[uri] = dataUri(uri, what, input);
      continue;
    }
    const path = localPath(uri, what, input);
    resources[uri] = readWhole(path, `${what} (${uri})`, input);
    files.push(path);
  }
}

/** Where each core glTF 2.0 object refers to others by index: [from, field path, to]. */
const REFERENCES: [string, string, string][] = [
  ['scenes', 'nodes[]', 'nodes'],
  ['nodes', 'children[]', 'nodes'],
  ['nodes', 'mesh', 'meshes'],
  ['nodes', 'skin', 'skins'],
  ['nodes', 'camera', 'cameras'],
  ['skins', 'joints[]', 'nodes'],
  ['skins', 'skeleton', 'nodes'],
  ['skins', 'inverseBindMatrices', 'accessors'],
  ['textures', 'source', 'images'],
  ['textures', 'sampler', 'samplers'],
  ['materials', 'pbrMetallicRoughness.baseColorTexture.index', 'textures'],
  ['materials', 'pbrMetallicRoughness.metallicRoughnessTexture.index', 'textures'],
  ['materials', 'normalTexture.index', 'textures'],
  ['materials', 'occlusionTexture.index', 'textures'],
  ['materials', 'emissiveTexture.index', 'textures'],
  ['meshes', 'primitives[].material', 'materials'],
  ['animations', 'channels[].target.node', 'nodes'],
  ['animations', 'samplers[].input', 'accessors'],
  ['animations', 'samplers[].output', 'accessors'],
];

/** The values at `path` (a dotted path, `[]` marking an array to go through) of `value`. */
function valuesAt(value: unknown, path: string[]): { value: unknown; at: string }[] {
  if (path.length === 0) return [{ value, at: '' }];
  if (value === null || typeof value !== 'object') return [];
  const [head, ...rest] = path;
  const many = head!.endsWith('[]');
  const key = many ? head!.slice(0, -2) : head!;
  const next = (value as Record<string, unknown>)[key];
  if (next === undefined) return [];
  if (!many) return valuesAt(next, rest).map((v) => ({ value: v.value, at: `.${key}${v.at}` }));
  if (!Array.isArray(next)) return [{ value: next, at: `.${key}` }];
  return next.flatMap((item, k) => valuesAt(item, rest).map((v) => ({ value: v.value, at: `.${key}[${k}]${v.at}` })));
}

/**
 * Every core index reference (scenes to nodes, nodes to meshes and skins,
 * materials to textures, animations to accessors...) points at an object
 * that exists: glTF-Transform follows them unchecked (a scene's node -1 came
 * out as "Cannot read properties of undefined").
 */
function checkReferences(json: GltfJson, input: string): void {
  for (const [from, field, to] of REFERENCES) {
    const list = json[from];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new InputError(input, '', `"${from}" must be an array in glTF 2.0`);
    const length = Array.isArray(json[to]) ? (json[to] as unknown[]).length : 0;
    for (const [k, item] of list.entries()) {
      if (item === null || typeof item !== 'object') throw new InputError(input, '', `${from}[${k}] is not an object`);
      for (const { value, at } of valuesAt(item, field.split('.'))) {
        if (!isIndex(value, length)) {
          throw new InputError(
            input,
            '',
            `${from}[${k}]${at} is ${JSON.stringify(value)}, not one of the ${length} ${to}`,
          );
        }
      }
    }
  }
  if (json.scene !== undefined && !isIndex(json.scene, Array.isArray(json.scenes) ? json.scenes.length : 0)) {
    throw new InputError(input, '', `scene is ${JSON.stringify(json.scene)}, not one of the scenes`);
  }
}

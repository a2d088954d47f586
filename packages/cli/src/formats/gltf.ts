/**
 * glTF and GLB through glTF-Transform: the file is read and checked by
 * gltf-check.ts, decoded by glTF-Transform with every extension it knows
 * (Draco by draco3d, meshopt by meshoptimizer, each loaded only for a file
 * that uses it), its values checked, welded by spatialhash/gltf-transform's
 * weldByDistance on the decoded positions, and written as .glb or .gltf.
 *
 * Compression: an input compressed with Draco or meshopt is written
 * compressed the same way (Draco with the quantization bits and method its
 * data was encoded with), unless `--decompress` asks for plain accessors.
 *
 * Files: a .gltf output's buffers and images get names derived from the
 * output (`<name>.bin`, `<name>_<image>.png`), written beside it, never over
 * a file of the input, and never over any other existing file unless the
 * output being replaced used it, or `--force` is given. Everything goes
 * through temporary files, renamed into place once all are written (the
 * .gltf last).
 *
 * @module
 */

import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import {
  type Accessor,
  type Document,
  type JSONDocument,
  Logger,
  NodeIO,
  type Primitive,
  type Texture,
} from '@gltf-transform/core';
import { ALL_EXTENSIONS, EXTMeshoptCompression, type KHRDracoMeshCompression } from '@gltf-transform/extensions';
import { type WeldByDistanceReport, weldByDistance } from 'spatialhash/gltf-transform';
import { InputError, UsageError } from '../errors.js';
import { AtomicOutput } from '../files.js';
import { type Counts, stopwatch, type WeldJob } from '../summary.js';
import { checkAttributeNames } from '../weld-vertices.js';
import { type CheckedGltf, type GltfJson, readCheckedGltf } from './gltf-check.js';

const TRIANGLES = 4;
const DRACO = 'KHR_draco_mesh_compression';
const MESHOPT = 'EXT_meshopt_compression';

/** What the command line adds for glTF. */
export interface GltfOptions {
  /** Let a .gltf output's buffers and images replace existing files. */
  force: boolean;
  /** Write the geometry uncompressed, whatever the input was. */
  decompress: boolean;
  /** Where glTF-Transform's warnings go (stderr, prefixed). */
  warn: (text: string) => void;
}

/** glTF-Transform's logger, its warnings and errors passed on (the weld's among them), the rest dropped. */
class WarningLogger extends Logger {
  constructor(private readonly sink: (text: string) => void) {
    super(Logger.Verbosity.WARN);
  }
  override warn(text: string): void {
    this.sink(text);
  }
  override error(text: string): void {
    this.sink(text);
  }
}

/** Vertices (each POSITION accessor once) and triangles the document's primitives draw. */
function census(document: Document): { vertices: number; triangles: number } {
  const seen = new Set<unknown>();
  let vertices = 0;
  let triangles = 0;
  const primitives: Primitive[] = document
    .getRoot()
    .listMeshes()
    .flatMap((mesh) => mesh.listPrimitives());
  for (const primitive of primitives) {
    const position = primitive.getAttribute('POSITION');
    if (position !== null && !seen.has(position)) {
      seen.add(position);
      vertices += position.getCount();
    }
    if (primitive.getMode() === TRIANGLES) {
      triangles += Math.floor((primitive.getIndices()?.getCount() ?? position?.getCount() ?? 0) / 3);
    }
  }
  return { vertices, triangles };
}

/** Draco's settings as the file's Draco data states them, to encode the output the same way. */
interface DracoSettings {
  method: number;
  quantizationBits: Record<string, number>;
}

/** The quantization group glTF-Transform's Draco encoder gives a semantic. */
function dracoGroup(semantic: string): string {
  if (semantic === 'POSITION' || semantic === 'NORMAL') return semantic;
  if (semantic.startsWith('COLOR_')) return 'COLOR';
  if (semantic.startsWith('TEXCOORD_')) return 'TEX_COORD';
  return 'GENERIC';
}

// draco3d has no ES module types of its own worth the name here: the decoder is used through these few calls.
interface DracoDecoderModule {
  DecoderBuffer: new () => { Init(data: Uint8Array, length: number): void };
  Decoder: new () => {
    DecodeBufferToMesh(buffer: unknown, mesh: unknown): { ok(): boolean };
    GetAttributeByUniqueId(mesh: unknown, id: number): unknown;
  };
  Mesh: new () => { ptr: number };
  AttributeQuantizationTransform: new () => {
    InitFromAttribute(attribute: unknown): boolean;
    quantization_bits(): number;
  };
  destroy(object: unknown): void;
}

/**
 * Reads the method (byte 8 of a Draco header: 0 sequential, 1 edgebreaker)
 * and each attribute's quantization bits from the file's Draco data, the
 * largest per group where primitives differ (so no attribute is stored
 * coarser than it came). Groups the file does not quantize keep
 * glTF-Transform's defaults.
 */
function dracoSettings(decoderModule: DracoDecoderModule, checked: CheckedGltf): DracoSettings {
  const { json, resources, places } = checked;
  const settings: DracoSettings = { method: 1, quantizationBits: {} };
  const seen = new Set<number>();
  for (const mesh of json.meshes ?? []) {
    for (const primitive of mesh.primitives ?? []) {
      const draco = primitive.extensions?.KHR_draco_mesh_compression;
      if (draco === undefined || seen.has(draco.bufferView as number)) continue;
      seen.add(draco.bufferView as number);
      const view = json.bufferViews![draco.bufferView as number]!;
      const buffer = json.buffers![view.buffer as number]!;
      const data =
        typeof buffer.uri === 'string' ? resources[buffer.uri] : places[view.buffer as number] && resources['@glb.bin'];
      if (data === undefined) continue;
      const start = (view.byteOffset as number | undefined) ?? 0;
      const bytes = data.subarray(start, start + (view.byteLength as number));
      if (bytes.length > 8) settings.method = bytes[8] === 0 ? 0 : 1;
      const decoder = new decoderModule.Decoder();
      const input = new decoderModule.DecoderBuffer();
      const dracoMesh = new decoderModule.Mesh();
      try {
        input.Init(bytes, bytes.length);
        if (!decoder.DecodeBufferToMesh(input, dracoMesh).ok()) continue;
        for (const [semantic, id] of Object.entries(draco.attributes ?? {})) {
          const attribute = decoder.GetAttributeByUniqueId(dracoMesh, id as number);
          const transform = new decoderModule.AttributeQuantizationTransform();
          if (transform.InitFromAttribute(attribute)) {
            const group = dracoGroup(semantic);
            settings.quantizationBits[group] = Math.max(
              settings.quantizationBits[group] ?? 0,
              transform.quantization_bits(),
            );
          }
          decoderModule.destroy(transform);
        }
      } finally {
        decoderModule.destroy(dracoMesh);
        decoderModule.destroy(input);
        decoder && decoderModule.destroy(decoder);
      }
    }
  }
  return settings;
}

/** A NodeIO with the decoders (and encoders, unless the output is decompressed) the file's extensions need. */
async function ioFor(checked: CheckedGltf, options: GltfOptions): Promise<{ io: NodeIO; draco?: DracoSettings }> {
  const io = new NodeIO().registerExtensions(ALL_EXTENSIONS).setLogger(new WarningLogger(options.warn));
  const dependencies: Record<string, unknown> = {};
  let draco: DracoSettings | undefined;
  if (checked.extensions.has(DRACO)) {
    const draco3d = (await import('draco3d')).default;
    const decoder = (await draco3d.createDecoderModule()) as unknown as DracoDecoderModule;
    dependencies['draco3d.decoder'] = decoder;
    if (!options.decompress) {
      dependencies['draco3d.encoder'] = await draco3d.createEncoderModule();
      draco = dracoSettings(decoder, checked);
    }
  }
  if (checked.extensions.has(MESHOPT)) {
    const { MeshoptDecoder, MeshoptEncoder } = await import('meshoptimizer');
    await MeshoptDecoder.ready;
    dependencies['meshopt.decoder'] = MeshoptDecoder;
    if (!options.decompress) {
      await MeshoptEncoder.ready;
      dependencies['meshopt.encoder'] = MeshoptEncoder;
    }
  }
  io.registerDependencies(dependencies);
  return { io, draco };
}

/** Per accessor of the document just read, its number in the file (for messages). */
function accessorNumbers(document: Document): Map<Accessor, number> {
  return new Map(
    document
      .getRoot()
      .listAccessors()
      .map((accessor, index) => [accessor, index]),
  );
}

/**
 * Where element `element`, component `component` of accessor `a` sits in
 * its file, for an accessor read straight from a bufferView (not compressed,
 * not sparse): `offset N of FILE`, or '' when it has no such place.
 */
function placeOf(checked: CheckedGltf, a: number, element: number, component: number): string {
  const accessor = checked.json.accessors?.[a] as
    | { bufferView?: number; byteOffset?: number; componentType?: number; type?: string; sparse?: unknown }
    | undefined;
  if (accessor?.bufferView === undefined || accessor.sparse !== undefined) return '';
  const view = checked.json.bufferViews![accessor.bufferView]!;
  if (view.extensions?.EXT_meshopt_compression !== undefined) return '';
  const place = checked.places[view.buffer as number];
  if (place === undefined) return '';
  const size =
    accessor.componentType === 5126 || accessor.componentType === 5125 ? 4 : accessor.componentType! >= 5122 ? 2 : 1;
  const components = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 }[accessor.type as 'VEC3'] ?? 1;
  const stride = (view.byteStride as number | undefined) ?? size * components;
  const offset =
    place.offset +
    ((view.byteOffset as number) ?? 0) +
    (accessor.byteOffset ?? 0) +
    element * stride +
    component * size;
  return ` (offset ${offset.toLocaleString('en-US')} of ${basename(place.file)})`;
}

/**
 * The values weldByDistance would refuse, refused here with the accessor's
 * number and the offset in the file: a POSITION that is not finite, an index
 * past POSITION's count.
 */
function checkValues(document: Document, checked: CheckedGltf, input: string): void {
  const numbers = accessorNumbers(document);
  checkDecodedCounts(document, checked, input);
  const checkedAccessors = new Set<Accessor>();
  for (const [m, mesh] of document.getRoot().listMeshes().entries()) {
    for (const [p, primitive] of mesh.listPrimitives().entries()) {
      const where = `mesh ${m}, primitive ${p}`;
      const position = primitive.getAttribute('POSITION');
      if (position === null) continue;
      const a = numbers.get(position)!;
      const array = position.getArray();
      if (array === null) throw new InputError(input, '', `accessor ${a} (POSITION of ${where}) has no data`);
      if (!checkedAccessors.has(position)) {
        checkedAccessors.add(position);
        for (let k = 0; k < array.length; k++) {
          if (!Number.isFinite(array[k])) {
            const element = Math.floor(k / 3);
            throw new InputError(
              input,
              '',
              `accessor ${a} (POSITION of ${where}): element ${element} has ${'xyz'[k % 3]} = ${array[k]}${placeOf(checked, a, element, k % 3)}; positions must be finite`,
            );
          }
        }
      }
      const indices = primitive.getIndices();
      const values = indices?.getArray();
      if (indices === null || values === null || values === undefined) continue;
      const count = position.getCount();
      for (let k = 0; k < values.length; k++) {
        if (values[k]! >= count) {
          const i = numbers.get(indices)!;
          throw new InputError(
            input,
            '',
            `accessor ${i} (indices of ${where}): element ${k} is ${values[k]}${placeOf(checked, i, k, 0)}, past the ${count.toLocaleString('en-US')} vertices of POSITION (accessor ${a})`,
          );
        }
      }
    }
  }
}

/**
 * Draco gives each accessor of a compressed primitive as many elements as
 * it decodes: that must be the count the file states (an attribute id that
 * is not in the Draco data decodes to nothing, silently).
 */
function checkDecodedCounts(document: Document, checked: CheckedGltf, input: string): void {
  const accessors = document.getRoot().listAccessors();
  for (const [m, mesh] of (checked.json.meshes ?? []).entries()) {
    for (const [p, primitive] of (mesh.primitives ?? []).entries()) {
      if (primitive.extensions?.KHR_draco_mesh_compression === undefined) continue;
      const refs: [string, unknown][] = [...Object.entries(primitive.attributes ?? {}), ['indices', primitive.indices]];
      for (const [semantic, a] of refs) {
        if (typeof a !== 'number') continue;
        const stated = checked.json.accessors![a]!.count as number;
        const decoded = accessors[a]!.getCount();
        if (decoded !== stated) {
          throw new InputError(
            input,
            '',
            `accessor ${a} (${semantic} of mesh ${m}, primitive ${p}): its Draco data decodes to ${decoded.toLocaleString('en-US')} elements, the accessor says ${stated.toLocaleString('en-US')}`,
          );
        }
      }
    }
  }
}

/** Every attribute semantic of the document's primitives (and their targets), in first-seen order. */
function semanticsOf(document: Document): string[] {
  const seen = new Set<string>();
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      for (const semantic of primitive.listSemantics()) seen.add(semantic);
      for (const target of primitive.listTargets()) for (const semantic of target.listSemantics()) seen.add(semantic);
    }
  }
  return [...seen];
}

/** An --ignore or --attribute-tolerance name the file has no attribute of: the error every format gives. */
function checkAttributes(document: Document, job: WeldJob): void {
  for (const name of [...job.ignore, ...job.tolerances.keys()]) {
    if (name === 'POSITION') {
      const option = job.ignore.has(name) ? '--ignore' : '--attribute-tolerance';
      throw new UsageError(`weld: ${option} POSITION: positions are what weld welds by (use --tolerance)`);
    }
  }
  const semantics = semanticsOf(document).filter((semantic) => semantic !== 'POSITION');
  checkAttributeNames(job.input, semantics, job);
}

/** Welds a glTF or GLB file into `output` (.glb or .gltf, whichever its name ends with). */
export async function weldGltf(job: WeldJob, options: GltfOptions): Promise<Counts> {
  const { input, output, tolerance, tolerances, ignore, progress } = job;
  const clock = stopwatch();
  progress.step('reading');
  const checked = readCheckedGltf(input, extname(input).toLowerCase() === '.glb');
  const { io, draco } = await ioFor(checked, options);
  progress.step('decoding');
  let document: Document;
  try {
    document = await io.readJSON({ json: checked.json, resources: checked.resources } as JSONDocument);
  } catch (error) {
    throw new InputError(input, '', `cannot read as glTF: ${(error as Error).message.split('\n')[0]}`);
  }
  checkValues(document, checked, input);
  checkAttributes(document, job);
  const before = census(document);
  progress.step('welding');
  // Vertex counts before compaction: weldByDistance drops vertices no primitive draws along with the merged ones.
  const drawn = drawnVertices(document);
  clock.lap('reading');
  let report: WeldByDistanceReport = { keptApart: {} };
  try {
    await document.transform(
      weldByDistance({
        tolerance,
        attributeTolerances: Object.fromEntries(tolerances),
        ignore: [...ignore],
        report: (r) => {
          report = r;
        },
      }),
    );
  } catch (error) {
    // checkValues took what the weld refuses; anything left is about the file still.
    throw new InputError(input, '', (error as Error).message.replace(/^weldByDistance: /, ''));
  }
  const after = census(document);
  clock.lap('welding');
  progress.step('encoding');
  // A buffer nothing uses any more (every primitive collapsed) would be written as {}, with no byteLength.
  for (const buffer of document.getRoot().listBuffers()) {
    if (buffer.listParents().every((parent) => parent === document.getRoot())) buffer.dispose();
  }
  recompress(document, options, draco);
  await writeDocument(io, document, output, checked, options, () => progress.step('writing'));
  clock.lap('writing');
  const keptApart = Object.entries(report.keptApart).map(([attribute, vertices]) => ({ attribute, vertices }));
  return {
    format: checked.binary ? 'GLB' : 'glTF',
    in: before.vertices,
    out: after.vertices,
    merged: drawn - after.vertices,
    unused: before.vertices - drawn,
    dropped: before.triangles - after.triangles,
    ...(keptApart.length > 0 ? { keptApart } : {}),
    timings: clock.timings,
  };
}

/** Compression for the output: the input's (Draco with its own settings), or none with --decompress. */
function recompress(document: Document, options: GltfOptions, draco: DracoSettings | undefined): void {
  const used = document.getRoot().listExtensionsUsed();
  for (const extension of used) {
    if (extension.extensionName === DRACO) {
      if (options.decompress) extension.dispose();
      else if (draco !== undefined) {
        (extension as KHRDracoMeshCompression).setEncoderOptions({
          method: draco.method,
          quantizationBits: draco.quantizationBits,
        });
      }
    }
    if (extension.extensionName === MESHOPT) {
      if (options.decompress) extension.dispose();
      // Without filters: meshopt's codecs are then lossless on the (already quantized) accessors.
      else
        (extension as EXTMeshoptCompression).setEncoderOptions({
          method: EXTMeshoptCompression.EncoderMethod.QUANTIZE,
        });
    }
  }
}

/** Vertices the primitives draw (their index's distinct values), each POSITION accessor's once per index. */
function drawnVertices(document: Document): number {
  let drawn = 0;
  const seen = new Set<string>();
  const ids = new Map<unknown, number>();
  const id = (x: unknown) => {
    if (!ids.has(x)) ids.set(x, ids.size);
    return ids.get(x)!;
  };
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (position === null) continue;
      const indices = primitive.getIndices();
      const key = `${id(position)}:${id(indices)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const array = indices?.getArray();
      if (array === null || array === undefined) {
        drawn += position.getCount();
        continue;
      }
      const used = new Uint8Array(position.getCount());
      for (let k = 0; k < array.length; k++) {
        const v = array[k]!;
        if (used[v] === 0) {
          used[v] = 1;
          drawn++;
        }
      }
    }
  }
  return drawn;
}

/** A file name made of what is safe in any file system: letters, digits, `.`, `_` and `-`. */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
}

/** The extension an image's data calls for. */
function imageExtension(texture: Texture): string {
  const type = texture.getMimeType();
  if (type === 'image/jpeg') return 'jpg';
  if (type === 'image/png') return 'png';
  if (type === 'image/webp') return 'webp';
  if (type === 'image/ktx2') return 'ktx2';
  if (type === 'image/avif') return 'avif';
  return extname(texture.getURI()).slice(1).toLowerCase() || 'bin';
}

/**
 * Names every buffer and image of a .gltf output after the output (see the
 * module notes): `<stem>.bin` (`<stem>_1.bin`, ... for more buffers),
 * `<stem>_<image name>.<ext>`, all distinct. Returns the files they will be.
 */
function nameResources(document: Document, output: string): string[] {
  const stem = basename(output, extname(output));
  const folder = dirname(output);
  const taken = new Set<string>([basename(output).toLowerCase()]);
  const unique = (name: string, extension: string) => {
    let candidate = `${name}.${extension}`;
    for (let k = 1; taken.has(candidate.toLowerCase()); k++) candidate = `${name}_${k}.${extension}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  };
  const names: string[] = [];
  for (const buffer of document.getRoot().listBuffers()) {
    const name = unique(stem, 'bin');
    buffer.setURI(name);
    names.push(name);
  }
  for (const [k, texture] of document.getRoot().listTextures().entries()) {
    let uri = texture.getURI();
    try {
      uri = decodeURIComponent(uri);
    } catch {
      // Kept as it is: only a name is made of it.
    }
    const original = safeName(basename(uri, extname(uri)) || texture.getName());
    const name = unique(`${stem}_${original || `image${k}`}`, imageExtension(texture));
    texture.setURI(name);
    names.push(name);
  }
  return names.map((name) => join(folder, name));
}

/** The files an existing .gltf at `output` refers to (its own resources, ours to replace), or none. */
function resourcesOfExisting(output: string): Set<string> {
  const files = new Set<string>();
  let json: GltfJson;
  try {
    json = JSON.parse(readFileSync(output, 'utf8'));
  } catch {
    return files;
  }
  for (const item of [
    ...(Array.isArray(json.buffers) ? json.buffers : []),
    ...(Array.isArray(json.images) ? json.images : []),
  ]) {
    const uri = (item as { uri?: unknown }).uri;
    if (typeof uri !== 'string' || uri.startsWith('data:') || /^[a-z][a-z0-9+.-]*:/i.test(uri)) continue;
    try {
      files.add(resolve(dirname(output), decodeURIComponent(uri)));
    } catch {
      // Not a name we would have written.
    }
  }
  return files;
}

/**
 * Refuses, before anything is written, a .gltf output whose buffers or
 * images would land on a file of the input, or on another existing file the
 * .gltf being replaced does not use, unless --force is given. A file of the
 * input is allowed only when the output is the input itself (welded in
 * place: its own .bin, read whole already, is replaced with it); two .gltf
 * sharing one .bin never have it replaced under the other without --force.
 */
function checkResourcePaths(files: string[], output: string, checked: CheckedGltf, force: boolean): void {
  const inputs = new Set(checked.files);
  const existing = resourcesOfExisting(output);
  const inPlace = resolve(output) === checked.files[0];
  for (const file of files) {
    const path = resolve(file);
    if (inputs.has(path) && !(inPlace && existing.has(path)) && !force) {
      throw new InputError(
        output,
        '',
        `cannot write ${file}: it is a file of the input ${checked.files[0]} (choose another output name, or --force to replace it)`,
      );
    }
    if (existsSync(path) && !existing.has(path) && !force) {
      throw new InputError(
        output,
        '',
        `cannot write ${file}: the file exists and the output does not use it (remove it, choose another output name, or --force to replace it)`,
      );
    }
  }
}

/** Writes through temporary files: every resource of a .gltf first, the .gltf or .glb itself last. */
async function writeDocument(
  io: NodeIO,
  document: Document,
  output: string,
  checked: CheckedGltf,
  options: GltfOptions,
  writing: () => void,
): Promise<void> {
  const outputs: AtomicOutput[] = [];
  try {
    if (extname(output).toLowerCase() === '.glb') {
      const glb = await io.writeBinary(document);
      writing();
      const out = new AtomicOutput(output);
      outputs.push(out);
      out.bytes(glb);
    } else {
      if (lstatSync(output, { throwIfNoEntry: false })?.isSymbolicLink()) {
        // Its .bin and images would go beside the link and the .gltf to the target, apart.
        throw new InputError(
          output,
          '',
          'cannot write: a .gltf output may not be a symbolic link (give the path it points to)',
        );
      }
      const files = nameResources(document, output);
      checkResourcePaths(files, output, checked, options.force);
      const { json, resources } = await io.writeJSON(document, { basename: basename(output, extname(output)) });
      writing();
      for (const [uri, data] of Object.entries(resources)) {
        const out = new AtomicOutput(join(dirname(output), uri));
        outputs.push(out);
        out.bytes(data);
      }
      const out = new AtomicOutput(output);
      outputs.push(out);
      out.bytes(Buffer.from(JSON.stringify(json, null, 2), 'utf8'));
    }
    for (const out of outputs) out.finish();
  } catch (error) {
    for (const out of outputs) out.abort();
    if (error instanceof InputError || error instanceof UsageError) throw error;
    throw new InputError(output, '', `cannot write as glTF: ${(error as Error).message.split('\n')[0]}`);
  }
  // Resources first, the .gltf or .glb last: a reader never finds a .gltf whose files are not there yet.
  for (const out of outputs) out.rename();
}

// WebGPU's flag constants, which browsers define but TypeScript 7.0's DOM library does not declare (it has
// WebGPU's interfaces and the GPU*Flags number types; TypeScript-DOM-lib-generator issue #2465). A file of
// your own like this one lets `GPUBufferUsage.STORAGE` compile there. Leave it out where @webgpu/types is in
// your types, or once your TypeScript's DOM library declares them: each declares these names too.
declare var GPUBufferUsage: {
  readonly MAP_READ: number;
  readonly MAP_WRITE: number;
  readonly COPY_SRC: number;
  readonly COPY_DST: number;
  readonly INDEX: number;
  readonly VERTEX: number;
  readonly UNIFORM: number;
  readonly STORAGE: number;
  readonly INDIRECT: number;
  readonly QUERY_RESOLVE: number;
};
declare var GPUShaderStage: { readonly VERTEX: number; readonly FRAGMENT: number; readonly COMPUTE: number };
declare var GPUMapMode: { readonly READ: number; readonly WRITE: number };
declare var GPUTextureUsage: {
  readonly COPY_SRC: number;
  readonly COPY_DST: number;
  readonly TEXTURE_BINDING: number;
  readonly STORAGE_BINDING: number;
  readonly RENDER_ATTACHMENT: number;
};
declare var GPUColorWrite: {
  readonly RED: number;
  readonly GREEN: number;
  readonly BLUE: number;
  readonly ALPHA: number;
  readonly ALL: number;
};

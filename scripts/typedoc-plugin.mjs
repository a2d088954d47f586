// TypeDoc plugin for the API site (typedoc.json's "plugin"). TypeDoc is not a dependency of the root package (it
// lives in tools/typescripts), so this module imports nothing from it and listens by the events' names.
//
// - A guide (a project document from docs/guides/) is named by its first heading ("Game broadphase") rather than
//   by its file name ("broadphase").
// - The classes share code through bases that are not exported (SpatialHashBase, PointHashBase, GPUPointGrid):
//   an implementation detail, not API. TypeDoc would mark each member they give as "Inherited from
//   SpatialHashBase.size", naming a page that does not exist; such members are shown as the class's own instead.
//   Members inherited from a documented class or interface keep their link.

/** A TypeDoc ReferenceType, as far as this plugin reads it: `reflection` is its target when that is documented. */
/** @typedef {{ reflection?: unknown } | undefined} Reference */

/** @param {{ converter: { on(event: string, listener: (...args: any[]) => void): void } }} app */
export function load(app) {
  app.converter.on('createDocument', (_context, document) => {
    const text = document.content.map((/** @type {{ text: string }} */ part) => part.text).join('');
    const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(text);
    if (heading) document.name = heading[1];
  });
  app.converter.on('resolveEnd', (context) => {
    for (const reflection of Object.values(context.project.reflections)) {
      for (const field of ['inheritedFrom', 'overwrites', 'implementationOf']) {
        /** @type {Reference} */
        const reference = reflection[field];
        if (reference !== undefined && reference.reflection === undefined) reflection[field] = undefined;
      }
    }
  });
}

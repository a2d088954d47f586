// TypeDoc plugin for the API site (typedoc.json's "plugin"). TypeDoc is not a dependency of the root package (it
// lives in tools/typescripts), so this module imports nothing from it and listens by the events' names.
//
// - A guide (a project document from docs/guides/) is named by its first heading ("Game broadphase") rather than
//   by its file name ("broadphase").
// - The classes share code through bases that are not exported (SpatialHashBase, PointHashBase, GPUPointGrid):
//   an implementation detail, not API. TypeDoc would mark each member they give as "Inherited from
//   SpatialHashBase.size", naming a page that does not exist; such members are shown as the class's own instead.
//   Members inherited from a documented class or interface keep their link.
// - A comment written once in such a base is shown on every class that inherits it, but TypeScript resolves its
//   `{@link bindGroup}` to one symbol, which TypeDoc then sends to the first class that has the member: on
//   GPUPointGrid3D's page it led to GPUPointGrid2D's. After TypeDoc resolves links, a link from a class's comment
//   to another class's member of a name the class has too goes to the class's own member, unless the link's text
//   names the other class (`{@link SpatialHash2D.queryBox}` from SpatialHash3D is meant).

const CLASS = 128; // ReflectionKind.Class

/** The class a reflection belongs to (itself, or the nearest parent that is a class), if any. */
function classOf(reflection) {
  for (let r = reflection; r !== undefined; r = r.parent) if (r.kind === CLASS) return r;
  return undefined;
}

/** Every list of display parts of a comment: its summary and each block tag's content. */
function partLists(comment) {
  return [comment.summary, ...comment.blockTags.map((tag) => tag.content)];
}

export function load(app) {
  app.converter.on('createDocument', (_context, document) => {
    const text = document.content.map((part) => part.text).join('');
    const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(text);
    if (heading) document.name = heading[1];
  });

  app.converter.on('resolveEnd', (context) => {
    for (const reflection of Object.values(context.project.reflections)) {
      for (const field of ['inheritedFrom', 'overwrites', 'implementationOf']) {
        const reference = reflection[field];
        if (reference !== undefined && reference.reflection === undefined) reflection[field] = undefined;
      }
    }
  });

  // After TypeDoc's own link resolution (which runs at priority -300).
  app.converter.on(
    'resolveEnd',
    (context) => {
      for (const reflection of Object.values(context.project.reflections)) {
        const owner = classOf(reflection);
        if (owner === undefined || reflection.comment === undefined) continue;
        for (const parts of partLists(reflection.comment)) {
          for (const part of parts) {
            const target = part.kind === 'inline-tag' ? part.target : undefined;
            const other = typeof target === 'object' && target !== null ? target.parent : undefined;
            if (other === undefined || other === owner || other.kind !== CLASS || part.text.includes(other.name))
              continue;
            const own = owner.children?.find((child) => child.name === target.name);
            if (own !== undefined) part.target = own;
          }
        }
      }
    },
    -400,
  );
}

// TypeDoc plugin for the API site (typedoc.json's "plugin"): a guide (a project document from docs/guides/) is
// named by its first heading ("Game broadphase") rather than by its file name ("broadphase"). TypeDoc is not a
// dependency of the root package (it lives in tools/typescripts), so this module imports nothing from it and
// listens by the event's name, Converter.EVENT_CREATE_DOCUMENT.

/** @param {{ converter: { on(event: string, listener: (context: unknown, document: { name: string, content: { text: string }[] }) => void): void } }} app */
export function load(app) {
  app.converter.on('createDocument', (_context, document) => {
    const text = document.content.map((part) => part.text).join('');
    const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(text);
    if (heading) document.name = heading[1];
  });
}

// d3-force-3d ships no type declarations and has no @types package. A file of your own like this one lets
// TypeScript (and JavaScript checked by it, `checkJs`) import it: every import is then `any`, which the nodes and
// forces of spatialhash/d3 do not need to be typed.
declare module 'd3-force-3d';

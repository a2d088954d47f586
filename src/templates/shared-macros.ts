// The macros every template has (scripts/expand-templates.mjs reads them before each template's own, which may not
// reuse their names). Not a template: it has no output.

// A line that only 3D has (its z: a coordinate, a bound, a key, a test): in 2D nothing, not even a blank line.
// For one line; a difference of several lines, or of other lines in 2D, is an //#if D === 3 block.
//#macro all2 in3D(line)
//#endmacro
//#macro all3 in3D(line)
line
//#endmacro

// AssemblyScript's @inline for a function both paths call (nothing in TypeScript).
//#macro js inlined()
//#endmacro
//#macro as inlined()
// @ts-ignore: decorator
@inline
//#endmacro

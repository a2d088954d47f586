// The app runs on Node but loads no @types/node (types: []), to check the package alone.
declare const console: { log(message: string): void };
